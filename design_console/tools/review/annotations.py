"""Dev Mode annotations: read them, set them, and list their categories."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from design_console.tools.args import NodeArgs
from design_console.tools.base import NoArgs, bridge_tool, write_tool

Id = Annotated[str, Meta(min_length=1, max_length=200)]


class GetAnnotationsArgs(NodeArgs):
    include_children: bool = False
    depth: Annotated[int, Meta(ge=1, le=20)] = 1


bridge_tool(
    "design_get_annotations",
    "A node's annotations (and its children's, to depth).",
    GetAnnotationsArgs,
    toolset="write",
    rename={"include_children": "includeChildren"},
)


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
