"""A file's variables from the plugin (its snapshot, or a fresh read page by page) and shaped for a listing."""

from __future__ import annotations

import re
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


def paged_variables(params: dict[str, Any]) -> dict[str, Any]:
    """The variables script answered like the real plugin does: each array it returns holds at most 200 items."""
    found = re.search(r"offset = (\d+), size = (\d+)", params["code"])
    assert found is not None
    offset, size = (int(n) for n in found.groups())
    assert size <= 200, "a page larger than the plugin's array cap would come back cut"
    every = [
        {"id": f"V:{n}", "name": f"space/{n}", "variableCollectionId": "C:1", "resolvedType": "FLOAT",
         "valuesByMode": {"m1": n}}
        for n in range(450)
    ]  # fmt: skip
    collections = [{"id": "C:1", "name": "Spacing", "modes": [{"modeId": "m1", "name": "Default"}],
                    "variableCount": 450}] if offset == 0 else []  # fmt: skip
    page = every[offset : offset + size]
    return {"success": True, "result": {"total": 450, "variableCollections": collections, "variables": page}}


async def test_fresh_plugin_read_pages_past_the_plugin_array_cap(ctx: FakeContext) -> None:
    ctx.plugin = {
        "GET_VARIABLES_DATA": {"success": True, "variables": [], "variableCollections": []},
        "EXECUTE_CODE": paged_variables,
    }
    result = data(
        await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "refreshCache": True, "format": "summary"})
    )
    assert result["source"] == "plugin"
    assert [c for c, *_ in ctx.bridge_calls].count("EXECUTE_CODE") == 3
    assert result["totalVariables"] == 450 and result["collections"][0]["variables"] == 450


async def test_pages_are_read_from_the_named_file_until_the_total(ctx: FakeContext) -> None:
    ctx.plugin = {"EXECUTE_CODE": paged_variables}
    read = await variables_by_pages(ctx, FILE)
    assert read is not None
    assert [v["name"] for v in read["variables"]] == [f"space/{n}" for n in range(450)]
    assert [c["name"] for c in read["variableCollections"]] == ["Spacing"]
    assert {key for *_, key in ctx.bridge_calls} == {FILE}
    assert [p["timeout"] for p in ctx.sent("EXECUTE_CODE")] == [20_000] * 3


async def test_a_page_of_another_shape_reads_as_nothing(ctx: FakeContext) -> None:
    ctx.plugin = {"EXECUTE_CODE": {"success": True, "result": {"variables": "all of them"}}}
    assert await variables_by_pages(ctx, FILE) is None


async def test_the_snapshot_is_used_unless_a_fresh_read_is_asked(ctx: FakeContext) -> None:
    snapshot = {"success": True, "variables": [{"id": "V:9"}], "variableCollections": []}
    ctx.plugin = {"GET_VARIABLES_DATA": snapshot, "EXECUTE_CODE": paged_variables}
    assert await variables_from_plugin(ctx, FILE, refresh=False) == (snapshot, "plugin")
    assert ctx.sent("EXECUTE_CODE") == []
    fresh = await variables_from_plugin(ctx, FILE, refresh=True)
    assert fresh is not None and len(fresh[0]["variables"]) == 450 and fresh[1] == "plugin"
    assert len(ctx.sent("GET_VARIABLES_DATA")) == 1


async def test_no_snapshot_falls_to_a_fresh_read(ctx: FakeContext) -> None:
    ctx.plugin = {
        "GET_VARIABLES_DATA": DesignError("plugin_error", "No variables data yet."),
        "EXECUTE_CODE": paged_variables,
    }
    assert await plugin_snapshot(ctx, FILE) is None
    found = await variables_from_plugin(ctx, FILE, refresh=False)
    assert found is not None and len(found[0]["variables"]) == 450


async def test_no_plugin_is_none_and_another_failure_is_raised(ctx: FakeContext) -> None:
    assert await variables_from_plugin(ctx, FILE, refresh=False) is None
    with pytest.raises(DesignError) as not_connected:
        await plugin_snapshot(ctx, FILE)
    assert not_connected.value.code == "not_connected"
    ctx.plugin = {"EXECUTE_CODE": DesignError("timeout", "The plugin did not answer EXECUTE_CODE in 22 s.")}
    with pytest.raises(DesignError, match="22 s") as timed_out:
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
