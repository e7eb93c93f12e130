"""Node writes: size, position, fills and strokes, image fills, text, names, clones, new children, deletes, and
batches of edits to thousands of layers.

Each call is one undo step and answers with what changed (before → after) or, for a delete, what was removed; a
batch answers with the layers it edited.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta

from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import Method
from design_console.protocol import ToolOutput
from design_console.tools.args import Color, NodeArgs, NodeId
from design_console.tools.base import Args, bridge_tool, ok, tool, write_tool
from design_console.tools.context import MediaContext

Id = Annotated[str, Meta(min_length=1, max_length=200)]
Name = Annotated[str, Meta(min_length=1, max_length=255)]
Size = Annotated[float, Meta(gt=0)]
Coordinate = float
S = TypeVar("S")


class ResizeArgs(NodeArgs):
    width: Size
    height: Size
    withConstraints: bool = True


write_tool(
    "design_resize_node",
    "Resize a node; withConstraints:false ignores children's constraints.",
    ResizeArgs,
    idempotent=True,
)


class MoveArgs(NodeArgs):
    x: Coordinate
    y: Coordinate


write_tool("design_move_node", "Move a node to x,y.", MoveArgs, idempotent=True)


class Paint(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    type: Literal["SOLID"] = "SOLID"
    color: Color | None = None
    opacity: Annotated[float, Meta(ge=0, le=1)] | None = None
    variableId: Id | None = None


class FillsArgs(NodeArgs):
    fills: Annotated[list[Paint], Meta(max_length=20)]


bridge_tool(
    "design_set_fills",
    "Replace a node's fills: colours and/or bound colour variables.",
    FillsArgs,
    method=Method.SET_NODE_FILLS,
    toolset="write",
    idempotent=True,
    read_only=False,
)


class StrokesArgs(NodeArgs):
    strokes: Annotated[list[Paint], Meta(max_length=20)]
    strokeWeight: Annotated[float, Meta(ge=0, le=1000)] | None = None


write_tool(
    "design_set_strokes",
    "Replace a node's strokes and weight like design_set_fills.",
    StrokesArgs,
    method=Method.SET_NODE_STROKES,
    idempotent=True,
)


class ImageFillArgs(Args):
    nodeIds: Annotated[list[NodeId], Meta(min_length=1, max_length=100)]
    imageData: Annotated[str, Meta(min_length=1)]
    scaleMode: Literal["FILL", "FIT", "CROP", "TILE"] = "FILL"


@tool(
    "design_set_image_fill",
    "Fill nodes with a PNG/JPEG/GIF: base64, data URL, https URL or path.",
    runs_in="media",
    toolset="write",
    read_only=False,
    idempotent=True,
    open_world=True,
    needs_bridge=True,
    uses_files=True,
    file_args=("imageData",),
)
async def design_set_image_fill(ctx: MediaContext, args: ImageFillArgs) -> ToolOutput:
    """Load and check the image here, so the plugin only ever receives a verified image of a known size."""
    # Imported here, in the media worker that runs this: Pillow and the HTTP stack would slow designd's start.
    from design_console.clients.image_source import load_image

    # The scope is asked for only when imageData is a path: base64 and URLs work where there are no files.
    image = await load_image(args.imageData, lambda: ctx.file_scope, allow_private=ctx.config.image_private_hosts)
    params = {
        "nodeIds": args.nodeIds,
        "imageData": base64.b64encode(image.data).decode(),
        "scaleMode": args.scaleMode,
    }
    result = await ctx.bridge(Method.SET_IMAGE_FILL, params, file_key=ctx.active_file_key or "")
    result.pop("success", None)
    result["image"] = {"format": image.format, "width": image.width, "height": image.height, "bytes": len(image.data)}
    return ok(result)


write_tool("design_clone_node", "Duplicate a node beside it.", NodeArgs)
write_tool(
    "design_delete_node",
    "Delete a node; returns what was removed.",
    NodeArgs,
    destructive=True,
)


class RenameArgs(NodeArgs):
    newName: Name


write_tool("design_rename_node", "Rename a node.", RenameArgs, idempotent=True)


class TextArgs(NodeArgs):
    text: Annotated[str, Meta(max_length=100_000)]
    fontSize: Annotated[float, Meta(ge=1, le=1000)] | None = None
    fontFamily: Name | None = None
    fontStyle: Name | None = None


write_tool(
    "design_set_text",
    "Set a text node's characters, optionally font size, family, style.",
    TextArgs,
    method=Method.SET_TEXT_CONTENT,
    idempotent=True,
)


def _checked(value: Any, kind: type[S], argument: str, shape: str) -> Any:
    """``value`` checked as ``kind`` and back in plain data, for an argument whose schema ``tools/list`` leaves out
    (the tool's description names its keys, ``shape``: fewer catalog bytes); a bad one names its field and rule."""
    try:
        return msgspec.to_builtins(msgspec.convert(value, kind))
    except msgspec.ValidationError as exc:
        raise DesignError(ErrorCode.BAD_ARGUMENT, f"{argument}: {exc}.", f"Give {argument} as {shape}.") from None


#: The keys of design_create_child's properties, as its description and its refusals show them.
CHILD_SHAPE = "{name?, x?, y?, width?, height?, fills?, text?}"


class ChildProperties(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    name: Name | None = None
    x: Coordinate | None = None
    y: Coordinate | None = None
    width: Size | None = None
    height: Size | None = None
    fills: Annotated[list[Paint], Meta(max_length=20)] | None = None
    text: Annotated[str, Meta(max_length=100_000)] | None = None


class CreateChildArgs(Args):
    parentId: NodeId
    nodeType: Literal["RECTANGLE", "ELLIPSE", "FRAME", "TEXT", "LINE"]
    # A ChildProperties, checked in _child_params.
    properties: dict[str, Any] | None = None


def _child_params(args: CreateChildArgs) -> dict[str, Any]:
    params: dict[str, Any] = {"parentId": args.parentId, "nodeType": args.nodeType}
    if args.properties is not None:
        params["properties"] = _checked(args.properties, ChildProperties, "properties", CHILD_SHAPE)
    return params


write_tool(
    "design_create_child",
    f"Create a rectangle, ellipse, frame, text or line in a parent; properties {CHILD_SHAPE}.",
    CreateChildArgs,
    method=Method.CREATE_CHILD_NODE,
    params=_child_params,
)

#: Largest batch of node edits in one call: the plugin's MAX_EDITS, one undo step, written in slices.
MAX_EDITS = 5000


class NodeEdit(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """One layer's edit: the properties to set on it (the plugin checks each against the layer)."""

    nodeId: NodeId
    x: Coordinate | None = None
    y: Coordinate | None = None
    width: Size | None = None
    height: Size | None = None
    name: Name | None = None
    visible: bool | None = None
    opacity: Annotated[float, Meta(ge=0, le=1)] | None = None
    cornerRadius: Annotated[float, Meta(ge=0)] | None = None
    fills: Annotated[list[Paint], Meta(max_length=20)] | None = None


#: The keys of one edit of design_batch_edit_nodes.
EDIT_SHAPE = "{nodeId, x?, y?, width?, height?, name?, visible?, opacity?, cornerRadius?, fills?}"


class BatchEditArgs(Args):
    # NodeEdits, checked in _edit_params.
    edits: Annotated[list[dict[str, Any]], Meta(min_length=1, max_length=MAX_EDITS)]


def _edit_params(args: BatchEditArgs) -> dict[str, Any]:
    return {"edits": _checked(args.edits, list[NodeEdit], "edits", f"[{EDIT_SHAPE}]")}


write_tool(
    "design_batch_edit_nodes",
    f"Edit layers, all or none: [{EDIT_SHAPE}].",
    BatchEditArgs,
    method=Method.BATCH_EDIT_NODES,
    params=_edit_params,
    idempotent=True,
)
