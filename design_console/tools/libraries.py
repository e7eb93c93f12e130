"""Library reads through the design API: a library's published components, component search, a component by key."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools import shaping
from design_console.tools.args import Cursor, FileRef, MaxTokens
from design_console.tools.base import Args, ok, tool
from design_console.tools.component_data import component_metadata, fetch_node, library_components
from design_console.tools.context import ApiContext


class LibraryArgs(Args):
    libraryFileUrl: FileRef | None = None
    libraryFileKey: FileRef | None = None
    query: str | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 25
    offset: Annotated[int, msgspec.Meta(ge=0)] = 0
    includeVariants: bool = False
    maxTokens: MaxTokens | None = None
    cursor: Cursor | None = None


def _library_key(url: str | None, key: str | None) -> str:
    if not url and not key:
        raise DesignError(ErrorCode.BAD_ARGUMENT, "No library given.", "Pass libraryFileUrl or libraryFileKey.")
    return url or key or ""


def _listing(
    scope: str, digest: str, key: str, items: list[dict[str, Any]], args: LibraryArgs | SearchArgs
) -> dict[str, Any]:
    """One part of a component listing: from ``offset``, or from where the cursor of the previous part points."""
    version = shaping.request_digest(items)
    start = shaping.decode_cursor(args.cursor, scope, digest, version) if args.cursor else args.offset
    chosen, next_index = shaping.fit_items(items, start, shaping.budget_chars(args.maxTokens), limit=args.limit)
    result = {"fileKey": key, "total": len(items), "offset": start, "components": chosen}
    next_cursor = shaping.encode_cursor(scope, digest, next_index, version) if next_index is not None else None
    return shaping.paged(result, next_cursor)


@tool(
    "design_get_library_components",
    "Published components and component sets of a library file (query filters names).",
    args=LibraryArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_get_library_components(ctx: ApiContext, args: LibraryArgs) -> ToolOutput:
    """Library listing."""
    key = _library_key(args.libraryFileUrl, args.libraryFileKey)
    items = await library_components(ctx, key, args.query, args.includeVariants)
    digest = shaping.request_digest(key, args.query, args.includeVariants, args.limit)
    return ok(_listing("library_components", digest, key, items, args))


class SearchArgs(Args):
    query: str = ""
    category: str | None = None
    libraryFileKey: FileRef | None = None
    libraryFileUrl: FileRef | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10
    offset: Annotated[int, msgspec.Meta(ge=0)] = 0
    maxTokens: MaxTokens | None = None
    cursor: Cursor | None = None


@tool(
    "design_search_components",
    "Search components by name: the open file's through the Desktop Bridge plugin, or a library's through the "
    "design API when libraryFileKey/libraryFileUrl is given.",
    args=SearchArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    open_world=True,
)
async def design_search_components(ctx: ApiContext, args: SearchArgs) -> ToolOutput:
    """Component search over a library (design API) or the open file (plugin)."""
    if args.libraryFileKey or args.libraryFileUrl:
        key = _library_key(args.libraryFileUrl, args.libraryFileKey)
        items = await library_components(ctx, key, args.query, False)
    else:
        key = ctx.active_file_key or ""
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
    digest = shaping.request_digest(key, args.query, args.category, args.limit)
    return ok(_listing("search_components", digest, key, items, args))


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
