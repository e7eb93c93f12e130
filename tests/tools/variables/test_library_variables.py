"""design_get_library_variables and design_import_library_variable: the variables of the libraries enabled in the
file, read and imported by scripts the plugin's own executeCode runs; over a real Bridge with the fake plugin."""

from __future__ import annotations

from typing import Any

from fakes.context import data, error_text
from fakes.fake_plugin import FakePlugin, FakePluginError
from fakes.harness import Harness
from fakes.plugin_payloads import library

from design_console.tools.base import REGISTRY


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


async def test_library_reads_and_imports_without_a_plugin_give_setup_steps(harness: Harness) -> None:
    for name, arguments in (
        ("design_get_library_variables", {}),
        ("design_import_library_variable", {"variableKey": "lv-blue"}),
    ):
        text = error_text(await harness.call(name, arguments))
        assert "No Desktop Bridge plugin is connected" in text, name
        assert str(harness.config.plugin_dir / "manifest.json") in text, name
