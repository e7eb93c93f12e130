"""Slots: flexible areas of a component that instances fill with their own content."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from design_console.tools.args import NodeArgs, NodeId
from design_console.tools.base import Args, bridge_tool, write_tool
from design_console.tools.components.components_write import PreferredValue

Id = Annotated[str, Meta(min_length=1, max_length=200)]
Name = Annotated[str, Meta(min_length=1, max_length=255)]
Size = Annotated[float, Meta(gt=0)]


class CreateSlotArgs(NodeArgs):
    name: Name | None = None
    width: Size | None = None
    height: Size | None = None
    layoutMode: Literal["NONE", "HORIZONTAL", "VERTICAL"] | None = None


write_tool("design_create_slot", "Create a slot inside a component.", CreateSlotArgs)


bridge_tool(
    "design_get_slots",
    "List the slots of a component or instance.",
    NodeArgs,
    toolset="write",
)


class SlotRef(Args):
    slotId: NodeId | None = None
    instanceId: NodeId | None = None
    slotName: Name | None = None


class ChildProperties(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    name: Name | None = None
    width: Size | None = None
    height: Size | None = None
    text: Annotated[str, Meta(max_length=100_000, description="TEXT only")] | None = None


class AppendArgs(SlotRef):
    sourceNodeId: NodeId | None = None
    nodeType: Literal["FRAME", "RECTANGLE", "ELLIPSE", "TEXT", "LINE", "POLYGON", "STAR", "VECTOR"] | None = None
    properties: ChildProperties | None = None
    clone: bool = True
    clearExisting: bool = False


write_tool(
    "design_append_to_slot",
    "Put a clone of sourceNodeId, or a new node, in a slot (slotId, or instanceId+slotName).",
    AppendArgs,
)
write_tool(
    "design_reset_slot",
    "Reset an instance's slot to its default content.",
    SlotRef,
    destructive=True,
    idempotent=True,
)


class SlotPropertyArgs(NodeArgs):
    propertyName: Name
    frameNodeId: NodeId
    description: str | None = None
    preferredValues: list[PreferredValue] | None = None


write_tool(
    "design_add_slot_property",
    "Add a SLOT property to a component, bound to a direct-child frame.",
    SlotPropertyArgs,
)
