"""Slides tools: the deck as an outline, slides made, moved, skipped and styled, text and shapes added.

designd refuses them before sending anything when the active file is not a slides file (``needs_editor``). A deck
reads as an outline first (slide order, each slide's title and text); a slide's node tree comes with its outline
when it fits the budget. Each write is one undo step; a reorder that drops or repeats a slide changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from design_console.engines import shaping
from design_console.tools.args import Color, MaxTokens, NodeId, PagedArgs
from design_console.tools.base import Args, NoArgs, bridge_tool
from design_console.tools.context import Context

SLIDES: tuple[str, ...] = ("slides",)
#: The transition styles, as one pattern: the 23 names cost a quarter as much in every session's tools/list.
TRANSITION = (
    "^(NONE|DISSOLVE|SMART_ANIMATE|(SLIDE_FROM|PUSH_FROM|MOVE_FROM|SLIDE_OUT_TO|MOVE_OUT_TO)_(LEFT|RIGHT|TOP|BOTTOM))$"
)
Curve = Literal["LINEAR", "EASE_IN", "EASE_OUT", "EASE_IN_AND_OUT", "GENTLE", "QUICK", "BOUNCY", "SLOW"]
Size = Annotated[float, Meta(ge=1, le=10_000)]


def _slides_tool(name: str, description: str, args: type[Args], *, read_only: bool = False, **options: Any) -> None:
    bridge_tool(
        name,
        description,
        args,
        toolset="slides",
        read_only=read_only,
        idempotent=read_only,
        needs_editor=SLIDES,
        **options,
    )


class SlideArgs(Args):
    slideId: NodeId


# Reads ------------------------------------------------------------------------------------------------------------


def _outline_part(ctx: Context, args: PagedArgs, reply: dict[str, Any]) -> dict[str, Any]:
    slides = []
    for slide in reply.get("slides") or []:
        entry = {key: slide.get(key) for key in ("id", "row", "col", "title")}
        if slide.get("text"):
            entry["text"] = [shaping.clip_text(t) for t in slide["text"]]
        if not slide.get("title"):
            entry["name"] = slide.get("name")
        if slide.get("isSkipped"):
            entry["skipped"] = True
        slides.append(entry)
    head = {"count": len(slides)}
    return shaping.paged_list(head, "slides", slides, args, scope="slides", request=ctx.active_file_key, source=reply)


_slides_tool(
    "design_list_slides",
    "Deck outline: slide order, titles, text; paged.",
    PagedArgs,
    read_only=True,
    params=lambda args: {},
    shape=_outline_part,
)


class SlideContentArgs(SlideArgs):
    maxTokens: MaxTokens | None = None


def _slide_content(ctx: Context, args: SlideContentArgs, reply: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": reply.get("id"),
        "name": reply.get("name"),
        "title": shaping.clip_text(reply.get("title")),
        "text": [shaping.clip_text(t) for t in reply.get("text") or []],
    }
    tree = reply.get("slide")
    if shaping.size_of(result) + shaping.size_of(tree) + shaping.ENVELOPE_CHARS <= shaping.budget_chars(args.maxTokens):
        result["tree"] = tree
    else:
        result["notes"] = ["The node tree does not fit maxTokens; raise it to read the tree."]
    return result


_slides_tool(
    "design_get_slide_content",
    "A slide's title, text and node tree.",
    SlideContentArgs,
    read_only=True,
    params=lambda args: {"slideId": args.slideId},
    shape=_slide_content,
)
_slides_tool("design_get_slide_grid", "Slide ids as rows of the grid.", NoArgs, read_only=True)
_slides_tool("design_get_slide_transition", "A slide's transition.", SlideArgs, read_only=True)
_slides_tool("design_get_focused_slide", "The focused slide.", NoArgs, read_only=True)
# Text styles are local styles of any file, so this read names no editor.
bridge_tool(
    "design_get_text_styles",
    "Local text styles.",
    NoArgs,
    toolset="slides",
    idempotent=True,
)


# Writes -----------------------------------------------------------------------------------------------------------


class CreateSlideArgs(Args):
    row: Annotated[int, Meta(ge=0)] | None = None
    col: Annotated[int, Meta(ge=0)] | None = None


_slides_tool("design_create_slide", "Add a slide, at row/col if given.", CreateSlideArgs)
_slides_tool("design_delete_slide", "Delete a slide.", SlideArgs, destructive=True)
_slides_tool("design_duplicate_slide", "Duplicate a slide.", SlideArgs)


class ReorderArgs(Args):
    grid: Annotated[list[list[NodeId]], Meta(min_length=1)]


_slides_tool("design_reorder_slides", "Set the grid; name every slide once.", ReorderArgs)


class TransitionArgs(SlideArgs):
    style: Annotated[str, Meta(pattern=TRANSITION)]
    duration: Annotated[float, Meta(ge=0.01, le=10)] = 0.4
    curve: Curve = "EASE_IN_AND_OUT"


_slides_tool("design_set_slide_transition", "Set a slide's transition.", TransitionArgs)


class SkipArgs(SlideArgs):
    skip: bool


_slides_tool("design_skip_slide", "Skip or unskip a slide.", SkipArgs)


class SlideTextArgs(SlideArgs):
    text: Annotated[str, Meta(min_length=1)]
    x: float = 100
    y: float = 100
    fontSize: Annotated[float, Meta(ge=1, le=1000)] = 24
    fontFamily: str = "Inter"
    fontStyle: str = "Regular"
    color: Color | None = None
    textAlign: Literal["LEFT", "CENTER", "RIGHT"] | None = None
    width: Size | None = None
    lineHeight: Annotated[float, Meta(ge=1, le=500)] | None = None
    letterSpacing: float | None = None
    textCase: Literal["ORIGINAL", "UPPER", "LOWER", "TITLE"] | None = None


_slides_tool("design_add_text_to_slide", "Add text to a slide.", SlideTextArgs)


class SlideShapeArgs(SlideArgs):
    shapeType: Literal["RECTANGLE", "ELLIPSE"]
    x: float
    y: float
    width: Size
    height: Size
    fillColor: Color = "#CCCCCC"


_slides_tool("design_add_shape_to_slide", "Add a rectangle or ellipse.", SlideShapeArgs)


class BackgroundArgs(SlideArgs):
    color: Color


_slides_tool("design_set_slide_background", "Set a slide's background.", BackgroundArgs)


class ViewModeArgs(Args):
    mode: Literal["grid", "single-slide"]


_slides_tool("design_set_slides_view_mode", "Grid or single-slide view.", ViewModeArgs)
_slides_tool("design_focus_slide", "Focus a slide.", SlideArgs)
