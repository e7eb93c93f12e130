"""Library reads through the design API: a library's published components, component search, a component by key."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import FileRef, PagedArgs
from design_console.tools.base import Args, api_read, ok
from design_console.tools.components.component_data import component_metadata, fetch_node, library_components
from design_console.tools.context import ApiContext
from design_console.tools.file_cache import ReadCache
from design_console.tools.plugin_replies import data_version, local_components


class LibraryArgs(PagedArgs):
    libraryFileUrl: FileRef | None = None
    libraryFileKey: FileRef | None = None
    query: str | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 25
    offset: Annotated[int, msgspec.Meta(ge=0)] = 0
    includeVariants: bool = False


def _library_key(url: str | None, key: str | None) -> str:
    if not url and not key:
        raise DesignError(ErrorCode.BAD_ARGUMENT, "No library given.", "Pass libraryFileUrl or libraryFileKey.")
    return url or key or ""


def _listing(
    scope: str,
    digest: str,
    key: str,
    items: list[dict[str, Any]],
    args: LibraryArgs | SearchArgs,
    version: str | None,
) -> dict[str, Any]:
    """One part of a component listing of file ``key`` at ``version``: from ``offset``, or from where the cursor of
    the previous part points."""
    start = shaping.decode_cursor(args.cursor, scope, digest, version, file=key) if args.cursor else args.offset
    chosen, next_index = shaping.fit_items(items, start, shaping.budget_chars(args.maxTokens), limit=args.limit)
    result = {"fileKey": key, "total": len(items), "offset": start, "components": chosen}
    next_cursor = (
        shaping.encode_cursor(scope, digest, next_index, version, file=key) if next_index is not None else None
    )
    return shaping.paged(result, next_cursor)


@api_read("design_get_library_components", "A library file's published components and sets; query filters names.")
async def design_get_library_components(ctx: ApiContext, args: LibraryArgs) -> ToolOutput:
    """Library listing."""
    key = _library_key(args.libraryFileUrl, args.libraryFileKey)
    items = await library_components(ctx, key, args.query, args.includeVariants)
    digest = shaping.request_digest(key, args.query, args.includeVariants, args.limit)
    return ok(_listing("library_components", digest, key, items, args, shaping.request_digest(items)))


#: How long search results are kept for the pages after the first (a call without cursor always searches afresh).
SEARCH_TTL_SECONDS = 60.0


class SearchArgs(PagedArgs):
    query: str = ""
    category: str | None = None
    libraryFileKey: FileRef | None = None
    libraryFileUrl: FileRef | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10
    offset: Annotated[int, msgspec.Meta(ge=0)] = 0


_WORD = re.compile(r"[^0-9a-z]+")
#: Ranks of a match, best first: how a name meets the query; a variant's match ranks its set after direct matches.
EXACT, PREFIX, WORD, INSIDE, PATTERN = range(5)
VARIANT_OFFSET = 5
DESCRIPTION = 2 * VARIANT_OFFSET


def name_rank(name: str, query: str, pattern: re.Pattern[str] | None) -> int | None:
    """How well ``name`` matches ``query`` (lower is better), or None when it does not."""
    text, wanted = name.lower(), query.lower().strip()
    if text == wanted:
        return EXACT
    if text.startswith(wanted):
        return PREFIX
    if any(word.startswith(wanted) for word in _WORD.split(text) if word):
        return WORD
    if wanted in text:
        return INSIDE
    if pattern is not None and pattern.search(name):
        return PATTERN
    return None


def rank_components(items: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """The items that match ``query`` by name, a variant's name or the description, best match first.

    A component set that matches through its variants lists those variants (``matchedVariants``); every item says
    why it matched (``match``: name, variant or description). An empty query keeps every item, by name.
    """
    if not query.strip():
        for item in items:
            item.pop("variants", None)
        return sorted(items, key=lambda i: str(i["name"]).lower())
    pattern = shaping.name_matcher(query)
    ranked: list[tuple[int, int, str, dict[str, Any]]] = []
    for item in items:
        variants = item.pop("variants", None) or []
        rank = name_rank(str(item["name"]), query, pattern)
        match = "name"
        hits = [(r, v) for v in variants if (r := name_rank(str(v.get("name", "")), query, pattern)) is not None]
        if hits:
            item["matchedVariants"] = [v for _, v in sorted(hits, key=lambda h: h[0])][:MAX_MATCHED_VARIANTS]
            if rank is None:
                rank, match = min(r for r, _ in hits) + VARIANT_OFFSET, "variant"
        if rank is None and pattern is not None and pattern.search(str(item.get("description", ""))):
            rank, match = DESCRIPTION, "description"
        if rank is not None:
            item["match"] = match
            ranked.append((rank, len(str(item["name"])), str(item["name"]).lower(), item))
    return [item for *_, item in sorted(ranked, key=lambda r: r[:3])]


#: Variants listed under a set that matched through them; its variantCount says how many it has.
MAX_MATCHED_VARIANTS = 10


def _local_items(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The open file's components and component sets (with their variants) as search items."""
    items = []
    for comp in [*reply.get("components", []), *reply.get("componentSets", [])]:
        item = {k: comp[k] for k in ("name", "key", "id", "type", "description") if comp.get(k)}
        item["source"] = "local"
        if comp.get("variants"):
            item["variantCount"] = len(comp["variants"])
            item["variants"] = [{k: v[k] for k in ("name", "id") if v.get(k)} for v in comp["variants"]]
        items.append(item)
    return items


@api_read(
    "design_search_components", "Find components, sets and variants by name, best first, in the open file or a library."
)
async def design_search_components(ctx: ApiContext, args: SearchArgs) -> ToolOutput:
    """Component search over the open file (plugin) and a library (design API), ranked by how well names match."""
    library = (
        _library_key(args.libraryFileUrl, args.libraryFileKey) if args.libraryFileKey or args.libraryFileUrl else ""
    )
    key = ctx.active_file_key or ""
    version = await data_version(ctx, key)
    request = shaping.request_digest(library, args.query, args.category)
    ranked = await SEARCHES.get(
        library or key, version, request, lambda: _search(ctx, key, library, args), refresh=not args.cursor
    )
    digest = shaping.request_digest(library or key, key, args.query, args.category, args.limit)
    return ok(_listing("search_components", digest, library or key, ranked, args, version))


#: Ranked search results by file, request and data version: the pages after the first are cut from them instead of
#: scanning the file for components again each.
SEARCHES: ReadCache[list[dict[str, Any]]] = ReadCache(SEARCH_TTL_SECONDS)


async def _search(ctx: ApiContext, key: str, library: str, args: SearchArgs) -> list[dict[str, Any]]:
    """The open file's and the library's components that match, best first."""
    items: list[dict[str, Any]] = []
    try:
        items += _local_items(await local_components(ctx, key))
    except DesignError as exc:
        # With a library to search, a file without a plugin just adds nothing.
        if not library or exc.code not in (ErrorCode.NOT_CONNECTED, ErrorCode.UNKNOWN_FILE, ErrorCode.NO_FILE):
            raise
    if library:
        for entry in await library_components(ctx, library, None, True):
            items.append({**entry, "source": "library"})
    if args.category:
        prefix = args.category.lower()
        items = [i for i in items if str(i["name"]).lower().startswith(prefix)]
    return rank_components(items, args.query)


class ByKeyArgs(Args):
    componentKey: str
    includeVisualSpecs: bool = True
    format: Literal["full", "summary"] = "full"


@api_read(
    "design_get_library_component_by_key",
    "A published component or set key's library file, properties, variants, specs.",
)
async def design_get_library_component_by_key(ctx: ApiContext, args: ByKeyArgs) -> ToolOutput:
    """Published component (or set) by key."""
    try:
        body = await ctx.api.request("GET", f"/v1/components/{args.componentKey}")
    except DesignError as exc:
        if exc.code != ErrorCode.NOT_FOUND:
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
    entry = await fetch_node(ctx, meta["file_key"], meta["node_id"], 2)
    result.update({k: v for k, v in component_metadata(entry).items() if k not in result})
    result["visual"] = shaping.walk_tree(
        [msgspec.Raw(msgspec.json.encode(entry["document"]))],
        max_depth=2,
        verbosity="standard",
        budget=shaping.budget_chars(None) // 2,
    ).nodes
    return ok(result)
