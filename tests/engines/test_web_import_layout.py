"""The web import engine's layout: which boxes become auto layout (block stacks, table rows, wrapping rows, grids),
which boxes that show nothing stay as groups, and the order layers paint in."""

from __future__ import annotations

from typing import Any

from fakes.page_entries import el, page, text

from design_console.engines.web_import.convert import convert_page


def _html(*entries: dict[str, Any]) -> dict[str, Any]:
    return page(el(-1, "html", 0, 0, 800, 900), el(0, "body", 0, 0, 800, 900), *entries)


def _names(node: dict[str, Any]) -> list[str]:
    return [child["name"] for child in node.get("children", [])]


def test_a_block_of_evenly_spaced_items_is_a_column_and_a_box_around_one_item_leaves_no_layer() -> None:
    out = convert_page(
        _html(
            el(1, "section", 100, 40, 400, 200, padding=[10, 0, 0, 20]),
            text(2, "One", 120, 52, 40),
            text(2, "Two", 120, 84, 40),
            el(2, "div", 120, 114, 380, 20),
            text(5, "Three", 120, 116, 60),
        ),
        width=800,
        name="P",
    )
    (section,) = out.root["children"]
    # The section shows nothing but groups three items 12 px apart: a column with its padding.
    assert section["fills"] == [] and section["layout"]["mode"] == "VERTICAL"
    assert (section["layout"]["itemSpacing"], section["layout"]["paddingTop"], section["layout"]["paddingLeft"]) == (
        12,
        10,
        20,
    )
    # The div around one text is no group: the text takes its place.
    assert _names(section) == ["One", "Two", "Three"]
    assert out.node_count == 5
    uneven = convert_page(
        _html(el(1, "section", 100, 40, 400, 200), text(2, "One", 100, 40, 40), text(2, "Two", 100, 90, 40)),
        width=800,
        name="P",
    )
    # Items at uneven places: no group, the texts stay where they are on the page.
    assert [(c["name"], c["x"], c["y"]) for c in uneven.root["children"]] == [("One", 100, 38), ("Two", 100, 88)]


def test_wrapping_rows_and_grids_are_wrapped_auto_layout_where_the_design_tool_wraps_them_too() -> None:
    cards = [
        el(2, "div", 16 + col * 136, 16 + row * 112, 120, 100, bg="rgb(255, 255, 255)")
        for row in range(2)
        for col in range(3)
    ]
    grid = el(1, "div", 0, 0, 440, 244, display="grid", padding=[16, 16, 16, 16])
    (box,) = convert_page(_html(grid, *cards), width=800, name="P").root["children"]
    assert box["layout"] == {
        "mode": "HORIZONTAL",
        "itemSpacing": 16,
        "paddingTop": 16,
        "paddingRight": 16,
        "paddingBottom": 16,
        "paddingLeft": 16,
        "primaryAxisAlignItems": "MIN",
        "counterAxisAlignItems": "MIN",
        "wrap": True,
        "counterAxisSpacing": 12,
    }
    # A wider box would hold a fourth card in the first row: the design tool would not wrap where the page does.
    wide = el(1, "div", 0, 0, 600, 244, display="flex", flexWrap="wrap", padding=[16, 16, 16, 16])
    (box,) = convert_page(_html(wide, *cards), width=800, name="P").root["children"]
    assert "layout" not in box


def test_a_table_row_is_a_row_and_positioned_boxes_paint_over_the_flow() -> None:
    cells = [el(3, "td", 10 + i * 100, 10, 100, 40, display="table-cell", bg="rgb(250, 250, 250)") for i in range(3)]
    row = el(1, "tr", 10, 10, 300, 40, display="table-row")
    badge = el(1, "span", 5, 5, 20, 20, bg="rgb(255, 0, 0)", position="absolute", z=2)
    under = el(1, "div", 0, 0, 400, 100, bg="rgb(0, 0, 255)", position="absolute", z=-1)
    out = convert_page(_html(badge, row, *cells, under), width=800, name="P")
    # Document order is badge, row, under; the page paints under (z -1), the row, then the badge (z 2).
    assert _names(out.root) == ["div", "tr", "span"]
    tr = out.root["children"][1]
    assert tr["layout"]["mode"] == "HORIZONTAL" and tr["layout"]["itemSpacing"] == 0
    assert out.root["children"][2]["absolute"] is True


def test_a_frame_whose_content_leaves_no_layer_has_no_children_left() -> None:
    out = convert_page(
        _html(
            el(1, "div", 0, 0, 200, 100, bg="rgb(0, 0, 0)"),
            el(2, "div", 100, 50, 0, 0, display="flex"),
            el(3, "i", 100, 50, 0, 0),
        ),
        width=800,
        name="P",
    )
    (box,) = out.root["children"]
    # The empty boxes inside (an icon whose font did not load) leave nothing, and no bookkeeping, behind.
    assert "children" not in box and out.node_count == 2
    assert "_entry" not in str(out.root)


def test_a_column_of_a_flex_row_stays_a_frame_so_the_row_keeps_its_layout() -> None:
    row = el(1, "div", 0, 0, 600, 100, display="flex", padding=[0, 0, 0, 0])
    # Two columns tiling the row (entries 3 and 5), each padded 12 px around one card.
    padded = [0, 12, 0, 12]
    first = el(2, "div", 0, 0, 300, 100, padding=padded)
    first_card = el(3, "div", 12, 0, 276, 100, bg="rgb(1, 1, 1)")
    second = el(2, "div", 300, 0, 300, 100, padding=padded)
    second_card = el(5, "div", 312, 0, 276, 100, bg="rgb(2, 2, 2)")
    out = convert_page(_html(row, first, first_card, second, second_card), width=800, name="P")
    (box,) = out.root["children"]
    assert box["layout"]["mode"] == "HORIZONTAL" and box["layout"]["itemSpacing"] == 0
    assert [(c["x"], c["layout"]["paddingLeft"]) for c in box["children"]] == [(0, 12), (300, 12)]
