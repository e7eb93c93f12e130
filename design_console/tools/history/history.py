"""Version-history tools: list versions, read a file as of a version, diff two versions, changelog, blame.

Everything goes through the design API (``GET /v1/files/:key/versions``, ``/v1/files/:key?version=``,
``/v1/files/:key/nodes?version=``). A file at a pinned version never changes, so those reads use the pinned cache:
a second diff, changelog or blame over the same versions costs no requests. Results stay within a model's budget
and carry a cursor when there is more.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from design_console.engines import shaping
from design_console.engines.history_diff import (
    DEFAULT_BUDGET_CHARS,
    Change,
    Mode,
    bisect_history,
    blame_fingerprint,
    changelog_markdown,
    component_property,
    count_changes,
    describe,
    diff_files,
    diff_trees,
    find_node,
    fit_tree,
    iter_titles,
    page_by_budget,
    version_label,
)
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import Cursor, FileArgs, NodeId
from design_console.tools.base import api_read, ok, text
from design_console.tools.context import ApiContext
from design_console.tools.files import file_key_for

#: The design API's largest version page.
VERSIONS_PAGE_SIZE = 50
#: Version pages read per call when autosaves are skipped, so a long run of autosaves cannot eat the rate limit.
MAX_VERSION_PAGES = 8
#: Depth of the file read for a page-level diff: pages and their top-level layers.
PAGE_DIFF_DEPTH = 2
DEFAULT_READ_DEPTH = 2
#: Versions listed in a changelog's "versions in between" (named ones only, newest first).
MAX_BETWEEN = 20
MAX_PLUGIN_EDITS = 50
MAX_EDIT_VALUE_CHARS = 300

VersionId = Annotated[str, Meta(pattern=r"^[0-9]{1,24}$", description="Id from design_get_file_versions")]
VersionOrCurrent = Annotated[str, Meta(pattern=r"^([0-9]{1,24}|current)$", description='Version id or "current"')]
DiffMode = Annotated[Mode, Meta(description="summary: counts+titles; standard: values cut short")]


def is_autosave(version: dict[str, Any]) -> bool:
    """Versions the editor saved by itself carry neither a label nor a description."""
    return not version.get("label") and not version.get("description")


def compact_version(version: dict[str, Any]) -> dict[str, Any]:
    """A version entry without empty fields, its author as a handle."""
    out: dict[str, Any] = {"id": str(version.get("id", "")), "created_at": version.get("created_at")}
    for field in ("label", "description"):
        if version.get(field):
            out[field] = version[field]
    handle = (version.get("user") or {}).get("handle")
    if handle:
        out["user"] = handle
    if is_autosave(version):
        out["autosave"] = True
    return out


async def _version_page(ctx: ApiContext, key: str, before: str | None) -> list[dict[str, Any]]:
    body = await ctx.api.request(
        "GET",
        f"/v1/files/{key}/versions",
        params={"page_size": VERSIONS_PAGE_SIZE, "before": before},
        cache="short",
    )
    versions = body.get("versions") if isinstance(body, dict) else None
    if not isinstance(versions, list):
        raise DesignError(ErrorCode.BAD_RESPONSE, "The design API's version list has no versions array.", "Try again.")
    return [v for v in versions if isinstance(v, dict) and v.get("id") is not None]


async def list_versions(
    ctx: ApiContext, key: str, *, limit: int, include_autosaves: bool, before: str | None = None, max_pages: int = 0
) -> tuple[list[dict[str, Any]], str | None]:
    """Up to ``limit`` versions older than ``before`` (newest first), and the cursor of the rest (None: no more).

    Reads at most ``max_pages`` pages (0: as many as ``limit`` needs).
    """
    found: list[dict[str, Any]] = []
    pages = 0
    while True:
        page = await _version_page(ctx, key, before)
        pages += 1
        for index, version in enumerate(page):
            before = str(version["id"])
            if include_autosaves or not is_autosave(version):
                found.append(version)
            if len(found) == limit:
                more = index < len(page) - 1 or len(page) == VERSIONS_PAGE_SIZE
                return found, before if more else None
        if len(page) < VERSIONS_PAGE_SIZE:
            return found, None
        if max_pages and pages >= max_pages:
            return found, before


async def _read_at(
    ctx: ApiContext, path: str, params: dict[str, Any], version: str | None, part: str, missing: str
) -> dict[str, Any]:
    """A design API read of the file as of ``version`` ("current" or None: as it is now), from the pinned cache when
    a version is named; its answer must hold a ``part`` object (``missing`` says what was wrong otherwise)."""
    if version and version != "current":
        params = {**params, "version": version}
    body = await ctx.api.request("GET", path, params=params, cache="pinned" if "version" in params else "short")
    if not isinstance(body, dict) or not isinstance(body.get(part), dict):
        raise DesignError(ErrorCode.BAD_RESPONSE, f"The design API's {missing}.", "Try again.")
    return body


async def _file_at(ctx: ApiContext, key: str, version: str | None, depth: int | None) -> dict[str, Any]:
    return await _read_at(ctx, f"/v1/files/{key}", {"depth": depth}, version, "document", "file has no document")


async def _nodes_at(
    ctx: ApiContext, key: str, version: str | None, ids: list[str], depth: int | None = None
) -> dict[str, Any]:
    params = {"ids": ",".join(ids), "depth": depth}
    return await _read_at(ctx, f"/v1/files/{key}/nodes", params, version, "nodes", "node answer has no nodes map")


def _documents(body: dict[str, Any], ids: list[str]) -> dict[str, dict[str, Any] | None]:
    nodes = body.get("nodes") or {}
    out: dict[str, dict[str, Any] | None] = {}
    for node_id in ids:
        entry = nodes.get(node_id)
        doc = entry.get("document") if isinstance(entry, dict) else None
        out[node_id] = doc if isinstance(doc, dict) else None
    return out


def _budget_note(next_cursor: str | None, total: int, shown: int) -> dict[str, Any]:
    if next_cursor is None:
        return {}
    return {
        "nextCursor": next_cursor,
        "note": f"Showing {shown} of the remaining {total} entries to fit the result budget; "
        "call again with cursor=nextCursor for more, or narrow with component_ids or mode=summary.",
    }


# Versions -------------------------------------------------------------------------------------------------------


class GetFileVersionsArgs(FileArgs, kw_only=True):
    include_autosaves: bool = False
    max_versions: Annotated[int, Meta(ge=1, le=200)] = 50
    cursor: Cursor | None = None


@api_read("design_get_file_versions", "A file's saved versions, newest first (autosaves if include_autosaves).")
async def get_file_versions(ctx: ApiContext, args: GetFileVersionsArgs) -> ToolOutput:
    key = file_key_for(ctx, args.fileUrl)
    digest = shaping.request_digest(key, args.include_autosaves)
    # The cursor holds the id of the last version handed out: the next page lists the ones older than it.
    before = shaping.decode_cursor(args.cursor, "file_versions", digest) if args.cursor else None
    if before is not None and not isinstance(before, str):
        raise DesignError(
            ErrorCode.BAD_ARGUMENT, "The cursor is not one this tool handed out.", "Call again without cursor."
        )
    versions, last = await list_versions(
        ctx,
        key,
        limit=args.max_versions,
        include_autosaves=args.include_autosaves,
        before=before,
        max_pages=0 if args.include_autosaves else MAX_VERSION_PAGES,
    )
    entries = [compact_version(v) for v in versions]
    page, rest = shaping.fit_items(entries, 0, DEFAULT_BUDGET_CHARS)
    if rest is not None:
        last = page[-1]["id"]
    result: dict[str, Any] = {"fileKey": key, "count": len(page), "versions": page}
    if not page and last is not None:
        result["note"] = "No named versions in this stretch of history; call again with cursor to look further back."
    next_cursor = shaping.encode_cursor("file_versions", digest, last) if last is not None else None
    return ok(shaping.paged(result, next_cursor))


class GetFileAtVersionArgs(FileArgs, kw_only=True):
    version_id: VersionId
    node_ids: Annotated[list[NodeId], Meta(max_length=50)] | None = None
    depth: Annotated[int, Meta(ge=1, le=10)] | None = None


@api_read("design_get_file_at_version", "A file, or node_ids, at a version (default: pages, top-level layers).")
async def get_file_at_version(ctx: ApiContext, args: GetFileAtVersionArgs) -> ToolOutput:
    key = file_key_for(ctx, args.fileUrl)
    result: dict[str, Any] = {"fileKey": key, "version": args.version_id}
    budget = DEFAULT_BUDGET_CHARS - 600
    if args.node_ids:
        body = await _nodes_at(ctx, key, args.version_id, args.node_ids, args.depth)
        docs = _documents(body, args.node_ids)
        missing = [node_id for node_id, doc in docs.items() if doc is None]
        tree, note = fit_tree({k: v for k, v in docs.items() if v is not None}, budget_chars=budget)
        result.update(name=body.get("name"), lastModified=body.get("lastModified"), nodes=tree)
        if missing:
            result["missing"] = missing
    else:
        body = await _file_at(ctx, key, args.version_id, args.depth or DEFAULT_READ_DEPTH)
        tree, note = fit_tree(body["document"], budget_chars=budget)
        result.update(
            name=body.get("name"),
            lastModified=body.get("lastModified"),
            components=len(body.get("components") or {}),
            componentSets=len(body.get("componentSets") or {}),
            styles=len(body.get("styles") or {}),
            document=tree,
        )
    if note:
        result["note"] = note
    return ok(result)


# Diffs ----------------------------------------------------------------------------------------------------------


class _Diff(msgspec.Struct, kw_only=True):
    key: str
    name: str
    changes: list[Change]
    component_ids: list[str]


async def _diff(
    ctx: ApiContext, key: str, old_version: str, new_version: str, component_ids: list[str] | None, mode: Mode
) -> _Diff:
    if old_version == new_version:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            "from and to are the same version.",
            "Pick two different versions (design_get_file_versions).",
        )
    await ctx.progress(0, 2 + bool(component_ids), "reading the older version")
    old = await _file_at(ctx, key, old_version, PAGE_DIFF_DEPTH)
    await ctx.progress(1, 2 + bool(component_ids), "reading the newer version")
    new = await _file_at(ctx, key, new_version, PAGE_DIFF_DEPTH)
    changes = diff_files(old, new, mode=mode)
    if component_ids:
        await ctx.progress(2, 3, "reading the components")
        before = _documents(await _nodes_at(ctx, key, old_version, component_ids), component_ids)
        after = _documents(await _nodes_at(ctx, key, new_version, component_ids), component_ids)
        for node_id in component_ids:
            doc = after[node_id] or before[node_id]
            if doc is None:
                raise DesignError(
                    ErrorCode.NOT_FOUND,
                    f"Node {node_id} exists in neither version.",
                    "Check the id with design_get_file_at_version or design_search_components.",
                )
            scope = f'component "{doc.get("name", node_id)}" ({node_id})'
            changes.extend(diff_trees(before[node_id], after[node_id], scope=scope, mode=mode))
    name = str(new.get("name") or old.get("name") or key)
    return _Diff(key=key, name=name, changes=changes, component_ids=component_ids or [])


def _diff_result(diff: _Diff, old: str, new: str, mode: Mode, cursor: str | None) -> dict[str, Any]:
    totals = count_changes(diff.changes)
    items: list[Any] = list(iter_titles(diff.changes)) if mode == "summary" else list(diff.changes)
    digest = shaping.request_digest(diff.key, old, new, diff.component_ids, mode)
    page, rest, start = page_by_budget(
        items, scope="history-diff", digest=digest, cursor=cursor, budget_chars=DEFAULT_BUDGET_CHARS - 1000
    )
    result: dict[str, Any] = {
        "fileKey": diff.key,
        "file": diff.name,
        "from": old,
        "to": new,
        "mode": mode,
        "summary": totals,
        "changes": page,
    }
    if mode == "summary" and len(diff.changes) > len(items):
        result["note"] = f"Listing the first {len(items)} changes; use mode=standard for all of them."
    result.update(_budget_note(rest, len(items) - start, len(page)))
    return result


def _epoch_ms(stamp: Any) -> float | None:
    try:
        return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return None


async def _plugin_edits(ctx: ApiContext, key: str, old: str, new: str) -> list[dict[str, Any]]:
    """Edits of names, descriptions, annotations and component properties the plugin saw live in this file between
    the two versions; version history does not show them until a version is saved. Empty without a plugin."""
    changes: list[dict[str, Any]] = await ctx.state("metadata_changes", key)
    if not changes:
        return []
    old_entry, new_entry, _ = await _version_context(ctx, key, old, new)
    start = _epoch_ms(old_entry.get("created_at")) if old_entry else None
    end = _epoch_ms(new_entry.get("created_at")) if new_entry and new != "current" else None
    edits = [
        {
            "nodeId": c["nodeId"],
            "node": c["nodeName"],
            "field": c["field"],
            "value": shaping.cut(c["newValue"], MAX_EDIT_VALUE_CHARS),
            "at": c["timestamp"],
        }
        for c in changes
        if (start is None or c["timestamp"] >= start) and (end is None or c["timestamp"] <= end)
    ]
    return edits[-MAX_PLUGIN_EDITS:]


class DiffVersionsArgs(FileArgs, kw_only=True):
    from_version: VersionId
    to_version: VersionOrCurrent
    component_ids: Annotated[list[NodeId], Meta(max_length=20)] | None = None
    mode: DiffMode = "standard"
    cursor: Cursor | None = None


@api_read(
    "design_diff_versions",
    "Diff two versions: pages and top-level layers added/removed/moved/edited, catalog changes; component_ids: deep "
    "diffs.",
)
async def diff_versions(ctx: ApiContext, args: DiffVersionsArgs) -> ToolOutput:
    key = file_key_for(ctx, args.fileUrl)
    diff = await _diff(ctx, key, args.from_version, args.to_version, args.component_ids, args.mode)
    result = _diff_result(diff, args.from_version, args.to_version, args.mode, args.cursor)
    if edits := await _plugin_edits(ctx, key, args.from_version, args.to_version):
        result["pluginEdits"] = edits
    return ok(result)


class ChangesSinceArgs(FileArgs, kw_only=True):
    since_version: VersionId
    component_ids: Annotated[list[NodeId], Meta(max_length=20)] | None = None
    mode: DiffMode = "standard"
    cursor: Cursor | None = None


@api_read("design_get_changes_since_version", "design_diff_versions from since_version to now.")
async def get_changes_since_version(ctx: ApiContext, args: ChangesSinceArgs) -> ToolOutput:
    key = file_key_for(ctx, args.fileUrl)
    diff = await _diff(ctx, key, args.since_version, "current", args.component_ids, args.mode)
    result = _diff_result(diff, args.since_version, "current", args.mode, args.cursor)
    if edits := await _plugin_edits(ctx, key, args.since_version, "current"):
        result["pluginEdits"] = edits
    return ok(result)


class ChangelogArgs(DiffVersionsArgs, kw_only=True):
    pass


async def _version_context(
    ctx: ApiContext, key: str, old: str, new: str
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, list[dict[str, Any]]]:
    """The two versions' entries and the named versions between them, from at most two pages of history."""
    versions, _ = await list_versions(ctx, key, limit=2 * VERSIONS_PAGE_SIZE, include_autosaves=True, max_pages=2)
    by_id = {str(v["id"]): v for v in versions}
    ids = [str(v["id"]) for v in versions]
    between: list[dict[str, Any]] = []
    if old in by_id:
        upper = ids.index(new) + 1 if new in by_id else 0
        between = [v for v in versions[upper : ids.index(old)] if not is_autosave(v)][:MAX_BETWEEN]
    return by_id.get(old), by_id.get(new), between


@api_read(
    "design_generate_changelog",
    "Markdown changelog of two versions: named versions between, changes by page, component, catalog.",
)
async def generate_changelog(ctx: ApiContext, args: ChangelogArgs) -> ToolOutput:
    key = file_key_for(ctx, args.fileUrl)
    diff = await _diff(ctx, key, args.from_version, args.to_version, args.component_ids, args.mode)
    old_entry, new_entry, between = await _version_context(ctx, key, args.from_version, args.to_version)
    totals = count_changes(diff.changes)
    digest = shaping.request_digest(key, args.from_version, args.to_version, args.component_ids, args.mode)
    page, rest, start = page_by_budget(
        diff.changes,
        scope="changelog",
        digest=digest,
        cursor=args.cursor,
        budget_chars=DEFAULT_BUDGET_CHARS - 3000,
    )
    markdown = changelog_markdown(
        file_name=diff.name,
        from_label=version_label(old_entry, f"version {args.from_version}"),
        to_label="the current file"
        if args.to_version == "current"
        else version_label(new_entry, f"version {args.to_version}"),
        changes=page,
        totals=totals,
        mode=args.mode,
        between=() if args.cursor else between,
    )
    edits = [] if args.cursor else await _plugin_edits(ctx, key, args.from_version, args.to_version)
    if edits:
        markdown += "\n## Edits seen live by the plugin\n\n" + "".join(
            f"- {e['node']} ({e['nodeId']}): {e['field']} → {msgspec.json.encode(e['value']).decode()}\n" for e in edits
        )
    if rest is not None:
        left = len(diff.changes) - start - len(page)
        markdown += (
            f'\n_{left} more changes not shown; call again with cursor="{rest}" for the next part, '
            "or narrow with component_ids._\n"
        )
    return text(markdown)


# Blame ----------------------------------------------------------------------------------------------------------


class BlameNodeArgs(FileArgs, kw_only=True):
    node_id: NodeId | None = None
    target_component_property: Annotated[str, Meta(min_length=1, max_length=200)] | None = None
    target_child_node_id: NodeId | None = None
    start_version: VersionOrCurrent = "current"
    max_versions_to_walk: Annotated[int, Meta(ge=2, le=500)] = 200
    include_autosaves: bool = True


@api_read(
    "design_blame_node",
    "Binary-search versions for the one that set a node's current state (or a component property's or child's).",
)
async def blame_node(ctx: ApiContext, args: BlameNodeArgs) -> ToolOutput:
    node_id = args.node_id or args.target_child_node_id
    if not node_id:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT, "design_blame_node needs node_id.", "Pass the id of the node to trace."
        )
    child = args.target_child_node_id if args.target_child_node_id != node_id else None
    prop = args.target_component_property or ""
    key = file_key_for(ctx, args.fileUrl)
    start = None if args.start_version == "current" else args.start_version
    await ctx.progress(0, None, "reading the version history")
    older, _ = await list_versions(
        ctx,
        key,
        limit=args.max_versions_to_walk - 1,
        include_autosaves=args.include_autosaves,
        before=start,
        max_pages=0 if args.include_autosaves else 2 * MAX_VERSION_PAGES,
    )
    sequence: list[str | None] = [start, *(str(v["id"]) for v in older)]
    entries = {str(v["id"]): v for v in older}
    nodes: dict[int, dict[str, Any] | None] = {}

    async def node_at(index: int) -> dict[str, Any] | None:
        if index not in nodes:
            body = await _nodes_at(ctx, key, sequence[index], [node_id])
            nodes[index] = _documents(body, [node_id])[node_id]
        return nodes[index]

    target = blame_fingerprint(await node_at(0), prop=prop, child_id=child or "")
    if target is None:
        what = f"component property {prop!r} of node {node_id}" if prop else f"node {child or node_id}"
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"The {what} does not exist at {args.start_version}.",
            "Check the ids at that version with design_get_file_at_version.",
        )

    async def same(index: int) -> bool:
        return blame_fingerprint(await node_at(index), prop=prop, child_id=child or "") == target

    async def report(done: int, total: int) -> None:
        await ctx.progress(done, total, f"comparing version {done} of about {total}")

    found = await bisect_history(len(sequence), same, report)

    def info(index: int) -> dict[str, Any]:
        version_id = sequence[index]
        if version_id is None:
            return {"id": "current"}
        return compact_version(entries[version_id]) if version_id in entries else {"id": version_id}

    result: dict[str, Any] = {
        "fileKey": key,
        "nodeId": node_id,
        "walked": len(sequence),
        "probes": found.probes,
    }
    if prop:
        result["property"] = prop
    if child:
        result["childNodeId"] = child
    if found.previous is None:
        result["unchangedSince"] = info(found.introduced)
        result["note"] = (
            f"The target is the same in all {len(sequence)} versions walked, so the change is older; raise "
            "max_versions_to_walk or pass an older start_version."
        )
        return ok(result)
    result["introducedIn"] = info(found.introduced)
    result["previousVersion"] = info(found.previous)
    if found.introduced == 0 and start is None:
        result["introducedIn"]["note"] = "changed after the newest saved version"
    result["change"] = _blame_change(await node_at(found.previous), await node_at(found.introduced), prop, child)
    result["note"] = "Found by binary search: a change that was later undone between these versions can be missed."
    return ok(result)


def _blame_change(
    old: dict[str, Any] | None, new: dict[str, Any] | None, prop: str, child: str | None
) -> dict[str, Any] | list[Any]:
    if child:
        old = dict(find_node(old, child) or {}) or None
        new = dict(find_node(new, child) or {}) or None
    if prop:
        return {
            "property": prop,
            "before": describe(component_property(old or {}, prop), 600),
            "after": describe(component_property(new or {}, prop), 600),
        }
    changes = diff_trees(old, new, scope="node", mode="standard")
    page, rest = shaping.fit_items(changes, 0, DEFAULT_BUDGET_CHARS - 2000)
    return [*page, f"{len(changes) - len(page)} more changes not shown"] if rest else page
