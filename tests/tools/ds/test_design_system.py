"""The design-system tools over a real bridge: a real Bridge on free ports, a fake plugin answering with payloads
shaped like the Desktop Bridge plugin's, and EXECUTE_CODE scripts run by the plugin's own executeCode in Node."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fakes.bridge import TOKEN, make_config
from fakes.context import FakeContext
from fakes.fake_plugin import FakePlugin, FakePluginError
from fakes.plugin_payloads import (
    FILE_KEY,
    analysis,
    analysis_reply,
    component,
    component_set,
    deep_reply,
    design_file,
    library,
    local_components,
    page,
    run_in_plugin,
    variables_snapshot,
)
from helpers import free_port_range, wait_until

from design_console import PLUGIN_VERSION, __version__
from design_console.config import Config
from design_console.daemon.bridge import Bridge
from design_console.daemon.state import State
from design_console.errors import PREFIX
from design_console.protocol import ToolOutput
from design_console.tools import manifest
from design_console.tools.base import CHARS_PER_TOKEN, REGISTRY


class Harness:
    """A real Bridge with the fake plugin connected to it, and the tool context whose bridge it is."""

    def __init__(self, config: Config, bridge: Bridge) -> None:
        self.config = config
        self.real_bridge = bridge
        self.ctx = FakeContext(config, plugin=bridge.command)
        self.plugin: FakePlugin | None = None
        self.library = library()

    async def connect(self, **answers: Any) -> FakePlugin:
        """Connect the fake plugin in FILE_KEY with handlers answering the design-system methods."""
        assert self.real_bridge.port is not None
        plugin = FakePlugin(self.real_bridge.port, TOKEN, file_key=FILE_KEY, file_name="Design System")
        plugin.handlers.update(
            {
                "GET_LOCAL_COMPONENTS": lambda p, params: answers.get("components", design_file()),
                "GET_VARIABLES_DATA": lambda p, params: answers.get("variables", variables_snapshot()),
                "DEEP_GET_COMPONENT": lambda p, params: deep_reply(params),
                "ANALYZE_COMPONENT_SET": lambda p, params: analysis_reply(params),
                "EXECUTE_CODE": lambda p, params: run_in_plugin(params, self.library),
            }
        )
        self.plugin = plugin
        await plugin.open()
        await wait_until(lambda: self.real_bridge.active_file_key() == FILE_KEY, what="the plugin's FILE_INFO")
        self.ctx.active_file_key = FILE_KEY
        return plugin

    def sent(self, method: str) -> list[dict[str, Any]]:
        assert self.plugin is not None
        return [c["params"] for c in self.plugin.commands if c["method"] == method]

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolOutput:
        """Run the tool as the api worker does (a DesignError becomes an error result)."""
        return await self.ctx.call(name, arguments)


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    config = make_config(tmp_path, free_port_range(10))
    bridge = Bridge(config, token=TOKEN, server_version=__version__, plugin_version=PLUGIN_VERSION, state=State(config))
    await bridge.start()
    manifest.MANIFESTS.clear()
    h = Harness(config, bridge)
    try:
        yield h
    finally:
        manifest.MANIFESTS.clear()
        if h.plugin is not None:
            await h.plugin.close()
        await bridge.close()


def data(out: ToolOutput) -> Any:
    assert not out.is_error, out.content[0].text
    return msgspec.json.decode(out.content[0].text)


def error_text(out: ToolOutput) -> str:
    assert out.is_error, out.content[0].text
    text = out.content[0].text
    assert text.startswith(PREFIX)
    return text


def size(out: ToolOutput) -> int:
    return len(out.content[0].text)


# design_get_design_system_summary ----------------------------------------------------------------------------------


async def test_summary_counts_components_and_tokens(harness: Harness) -> None:
    await harness.connect()
    result = data(await harness.call("design_get_design_system_summary"))
    assert result["fileKey"] == FILE_KEY and result["fromCache"] is False
    comps = result["components"]
    assert (comps["componentSets"], comps["standaloneComponents"], comps["variants"]) == (3, 3, 11)
    assert comps["withDescription"] == 2
    assert comps["categories"][0] == {"name": "Button", "count": 2, "examples": ["Button/Primary", "Button/Secondary"]}
    assert {c["name"]: c["count"] for c in comps["categories"]} == {"Button": 2, "Icon": 2, "Avatar": 1, "Input": 1}
    assert comps["pages"] == [{"page": "Components", "components": 4}, {"page": "Icons", "components": 2}]
    tokens = result["tokens"]
    assert tokens["variables"] == 7
    assert tokens["byType"] == {"COLOR": 3, "FLOAT": 3, "STRING": 1}
    semantic = next(c for c in tokens["collections"] if c["name"] == "Semantic")
    assert semantic == {"name": "Semantic", "modes": ["Light", "Dark"], "variables": 1, "types": {"COLOR": 1}}
    assert [p for p, _, _ in harness.ctx.progress_reports] == [0, 1, 2]


async def test_summary_is_cached_per_file_until_force_refresh(harness: Harness) -> None:
    await harness.connect()
    await harness.call("design_get_design_system_summary")
    again = data(await harness.call("design_get_design_system_summary"))
    assert again["fromCache"] is True
    assert len(harness.sent("GET_LOCAL_COMPONENTS")) == 1
    # The component and token tools read the same manifest.
    data(await harness.call("design_get_component_details", {"componentName": "Input"}))
    data(await harness.call("design_get_token_values"))
    assert len(harness.sent("GET_LOCAL_COMPONENTS")) == 1
    fresh = data(await harness.call("design_get_design_system_summary", {"forceRefresh": True}))
    assert fresh["fromCache"] is False
    assert len(harness.sent("GET_LOCAL_COMPONENTS")) == 2
    assert len(harness.sent("GET_VARIABLES_DATA")) == 2


async def test_concurrent_calls_build_one_manifest(harness: Harness) -> None:
    await harness.connect()
    outs = await asyncio.gather(*(harness.call("design_get_design_system_summary") for _ in range(3)))
    assert sorted(data(o)["fromCache"] for o in outs) == [False, True, True]
    assert len(harness.sent("GET_LOCAL_COMPONENTS")) == 1


async def test_summary_notes_unreadable_variables(harness: Harness) -> None:
    plugin = await harness.connect()

    def broken(p: FakePlugin, params: dict[str, Any]) -> Any:
        raise FakePluginError("GET_VARIABLES_DATA failed: variables are not available", "plugin_api_error")

    plugin.handlers["GET_VARIABLES_DATA"] = broken
    result = data(await harness.call("design_get_design_system_summary"))
    assert result["tokens"]["unavailable"] is True
    assert result["tokens"]["variables"] == 0
    # The fallback script ran in the plugin and failed there too (this editor stand-in has no local variables).
    assert harness.sent("EXECUTE_CODE")
    assert any("Variables could not be read" in n for n in result["notes"])
    text = error_text(await harness.call("design_get_token_values"))
    assert "could not read this file's variables" in text and "forceRefresh" in text


async def test_summary_fits_a_small_budget(harness: Harness) -> None:
    pages = [page(f"{i}:0", f"Page {i}") for i in range(40)]
    many = [component(f"9:{i}", f"Group{i}/Item", key=f"k{i}", on=pages[i % 40]) for i in range(600)]
    await harness.connect(components=local_components(many, []))
    out = await harness.call("design_get_design_system_summary", {"maxTokens": 500})
    result = data(out)
    assert size(out) <= 500 * CHARS_PER_TOKEN
    assert 0 < len(result["components"]["categories"]) < 600
    assert any("component categories" in n for n in result["notes"])


async def test_summary_without_a_plugin_gives_setup_steps(harness: Harness) -> None:
    text = error_text(await harness.call("design_get_design_system_summary"))
    assert "No Desktop Bridge plugin is connected" in text
    assert str(harness.config.plugin_dir / "manifest.json") in text


async def test_summary_with_an_older_plugin_says_to_reimport(harness: Harness) -> None:
    plugin = await harness.connect()
    del plugin.handlers["GET_LOCAL_COMPONENTS"]
    text = error_text(await harness.call("design_get_design_system_summary"))
    assert "Unknown method: GET_LOCAL_COMPONENTS" in text
    assert "re-import" in text and str(harness.config.plugin_dir / "manifest.json") in text


async def test_summary_refuses_a_reply_of_another_shape(harness: Harness) -> None:
    await harness.connect(components={"success": True, "components": "all of them"})
    text = error_text(await harness.call("design_get_design_system_summary"))
    assert "unexpected shape" in text and "GET_LOCAL_COMPONENTS" in text


# design_get_component_details --------------------------------------------------------------------------------------


async def test_component_details_by_name(harness: Harness) -> None:
    await harness.connect()
    result = data(await harness.call("design_get_component_details", {"componentName": "button/primary"}))
    comp = result["component"]
    assert (comp["name"], comp["type"], comp["key"], comp["page"]) == (
        "Button/Primary",
        "COMPONENT_SET",
        "k-button",
        "Components",
    )
    assert comp["description"] == "Main call to action"
    # The options of variant properties are listed once, in variantAxes.
    assert comp["componentPropertyDefinitions"]["Size"] == {"type": "VARIANT", "defaultValue": "S"}
    assert comp["componentPropertyDefinitions"]["Label#12:0"] == {"type": "TEXT", "defaultValue": "Button/Primary"}
    assert result["variantAxes"] == {"Size": ["S", "M", "L"], "State": ["Default", "Hover"]}
    assert result["totalVariants"] == 6 and len(result["variants"]) == 6
    assert result["variants"][1] == {
        "id": "1:11",
        "name": "Size=S, State=Hover",
        "key": "k-button-v1",
        "variantProperties": {"Size": "S", "State": "Hover"},
    }
    assert "nextCursor" not in result


async def test_component_details_by_key_of_a_component_or_a_variant(harness: Harness) -> None:
    await harness.connect()
    avatar = data(await harness.call("design_get_component_details", {"componentKey": "k-avatar"}))
    assert avatar["component"]["componentPropertyDefinitions"] == {
        "Initials#3:0": {"type": "TEXT", "defaultValue": "AB"}
    }
    assert "variants" not in avatar
    variant = data(await harness.call("design_get_component_details", {"componentKey": "k-input-v2"}))
    assert variant["component"]["name"] == "Input"
    assert variant["matchedVariant"]["variantProperties"] == {"State": "Error"}


async def test_component_details_errors(harness: Harness) -> None:
    await harness.connect()
    text = error_text(await harness.call("design_get_component_details", {}))
    assert "componentKey nor componentName" in text
    text = error_text(await harness.call("design_get_component_details", {"componentName": "button"}))
    assert "2 components match 'button'" in text and "'Button/Primary'" in text
    text = error_text(await harness.call("design_get_component_details", {"componentKey": "nope"}))
    assert "has key 'nope'" in text and "design_get_library_component_by_key" in text
    text = error_text(await harness.call("design_get_component_details", {"componentName": "Tooltip"}))
    assert "named like 'Tooltip'" in text
    text = error_text(await harness.call("design_get_component_details", {"componentName": "Input", "extra": 1}))
    assert "Invalid arguments" in text


async def test_component_details_pages_many_variants(harness: Harness) -> None:
    big = component_set(
        "8:1", "Icon set", key="k-icons", on=page("1:0", "Components"), axes={"Name": [f"icon-{i}" for i in range(300)]}
    )
    small = component_set("8:2", "Tag", key="k-tag", on=page("1:0", "Components"), axes={"Tone": ["A", "B"]})
    await harness.connect(components=local_components([], [big, small]))
    args: dict[str, Any] = {"componentName": "Icon set", "maxTokens": 800}
    seen: list[str] = []
    cursor = None
    for _ in range(100):
        out = await harness.call("design_get_component_details", {**args, **({"cursor": cursor} if cursor else {})})
        assert size(out) <= 800 * CHARS_PER_TOKEN
        result = data(out)
        seen += [v["key"] for v in result["variants"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert seen == [f"k-icons-v{i}" for i in range(300)]
    first = data(await harness.call("design_get_component_details", args))
    # A cursor belongs to the component it pages, however it was named.
    by_key = {"componentKey": "k-icons", "cursor": first["nextCursor"], "maxTokens": 800}
    assert (
        data(await harness.call("design_get_component_details", by_key))["variants"][0]["key"]
        == seen[len(first["variants"])]
    )
    assert first["variantAxes"]["Name"] == [f"icon-{i}" for i in range(20)]
    assert "first 20 values" in first["notes"][0]
    other = {"componentKey": "k-tag", "cursor": first["nextCursor"]}
    assert "other arguments" in error_text(await harness.call("design_get_component_details", other))
    bogus = {"componentName": "Icon set", "cursor": "not-a-cursor"}
    assert "not one this tool handed out" in error_text(await harness.call("design_get_component_details", bogus))


# design_get_token_values -------------------------------------------------------------------------------------------


async def test_token_values_colours_resolve_aliases_per_mode(harness: Harness) -> None:
    await harness.connect()
    result = data(await harness.call("design_get_token_values", {"type": "colors"}))
    tokens = {t["name"]: t for t in result["tokens"]}
    assert set(tokens) == {"blue/500", "gray/900", "color/primary"}
    assert tokens["blue/500"]["values"] == {"Value": "#0000FF"}
    assert tokens["color/primary"]["values"] == {"Light": "#0000FF", "Dark": "#1A1A1A"}
    assert tokens["color/primary"]["id"] == "VariableID:2:1" and tokens["color/primary"]["collection"] == "Semantic"
    assert "scopes" not in tokens["blue/500"] and "key" not in tokens["blue/500"]
    raw = data(await harness.call("design_get_token_values", {"type": "colors", "resolveAliases": False}))
    primary = next(t for t in raw["tokens"] if t["name"] == "color/primary")
    assert primary["values"] == {"Light": {"alias": "blue/500"}, "Dark": {"alias": "gray/900"}}


async def test_token_values_spacing_and_filter(harness: Harness) -> None:
    await harness.connect()
    spacing = data(await harness.call("design_get_token_values", {"type": "spacing"}))
    assert {t["name"]: t["values"] for t in spacing["tokens"]} == {"space/sm": {"Default": 8}, "stack": {"Default": 16}}
    everything = data(await harness.call("design_get_token_values", {"type": "all"}))
    assert everything["total"] == 7
    filtered = data(await harness.call("design_get_token_values", {"filter": "^(radius|font)/"}))
    assert sorted(t["name"] for t in filtered["tokens"]) == ["font/family", "radius/md"]


async def test_token_values_limit_and_cursor(harness: Harness) -> None:
    await harness.connect()
    names: list[str] = []
    cursor = None
    for _ in range(10):
        args: dict[str, Any] = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        result = data(await harness.call("design_get_token_values", args))
        assert len(result["tokens"]) <= 3
        names += [t["name"] for t in result["tokens"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert len(names) == 7 == len(set(names))
    first = data(await harness.call("design_get_token_values", {"limit": 3}))
    text = error_text(await harness.call("design_get_token_values", {"type": "colors", "cursor": first["nextCursor"]}))
    assert "other arguments" in text
    text = error_text(await harness.call("design_get_token_values", {"limit": 0}))
    assert "limit" in text


# design_get_library_variables / design_import_library_variable -----------------------------------------------------


async def test_library_variables_lists_and_filters(harness: Harness) -> None:
    await harness.connect()
    result = data(await harness.call("design_get_library_variables"))
    assert result["total"] == 5
    assert result["libraries"] == [
        {
            "name": "Acme Core",
            "collections": [{"name": "Brand colours", "variables": 2}, {"name": "Spacing", "variables": 1}],
        },
        {"name": "Acme Web", "collections": [{"name": "Marketing", "variables": 2}]},
    ]
    red = next(v for v in result["variables"] if v["name"] == "brand/red")
    assert red == {
        "name": "brand/red",
        "key": "lv-red",
        "resolvedType": "COLOR",
        "collection": "Brand colours",
        "library": "Acme Core",
    }
    web = data(await harness.call("design_get_library_variables", {"libraryName": "web", "resolvedType": "BOOLEAN"}))
    assert [v["key"] for v in web["variables"]] == ["lv-promo"]
    space = data(await harness.call("design_get_library_variables", {"collectionName": "SPACING"}))
    assert [v["key"] for v in space["variables"]] == ["lv-s1"]
    code = harness.sent("EXECUTE_CODE")[-1]
    assert "getAvailableLibraryVariableCollectionsAsync" in code["code"] and code["timeout"] == 30_000


async def test_library_variables_beyond_the_plugins_array_cap(harness: Harness) -> None:
    many = [{"name": f"grid/{i:03d}", "key": f"lv-g{i}", "resolvedType": "FLOAT"} for i in range(450)]
    harness.library = library(collections=[{"name": "Grid", "key": "lc-grid", "libraryName": "Big", "variables": many}])
    await harness.connect()
    keys: list[str] = []
    cursor = None
    for _ in range(50):
        result = data(
            await harness.call(
                "design_get_library_variables", {"maxTokens": 2000, **({"cursor": cursor} if cursor else {})}
            )
        )
        keys += [v["key"] for v in result["variables"]]
        assert "notes" not in result
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert result["total"] == 450
    assert keys == [f"lv-g{i}" for i in range(450)]


async def test_library_variables_say_when_the_plugin_cut_a_list(harness: Harness) -> None:
    # More variables than the plugin serialises even as chunks: 200 chunks of 200, and one more.
    many = [{"name": f"v/{i}", "key": f"k{i}", "resolvedType": "FLOAT"} for i in range(200 * 200 + 1)]
    harness.library = library(collections=[{"name": "Huge", "key": "lc-huge", "libraryName": "Big", "variables": many}])
    await harness.connect()
    result = data(await harness.call("design_get_library_variables", {"maxTokens": 500}))
    assert result["total"] == 200 * 200
    assert any("cut a list short" in n for n in result["notes"])


async def test_library_variables_notes_and_errors(harness: Harness) -> None:
    harness.library = library(failing=["lc-mkt"])
    await harness.connect()
    result = data(await harness.call("design_get_library_variables"))
    assert result["total"] == 3
    assert any("'Marketing' could not be read" in n for n in result["notes"])
    harness.library = library(collections=[])
    result = data(await harness.call("design_get_library_variables"))
    assert result["total"] == 0 and "No library with variables is enabled" in result["notes"][0]
    harness.library = library(unavailable="teamlibrary permission is required")
    text = error_text(await harness.call("design_get_library_variables"))
    assert "cannot read team libraries: teamlibrary permission is required" in text
    assert str(harness.config.plugin_dir / "manifest.json") in text
    text = error_text(await harness.call("design_get_library_variables", {"resolvedType": "DATE"}))
    assert "Invalid arguments" in text


async def test_import_library_variable_returns_its_local_id(harness: Harness) -> None:
    await harness.connect()
    first = data(await harness.call("design_import_library_variable", {"variableKey": "lv-blue"}))
    assert first["variableId"] == "VariableID:lv-blue/7:1"
    assert first["variable"]["name"] == "brand/blue" and first["variable"]["collectionName"] == "Brand colours"
    assert first["variable"]["remote"] is True
    again = data(await harness.call("design_import_library_variable", {"variableKey": "lv-blue"}))
    assert again["variableId"] == first["variableId"]
    # The key travels as a JSON literal: quotes cannot break out of the script.
    text = error_text(await harness.call("design_import_library_variable", {"variableKey": 'x"); throw 1; ("'}))
    assert "could not be imported: Could not find a published variable" in text
    assert "design_get_library_variables" in text
    assert "Invalid arguments" in error_text(await harness.call("design_import_library_variable", {}))
    spec = REGISTRY["design_import_library_variable"]
    assert spec.read_only is False and spec.idempotent is True and spec.needs_bridge is True
    assert (spec.runs_in, spec.toolset) == ("api", "write")


async def test_script_errors_in_the_plugin_surface(harness: Harness) -> None:
    plugin = await harness.connect()

    async def threw(p: FakePlugin, params: dict[str, Any]) -> Any:
        raise FakePluginError(
            "The code threw TypeError: figma.teamLibrary is undefined (line 3, column 1).", "execution_error"
        )

    plugin.handlers["EXECUTE_CODE"] = threw
    text = error_text(await harness.call("design_get_library_variables"))
    assert "EXECUTE_CODE failed" in text and "figma.teamLibrary is undefined" in text


# design_get_component_for_development_deep -------------------------------------------------------------------------


async def test_deep_component_walks_the_plugin_tree(harness: Harness) -> None:
    await harness.connect()
    result = data(await harness.call("design_get_component_for_development_deep", {"nodeId": "5-1"}))
    assert harness.sent("DEEP_GET_COMPONENT") == [{"nodeId": "5:1", "depth": 10}]
    assert [n["name"] for n in result["nodes"]] == ["Card", "Title", "Actions", "Button", "Label"]
    card, _, actions, button, label = result["nodes"]
    assert card["depth"] == 0 and card["childCount"] == 2 and card["description"] == "A settings card"
    assert actions["layout"]["itemSpacing"] == 8 and actions["parent"] == "5:1" and "parentId" not in actions
    assert button["boundVariables"] == {"fills": [{"id": "VariableID:1:1", "name": "blue/500"}]}
    assert label["depth"] == 3 and label["characters"] == "Save"
    assert result["nodeCount"] == 6 and "nextCursor" not in result


async def test_deep_component_pages_with_a_cursor(harness: Harness) -> None:
    await harness.connect()
    args = {"nodeId": "5:1", "depth": 4, "maxTokens": 500}
    names: list[str] = []
    cursor = None
    for _ in range(10):
        out = await harness.call(
            "design_get_component_for_development_deep", {**args, **({"cursor": cursor} if cursor else {})}
        )
        assert size(out) <= 500 * CHARS_PER_TOKEN
        result = data(out)
        names += [n["name"] for n in result["nodes"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert names == ["Card", "Title", "Actions", "Button", "Label"]
    assert {p["depth"] for p in harness.sent("DEEP_GET_COMPONENT")} == {4}


async def test_deep_component_errors(harness: Harness) -> None:
    plugin = await harness.connect()
    text = error_text(await harness.call("design_get_component_for_development_deep", {"nodeId": "9:9"}))
    assert "was not found in this file" in text and "(code not_found)" in text
    text = error_text(await harness.call("design_get_component_for_development_deep", {"nodeId": "Card"}))
    assert "is not a node id" in text
    text = error_text(await harness.call("design_get_component_for_development_deep", {"nodeId": "5:1", "depth": 31}))
    assert "depth" in text
    plugin.handlers["DEEP_GET_COMPONENT"] = lambda p, params: {"success": True, "component": ["not", "a", "node"]}
    assert "unexpected shape" in error_text(
        await harness.call("design_get_component_for_development_deep", {"nodeId": "5:1"})
    )
    plugin.handlers["DEEP_GET_COMPONENT"] = lambda p, params: {
        **deep_reply(params),
        "nodeCount": 5000,
        "truncated": True,
    }
    result = data(await harness.call("design_get_component_for_development_deep", {"nodeId": "5:1"}))
    assert "stopped at 5000 nodes" in result["note"]
    del plugin.handlers["DEEP_GET_COMPONENT"]
    text = error_text(await harness.call("design_get_component_for_development_deep", {"nodeId": "5:1"}))
    assert "Unknown method: DEEP_GET_COMPONENT" in text and "re-import" in text


# design_analyze_component_set --------------------------------------------------------------------------------------


async def test_analyze_component_set(harness: Harness) -> None:
    await harness.connect()
    result = data(await harness.call("design_analyze_component_set", {"nodeId": "6:0"}))
    assert harness.sent("ANALYZE_COMPONENT_SET") == [{"nodeId": "6:0"}]
    assert result["componentSet"]["name"] == "Button" and result["totalVariants"] == 6
    assert result["axes"] == {"Size": ["S", "M", "L"], "State": ["Default", "Hover"]}
    assert result["states"] == {"axis": "State", "values": ["Default", "Hover"]}
    assert result["varyingProperties"] == {"width": 4, "fills": 3}
    default = result["variants"][0]
    assert default == {
        "id": "6:1",
        "name": "Size=S, State=Default",
        "variantProperties": {"Size": "S", "State": "Default"},
    }
    hover = result["variants"][1]
    assert hover["changes"]["fills"]["to"] == [{"type": "SOLID", "color": "#0000AA"}]


async def test_analyze_component_set_pages_variants(harness: Harness) -> None:
    plugin = await harness.connect()
    big = analysis()
    big["variants"] = [{**big["variants"][1], "id": f"7:{i}", "name": f"Size=S, State=Hover {i}"} for i in range(200)]
    plugin.handlers["ANALYZE_COMPONENT_SET"] = lambda p, params: big
    ids: list[str] = []
    cursor = None
    for _ in range(100):
        args = {"nodeId": "6:0", "maxTokens": 1000, **({"cursor": cursor} if cursor else {})}
        out = await harness.call("design_analyze_component_set", args)
        assert size(out) <= 1000 * CHARS_PER_TOKEN
        result = data(out)
        ids += [v["id"] for v in result["variants"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert ids == [f"7:{i}" for i in range(200)]


async def test_analyze_component_set_errors(harness: Harness) -> None:
    plugin = await harness.connect()
    text = error_text(await harness.call("design_analyze_component_set", {"nodeId": "5:1"}))
    assert "expected COMPONENT_SET" in text and "(code wrong_node_type)" in text
    first = data(await harness.call("design_analyze_component_set", {"nodeId": "6:0", "maxTokens": 500}))
    assert "nextCursor" in first
    changed = analysis()
    changed["variants"] = changed["variants"][::-1]
    plugin.handlers["ANALYZE_COMPONENT_SET"] = lambda p, params: changed
    text = error_text(
        await harness.call(
            "design_analyze_component_set", {"nodeId": "6:0", "maxTokens": 500, "cursor": first["nextCursor"]}
        )
    )
    assert "changed since this cursor" in text
    del plugin.handlers["ANALYZE_COMPONENT_SET"]
    text = error_text(await harness.call("design_analyze_component_set", {"nodeId": "6:0"}))
    assert "Unknown method: ANALYZE_COMPONENT_SET" in text and "manifest.json" in text


def test_every_tool_is_a_bridge_read_in_the_api_worker() -> None:
    names = [
        "design_get_design_system_summary",
        "design_get_component_details",
        "design_get_token_values",
        "design_get_library_variables",
        "design_get_component_for_development_deep",
        "design_analyze_component_set",
    ]
    for name in names:
        spec = REGISTRY[name]
        assert (spec.runs_in, spec.toolset, spec.needs_bridge) == ("api", "read", True), name
