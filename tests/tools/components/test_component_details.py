"""design_get_component_details over a real bridge, the fake plugin answering with the file's local components."""

from __future__ import annotations

from typing import Any

from fakes.context import data, error_text
from fakes.harness import Harness, size
from fakes.plugin_payloads import component_set, local_components, page

from design_console.tools.base import CHARS_PER_TOKEN


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
