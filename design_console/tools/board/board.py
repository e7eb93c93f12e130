"""FigJam whiteboard tools: stickies, connectors, shapes, sections, tables, code blocks, arranging, and reading a board.

designd refuses them before sending anything when the active file is not a whiteboard (``needs_editor``). Each write
is one undo step and answers with the nodes it made or moved. A board reads as stickies grouped by section and
connectors as edges between node ids, one budget-sized part at a time.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from design_console.engines import shaping
from design_console.plugin_contract import MAX_ARRANGED, MAX_STICKIES
from design_console.tools.args import Color, NodeId, PagedArgs
from design_console.tools.base import Args, bridge_tool
from design_console.tools.context import Context

BOARD: tuple[str, ...] = ("figjam",)
StickyColor = Literal["YELLOW", "BLUE", "GREEN", "PINK", "ORANGE", "PURPLE", "RED", "LIGHT_GRAY", "GRAY"]
Magnet = Literal["AUTO", "TOP", "BOTTOM", "LEFT", "RIGHT"]
#: The flowchart shapes, as one pattern (cheaper in every session's tools/list than 11 enum names).
SHAPE_TYPE = (
    "^(ROUNDED_RECTANGLE|DIAMOND|ELLIPSE|TRIANGLE_(UP|DOWN)|PARALLELOGRAM_(RIGHT|LEFT)"
    "|ENG_(DATABASE|QUEUE|FILE|FOLDER))$"
)
BoardType = Literal["STICKY", "SHAPE_WITH_TEXT", "CONNECTOR", "TABLE", "CODE_BLOCK", "SECTION", "FRAME", "TEXT"]
Text = Annotated[str, Meta(min_length=1)]
Size = Annotated[float, Meta(ge=1, le=10_000)]
SectionSize = Annotated[float, Meta(ge=1, le=20_000)]


def _board_write(name: str, description: str, args: type[Args], **options: Any) -> None:
    bridge_tool(name, description, args, toolset="board", read_only=False, needs_editor=BOARD, **options)


#: One sticky note: the arguments of design_create_sticky, and each item of design_create_stickies.
class Sticky(Args):
    text: Text
    color: StickyColor | None = None
    x: float | None = None
    y: float | None = None


_board_write("design_create_sticky", "Add a sticky note.", Sticky)


class StickiesArgs(Args):
    stickies: Annotated[list[Sticky], Meta(min_length=1, max_length=MAX_STICKIES)]


_board_write("design_create_stickies", "Add up to 200 stickies; all or none.", StickiesArgs)


class ConnectorArgs(Args):
    startNodeId: NodeId
    endNodeId: NodeId
    label: str | None = None
    startMagnet: Magnet = "AUTO"
    endMagnet: Magnet = "AUTO"


_board_write("design_create_connector", "Connect two nodes.", ConnectorArgs)


class ShapeArgs(Args):
    text: str | None = None
    shapeType: Annotated[str, Meta(pattern=SHAPE_TYPE)] | None = None
    x: float | None = None
    y: float | None = None
    width: Size | None = None
    height: Size | None = None
    fillColor: Color | None = None
    strokeColor: Color | None = None
    fontSize: Annotated[float, Meta(ge=1, le=200)] | None = None
    strokeDashPattern: str | None = None


_board_write("design_create_shape_with_text", "Flowchart shape with text.", ShapeArgs)


class SectionArgs(Args):
    name: str | None = None
    x: float | None = None
    y: float | None = None
    width: SectionSize = 1000
    height: SectionSize = 800
    fillColor: Color | None = None


# Sections exist in design files too; only slides have none.
bridge_tool(
    "design_create_section",
    "Add a section.",
    SectionArgs,
    toolset="board",
    read_only=False,
    needs_editor=("figjam", "figma"),
)


class TableArgs(Args):
    rows: Annotated[int, Meta(ge=1, le=100)]
    columns: Annotated[int, Meta(ge=1, le=50)]
    data: list[list[str]] | None = None
    x: float | None = None
    y: float | None = None


_board_write("design_create_table", "Add a table; data fills cells.", TableArgs)


class CodeBlockArgs(Args):
    code: Text
    language: str | None = None
    x: float | None = None
    y: float | None = None


_board_write("design_create_code_block", "Add a code block.", CodeBlockArgs)


class ArrangeArgs(Args):
    nodeIds: Annotated[list[NodeId], Meta(min_length=1, max_length=MAX_ARRANGED)]
    layout: Literal["grid", "horizontal", "vertical"] = "grid"
    spacing: Annotated[float, Meta(ge=0, le=10_000)] = 40
    columns: Annotated[int, Meta(ge=1, le=100)] | None = None


# Arranging works in any editor's files, so it names none.
bridge_tool(
    "design_auto_arrange",
    "Grid/row/column layout without overlap.",
    ArrangeArgs,
    toolset="board",
    read_only=False,
)


# Reads ------------------------------------------------------------------------------------------------------------


def _edge(node: dict[str, Any]) -> dict[str, Any]:
    edge = {"id": node.get("id"), "from": node.get("startNodeId"), "to": node.get("endNodeId")}
    label = node.get("text") or node.get("label")
    if label:
        edge["label"] = shaping.clip_text(label)
    return edge


_NODE_KEYS = ("id", "type", "x", "y", "width", "height")


def _board_items(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The board's nodes as one list to page through: each section's nodes together, then those in none, then the
    connectors as edges. ``s`` is the section an item belongs to, ``e`` marks an edge, ``h`` a section itself."""
    by_section: dict[str | None, list[dict[str, Any]]] = {}
    edges = []
    for node in nodes:
        if node.get("type") == "CONNECTOR":
            edges.append({"e": _edge(node)})
            continue
        record = {key: node[key] for key in _NODE_KEYS if key in node}
        if "text" in node:
            record["text"] = shaping.clip_text(node["text"])
        else:
            record["name"] = node.get("name")
        section = node.get("sectionId")
        if node.get("type") == "SECTION":
            by_section.setdefault(node["id"], [])
            item = {"h": node["id"], "r": record}
            if section:
                item["in"] = section
            by_section[node["id"]].insert(0, item)
            continue
        by_section.setdefault(section, []).append({"s": section, "r": record})
    items = [item for key, group in by_section.items() if key is not None for item in group]
    return items + by_section.get(None, []) + edges


def _grouped(items: list[dict[str, Any]], names: dict[str, str]) -> dict[str, Any]:
    sections: dict[str, dict[str, Any]] = {}
    loose: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for item in items:
        if "e" in item:
            edges.append(item["e"])
        elif "h" in item:
            header = sections.setdefault(item["h"], {"id": item["h"], "nodes": []})
            record = dict(item["r"])
            record.pop("id", None)
            record.pop("type", None)
            header.update(record)
            if "in" in item:
                header["in"] = item["in"]
        elif item["s"]:
            section = sections.setdefault(item["s"], {"id": item["s"], "name": names.get(item["s"], ""), "nodes": []})
            section["nodes"].append(item["r"])
        else:
            loose.append(item["r"])
    out: dict[str, Any] = {}
    if sections:
        out["sections"] = list(sections.values())
    if loose:
        out["loose"] = loose
    if edges:
        out["edges"] = edges
    return out


class BoardArgs(PagedArgs):
    nodeTypes: list[BoardType] | None = None
    maxNodes: Annotated[int, Meta(ge=1, le=1000)] = 500


def _board_part(ctx: Context, args: BoardArgs, reply: dict[str, Any]) -> dict[str, Any]:
    nodes = reply.get("nodes") or []
    names = {n["sectionId"]: n.get("sectionName", "") for n in nodes if n.get("sectionId")}
    items = _board_items(nodes)
    head: dict[str, Any] = {"page": reply.get("page"), "total": reply.get("total", len(nodes))}
    if reply.get("truncated"):
        head["notes"] = [f"Only the first {args.maxNodes} nodes were read; raise maxNodes (at most 1000)."]
    chosen, cursor = shaping.page_items(
        items,
        scope="board",
        request=[ctx.active_file_key, args.nodeTypes, args.maxNodes],
        source=reply,
        cursor=args.cursor,
        budget=shaping.budget_chars(args.maxTokens) - shaping.size_of(head),
    )
    return shaping.paged({**head, **_grouped(chosen, names)}, cursor)


bridge_tool(
    "design_get_board_contents",
    "Board nodes by section, connectors as edges; paged.",
    BoardArgs,
    toolset="board",
    idempotent=True,
    needs_editor=BOARD,
    params=lambda args: (
        {"nodeTypes": args.nodeTypes, "maxNodes": args.maxNodes} if args.nodeTypes else {"maxNodes": args.maxNodes}
    ),
    shape=_board_part,
)


def _connections_part(ctx: Context, args: PagedArgs, reply: dict[str, Any]) -> dict[str, Any]:
    edges = [_edge(c) for c in reply.get("connections") or []]
    head = {"count": len(edges)}
    return shaping.paged_list(
        head, "edges", edges, args, scope="connections", request=ctx.active_file_key, source=reply
    )


bridge_tool(
    "design_get_connections",
    "Connectors as edges; paged.",
    PagedArgs,
    toolset="board",
    idempotent=True,
    needs_editor=BOARD,
    params=lambda args: {},
    shape=_connections_part,
)
