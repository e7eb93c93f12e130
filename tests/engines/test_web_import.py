"""The web import engine on walked pages written by hand: what becomes a layer, where, and what gets auto layout."""

from __future__ import annotations

from typing import Any

from fakes.page_entries import el, page, text

from design_console.engines.web_import.convert import LocalVariable, convert_page, font_families, parse_color
from design_console.engines.web_import.font_stacks import generic_class


def test_colours_and_font_stacks_are_read() -> None:
    assert parse_color("rgba(255, 0, 51, 0.5)") == (1.0, 0.0, 0.2, 0.5)
    assert parse_color("rgb(0 128 255 / 25%)") == (0.0, 128 / 255, 1.0, 0.25)
    assert parse_color("color(display-p3 1 0 0)") is None
    assert font_families('"Inter Var", Inter, sans-serif') == ["Inter Var", "Inter"]
    # The interface font stands for the systems' own, then the design tool's: never a family later in the stack.
    bootstrap = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
    assert font_families(bootstrap)[:4] == ["SF Pro Text", "SF Pro", "Segoe UI", "Inter"]
    assert font_families(bootstrap)[4:] == ["Roboto", "Helvetica Neue", "Arial"]
    assert generic_class('"Playfair Display", Georgia, serif') == "serif"
    assert generic_class("SFMono-Regular, Menlo, ui-monospace, monospace") == "monospace"
    assert generic_class("ui-monospace, Menlo") == "monospace"
    assert generic_class("Lato") == "sans-serif"


def test_boxes_that_show_nothing_leave_no_layer_and_their_content_keeps_its_place() -> None:
    walked = page(
        el(-1, "html", 0, 0, 800, 600),
        el(0, "body", 0, 0, 800, 600, bg="rgb(243, 244, 246)"),
        el(1, "section", 100, 50, 400, 300, bg="rgb(255, 255, 255)", radius=["12px"] * 4),
        el(2, "div", 120, 70, 200, 40),
        text(3, "Hello", 130, 82, 40),
    )
    out = convert_page(walked, width=800, name="Page")
    root = out.root
    assert root["fills"][0]["color"] == {"r": 243 / 255, "g": 244 / 255, "b": 246 / 255}
    (card,) = root["children"]
    assert (card["type"], card["x"], card["y"], card["cornerRadius"]) == ("FRAME", 100, 50, 12)
    (label,) = card["children"]
    # The layer is the 20 px line, the page's 16 px glyph box centred in it.
    assert (label["type"], label["x"], label["y"], label["height"]) == ("TEXT", 30, 30, 20)
    assert label["families"] == ["Inter", "Arial"] and label["fontWeight"] == 600
    assert out.node_count == 3


def _row(gap_after_first: float) -> dict[str, Any]:
    return page(
        el(-1, "html", 0, 0, 800, 600),
        el(0, "body", 0, 0, 800, 600),
        el(1, "nav", 0, 0, 800, 64, bg="rgb(17, 24, 39)", display="flex", padding=[0, 32, 0, 32]),
        el(2, "a", 32, 16, 80, 32, bg="rgb(37, 99, 235)"),
        el(2, "a", 112 + gap_after_first, 16, 80, 32, bg="rgb(37, 99, 235)"),
        el(2, "a", 112 + gap_after_first + 80 + 24, 16, 80, 32, bg="rgb(37, 99, 235)"),
    )


def test_a_flex_row_gets_auto_layout_only_when_its_items_sit_where_auto_layout_puts_them() -> None:
    nav = convert_page(_row(24), width=800, name="P").root["children"][0]
    assert nav["layout"] == {
        "mode": "HORIZONTAL",
        "itemSpacing": 24,
        "paddingTop": 0,
        "paddingRight": 32,
        "paddingBottom": 0,
        "paddingLeft": 32,
        "primaryAxisAlignItems": "MIN",
        "counterAxisAlignItems": "CENTER",
    }
    uneven = convert_page(_row(40), width=800, name="P").root["children"][0]
    assert "layout" not in uneven


def test_values_equal_to_variables_are_bound_preferring_the_fields_scope() -> None:
    variables = [
        LocalVariable("v:blue", "Brand/Primary", (37 / 255, 99 / 255, 235 / 255, 1.0)),
        LocalVariable("v:radius", "Radius/Gap", 24.0, ("CORNER_RADIUS",)),
        LocalVariable("v:gap", "Space/Gap", 24.0, ("GAP",)),
    ]
    out = convert_page(_row(24), width=800, name="P", variables=variables)
    nav = out.root["children"][0]
    assert nav["bound"] == {"itemSpacing": "v:gap"}
    assert all(item["fills"][0]["variableId"] == "v:blue" for item in nav["children"])
    assert out.bound["Brand/Primary"] == {"id": "v:blue", "cssVar": "--brand-primary", "uses": 3}
    assert "Radius/Gap" not in out.bound
