"""Dev Mode annotations: read them (a page at a time on a big subtree), set them, and list their categories."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import NodeArgs, NodePagedArgs
from design_console.tools.base import NoArgs, bridge_tool, ok, plugin_read, write_tool
from design_console.tools.context import ApiContext
from design_console.tools.plugin_replies import data_version

Id = Annotated[str, Meta(min_length=1, max_length=200)]


class GetAnnotationsArgs(NodePagedArgs):
    include_children: bool = False
    depth: Annotated[int, Meta(ge=1, le=20)] = 1


#: Characters of a reply beside its entries (the node id, the cursor).
_HEAD_CHARS = 200
#: The most characters of entries one plugin reply carries (READ_MAX_CHARS in plugin/src/code/methods/layers.js).
READ_MAX_CHARS = 256 * 1024


@plugin_read(
    "design_get_annotations",
    "A node's annotations (and its children's, to depth); a big subtree pages on with nextCursor.",
    toolset="write",
)
async def get_annotations(ctx: ApiContext, args: GetAnnotationsArgs) -> ToolOutput:
    """One page of the annotated layers under the node, read lazily from where the cursor stopped: a page costs the
    same on a subtree of any size, and the cursor is refused once the file or its data version changed."""
    key = ctx.active_file_key or ""
    version = await data_version(ctx, key)
    digest = shaping.request_digest(args.nodeId, args.include_children, args.depth)
    start = shaping.decode_cursor(args.cursor, "annotations", digest, version, file=key) if args.cursor else None
    budget = shaping.budget_chars(args.maxTokens) - shaping.ENVELOPE_CHARS - _HEAD_CHARS
    params: dict[str, Any] = {
        "nodeId": args.nodeId,
        "includeChildren": args.include_children,
        "depth": args.depth,
        "maxChars": max(1, min(READ_MAX_CHARS, budget)),
    }
    if start:
        params["start"] = start
    try:
        reply = await ctx.bridge("GET_ANNOTATIONS", params, file_key=key)
    except DesignError as exc:
        if "stale_cursor" in exc.message:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT,
                f"The layers under {args.nodeId} changed since this cursor was handed out.",
                "Call again without cursor to read from the start.",
            ) from None
        raise
    following = reply.get("next")
    result = {k: v for k, v in reply.items() if k not in ("success", "next")}
    next_cursor = (
        shaping.encode_cursor("annotations", digest, following, version, file=key)
        if isinstance(following, list)
        else None
    )
    return ok(shaping.paged(result, next_cursor))


class Annotation(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    label: Annotated[str, Meta(max_length=10_000)] | None = None
    labelMarkdown: Annotated[str, Meta(max_length=10_000)] | None = None
    properties: list[dict[str, str]] | None = None
    categoryId: Id | None = None


class SetAnnotationsArgs(NodeArgs):
    annotations: Annotated[list[Annotation], Meta(max_length=100)]
    mode: Literal["replace", "append"] = "replace"


write_tool(
    "design_set_annotations",
    "Replace or append a node's annotations (label or labelMarkdown, properties, categoryId).",
    SetAnnotationsArgs,
)
bridge_tool(
    "design_get_annotation_categories",
    "List the file's annotation categories.",
    NoArgs,
    toolset="write",
)
