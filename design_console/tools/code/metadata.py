"""design_get_metadata: a compact XML outline of a node's layers, paged on layer boundaries."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from design_console.engines import shaping
from design_console.engines.codegen.metadata import outline
from design_console.protocol import ToolOutput
from design_console.tools.args import NodeId, PagedArgs
from design_console.tools.base import code_read, ok
from design_console.tools.code.node_read import read_nodes
from design_console.tools.context import ApiContext


class MetadataArgs(PagedArgs, kw_only=True):
    nodeId: NodeId | None = None
    depth: Annotated[int, Meta(ge=0, le=50)] = 6


@code_read("design_get_metadata", "XML outline of a node's layers: ids, names, boxes (default: selection, else page).")
async def design_get_metadata(ctx: ApiContext, args: MetadataArgs) -> ToolOutput:
    """One page of the outline; ``nextCursor`` continues at the next layer in document order."""
    digest = shaping.request_digest(args.nodeId or "", args.depth)
    start = shaping.decode_cursor(args.cursor, "metadata", digest) if args.cursor else 0
    if not isinstance(start, int) or start < 0:
        start = 0
    tree = await read_nodes(ctx, args.nodeId, depth=args.depth, full=False)
    result: dict[str, object] = {"layers": len(tree.nodes)}
    if tree.scope:
        result["scope"] = tree.scope
    if not tree.nodes:
        result["xml"] = "<layers></layers>"
        return ok(result)
    xml, next_index = outline(tree.nodes, min(start, len(tree.nodes) - 1), shaping.budget_chars(args.maxTokens))
    result["xml"] = xml
    if tree.truncated:
        result["truncated"] = "The outline stops at the read limit: ask for a node lower in the tree."
    next_cursor = shaping.encode_cursor("metadata", digest, next_index) if next_index is not None else None
    return ok(shaping.paged(result, next_cursor))
