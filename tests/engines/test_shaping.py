"""Shaping: budgets, cursors and the lazy tree walk, on real generated files."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from fakes.design_api import check_response, huge_file

from design_console.engines import shaping
from design_console.errors import DesignError


def _pages(data: bytes) -> list[msgspec.Raw]:
    head = shaping.decode_head(data, shaping.FileHead)
    return shaping.open_node(head.document)[1]


def test_generated_file_matches_the_spec() -> None:
    check_response("GetFileResponse", msgspec.json.decode(huge_file(1, frames=2, leaves=6)))


@pytest.mark.parametrize("verbosity", ["summary", "standard", "full"])
def test_walk_in_parts_visits_every_node_once(verbosity: shaping.Verbosity) -> None:
    data = huge_file(200_000, frames=5, leaves=12)
    expected = [n["id"] for n in _all_nodes(msgspec.json.decode(data)["document"])]
    roots = _pages(data)
    seen: list[str] = []
    start: list[int] = []
    parts = 0
    while True:
        part = shaping.walk_tree(roots, start=start, max_depth=5, verbosity=verbosity, budget=6_000)
        assert shaping.size_of(part.nodes) <= 6_000
        seen.extend(n["id"] for n in part.nodes)
        parts += 1
        if part.next_path is None:
            break
        start = part.next_path
    assert seen == expected
    assert parts > 3


def _all_nodes(doc: dict) -> list[dict]:
    out = []

    def visit(node: dict) -> None:
        out.append(node)
        for child in node.get("children", []):
            visit(child)

    for page in doc["children"]:
        visit(page)
    return out


def test_depth_limits_the_walk_but_counts_children() -> None:
    part = shaping.walk_tree(_pages(huge_file(1, frames=3, leaves=4)), max_depth=0, verbosity="summary", budget=50_000)
    assert [n["type"] for n in part.nodes] == ["CANVAS"]
    assert part.nodes[0]["childCount"] == 3


def test_standard_verbosity_compacts_colours() -> None:
    part = shaping.walk_tree(_pages(huge_file(1, frames=1, leaves=2)), max_depth=3, verbosity="standard", budget=50_000)
    rect = next(n for n in part.nodes if n["type"] == "RECTANGLE")
    assert rect["fills"][0].startswith("#")
    assert rect["box"]["width"] == 8


def test_cursor_round_trip_and_refusals() -> None:
    token = shaping.encode_cursor("file_data", "abc", [1, 2], "7")
    assert shaping.decode_cursor(token, "file_data", "abc", "7") == [1, 2]
    for scope, digest, version in (("styles", "abc", "7"), ("file_data", "other", "7"), ("file_data", "abc", "8")):
        with pytest.raises(DesignError) as err:
            shaping.decode_cursor(token, scope, digest, version)
        assert err.value.code == "bad_argument"
    with pytest.raises(DesignError):
        shaping.decode_cursor("%%%not-a-cursor", "file_data", "abc")


def test_budget_is_clamped() -> None:
    assert shaping.budget_chars(None) == 8_000 * 4
    assert shaping.budget_chars(10) == shaping.MIN_RESULT_TOKENS * 4
    assert shaping.budget_chars(10**9) == 20_000 * 4


def test_solid_paints_are_hex_with_their_opacity_in_the_alpha() -> None:
    paints = [
        {"type": "SOLID", "color": {"r": 1, "g": 0, "b": 0.5, "a": 1}},
        {"type": "SOLID", "color": {"r": 0, "g": 0, "b": 0, "a": 1}, "opacity": 0.5},
        {"type": "SOLID", "color": {"r": 0, "g": 0, "b": 0}, "visible": False},
        {"type": "IMAGE"},
    ]
    assert shaping.short_paints(paints) == ["#FF0080", "#00000080", {"type": "IMAGE"}]


def test_outline_children_nests_until_depth_is_spent_then_counts() -> None:
    def outline(node: dict[str, Any], depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {"id": node["id"]}
        shaping.outline_children(out, node.get("children") or [], depth, outline)
        return out

    tree = {"id": "0:1", "children": [{"id": "1:1", "children": [{"id": "2:1"}, {"id": "2:2"}]}, {"id": "1:2"}]}
    assert outline(tree, 1) == {"id": "0:1", "children": [{"id": "1:1", "childCount": 2}, {"id": "1:2"}]}
    assert outline(tree, 0) == {"id": "0:1", "childCount": 2}
