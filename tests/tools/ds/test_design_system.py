"""The design-system tools over a real bridge (fakes/harness.py): a real Bridge on free ports, a fake plugin answering
with payloads shaped like the Desktop Bridge plugin's, and EXECUTE_CODE scripts run by the plugin's own executeCode in
Node."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_plugin import FakePlugin, FakePluginError
from fakes.harness import Harness, bridge_harness, data, error_text, size
from fakes.plugin_payloads import FILE_KEY, component, library, local_components, page

from design_console.tools import manifest
from design_console.tools.base import CHARS_PER_TOKEN, REGISTRY


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    async with bridge_harness(tmp_path) as h:
        yield h


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


def test_manifest_cache_expires_after_its_ttl() -> None:
    now = [1000.0]
    cache = manifest.ManifestCache(ttl=300, clock=lambda: now[0])
    entry = manifest.Manifest("k", [], [], None, "v1", 0.0, [])
    cache.put("k", entry)
    now[0] += 299
    assert cache.get("k") is entry
    assert cache.get("other") is None
    now[0] += 1
    assert cache.get("k") is None


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
