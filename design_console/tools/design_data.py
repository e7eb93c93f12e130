"""Read tools that go through the design API: file data, variables, styles, components, libraries, renders.

They run in the api worker; ``ctx.api`` is its :class:`~design_console.clients.design_api.DesignApi`. Every read
takes ``maxTokens`` (a size budget) and, where a result can be long, a ``cursor`` to fetch the next part.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

import msgspec

from design_console.clients.design_api import parse_file_key
from design_console.errors import DesignError
from design_console.protocol import ToolOutput
from design_console.tools import codebase, shaping, token_code, token_sources
from design_console.tools.base import Args, ok, tool
from design_console.tools.files import file_key_for

MaxTokens = Annotated[int, msgspec.Meta(ge=shaping.MIN_RESULT_TOKENS, le=20_000)] | None
VariablesVerbosity = Literal["inventory", "summary", "standard", "full"]
_NODE_ID = re.compile(r"^I?-?\d+[:-]\d+(;-?\d+[:-]\d+)*$")

# The plugin caps every array it returns at 200 items, so variables are read a page at a time; collections carry
# their variable count instead of the id list, which can be longer than that cap.
_VARIABLES_PAGE = 150
_VARIABLES_CODE = """
const offset = %d, size = %d;
const all = await figma.variables.getLocalVariablesAsync();
const collections = offset > 0 ? [] : (await figma.variables.getLocalVariableCollectionsAsync()).map(c => ({
  id: c.id, name: c.name, key: c.key, modes: c.modes, defaultModeId: c.defaultModeId,
  variableCount: c.variableIds.length, remote: c.remote}));
return {
  total: all.length,
  variableCollections: collections,
  variables: all.slice(offset, offset + size).map(v => ({id: v.id, name: v.name, key: v.key,
    variableCollectionId: v.variableCollectionId, resolvedType: v.resolvedType, valuesByMode: v.valuesByMode,
    description: v.description, scopes: v.scopes, codeSyntax: v.codeSyntax,
    hiddenFromPublishing: v.hiddenFromPublishing, remote: v.remote})),
};
"""


async def _variables_by_pages(ctx: Any, key: str) -> dict[str, Any] | None:
    """Every local variable and collection through EXECUTE_CODE, page by page; None on an unexpected reply."""
    collections: list[Any] = []
    variables: list[Any] = []
    offset = 0
    while True:
        code = _VARIABLES_CODE % (offset, _VARIABLES_PAGE)
        reply = await ctx.bridge("EXECUTE_CODE", {"code": code, "timeout": 20_000}, file_key=key)
        data = reply.get("result", reply)
        if not isinstance(data, dict) or not isinstance(data.get("variables"), list):
            return None
        if offset == 0:
            collections = data.get("variableCollections") or []
        variables.extend(data["variables"])
        offset += _VARIABLES_PAGE
        if offset >= int(data.get("total") or 0) or not data["variables"]:
            return {"variableCollections": collections, "variables": variables}


def node_id(value: str) -> str:
    """A node id as the design API wants it (``1:2``), from that form or a URL's ``node-id=1-2``."""
    text = value.strip()
    if "node-id=" in text:
        text = re.split(r"node-id=", text, maxsplit=1)[1].split("&")[0]
    if not _NODE_ID.match(text):
        raise DesignError(
            "bad_argument", f"{value[:80]!r} is not a node id.", "Node ids look like 1:2 (or 1-2 in URLs)."
        )
    return text.replace("-", ":") if ":" not in text else text


def _file_info(key: str, head: Any) -> dict[str, Any]:
    info = {"key": key, "name": head.name, "version": head.version, "lastModified": head.lastModified}
    if getattr(head, "editorType", ""):
        info["editorType"] = head.editorType
    return info


def _paged(result: dict[str, Any], cursor: str | None) -> dict[str, Any]:
    if cursor:
        result["cursor"] = cursor
        result["hasMore"] = True
    else:
        result["hasMore"] = False
    return result


# design_get_file_data ---------------------------------------------------------------------------------------------


class FileDataArgs(Args):
    fileUrl: str | None = None
    depth: Annotated[int, msgspec.Meta(ge=0, le=3)] = 1
    verbosity: Literal["summary", "standard", "full"] = "summary"
    nodeIds: list[str] | None = None
    enrich: bool = False
    maxTokens: MaxTokens = None
    cursor: str | None = None


async def _walk_file(
    ctx: Any,
    key: str,
    scope: str,
    *,
    depth: int,
    verbosity: shaping.Verbosity,
    node_ids: list[str] | None,
    max_tokens: int | None,
    cursor: str | None,
    enrich: bool = False,
    extra_params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Fetch a file (or some of its nodes) and return one part of its shaped tree with a cursor to the next."""
    ids = [node_id(n) for n in node_ids] if node_ids else None
    if ids:
        params = {"ids": ",".join(ids), "depth": depth or None, **(extra_params or {})}
        data = await ctx.api.request_bytes("GET", f"/v1/files/{key}/nodes", params=params)
        head = shaping.decode_head(data, shaping.NodesHead)
        missing = [i for i in ids if i not in head.nodes or bytes(head.nodes[i]).strip() == b"null"]
        if missing:
            raise DesignError("not_found", f"No node {', '.join(missing)} in this file.", "Check the node ids.")
        roots = [msgspec.json.decode(head.nodes[i], type=dict[str, msgspec.Raw])["document"] for i in ids]
        lookup: dict[str, msgspec.Raw] = {}
    else:
        data = await ctx.api.request_bytes(
            "GET", f"/v1/files/{key}", params={"depth": depth + 1, **(extra_params or {})}
        )
        head = shaping.decode_head(data, shaping.FileHead)
        _, roots = shaping.open_node(head.document)
        lookup = head.components
    digest = shaping.request_digest(key, depth, verbosity, ids, enrich)
    start = shaping.decode_cursor(cursor, scope, digest, head.version) if cursor else []
    annotate = _component_names(lookup) if enrich and lookup else None
    part = shaping.walk_tree(
        roots,
        start=start,
        max_depth=depth,
        verbosity=verbosity,
        budget=shaping.budget_chars(max_tokens),
        annotate=annotate,
    )
    result: dict[str, Any] = {"file": _file_info(key, head), "depth": depth, "verbosity": verbosity}
    if not cursor and isinstance(head, shaping.FileHead):
        result["counts"] = {
            "pages": len(roots),
            "components": len(head.components),
            "componentSets": len(head.componentSets),
            "styles": len(head.styles),
        }
    result["nodes"] = part.nodes
    next_cursor = shaping.encode_cursor(scope, digest, part.next_path, head.version) if part.next_path else None
    return _paged(result, next_cursor)


def _component_names(components: dict[str, msgspec.Raw]) -> Callable[[dict[str, Any]], None]:
    def annotate(record: dict[str, Any]) -> None:
        component = components.get(record.get("componentId", ""))
        if component is not None:
            record["componentName"] = shaping.raw_value(component).get("name")

    return annotate


@tool(
    "design_get_file_data",
    "File structure from the design API: pages and nodes to `depth` (0-3 below pages), in summary/standard/full "
    "verbosity, within maxTokens; pass `cursor` from the answer to read the next part.",
    args=FileDataArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_file_data(ctx: Any, args: FileDataArgs) -> ToolOutput:
    """Shaped file tree, one budget-sized part at a time."""
    key = file_key_for(ctx, args.fileUrl)
    return ok(
        await _walk_file(
            ctx,
            key,
            "file_data",
            depth=args.depth,
            verbosity=args.verbosity,
            node_ids=args.nodeIds,
            max_tokens=args.maxTokens,
            cursor=args.cursor,
            enrich=args.enrich,
        )
    )


class FileForPluginArgs(Args):
    fileUrl: str | None = None
    depth: Annotated[int, msgspec.Meta(ge=0, le=5)] = 2
    nodeIds: list[str] | None = None
    maxTokens: MaxTokens = None
    cursor: str | None = None


@tool(
    "design_get_file_for_plugin",
    "File tree reduced to ids, names, types, structure and shared plugin data (depth ≤5), within maxTokens; "
    "pass `cursor` to continue.",
    args=FileForPluginArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_file_for_plugin(ctx: Any, args: FileForPluginArgs) -> ToolOutput:
    """Structure and plugin data of a file."""
    key = file_key_for(ctx, args.fileUrl)
    return ok(
        await _walk_file(
            ctx,
            key,
            "file_for_plugin",
            depth=args.depth,
            verbosity="plugin",
            node_ids=args.nodeIds,
            max_tokens=args.maxTokens,
            cursor=args.cursor,
            extra_params={"plugin_data": "shared"},
        )
    )


# design_get_variables ---------------------------------------------------------------------------------------------


ExportFormats = Annotated[list[token_code.ExportFormat], msgspec.Meta(min_length=1, max_length=5)]
ALL_EXPORTS: list[token_code.ExportFormat] = ["css", "sass", "tailwind", "typescript", "json"]
#: What fit_items already keeps back for the envelope, of which the result built so far is a part.
ENVELOPE_ROOM = shaping.ENVELOPE_CHARS // 2


class VariablesArgs(Args):
    fileUrl: str | None = None
    includePublished: bool = True
    verbosity: VariablesVerbosity = "standard"
    enrich: bool = False
    include_usage: bool = False
    include_dependencies: bool = False
    include_exports: bool = False
    export_formats: ExportFormats | None = None
    format: Literal["summary", "filtered", "full"] = "filtered"
    collection: str | None = None
    namePattern: str | None = None
    mode: str | None = None
    returnAsLinks: bool = False
    refreshCache: bool = False
    useConsoleFallback: bool = True
    parseFromConsole: bool = False
    resolveAliases: bool = False
    page: Annotated[int, msgspec.Meta(ge=1)] = 1
    pageSize: Annotated[int, msgspec.Meta(ge=1, le=100)] = 50
    maxTokens: MaxTokens = None
    cursor: str | None = None


async def _variables_from_plugin(ctx: Any, key: str, refresh: bool) -> tuple[dict[str, Any], str] | None:
    """Variables from the plugin (its snapshot, or a fresh read); None when no plugin is connected. Other plugin
    failures raise."""
    try:
        if not refresh:
            found = await _plugin_snapshot(ctx, key)
            if found is not None:
                return found, "plugin"
        data = await _variables_by_pages(ctx, key)
        if data is not None:
            return data, "plugin"
    except DesignError as exc:
        if exc.code != "not_connected":
            raise
    return None


async def _plugin_snapshot(ctx: Any, key: str) -> dict[str, Any] | None:
    """The plugin's last VARIABLES_DATA snapshot of the file (GET_VARIABLES_DATA); None when it has none.
    Raises ``not_connected`` when no plugin is connected."""
    try:
        reply = await ctx.bridge("GET_VARIABLES_DATA", {}, file_key=key)
    except DesignError as exc:
        if exc.code == "not_connected":
            raise
        return None
    return reply if isinstance(reply, dict) and reply.get("variables") is not None else None


def _snapshot_note(snapshot: dict[str, Any], why: str) -> str:
    taken = snapshot.get("timestamp")
    age = ""
    if isinstance(taken, int | float) and taken > 0:
        age = f", taken {max(0, round(time.time() - taken / 1000))} s ago"
    return f"{why} Answered from the plugin's last variables snapshot{age}; it may be out of date."


async def _load_variables(ctx: Any, key: str, args: VariablesArgs) -> tuple[dict[str, Any], str, list[str]]:
    """The raw variables and where they came from: plugin, design API, or (when neither can answer and
    useConsoleFallback) the plugin's last snapshot. A design API refusal on plan grounds raises ``forbidden``."""
    if args.parseFromConsole:
        try:
            snapshot = await _plugin_snapshot(ctx, key)
        except DesignError as exc:
            raise DesignError(
                "not_connected",
                "parseFromConsole reads the Desktop Bridge plugin's variables snapshot, and no plugin is connected "
                f"({exc.message}).",
                "Run the Desktop Bridge plugin in the file, or call without parseFromConsole to use the design API.",
            ) from None
        if snapshot is None:
            raise DesignError(
                "not_found",
                "The Desktop Bridge plugin has no variables snapshot of this file.",
                "Call again with refreshCache=true (without parseFromConsole) for a fresh read.",
            )
        return snapshot, "plugin_snapshot", []
    plugin_failure: DesignError | None = None
    try:
        found = await _variables_from_plugin(ctx, key, args.refreshCache)
    except DesignError as exc:
        found, plugin_failure = None, exc
    if found is not None:
        return found[0], found[1], []
    try:
        body = await ctx.api.request(
            "GET", f"/v1/files/{key}/variables/local", cache="none" if args.refreshCache else "short"
        )
    except DesignError as exc:
        # The snapshot is only worth asking for when the plugin is there and a fresh read did not work.
        if args.useConsoleFallback and plugin_failure is not None:
            snapshot = await _plugin_snapshot(ctx, key) if args.refreshCache else None
            if snapshot is not None:
                why = f"The plugin's fresh read failed ({plugin_failure.message}); the design API too ({exc.message})."
                return snapshot, "plugin_snapshot", [_snapshot_note(snapshot, why)]
        raise
    notes = [f"The plugin's read failed ({plugin_failure.message}); used the design API."] if plugin_failure else []
    return body.get("meta", {}), "design_api", notes


def _as_list(value: Any) -> list[dict[str, Any]]:
    return list(value.values()) if isinstance(value, dict) else list(value or [])


def _render_value(value: Any, names: dict[str, str], resolve: Any) -> Any:
    if isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS":
        target = value.get("id", "")
        if resolve is not None:
            return resolve(target)
        return {"alias": names.get(target, target)}
    if isinstance(value, dict) and {"r", "g", "b"} <= value.keys():
        return shaping.hex_color(value)
    return value


class _Selection(msgspec.Struct, kw_only=True):
    """The variables a call is about, before paging: the raw ones, their collections, and the shaped items."""

    variables: list[dict[str, Any]]
    collections: dict[str, dict[str, Any]]
    items: list[dict[str, Any]]
    summary: list[dict[str, Any]]


def _select(raw: dict[str, Any], args: VariablesArgs) -> _Selection:
    variables = _as_list(raw.get("variables"))
    collections = {c["id"]: c for c in _as_list(raw.get("variableCollections"))}
    if not args.includePublished:
        variables = [v for v in variables if not v.get("remote")]
        collections = {k: c for k, c in collections.items() if not c.get("remote")}
    items, summary, chosen = _shape(variables, collections, args)
    return _Selection(variables=chosen, collections=collections, items=items, summary=summary)


def shape_variables(raw: dict[str, Any], args: VariablesArgs) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Normalised, filtered variables (one dict each, in the verbosity asked) and the collections' summary."""
    selection = _select(raw, args)
    return selection.items, selection.summary


def _shape(
    variables: list[dict[str, Any]], collections: dict[str, dict[str, Any]], args: VariablesArgs
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    names = {v["id"]: v.get("name", v["id"]) for v in variables}
    by_id = {v["id"]: v for v in variables}
    matcher = shaping.name_matcher(args.namePattern)
    wanted_collection = (args.collection or "").lower()

    def resolve(target: str, seen: frozenset[str] = frozenset()) -> Any:
        found = by_id.get(target)
        if found is None or target in seen:
            return {"alias": names.get(target, target)}
        coll = collections.get(found.get("variableCollectionId", ""), {})
        first = found.get("valuesByMode", {}).get(coll.get("defaultModeId", ""))
        if first is None and found.get("valuesByMode"):
            first = next(iter(found["valuesByMode"].values()))
        return _render_value(first, names, lambda t: resolve(t, seen | {target}))

    out = []
    chosen = []
    for var in variables:
        coll = collections.get(var.get("variableCollectionId", ""), {})
        if wanted_collection and wanted_collection not in (coll.get("name", "").lower(), coll.get("id", "").lower()):
            continue
        if matcher and not matcher.search(var.get("name", "")):
            continue
        chosen.append(var)
        if args.returnAsLinks:
            out.append({"id": var["id"], "name": var.get("name")})
            continue
        item: dict[str, Any] = {"name": var.get("name"), "collection": coll.get("name", "")}
        if args.verbosity == "inventory":
            out.append(item)
            continue
        item["type"] = var.get("resolvedType")
        if args.verbosity in ("standard", "full"):
            modes = {m["modeId"]: m["name"] for m in coll.get("modes", [])}
            values = {}
            for mode_id, value in (var.get("valuesByMode") or {}).items():
                mode_name = modes.get(mode_id, mode_id)
                if args.mode and args.mode.lower() not in (mode_name.lower(), mode_id.lower()):
                    continue
                values[mode_name] = _render_value(value, names, resolve if args.resolveAliases else None)
            item["values"] = values
            if var.get("description"):
                item["description"] = var["description"]
        if args.verbosity == "full":
            for field_name in ("id", "key", "scopes", "codeSyntax", "hiddenFromPublishing", "remote"):
                if field_name in var:
                    item[field_name] = var[field_name]
        out.append(item)
    summary = [
        {
            "name": c.get("name"),
            "id": c.get("id"),
            "modes": [m.get("name") for m in c.get("modes", [])],
            "variables": c["variableCount"] if "variableCount" in c else len(c.get("variableIds", [])),
        }
        for c in collections.values()
    ]
    return out, summary, chosen


def _overview(selection: _Selection) -> dict[str, Any]:
    """format=summary: how many variables of each type, per collection and per top-level name group."""
    by_type: dict[str, int] = {}
    groups: dict[str, int] = {}
    for var in selection.variables:
        by_type[var.get("resolvedType", "?")] = by_type.get(var.get("resolvedType", "?"), 0) + 1
        group = str(var.get("name", "")).split("/", 1)[0]
        groups[group] = groups.get(group, 0) + 1
    return {"byType": by_type, "groups": dict(sorted(groups.items(), key=lambda g: -g[1])[:50])}


async def _published_ids(ctx: Any, key: str) -> tuple[set[str] | None, str]:
    """Ids of the file's variables published to its team library, or None and why they are not known."""
    try:
        body = await ctx.api.request("GET", f"/v1/files/{key}/variables/published")
    except DesignError as exc:
        return None, f"Published state unknown: {exc.message}"
    return set((body.get("meta", {}).get("variables") or {}).keys()), ""


async def _file_usage(ctx: Any, key: str) -> token_sources.Usage:
    """Which variables and styles the nodes of the file use (one read of the whole file, cached)."""
    await ctx.progress(0, 1, "reading the file to count usage")
    data = await ctx.api.request_bytes("GET", f"/v1/files/{key}")
    usage = token_sources.scan_usage(data)
    await ctx.progress(1, 1, f"scanned {usage.nodes} nodes")
    return usage


async def _annotate_variables(ctx: Any, key: str, args: VariablesArgs, selection: _Selection, source: str) -> dict:
    """Adds to each shaped item what enrich / include_usage / include_dependencies / includePublished ask for;
    returns the result-level facts that go with them."""
    extra: dict[str, Any] = {}
    if args.returnAsLinks:
        return extra
    wanted = [args.enrich, args.include_usage, args.include_dependencies]
    published: set[str] | None = None
    if args.includePublished and source == "design_api":
        published, why = await _published_ids(ctx, key)
        if published is None:
            extra["publishedNote"] = why
        else:
            extra["publishedVariables"] = sum(1 for v in selection.variables if v["id"] in published)
    if not any(wanted) and published is None:
        return extra
    tokens = token_sources.variable_tokens(selection.variables, selection.collections)
    by_path = {t.path: t for t in tokens}
    chains, used_by = token_sources.alias_chains(selection.variables, selection.collections)
    usage = await _file_usage(ctx, key) if args.include_usage else None
    unused = 0
    for var, item, tok in zip(selection.variables, selection.items, tokens, strict=True):
        if published is not None and args.verbosity in ("standard", "full"):
            item["published"] = var["id"] in published
        if args.enrich:
            item["cssVar"] = token_code.css_var(tok.path)
            item["resolved"] = {mode: token_code.resolve(v, by_path, mode) for mode, v in tok.values.items()}
        if args.include_dependencies:
            if var["id"] in chains:
                item["aliasChain"] = chains[var["id"]]
            if used_by.get(var["id"]):
                item["aliasedBy"] = used_by[var["id"]]
        if usage is not None:
            item["usage"] = usage.of_variable(var["id"])
            unused += item["usage"]["nodes"] == 0
    if usage is not None:
        extra["usage"] = {"scannedNodes": usage.nodes, "unusedVariables": unused}
    return extra


def _export_block(tokens: list[token_code.Token], formats: list[token_code.ExportFormat] | None, budget: int) -> dict:
    exports, cut = token_code.fit_exports(token_code.export(tokens, formats or ALL_EXPORTS), budget)
    block: dict[str, Any] = {"exports": exports}
    if cut:
        block["exportsNote"] = (
            f"{', '.join(cut)} cut to fit maxTokens: narrow with collection/namePattern, raise maxTokens, or write "
            "whole files with design_export_tokens."
        )
    return block


@tool(
    "design_get_variables",
    "Variables and collections: from the Desktop Bridge plugin when connected, else the design API (Enterprise), "
    "else styles. Filter by collection/namePattern/mode; page/pageSize; verbosity inventory|summary|standard|full; "
    "format=summary for counts only; returnAsLinks for ids+names. enrich adds resolved values and CSS names, "
    "include_usage node counts, include_dependencies alias chains, include_exports code (export_formats "
    "css|sass|tailwind|typescript|json). parseFromConsole reads only the plugin's snapshot; useConsoleFallback uses it "
    "when neither a fresh read nor the design API works.",
    args=VariablesArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_variables(ctx: Any, args: VariablesArgs) -> ToolOutput:
    """Variables through the plugin, the design API, or a styles fallback."""
    if args.format == "full" and (args.collection or args.namePattern or args.mode):
        raise DesignError(
            "bad_argument",
            "format=full lists every variable, but collection/namePattern/mode narrow the list.",
            "Drop the filters, or use format=filtered (the default) to apply them.",
        )
    key = file_key_for(ctx, args.fileUrl)
    try:
        raw, source, notes = await _load_variables(ctx, key, args)
    except DesignError as exc:
        if exc.code != "forbidden":
            raise
        return await _styles_instead(ctx, key, args, exc)
    selection = _select(raw, args)
    budget = shaping.budget_chars(args.maxTokens)
    result: dict[str, Any] = {"source": source, "fileKey": key, "collections": selection.summary}
    if notes:
        result["notes"] = notes
    if args.format == "summary":
        result.update(totalVariables=len(selection.items), **_overview(selection))
        return ok(result)
    digest = shaping.request_digest(
        key,
        args.verbosity,
        args.collection,
        args.namePattern,
        args.mode,
        args.pageSize,
        args.returnAsLinks,
        args.includePublished,
        args.include_exports,
    )
    start = shaping.decode_cursor(args.cursor, "variables", digest) if args.cursor else (args.page - 1) * args.pageSize
    if args.include_exports and not args.cursor:
        tokens = token_sources.variable_tokens(selection.variables, selection.collections)
        result.update(_export_block(tokens, args.export_formats, budget // 2))
    end = min(len(selection.items), start + args.pageSize)
    page = _Selection(
        variables=selection.variables[start:end],
        collections=selection.collections,
        items=selection.items[start:end],
        summary=selection.summary,
    )
    result.update(await _annotate_variables(ctx, key, args, page, source))
    budget -= shaping.size_of(result) - ENVELOPE_ROOM
    chosen, next_index = shaping.fit_items(selection.items, start, budget, limit=args.pageSize)
    total = len(selection.items)
    result.update(
        totalVariables=total,
        page=start // args.pageSize + 1,
        pageSize=args.pageSize,
        totalPages=max(1, -(-total // args.pageSize)),
        variables=chosen,
    )
    cursor = shaping.encode_cursor("variables", digest, next_index) if next_index is not None else None
    return ok(_paged(result, cursor))


async def _styles_instead(ctx: Any, key: str, args: VariablesArgs, why: DesignError) -> ToolOutput:
    styles = await _file_styles(ctx, key)
    chosen, next_index = shaping.fit_items(styles, 0, shaping.budget_chars(args.maxTokens), limit=args.pageSize)
    return ok(
        {
            "source": "styles",
            "fileKey": key,
            "note": f"{why.message} {why.hint} Showing the file's styles instead.",
            "totalStyles": len(styles),
            "styles": chosen,
            "hasMore": next_index is not None,
        }
    )


# design_get_styles ------------------------------------------------------------------------------------------------


class StylesArgs(Args):
    fileUrl: str | None = None
    verbosity: Literal["summary", "standard", "full"] = "standard"
    enrich: bool = False
    include_usage: bool = False
    include_exports: bool = False
    export_formats: ExportFormats | None = None
    maxTokens: MaxTokens = None
    cursor: str | None = None


async def _file_styles(ctx: Any, key: str) -> list[dict[str, Any]]:
    """The file's styles: published ones from /styles, else the local ones named in the file JSON."""
    body = await ctx.api.request("GET", f"/v1/files/{key}/styles")
    published = body.get("meta", {}).get("styles", [])
    if published:
        return [
            {
                "name": s["name"],
                "type": s.get("style_type"),
                "key": s["key"],
                "nodeId": s.get("node_id"),
                "description": s.get("description", ""),
            }
            for s in published
        ]
    data = await ctx.api.request_bytes("GET", f"/v1/files/{key}", params={"depth": 1})
    head = shaping.decode_head(data, shaping.FileHead)
    out = []
    for style_id, raw in head.styles.items():
        style = shaping.raw_value(raw)
        out.append(
            {
                "name": style.get("name"),
                "type": style.get("styleType"),
                "key": style.get("key"),
                "id": style_id,
                "description": style.get("description", ""),
            }
        )
    return out


def _style_value(node: dict[str, Any], kind: str | None) -> Any:
    if kind == "FILL":
        return shaping.short_paints(node.get("fills", []))
    if kind == "TEXT":
        style = node.get("style", {})
        return {
            k: style[k] for k in ("fontFamily", "fontWeight", "fontSize", "lineHeightPx", "letterSpacing") if k in style
        }
    if kind == "EFFECT":
        return node.get("effects", [])
    if kind == "GRID":
        return node.get("layoutGrids", [])
    return None


async def _style_nodes(ctx: Any, key: str, styles: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The definition node of each style (one request for all of them), by style node id."""
    ids = [i for i in dict.fromkeys(_style_node_id(s) for s in styles) if i]
    if not ids:
        return {}
    body = await ctx.api.request("GET", f"/v1/files/{key}/nodes", params={"ids": ",".join(ids), "depth": 1})
    nodes = body.get("nodes") or {}
    return {i: nodes[i]["document"] for i in ids if isinstance(nodes.get(i), dict) and nodes[i].get("document")}


def _style_node_id(style: dict[str, Any]) -> str:
    return str(style.get("nodeId") or style.get("id") or "")


def _style_css(token: token_code.Token | None) -> dict[str, str] | None:
    """The CSS declarations a style stands for (enrich)."""
    if token is None:
        return None
    value = token.default()
    if token.kind == "color":
        return {"color": value}
    if token.kind == "shadow":
        return {"box-shadow": token_code.css_literal(token, value)}
    return {name: text for name, text in token_code.typography_css(value)}


@tool(
    "design_get_styles",
    "Colour, text, effect and grid styles of a file (with their values in standard/full verbosity), within "
    "maxTokens; `cursor` continues. enrich adds CSS declarations, include_usage how many nodes use each style, "
    "include_exports code (export_formats css|sass|tailwind|typescript|json).",
    args=StylesArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_styles(ctx: Any, args: StylesArgs) -> ToolOutput:
    """Styles with values, CSS, usage and code exports."""
    key = file_key_for(ctx, args.fileUrl)
    styles = await _file_styles(ctx, key)
    digest = shaping.request_digest(key, args.verbosity, args.enrich, args.include_usage, args.include_exports)
    start = shaping.decode_cursor(args.cursor, "styles", digest) if args.cursor else 0
    result: dict[str, Any] = {"fileKey": key, "totalStyles": len(styles)}
    budget = shaping.budget_chars(args.maxTokens)
    needs_all = args.include_exports and not args.cursor
    nodes = await _style_nodes(ctx, key, styles) if needs_all else {}
    if needs_all:
        tokens = [token_sources.style_token(s, nodes.get(_style_node_id(s), {})) for s in styles]
        usable = [t for t in tokens if t is not None]
        result.update(_export_block(usable, args.export_formats, budget // 2))
        if len(usable) < len(styles):
            result["exportsSkipped"] = len(styles) - len(usable)
    if args.verbosity == "summary":
        shown = [{"name": s["name"], "type": s["type"]} for s in styles]
    else:
        shown = styles
    budget -= shaping.size_of(result) - ENVELOPE_ROOM
    chosen, next_index = shaping.fit_items(shown, start, budget, limit=100)
    originals = styles[start : start + len(chosen)]
    wanted_nodes = args.verbosity != "summary" or args.enrich
    missing = [s for s in originals if _style_node_id(s) not in nodes]
    if wanted_nodes and missing:
        nodes.update(await _style_nodes(ctx, key, missing))
    usage = await _file_usage(ctx, key) if args.include_usage else None
    for item, style in zip(chosen, originals, strict=True):
        node = nodes.get(_style_node_id(style))
        if node and args.verbosity != "summary":
            item["value"] = _style_value(node, style["type"]) if args.verbosity == "standard" else node
        if args.enrich:
            css = _style_css(token_sources.style_token(style, node or {}))
            if css:
                item["css"] = css
        if usage is not None:
            item["usage"] = {"nodes": usage.styles.get(_style_node_id(style), 0)}
    if usage is not None:
        result["usage"] = {"scannedNodes": usage.nodes}
    result["styles"] = chosen
    cursor = shaping.encode_cursor("styles", digest, next_index) if next_index is not None else None
    return ok(_paged(result, cursor))


# Components -------------------------------------------------------------------------------------------------------


class ComponentArgs(Args):
    nodeId: str
    fileUrl: str | None = None
    format: Literal["metadata", "reconstruction"] = "metadata"
    enrich: bool = False
    maxTokens: MaxTokens = None
    cursor: str | None = None


async def _node(ctx: Any, key: str, nid: str, depth: int | None) -> dict[str, Any]:
    body = await ctx.api.request("GET", f"/v1/files/{key}/nodes", params={"ids": nid, "depth": depth})
    entry = (body.get("nodes") or {}).get(nid)
    if not entry:
        raise DesignError("not_found", f"No node {nid} in file {key}.", "Check the node id (1:2) and the file.")
    return entry


def component_metadata(entry: dict[str, Any]) -> dict[str, Any]:
    """Name, description, key, properties and variants of a component or component set node."""
    node = entry["document"]
    meta = entry.get("components", {}).get(node["id"]) or entry.get("componentSets", {}).get(node["id"]) or {}
    out: dict[str, Any] = {"id": node["id"], "name": node.get("name"), "type": node.get("type")}
    for field_name in ("key", "description", "componentSetId"):
        if meta.get(field_name):
            out[field_name] = meta[field_name]
    box = node.get("absoluteBoundingBox")
    if box:
        out["size"] = {"width": box.get("width"), "height": box.get("height")}
    if node.get("componentPropertyDefinitions"):
        out["properties"] = node["componentPropertyDefinitions"]
    if node.get("type") == "COMPONENT_SET":
        out["variants"] = [{"id": c["id"], "name": c.get("name")} for c in node.get("children", [])]
    return out


@tool(
    "design_get_component",
    "One component's metadata (name, key, description, properties, variants) or, with format=reconstruction, its "
    "node tree within maxTokens; enrich adds the plugin's local description when connected.",
    args=ComponentArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_component(ctx: Any, args: ComponentArgs) -> ToolOutput:
    """Component metadata or reconstruction spec."""
    key = file_key_for(ctx, args.fileUrl)
    nid = node_id(args.nodeId)
    if args.format == "reconstruction":
        return ok(
            await _walk_file(
                ctx,
                key,
                "component",
                depth=3,
                verbosity="full",
                node_ids=[nid],
                max_tokens=args.maxTokens,
                cursor=args.cursor,
            )
        )
    result = component_metadata(await _node(ctx, key, nid, 1))
    if args.enrich:
        result["plugin"] = await _plugin_extra(ctx, "GET_COMPONENT", {"nodeId": nid}, key)
    return ok(result)


async def _plugin_extra(ctx: Any, method: str, params: dict[str, Any], key: str) -> Any:
    """What the plugin adds, or a note saying why it could not."""
    try:
        reply = await ctx.bridge(method, params, file_key=key)
    except DesignError as exc:
        return {"unavailable": exc.message}
    reply = dict(reply)
    reply.pop("success", None)
    return reply


class DevArgs(Args):
    nodeId: str
    fileUrl: str | None = None
    includeImage: bool = True
    codebasePath: str | None = None
    maxTokens: MaxTokens = None
    cursor: str | None = None


@tool(
    "design_get_component_for_development",
    "A component's node tree (depth 4) with layout, colours, bound variables, plus plugin annotations when connected "
    "and a 2x render URL; within maxTokens, `cursor` to continue. codebasePath (a local source folder) adds the files "
    "and exports that already implement the component.",
    args=DevArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_component_for_development(ctx: Any, args: DevArgs) -> ToolOutput:
    """Node tree + annotations + render for implementing a component."""
    key = file_key_for(ctx, args.fileUrl)
    nid = node_id(args.nodeId)
    result = await _walk_file(
        ctx,
        key,
        "component_dev",
        depth=4,
        verbosity="standard",
        node_ids=[nid],
        max_tokens=args.maxTokens,
        cursor=args.cursor,
    )
    if not args.cursor:
        result["annotations"] = await _plugin_extra(
            ctx, "GET_ANNOTATIONS", {"nodeId": nid, "includeChildren": True, "depth": 4}, key
        )
        if args.includeImage:
            result["image"] = await _render(ctx, key, nid, 2, "png")
        if args.codebasePath and result["nodes"]:
            name = str(result["nodes"][0].get("name", ""))
            result["codebase"] = await asyncio.to_thread(codebase.find_component_code, args.codebasePath, name)
    return ok(result)


class ImageArgs(Args):
    nodeId: str
    fileUrl: str | None = None
    scale: Annotated[float, msgspec.Meta(ge=0.01, le=4)] = 2
    format: Literal["png", "jpg", "svg", "pdf"] = "png"


async def _render(ctx: Any, key: str, nid: str, scale: float, fmt: str) -> dict[str, Any]:
    version = await ctx.api.file_version(key)
    params = {"ids": nid, "scale": scale, "format": fmt, "version": version}
    body = await ctx.api.request("GET", f"/v1/images/{key}", params=params, cache="pinned")
    if body.get("err"):
        raise DesignError("upstream_error", f"The design API could not render {nid}: {body['err']}.", "Try again.")
    url = (body.get("images") or {}).get(nid)
    if not url:
        raise DesignError(
            "not_found",
            f"The design API rendered nothing for node {nid} (it does not exist or has nothing visible).",
            "Check the node id with design_get_file_data.",
        )
    return {"nodeId": nid, "imageUrl": url, "format": fmt, "scale": scale, "version": version, "expiresInDays": 30}


@tool(
    "design_get_component_image",
    "Render a node through the design API and return the image URL (valid 30 days).",
    args=ImageArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_component_image(ctx: Any, args: ImageArgs) -> ToolOutput:
    """Rendered image URL of a node."""
    key = file_key_for(ctx, args.fileUrl)
    return ok(await _render(ctx, key, node_id(args.nodeId), args.scale, args.format))


# Libraries --------------------------------------------------------------------------------------------------------


class LibraryArgs(Args):
    libraryFileUrl: str | None = None
    libraryFileKey: str | None = None
    query: str | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 25
    offset: Annotated[int, msgspec.Meta(ge=0)] = 0
    includeVariants: bool = False
    maxTokens: MaxTokens = None


def _library_key(url: str | None, key: str | None) -> str:
    if not url and not key:
        raise DesignError("bad_argument", "No library given.", "Pass libraryFileUrl or libraryFileKey.")
    return parse_file_key(url or key or "")


async def library_components(ctx: Any, key: str, query: str | None, include_variants: bool) -> list[dict[str, Any]]:
    """Published components and component sets of a library file, matching ``query``."""
    comps = (await ctx.api.request("GET", f"/v1/files/{key}/components")).get("meta", {}).get("components", [])
    sets = (await ctx.api.request("GET", f"/v1/files/{key}/component_sets")).get("meta", {}).get("component_sets", [])
    variants: dict[str, list[dict[str, Any]]] = {}
    items: list[dict[str, Any]] = []
    for comp in comps:
        parent = ((comp.get("containing_frame") or {}).get("containingComponentSet") or {}).get("nodeId")
        entry = {"name": comp["name"], "key": comp["key"], "nodeId": comp["node_id"], "type": "COMPONENT"}
        if comp.get("description"):
            entry["description"] = comp["description"]
        if parent:
            variants.setdefault(parent, []).append(entry)
        else:
            items.append(entry)
    for cset in sets:
        entry = {"name": cset["name"], "key": cset["key"], "nodeId": cset["node_id"], "type": "COMPONENT_SET"}
        if cset.get("description"):
            entry["description"] = cset["description"]
        kids = variants.get(cset["node_id"], [])
        entry["variantCount"] = len(kids)
        if include_variants:
            entry["variants"] = [{"name": k["name"], "key": k["key"]} for k in kids]
        items.append(entry)
    matcher = shaping.name_matcher(query)
    if matcher:
        items = [i for i in items if matcher.search(i["name"]) or matcher.search(i.get("description", ""))]
    return sorted(items, key=lambda i: i["name"].lower())


def _list_result(key: str, items: list[dict[str, Any]], offset: int, limit: int, max_tokens: int | None) -> dict:
    chosen, _ = shaping.fit_items(items, offset, shaping.budget_chars(max_tokens), limit=limit)
    end = offset + len(chosen)
    return {
        "fileKey": key,
        "total": len(items),
        "offset": offset,
        "components": chosen,
        "hasMore": end < len(items),
        **({"nextOffset": end} if end < len(items) else {}),
    }


@tool(
    "design_get_library_components",
    "Published components and component sets of a library file (query filters names); limit/offset paging.",
    args=LibraryArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_library_components(ctx: Any, args: LibraryArgs) -> ToolOutput:
    """Library listing."""
    key = _library_key(args.libraryFileUrl, args.libraryFileKey)
    items = await library_components(ctx, key, args.query, args.includeVariants)
    return ok(_list_result(key, items, args.offset, args.limit, args.maxTokens))


class SearchArgs(Args):
    query: str = ""
    category: str | None = None
    libraryFileKey: str | None = None
    libraryFileUrl: str | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10
    offset: Annotated[int, msgspec.Meta(ge=0)] = 0
    maxTokens: MaxTokens = None


@tool(
    "design_search_components",
    "Search components by name: the open file's through the Desktop Bridge plugin, or a library's through the "
    "design API when libraryFileKey/libraryFileUrl is given; limit/offset paging.",
    args=SearchArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_search_components(ctx: Any, args: SearchArgs) -> ToolOutput:
    """Component search over a library (design API) or the open file (plugin)."""
    if args.libraryFileKey or args.libraryFileUrl:
        key = _library_key(args.libraryFileUrl, args.libraryFileKey)
        items = await library_components(ctx, key, args.query, False)
    else:
        key = getattr(ctx, "active_file_key", None) or ""
        reply = await ctx.bridge("GET_LOCAL_COMPONENTS", {}, file_key=key)
        matcher = shaping.name_matcher(args.query)
        items = [
            {k: c[k] for k in ("name", "key", "id", "type", "description") if c.get(k)}
            for c in reply.get("components", [])
            if not matcher or matcher.search(c.get("name", ""))
        ]
    if args.category:
        prefix = args.category.lower()
        items = [i for i in items if i["name"].lower().startswith(prefix)]
    return ok(_list_result(key, items, args.offset, args.limit, args.maxTokens))


class ByKeyArgs(Args):
    componentKey: str
    includeVisualSpecs: bool = True
    format: Literal["full", "summary"] = "full"


@tool(
    "design_get_library_component_by_key",
    "Resolve a published component or component-set key to its library file, properties, variants and visual specs.",
    args=ByKeyArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_library_component_by_key(ctx: Any, args: ByKeyArgs) -> ToolOutput:
    """Published component (or set) by key."""
    try:
        body = await ctx.api.request("GET", f"/v1/components/{args.componentKey}")
    except DesignError as exc:
        if exc.code != "not_found":
            raise
        body = await ctx.api.request("GET", f"/v1/component_sets/{args.componentKey}")
    meta = body.get("meta", {})
    result: dict[str, Any] = {
        "key": meta.get("key"),
        "name": meta.get("name"),
        "description": meta.get("description", ""),
        "fileKey": meta.get("file_key"),
        "nodeId": meta.get("node_id"),
    }
    if args.format == "summary" or not args.includeVisualSpecs:
        return ok(result)
    entry = await _node(ctx, meta["file_key"], meta["node_id"], 2)
    result.update({k: v for k, v in component_metadata(entry).items() if k not in result})
    result["visual"] = shaping.walk_tree(
        [msgspec.json.encode(entry["document"])],
        max_depth=2,
        verbosity="standard",
        budget=shaping.budget_chars(None) // 2,
    ).nodes
    return ok(result)


class KitArgs(Args):
    fileKey: str | None = None
    include: list[Literal["tokens", "components", "styles"]] = msgspec.field(
        default_factory=lambda: ["tokens", "components", "styles"]
    )
    componentIds: list[str] | None = None
    includeImages: bool = False
    format: Literal["full", "summary", "compact"] = "full"
    maxTokens: MaxTokens = None


_SPEC_KEYS = (
    "opacity",
    "layoutMode",
    "itemSpacing",
    "paddingLeft",
    "paddingRight",
    "paddingTop",
    "paddingBottom",
    "primaryAxisAlignItems",
    "counterAxisAlignItems",
    "cornerRadius",
    "strokeWeight",
    "characters",
)


def _visual_spec(node: dict[str, Any]) -> dict[str, Any]:
    """What a variant looks like, part by part: ``""`` for the variant itself, then its layers by name path."""
    parts: dict[str, Any] = {}

    def visit(current: dict[str, Any], path: str, depth: int) -> None:
        spec: dict[str, Any] = {}
        box = current.get("absoluteBoundingBox") or {}
        if box:
            spec["size"] = [round(box.get("width", 0), 1), round(box.get("height", 0), 1)]
        for key in _SPEC_KEYS:
            if key in current:
                spec[key] = current[key]
        for key in ("fills", "strokes"):
            paints = shaping.short_paints(current.get(key) or [])
            if paints:
                spec[key] = paints
        style = current.get("style") or {}
        for key in ("fontFamily", "fontWeight", "fontSize", "lineHeightPx"):
            if key in style:
                spec[key] = style[key]
        if current.get("effects"):
            spec["effects"] = [e.get("type") for e in current["effects"] if e.get("visible", True)]
        if current.get("boundVariables"):
            spec["boundVariables"] = sorted(current["boundVariables"])
        parts[path] = spec
        if depth < 3:
            for child in current.get("children", []):
                name = str(child.get("name", child.get("id", "")))
                visit(child, f"{path}/{name}" if path else name, depth + 1)

    visit(node, "", 0)
    return parts


def _delta(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """What ``other`` changes of ``base``, part by part (a removed property or part is null)."""
    out: dict[str, Any] = {}
    for part in dict.fromkeys([*base, *other]):
        if part not in other:
            out[part] = None
            continue
        if part not in base:
            out[part] = other[part]
            continue
        changed = {k: v for k, v in other[part].items() if base[part].get(k) != v}
        changed.update({k: None for k in base[part] if k not in other[part]})
        if changed:
            out[part] = changed
    return out


def _default_variant(component_set: dict[str, Any]) -> dict[str, Any] | None:
    """The set's default variant: the one whose name carries every variant property's default value."""
    variants = [c for c in component_set.get("children", []) if c.get("type") == "COMPONENT"]
    defaults = {
        name.split("#", 1)[0]: str(spec.get("defaultValue"))
        for name, spec in (component_set.get("componentPropertyDefinitions") or {}).items()
        if spec.get("type") == "VARIANT"
    }
    for variant in variants:
        values = dict(p.split("=", 1) for p in str(variant.get("name", "")).split(", ") if "=" in p)
        if defaults and all(values.get(k) == v for k, v in defaults.items()):
            return variant
    return variants[0] if variants else None


async def _add_variant_specs(ctx: Any, key: str, items: list[dict[str, Any]]) -> None:
    """Give each component set its default variant's visual spec and, per other variant, only what differs."""
    sets = [i for i in items if i.get("type") == "COMPONENT_SET"]
    if not sets:
        return
    ids = ",".join(i["nodeId"] for i in sets)
    body = await ctx.api.request("GET", f"/v1/files/{key}/nodes", params={"ids": ids, "depth": 4})
    for item in sets:
        entry = (body.get("nodes") or {}).get(item["nodeId"])
        node = entry.get("document") if isinstance(entry, dict) else None
        default = _default_variant(node) if isinstance(node, dict) else None
        if default is None:
            continue
        base = _visual_spec(default)
        item["variantSpecs"] = {
            "default": default.get("name"),
            "base": base,
            "variants": {
                v.get("name"): _delta(base, _visual_spec(v))
                for v in node.get("children", [])
                if v.get("type") == "COMPONENT" and v is not default
            },
        }


async def _add_images(ctx: Any, key: str, items: list[dict[str, Any]]) -> None:
    """A rendered PNG URL (valid 30 days) for each component, from one render request."""
    ids = [i["nodeId"] for i in items if i.get("nodeId")]
    if not ids:
        return
    version = await ctx.api.file_version(key)
    params = {"ids": ",".join(ids), "scale": 1, "format": "png", "version": version}
    body = await ctx.api.request("GET", f"/v1/images/{key}", params=params, cache="pinned")
    images = body.get("images") or {}
    for item in items:
        url = images.get(item.get("nodeId"))
        if url:
            item["imageUrl"] = url


@tool(
    "design_get_design_system_kit",
    "Tokens (variables), components and styles of a file in one answer, sized to maxTokens. format=full gives each "
    "component set its default variant's visual spec and, per other variant, only what differs; includeImages adds a "
    "render URL per component.",
    args=KitArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_design_system_kit(ctx: Any, args: KitArgs) -> ToolOutput:
    """Design system in one payload; each section gets a share of the budget."""
    key = file_key_for(ctx, args.fileKey, argument="fileKey")
    share = shaping.budget_chars(args.maxTokens) // max(1, len(args.include))
    result: dict[str, Any] = {"fileKey": key}
    notes: list[str] = []
    verbosity = {"full": "standard", "summary": "summary", "compact": "inventory"}[args.format]
    if "tokens" in args.include:
        found = await _variables_from_plugin(ctx, key, False)
        if found is None:
            try:
                found = ((await ctx.api.request("GET", f"/v1/files/{key}/variables/local")).get("meta", {}), "api")
            except DesignError as exc:
                if exc.code != "forbidden":
                    raise
                notes.append(f"tokens: {exc.message} {exc.hint}")
        if found is not None:
            items, collections = shape_variables(found[0], VariablesArgs(verbosity=verbosity))
            chosen, rest = shaping.fit_items(items, 0, share - shaping.size_of(collections))
            result["tokens"] = {"collections": collections, "variables": chosen, "total": len(items)}
            if rest is not None:
                notes.append("tokens: cut to fit maxTokens; use design_get_variables to page through all")
    if "components" in args.include:
        items = await library_components(ctx, key, None, args.format == "full")
        if args.componentIds:
            wanted = {node_id(i) for i in args.componentIds}
            items = [i for i in items if i["nodeId"] in wanted]
        chosen, rest = shaping.fit_items(items, 0, share)
        if args.format == "full":
            await _add_variant_specs(ctx, key, chosen)
        if args.includeImages:
            await _add_images(ctx, key, chosen)
        if args.format == "full" or args.includeImages:
            chosen, cut = shaping.fit_items(chosen, 0, share)
            rest = rest if cut is None else cut
        result["components"] = {"items": chosen, "total": len(items)}
        if rest is not None:
            notes.append("components: cut to fit maxTokens; use design_get_library_components to page")
    if "styles" in args.include:
        styles = await _file_styles(ctx, key)
        chosen, rest = shaping.fit_items(styles, 0, share)
        result["styles"] = {"items": chosen, "total": len(styles)}
        if rest is not None:
            notes.append("styles: cut to fit maxTokens; use design_get_styles to page")
    if notes:
        result["notes"] = notes
    return ok(result)
