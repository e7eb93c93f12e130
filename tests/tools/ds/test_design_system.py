"""The design-system tools over a real bridge (fakes/harness.py): a real Bridge on free ports, a fake plugin answering
with payloads shaped like the Desktop Bridge plugin's, and EXECUTE_CODE scripts run by the plugin's own executeCode in
Node; the kit, which reads the design API, with the real client against the fake API."""

from __future__ import annotations

from typing import Any

from fakes.api_server import ApiServer
from fakes.context import FakeContext, data, error_text
from fakes.design_api import ENTERPRISE_KEY, PRO_KEY
from fakes.fake_plugin import FakePlugin, FakePluginError
from fakes.harness import Harness, size
from fakes.plugin_payloads import (
    FILE_KEY,
    component,
    local_components,
    page,
)

from design_console.tools.base import CHARS_PER_TOKEN, REGISTRY

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


async def test_summary_notes_unreadable_variables(harness: Harness) -> None:
    plugin = await harness.connect()

    def broken(p: FakePlugin, params: dict[str, Any]) -> Any:
        raise FakePluginError("GET_VARIABLES_DATA failed: variables are not available", "plugin_api_error")

    plugin.handlers["GET_VARIABLES_DATA"] = broken
    result = data(await harness.call("design_get_design_system_summary"))
    assert result["tokens"]["unavailable"] is True
    assert result["tokens"]["variables"] == 0
    # The paged read was asked first; this stand-in plugin is older and lacks it, so its snapshot was the answer.
    assert harness.sent("READ_VARIABLES")
    assert any("Variables could not be read" in n for n in result["notes"])
    text = error_text(await harness.call("design_get_token_values"))
    assert "could not read this file's variables" in text and "forceRefresh" in text


async def test_summary_pages_every_list_within_a_small_budget(harness: Harness) -> None:
    pages = [page(f"{i}:0", f"Page {i}") for i in range(40)]
    many = [component(f"9:{i}", f"Group{i}/Item", key=f"k{i}", on=pages[i % 40]) for i in range(600)]
    await harness.connect(components=local_components(many, []))
    args: dict[str, Any] = {"maxTokens": 500}
    first = data(await harness.call("design_get_design_system_summary", args))
    assert first["components"]["totalCategories"] == 600 and first["components"]["totalPages"] == 40
    categories: list[str] = []
    page_names: list[str] = []
    answers = 0
    while True:
        out = await harness.call("design_get_design_system_summary", args)
        assert size(out) <= 500 * CHARS_PER_TOKEN
        result = data(out)
        answers += 1
        categories += [c["name"] for c in result.get("components", {}).get("categories", [])]
        page_names += [p["page"] for p in result.get("components", {}).get("pages", [])]
        if "nextCursor" not in result:
            break
        args["cursor"] = result["nextCursor"]
    assert len(categories) == len(set(categories)) == 600 and len(page_names) == len(set(page_names)) == 40
    assert answers > 10
    # One manifest for the whole walk.
    assert len(harness.sent("GET_LOCAL_COMPONENTS")) == 1


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


# design_get_design_system_kit ------------------------------------------------------------------------------------


async def test_design_system_kit(ctx: FakeContext) -> None:
    kit = data(await ctx.call("design_get_design_system_kit", {"fileKey": ENTERPRISE_KEY}))
    assert kit["tokens"]["total"] == 36 and kit["components"]["total"] == 2 and kit["styles"]["total"] == 1
    pro = data(await ctx.call("design_get_design_system_kit", {"fileKey": PRO_KEY, "include": ["tokens"]}))
    assert "Enterprise" in pro["notes"][0]


async def test_kit_variant_specs_are_delta_encoded_and_images_rendered(ctx: FakeContext, fake_api: ApiServer) -> None:
    kit = data(
        await ctx.call(
            "design_get_design_system_kit",
            {"fileKey": ENTERPRISE_KEY, "include": ["components"], "includeImages": True},
        )
    )
    button = next(i for i in kit["components"]["items"] if i["name"] == "Button")
    specs = button["variantSpecs"]
    assert specs["default"] == "State=Default"
    assert specs["base"][""]["size"] == [96, 40] and specs["base"]["Background"]["fills"][0]["color"] == "#3366E6"
    assert specs["base"]["Label"]["characters"] == "Button"
    assert specs["variants"]["State=Hover"] == {
        "Background": {"fills": [{"color": "#264DBF", "variable": "VariableID:35:35"}]}
    }
    disabled = specs["variants"]["State=Disabled"]
    assert disabled[""] == {"opacity": 0.5} and disabled["Background"]["fills"][0]["color"] == "#999999"
    assert "Label" not in disabled
    assert all(i["imageUrl"].endswith(".png") for i in kit["components"]["items"])
    renders = [r for r in fake_api.requests() if r["path"].startswith("/v1/images/")]
    assert len(renders) == 1 and set(renders[0]["query"]["ids"].split(",")) == {"1:2", "1:3"}
    compact = data(
        await ctx.call(
            "design_get_design_system_kit", {"fileKey": ENTERPRISE_KEY, "include": ["components"], "format": "compact"}
        )
    )
    assert all("variantSpecs" not in i and "imageUrl" not in i for i in compact["components"]["items"])


async def test_kit_pages_to_its_end_within_max_tokens_reading_the_file_once(
    ctx: FakeContext, fake_api: ApiServer
) -> None:
    ctx.pushed["change_seq"] = 0
    args: dict[str, Any] = {"fileKey": ENTERPRISE_KEY, "includeImages": True, "maxTokens": 500}
    seen: dict[str, list[str]] = {"tokens": [], "components": [], "styles": []}
    pages = 0
    while True:
        out = await ctx.call("design_get_design_system_kit", args)
        assert len(out.content[0].text) <= 500 * CHARS_PER_TOKEN
        page = data(out)
        pages += 1
        seen["tokens"] += [v["name"] for v in page.get("tokens", {}).get("variables", [])]
        for name in ("components", "styles"):
            seen[name] += [i["name"] for i in page.get(name, {}).get("items", [])]
        assert all(i["imageUrl"].endswith(".png") for i in page.get("components", {}).get("items", []))
        if "nextCursor" not in page:
            break
        args["cursor"] = page["nextCursor"]
    assert {name: len(set(names)) for name, names in seen.items()} == {"tokens": 36, "components": 2, "styles": 1}
    assert sum(len(names) for names in seen.values()) == 39 and pages > 3
    lists = [r for r in fake_api.requests() if r["path"].endswith(("/variables/local", "/styles"))]
    assert len(lists) == 2, lists
    ctx.pushed["change_seq"] = 1
    stale = await ctx.call("design_get_design_system_kit", args)
    assert "file changed since this cursor" in error_text(stale)
