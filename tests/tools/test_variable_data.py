"""A file's variables from the plugin (a fresh read page by page, or an older plugin's snapshot) and shaped for a
listing."""

from __future__ import annotations

from typing import Any

import pytest
from fakes.context import FakeContext, data
from fakes.design_api import ENTERPRISE_KEY

from design_console.errors import DesignError
from design_console.tools.variable_data import (
    VariableView,
    plugin_snapshot,
    select_variables,
    shape_variables,
    variables_by_pages,
    variables_from_plugin,
)

FILE = "varsFile"
FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"

#: Two collections, one from a library; an alias chain (primary → blue → its colour) and an alias cycle.
RAW: dict[str, Any] = {
    "variableCollections": {
        "C:1": {"id": "C:1", "name": "Brand", "defaultModeId": "m1",
                "modes": [{"modeId": "m1", "name": "Light"}, {"modeId": "m2", "name": "Dark"}],
                "variableIds": ["V:1", "V:2", "V:3", "V:4"]},
        "C:2": {"id": "C:2", "name": "Library", "remote": True, "modes": [{"modeId": "m3", "name": "Default"}],
                "variableCount": 1},
    },
    "variables": [
        {"id": "V:1", "name": "color/blue", "key": "k1", "variableCollectionId": "C:1", "resolvedType": "COLOR",
         "valuesByMode": {"m1": {"r": 0, "g": 0, "b": 1, "a": 1}, "m2": {"r": 1, "g": 1, "b": 1, "a": 1}},
         "description": "Brand blue", "scopes": ["ALL_FILLS"]},
        {"id": "V:2", "name": "color/primary", "variableCollectionId": "C:1", "resolvedType": "COLOR",
         "valuesByMode": {"m1": {"type": "VARIABLE_ALIAS", "id": "V:1"},
                          "m2": {"type": "VARIABLE_ALIAS", "id": "V:1"}}},
        {"id": "V:3", "name": "loop/a", "variableCollectionId": "C:1", "resolvedType": "COLOR",
         "valuesByMode": {"m1": {"type": "VARIABLE_ALIAS", "id": "V:4"}}},
        {"id": "V:4", "name": "loop/b", "variableCollectionId": "C:1", "resolvedType": "COLOR",
         "valuesByMode": {"m1": {"type": "VARIABLE_ALIAS", "id": "V:3"}}},
        {"id": "V:5", "name": "lib/space", "variableCollectionId": "C:2", "resolvedType": "FLOAT", "remote": True,
         "valuesByMode": {"m3": 8}},
    ],
}  # fmt: skip


#: How many variables the stand-in plugin puts in a page: fewer than asked, as the real one stops at its size bound.
PAGE_CAP = 200


def paged_variables(params: dict[str, Any]) -> dict[str, Any]:
    """READ_VARIABLES answered like the real plugin does: a page from ``offset``, cut short by its size bound, the
    collections on the first page, and the following offset."""
    offset, size = params["offset"], min(params["maxItems"], PAGE_CAP)
    every = [
        {"id": f"V:{n}", "name": f"space/{n}", "variableCollectionId": "C:1", "resolvedType": "FLOAT",
         "valuesByMode": {"m1": n}}
        for n in range(450)
    ]  # fmt: skip
    page = every[offset : offset + size]
    answer: dict[str, Any] = {"success": True, "total": 450, "offset": offset, "variables": page}
    answer["next"] = offset + len(page) if offset + len(page) < len(every) else None
    if offset == 0:
        answer["variableCollections"] = [
            {"id": "C:1", "name": "Spacing", "modes": [{"modeId": "m1", "name": "Default"}], "variableCount": 450}
        ]
    return answer


async def test_a_fresh_plugin_read_goes_page_by_page_to_the_end(ctx: FakeContext) -> None:
    ctx.plugin = {
        "GET_VARIABLES_DATA": {"success": True, "variables": [], "variableCollections": []},
        "READ_VARIABLES": paged_variables,
    }
    result = data(
        await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "refreshCache": True, "format": "summary"})
    )
    assert result["source"] == "plugin"
    assert [p["offset"] for p in ctx.sent("READ_VARIABLES")] == [0, 200, 400]
    assert result["totalVariables"] == 450 and result["collections"][0]["variables"] == 450
    assert ctx.sent("GET_VARIABLES_DATA") == []


async def test_pages_are_read_from_the_named_file_until_the_last(ctx: FakeContext) -> None:
    ctx.plugin = {"READ_VARIABLES": paged_variables}
    read = await variables_by_pages(ctx, FILE)
    assert read is not None
    assert [v["name"] for v in read["variables"]] == [f"space/{n}" for n in range(450)]
    assert [c["name"] for c in read["variableCollections"]] == ["Spacing"]
    assert {key for *_, key in ctx.bridge_calls} == {FILE}


async def test_a_page_of_another_shape_reads_as_nothing(ctx: FakeContext) -> None:
    ctx.plugin = {"READ_VARIABLES": {"success": True, "variables": "all of them"}}
    assert await variables_by_pages(ctx, FILE) is None


async def test_a_plugin_older_than_paged_reads_answers_from_its_snapshot(ctx: FakeContext) -> None:
    snapshot = {"success": True, "variables": [{"id": "V:9"}], "variableCollections": []}
    ctx.plugin = {"GET_VARIABLES_DATA": snapshot}
    for refresh in (False, True):
        assert await variables_from_plugin(ctx, FILE, refresh=refresh) == (snapshot, "plugin")
    assert len(ctx.sent("READ_VARIABLES")) == len(ctx.sent("GET_VARIABLES_DATA")) == 2


async def test_a_failed_paged_read_falls_to_the_snapshot_unless_a_fresh_read_is_asked(ctx: FakeContext) -> None:
    snapshot = {"success": True, "variables": [{"id": "V:9"}], "variableCollections": []}
    ctx.plugin = {"GET_VARIABLES_DATA": snapshot, "READ_VARIABLES": DesignError("timeout", "No answer in 32 s.")}
    assert await variables_from_plugin(ctx, FILE, refresh=False) == (snapshot, "plugin")
    with pytest.raises(DesignError, match="32 s"):
        await variables_from_plugin(ctx, FILE, refresh=True)
    ctx.plugin = {"GET_VARIABLES_DATA": DesignError("plugin_error", "No variables data yet.")}
    assert await plugin_snapshot(ctx, FILE) is None
    assert await variables_from_plugin(ctx, FILE, refresh=False) is None


async def test_no_plugin_is_none_and_another_failure_is_raised(ctx: FakeContext) -> None:
    assert await variables_from_plugin(ctx, FILE, refresh=False) is None
    with pytest.raises(DesignError) as not_connected:
        await plugin_snapshot(ctx, FILE)
    assert not_connected.value.code == "not_connected"
    ctx.plugin = {"READ_VARIABLES": DesignError("timeout", "The plugin did not answer READ_VARIABLES in 32 s.")}
    with pytest.raises(DesignError, match="32 s") as timed_out:
        await variables_from_plugin(ctx, FILE, refresh=True)
    assert timed_out.value.code == "timeout"


def test_standard_listing_renders_colours_aliases_and_the_summary() -> None:
    items, summary = shape_variables(RAW, VariableView())
    blue, primary = items[0], items[1]
    assert blue == {
        "name": "color/blue",
        "collection": "Brand",
        "type": "COLOR",
        "values": {"Light": "#0000FF", "Dark": "#FFFFFF"},
        "description": "Brand blue",
    }
    assert primary["values"] == {"Light": {"alias": "color/blue"}, "Dark": {"alias": "color/blue"}}
    assert summary == [
        {"name": "Brand", "id": "C:1", "modes": ["Light", "Dark"], "variables": 4},
        {"name": "Library", "id": "C:2", "modes": ["Default"], "variables": 1},
    ]


def test_resolved_aliases_follow_the_chain_and_stop_at_a_cycle() -> None:
    items, _ = shape_variables(RAW, VariableView(resolve_aliases=True))
    by_name = {i["name"]: i for i in items}
    assert by_name["color/primary"]["values"] == {"Light": "#0000FF", "Dark": "#0000FF"}
    assert by_name["loop/a"]["values"] == {"Light": {"alias": "loop/b"}}, "the alias that closes the cycle"


def test_filters_by_collection_name_and_mode() -> None:
    view = VariableView(collection="brand", name_pattern="^color/", mode="dark")
    items, _ = shape_variables(RAW, view)
    assert [(i["name"], i["values"]) for i in items] == [
        ("color/blue", {"Dark": "#FFFFFF"}),
        ("color/primary", {"Dark": {"alias": "color/blue"}}),
    ]
    by_id, _ = shape_variables(RAW, VariableView(collection="C:2"))
    assert [i["name"] for i in by_id] == ["lib/space"]


def test_published_variables_and_collections_can_be_left_out() -> None:
    selection = select_variables(RAW, VariableView(include_published=False))
    assert [v["id"] for v in selection.variables] == ["V:1", "V:2", "V:3", "V:4"]
    assert list(selection.collections) == ["C:1"] and [c["name"] for c in selection.summary] == ["Brand"]


def test_verbosities_and_links() -> None:
    links, _ = shape_variables(RAW, VariableView(links_only=True, name_pattern="blue"))
    assert links == [{"id": "V:1", "name": "color/blue"}]
    inventory, _ = shape_variables(RAW, VariableView(verbosity="inventory", name_pattern="blue"))
    assert inventory == [{"name": "color/blue", "collection": "Brand"}]
    summary, _ = shape_variables(RAW, VariableView(verbosity="summary", name_pattern="blue"))
    assert summary == [{"name": "color/blue", "collection": "Brand", "type": "COLOR"}]
    (full,), _ = shape_variables(RAW, VariableView(verbosity="full", name_pattern="blue"))
    assert (full["id"], full["key"], full["scopes"]) == ("V:1", "k1", ["ALL_FILLS"]) and "remote" not in full
