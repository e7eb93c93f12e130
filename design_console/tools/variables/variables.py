"""design_get_variables: variables and collections from the plugin, the design API (Enterprise), or styles instead."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec

from design_console.engines import shaping, token_sources
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tokens.model import index, resolve
from design_console.tokens.names import css_var, split_name
from design_console.tools.args import ExportFormats, FilePagedArgs
from design_console.tools.base import api_read, ok
from design_console.tools.context import ApiContext
from design_console.tools.file_cache import ReadCache
from design_console.tools.files import file_key_for
from design_console.tools.plugin_replies import data_version
from design_console.tools.styles.style_data import file_styles
from design_console.tools.token_tools.token_reads import export_block, file_usage
from design_console.tools.variable_data import (
    Selection,
    VariablesVerbosity,
    VariableView,
    plugin_snapshot,
    select_variables,
    variables_from_plugin,
)

#: How long a listing is kept for the pages after its first (a call without cursor always reads afresh).
LISTING_TTL_SECONDS = 60.0


class VariablesArgs(FilePagedArgs):
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

    def view(self) -> VariableView:
        """The listing these arguments ask for."""
        return VariableView(
            verbosity=self.verbosity,
            include_published=self.includePublished,
            collection=self.collection,
            name_pattern=self.namePattern,
            mode=self.mode,
            links_only=self.returnAsLinks,
            resolve_aliases=self.resolveAliases,
        )


def _snapshot_note(snapshot: dict[str, Any], why: str) -> str:
    taken = snapshot.get("timestamp")
    age = ""
    if isinstance(taken, int | float) and taken > 0:
        age = f", taken {max(0, round(time.time() - taken / 1000))} s ago"
    return f"{why} Answered from the plugin's last variables snapshot{age}; it may be out of date."


async def _load_variables(ctx: ApiContext, key: str, args: VariablesArgs) -> tuple[dict[str, Any], str, list[str]]:
    """The raw variables and where they came from: plugin, design API, or (when neither can answer and
    useConsoleFallback) the plugin's last snapshot. A design API refusal on plan grounds raises ``forbidden``."""
    if args.parseFromConsole:
        try:
            snapshot = await plugin_snapshot(ctx, key)
        except DesignError as exc:
            raise DesignError(
                ErrorCode.NOT_CONNECTED,
                "parseFromConsole reads the Desktop Bridge plugin's variables snapshot, and no plugin is connected "
                f"({exc.message}).",
                "Run the Desktop Bridge plugin in the file, or call without parseFromConsole to use the design API.",
            ) from None
        if snapshot is None:
            raise DesignError(
                ErrorCode.NOT_FOUND,
                "The Desktop Bridge plugin has no variables snapshot of this file.",
                "Call again with refreshCache=true (without parseFromConsole) for a fresh read.",
            )
        return snapshot, "plugin_snapshot", []
    plugin_failure: DesignError | None = None
    try:
        found = await variables_from_plugin(ctx, key, args.refreshCache)
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
            snapshot = await plugin_snapshot(ctx, key) if args.refreshCache else None
            if snapshot is not None:
                why = f"The plugin's fresh read failed ({plugin_failure.message}); the design API too ({exc.message})."
                return snapshot, "plugin_snapshot", [_snapshot_note(snapshot, why)]
        raise
    notes = [f"The plugin's read failed ({plugin_failure.message}); used the design API."] if plugin_failure else []
    return body.get("meta", {}), "design_api", notes


#: A file's variables as a listing shows them, by request and data version: the pages after the first are cut from
#: it, not read from the plugin and shaped again each.
LISTINGS: ReadCache[tuple[Selection, str, list[str]]] = ReadCache(LISTING_TTL_SECONDS)


async def _select(ctx: ApiContext, key: str, args: VariablesArgs) -> tuple[Selection, str, list[str]]:
    """The variables the arguments ask for, shaped, with where they came from and notes on how."""
    raw, source, notes = await _load_variables(ctx, key, args)
    return select_variables(raw, args.view()), source, notes


@dataclass(slots=True)
class Page:
    """The variables of one page, shaped, with the collections they belong to."""

    variables: list[dict[str, Any]]
    items: list[dict[str, Any]]
    collections: dict[str, dict[str, Any]]


def _overview(selection: Selection) -> dict[str, Any]:
    """format=summary: how many variables of each type, per collection and per top-level name group."""
    by_type: dict[str, int] = {}
    groups: dict[str, int] = {}
    for var in selection.variables:
        by_type[var.get("resolvedType", "?")] = by_type.get(var.get("resolvedType", "?"), 0) + 1
        group = str(var.get("name", "")).split("/", 1)[0]
        groups[group] = groups.get(group, 0) + 1
    return {"byType": by_type, "groups": dict(sorted(groups.items(), key=lambda g: -g[1])[:50])}


async def _published_ids(ctx: ApiContext, key: str) -> tuple[set[str] | None, str]:
    """Ids of the file's variables published to its team library, or None and why they are not known."""
    try:
        body = await ctx.api.request("GET", f"/v1/files/{key}/variables/published")
    except DesignError as exc:
        return None, f"Published state unknown: {exc.message}"
    return set((body.get("meta", {}).get("variables") or {}).keys()), ""


async def _annotate_variables(
    ctx: ApiContext, key: str, args: VariablesArgs, page: Page, source: str
) -> dict[str, Any]:
    """Adds to each shaped item of the page what enrich / include_usage / include_dependencies / includePublished ask
    for; returns the result-level facts that go with them."""
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
            extra["publishedVariables"] = sum(1 for v in page.variables if v["id"] in published)
    if not any(wanted) and published is None:
        return extra
    tokens = token_sources.variable_token_set(page.variables, page.collections)
    where = index(tokens)
    by_id = {token.id: token for _, token in tokens.tokens()}
    chains, used_by = token_sources.alias_chains(page.variables, page.collections)
    usage = await file_usage(ctx, key) if args.include_usage else None
    unused = 0
    for var, item in zip(page.variables, page.items, strict=True):
        if published is not None and args.verbosity in ("standard", "full"):
            item["published"] = var["id"] in published
        if args.enrich:
            item["cssVar"] = css_var(split_name(var.get("name", var["id"])))
            if (tok := by_id.get(str(var["id"]))) is not None:
                item["resolved"] = {m: token_sources.plain_value(resolve(where, v, m)) for m, v in tok.values.items()}
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


@api_read(
    "design_get_variables",
    "Variables and collections (plugin, else design API); returnAsLinks: ids+names; enrich: values, CSS; include_*: "
    "usage, aliases, code.",
)
async def design_get_variables(ctx: ApiContext, args: VariablesArgs) -> ToolOutput:
    """Variables through the plugin, the design API, or a styles fallback."""
    if args.format == "full" and (args.collection or args.namePattern or args.mode):
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            "format=full lists every variable, but collection/namePattern/mode narrow the list.",
            "Drop the filters, or use format=filtered (the default) to apply them.",
        )
    key = file_key_for(ctx, args.fileUrl)
    version = await data_version(ctx, key)
    request = shaping.request_digest(args.view(), args.parseFromConsole, args.useConsoleFallback)
    try:
        loaded = await LISTINGS.get(
            key, version, request, lambda: _select(ctx, key, args), refresh=args.refreshCache or not args.cursor
        )
    except DesignError as exc:
        if exc.code != ErrorCode.FORBIDDEN:
            raise
        return await _styles_instead(ctx, key, args, exc)
    selection, source, notes = loaded
    budget = shaping.budget_chars(args.maxTokens)
    result: dict[str, Any] = {"source": source, "fileKey": key, "collections": selection.summary}
    if notes:
        result["notes"] = notes
    if args.format == "summary":
        result.update(totalVariables=len(selection.variables), **_overview(selection))
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
    start = (
        shaping.decode_cursor(args.cursor, "variables", digest, version, file=key)
        if args.cursor
        else (args.page - 1) * args.pageSize
    )
    if args.include_exports and not args.cursor:
        tokens = token_sources.variable_token_set(selection.variables, selection.collections)
        result.update(export_block(tokens, args.export_formats, budget // 2))
    end = start + args.pageSize
    page = Page(selection.variables[start:end], selection.items(start, end), selection.collections)
    result.update(await _annotate_variables(ctx, key, args, page, source))
    budget -= shaping.size_of(result) - shaping.ENVELOPE_ROOM
    chosen, shown = shaping.fit_items(page.items, 0, budget)
    total = len(selection.variables)
    following = start + (len(page.items) if shown is None else shown)
    next_index = following if following < total else None
    result.update(
        totalVariables=total,
        page=start // args.pageSize + 1,
        pageSize=args.pageSize,
        totalPages=max(1, -(-total // args.pageSize)),
        variables=chosen,
    )
    cursor = (
        shaping.encode_cursor("variables", digest, next_index, version, file=key) if next_index is not None else None
    )
    return ok(shaping.paged(result, cursor))


async def _styles_instead(ctx: ApiContext, key: str, args: VariablesArgs, why: DesignError) -> ToolOutput:
    styles = await file_styles(ctx, key)
    chosen, next_index = shaping.fit_items(styles, 0, shaping.budget_chars(args.maxTokens), limit=args.pageSize)
    note = f"{why.message} {why.hint} Showing the file's styles instead"
    if next_index is not None:
        note += f" (the first {len(chosen)}; design_get_styles pages through all of them)"
    return ok({"source": "styles", "fileKey": key, "note": note + ".", "totalStyles": len(styles), "styles": chosen})
