"""Component writes: instances, descriptions, component properties, variant sets and their layout.

Each call is one undo step; the plugin refuses an instance where a main component is needed and a library
component that cannot be edited in this file, before it changes anything.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from design_console.plugin_contract import Method
from design_console.tools.args import NodeArgs, NodeId
from design_console.tools.base import Args, write_tool

Id = Annotated[str, Meta(min_length=1, max_length=200)]
Name = Annotated[str, Meta(min_length=1, max_length=255)]
PropValue = str | float | bool


class Point(msgspec.Struct, forbid_unknown_fields=True):
    x: float
    y: float


class PreferredValue(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["COMPONENT", "COMPONENT_SET"]
    key: Id


class InstantiateArgs(Args):
    componentKey: Id | None = None
    nodeId: NodeId | None = None
    variant: dict[str, str] | None = None
    overrides: dict[str, PropValue] | None = None
    position: Point | None = None
    parentId: NodeId | None = None


write_tool(
    "design_instantiate_component",
    "Place an instance (componentKey or local nodeId), variant, overrides.",
    InstantiateArgs,
)


class DescriptionArgs(NodeArgs):
    description: Annotated[str, Meta(max_length=10_000)]
    descriptionMarkdown: Annotated[str, Meta(max_length=10_000)] | None = None


write_tool(
    "design_set_description",
    "Set a component's or style's description (optional markdown).",
    DescriptionArgs,
    method=Method.SET_NODE_DESCRIPTION,
    idempotent=True,
)


class AddPropertyArgs(NodeArgs):
    propertyName: Name
    type: Literal["BOOLEAN", "TEXT", "INSTANCE_SWAP", "VARIANT", "SLOT"]
    defaultValue: PropValue | None = None
    description: str | None = None
    preferredValues: list[PreferredValue] | None = None


write_tool(
    "design_add_component_property",
    "Add a property to a component or component set.",
    AddPropertyArgs,
    rename={"type": "propertyType"},
)


class PropertyChange(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    name: Name | None = None
    defaultValue: PropValue | None = None
    preferredValues: list[PreferredValue] | None = None


class EditPropertyArgs(NodeArgs):
    propertyName: Name
    newValue: PropertyChange


write_tool(
    "design_edit_component_property",
    "Rename a component property or change its default or preferred values.",
    EditPropertyArgs,
)


class PropertyArgs(NodeArgs):
    propertyName: Name


write_tool(
    "design_delete_component_property",
    "Remove a component property.",
    PropertyArgs,
    destructive=True,
)


class ArrangeOptions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    gap: Annotated[float, Meta(ge=0)] | None = None
    cellPadding: Annotated[float, Meta(ge=0)] | None = None
    columnProperty: Name | None = None


class ArrangeArgs(Args):
    componentSetId: NodeId | None = None
    componentSetName: Name | None = None
    options: ArrangeOptions | None = None


write_tool(
    "design_arrange_component_set",
    "Lay out a component set's variants in a labelled grid.",
    ArrangeArgs,
    idempotent=True,
)


class VariantAxis(msgspec.Struct, forbid_unknown_fields=True):
    name: Name
    values: Annotated[list[Name], Meta(min_length=1, max_length=50)]


class CreateSetArgs(Args):
    baseComponentId: NodeId | None = None
    properties: dict[str, list[Name]] | None = None
    componentIds: Annotated[list[NodeId], Meta(max_length=500)] | None = None
    variantProperties: list[VariantAxis] | None = None
    name: Name | None = None
    parentId: NodeId | None = None
    position: Point | None = None
    autoArrange: bool = False
    arrangeOptions: ArrangeOptions | None = None


write_tool(
    "design_create_component_set",
    "Make a variant set from a base component and axes, or componentIds.",
    CreateSetArgs,
)


class InstancePropsArgs(NodeArgs):
    properties: dict[str, PropValue]


write_tool(
    "design_set_instance_properties",
    "Set an instance's component properties (#id suffix optional).",
    InstancePropsArgs,
    idempotent=True,
)
