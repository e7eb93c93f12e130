"""design_get_metadata: a compact XML outline of a node's layers, paged on layer boundaries.

Each page is one READ_LAYERS read that starts where the last page stopped, so a page costs the same on any size of
file and a paged walk reads every layer once. The cursor holds that position, the file, the file's data version and
the roots it was read from; any of them changed, it is refused with how to start again.
"""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from design_console.engines import shaping
from design_console.engines.codegen.metadata import outline
from design_console.protocol import ToolOutput
from design_console.tools.args import NodeId, PagedArgs
from design_console.tools.base import code_read, ok
from design_console.tools.code.node_read import READ_PAGE_NODES, read_layers
from design_console.tools.context import ApiContext
from design_console.tools.plugin_replies import data_version

#: Characters an outline element takes, about (its id, name and box): a page asks the plugin for about as many layers
#: as its budget can show, so little of what crosses the bridge is read again for the next page.
ELEMENT_CHARS = 64


class MetadataArgs(PagedArgs, kw_only=True):
    nodeId: NodeId | None = None
    depth: Annotated[int, Meta(ge=0, le=50)] = 6


@code_read("design_get_metadata", "XML outline of a node's layers: ids, names, boxes (default: selection, else page).")
async def design_get_metadata(ctx: ApiContext, args: MetadataArgs) -> ToolOutput:
    """One page of the outline; ``nextCursor`` continues at the next layer in document order."""
    key = ctx.active_file_key or ""
    version = await data_version(ctx, key)
    digest = shaping.request_digest(args.nodeId or "", args.depth)
    position: dict[str, Any] = {}
    if args.cursor:
        found = shaping.decode_cursor(args.cursor, "metadata", digest, version, file=key)
        position = found if isinstance(found, dict) else {}
    budget = shaping.budget_chars(args.maxTokens)
    page = await read_layers(
        ctx,
        args.nodeId,
        depth=args.depth,
        max_nodes=min(READ_PAGE_NODES, budget // ELEMENT_CHARS + 1),
        start=position.get("at"),
        roots_key=position.get("roots"),
    )
    result: dict[str, object] = {}
    if not args.nodeId:
        result["scope"] = page.scope
    if not page.nodes:
        result.update(layers=0, xml="<layers></layers>")
        return ok(result)
    records = [*page.ancestors, *page.nodes]
    paths = _link_parents(records)
    first = len(page.ancestors)
    xml, next_index = outline(records, first, budget)
    result["layers"] = (len(records) if next_index is None else next_index) - first
    result["xml"] = xml
    after = page.next if next_index is None else list(paths[next_index])
    next_cursor = None
    if after is not None:
        next_cursor = shaping.encode_cursor(
            "metadata", digest, {"at": after, "roots": page.rootsKey}, version, file=key
        )
    return ok(shaping.paged(result, next_cursor))


def _link_parents(records: list[dict[str, Any]]) -> list[tuple[int, ...]]:
    """Give each record (document order, ``d`` its depth, ``i`` its index among its siblings) ``p``, its parent's
    index (-1 for a root); returns each record's position in the tree, as READ_LAYERS takes it back."""
    paths: list[tuple[int, ...]] = []
    open_parents: list[int] = []
    for index, record in enumerate(records):
        depth = int(record["d"])
        del open_parents[depth:]
        parent = open_parents[-1] if open_parents else -1
        record["p"] = parent
        paths.append((paths[parent] if parent >= 0 else ()) + (int(record["i"]),))
        open_parents.append(index)
    return paths
