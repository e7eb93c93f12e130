"""tools/components/component_data: a component as the design API describes it (its node entry, metadata, render and
a library's listing, through the real client against the fake API), and the same component reshaped as the plugin
would give it, for the tools that fall back to the API when no plugin is connected."""

from __future__ import annotations

from typing import Any

import pytest
from fakes.context import FakeContext
from fakes.design_api import ENTERPRISE_KEY

from design_console.errors import DesignError
from design_console.tools.components.component_data import (
    component_from_api,
    component_metadata,
    fetch_node,
    layer_tree,
    library_components,
    render_url,
)


async def test_a_component_sets_metadata_names_its_key_properties_and_variants(ctx: FakeContext) -> None:
    meta = component_metadata(await fetch_node(ctx, ENTERPRISE_KEY, "1:2", 1))
    assert (meta["id"], meta["name"], meta["type"], meta["key"]) == ("1:2", "Button", "COMPONENT_SET", "key-set-1:2")
    assert meta["description"] == "Buttons" and meta["size"] == {"width": 300, "height": 40}
    assert meta["properties"]["State"]["variantOptions"] == ["Default", "Hover", "Disabled"]
    assert meta["variants"] == [
        {"id": "1:10", "name": "State=Default"},
        {"id": "1:11", "name": "State=Hover"},
        {"id": "1:12", "name": "State=Disabled"},
    ]
    variant = component_metadata(await fetch_node(ctx, ENTERPRISE_KEY, "1:11", 1))
    assert variant["componentSetId"] == "1:2" and variant["description"] == "Button in the hover state"
    assert "variants" not in variant


async def test_a_missing_node_is_named_with_its_file(ctx: FakeContext) -> None:
    with pytest.raises(DesignError, match=f"No node 9:9 in file {ENTERPRISE_KEY}") as refused:
        await fetch_node(ctx, ENTERPRISE_KEY, "9:9", 1)
    assert refused.value.code == "not_found"


async def test_a_set_from_the_api_is_shaped_as_the_plugin_gives_it(ctx: FakeContext) -> None:
    component, tree, analysis = component_from_api(await fetch_node(ctx, ENTERPRISE_KEY, "1:2", None), 3)
    assert component["key"] == "key-set-1:2" and (component["width"], component["height"]) == (300, 40)
    assert [v["variantProperties"] for v in component["variants"]] == [
        {"State": "Default"},
        {"State": "Hover"},
        {"State": "Disabled"},
    ]
    assert analysis["axes"] == {"State": ["Default", "Hover", "Disabled"]}
    assert analysis["defaultVariant"] == {"id": "1:10", "name": "State=Default"}
    changes = {v["name"]: v["changes"] for v in analysis["variants"]}
    assert changes["State=Default"] == {}
    assert changes["State=Disabled"]["opacity"] == {"from": None, "to": 0.5}
    background = tree["children"][0]["children"][0]
    assert background["fills"] == [{"type": "SOLID", "color": "#3366E6"}]
    assert background["boundVariables"] == {"fills": {"id": "VariableID:35:35"}}
    single, _, none = component_from_api(await fetch_node(ctx, ENTERPRISE_KEY, "1:3", None), 3)
    assert single["name"] == "Icon/Star" and "variants" not in single and none == {}


def test_the_layer_tree_keeps_what_code_needs_down_to_its_depth() -> None:
    text: dict[str, Any] = {
        "id": "3:2",
        "name": "Label",
        "type": "TEXT",
        "characters": "Save",
        "style": {"fontFamily": "Inter", "fontSize": 14},
        "fills": [{"type": "SOLID", "color": {"r": 0, "g": 0, "b": 0, "a": 0.5}, "opacity": 0.8}],
    }
    row: dict[str, Any] = {
        "id": "3:1",
        "name": "Row",
        "type": "FRAME",
        "layoutMode": "HORIZONTAL",
        "itemSpacing": 8,
        "paddingTop": 4,
        "paddingLeft": 12,
        "visible": False,
        "strokes": [{"type": "SOLID", "color": {"r": 1, "g": 1, "b": 1}}],
        "strokeWeight": 2,
        "interactions": [{}, {}],
        "children": [text],
    }
    deep = layer_tree(row, 2)
    assert deep["layout"] == {"mode": "HORIZONTAL", "itemSpacing": 8, "padding": [4, 0, 0, 12]}
    assert deep["visible"] is False and deep["reactions"] == 2
    assert deep["strokes"] == [{"type": "SOLID", "color": "#FFFFFF"}] and deep["strokeWeight"] == 2
    label = deep["children"][0]
    assert label["characters"] == "Save" and label["fontName"] == {"family": "Inter", "style": "Regular"}
    assert label["fills"] == [{"type": "SOLID", "color": "#00000080", "opacity": 0.8}]
    shallow = layer_tree(row, 0)
    assert shallow["childCount"] == 1 and "children" not in shallow, "once the depth is spent, only the count"


async def test_a_librarys_components_group_their_variants_and_match_a_query(ctx: FakeContext) -> None:
    every = await library_components(ctx, ENTERPRISE_KEY, None, include_variants=True)
    assert [(c["name"], c["type"]) for c in every] == [("Button", "COMPONENT_SET"), ("Icon/Star", "COMPONENT")]
    assert every[0]["variantCount"] == 3 and [v["key"] for v in every[0]["variants"]] == [
        "key-1:10",
        "key-1:11",
        "key-1:12",
    ]
    assert [c["name"] for c in await library_components(ctx, ENTERPRISE_KEY, "star", include_variants=False)] == [
        "Icon/Star"
    ]
    assert await library_components(ctx, ENTERPRISE_KEY, "no such thing", include_variants=False) == []


async def test_a_render_is_pinned_to_the_files_version_and_nothing_rendered_is_refused(ctx: FakeContext) -> None:
    render = await render_url(ctx, ENTERPRISE_KEY, "1:3", 2, "png")
    assert render["imageUrl"].endswith(".png") and (render["scale"], render["format"]) == (2, "png")
    assert render["version"] == await ctx.api.file_version(ENTERPRISE_KEY) and render["expiresInDays"] == 30
    with pytest.raises(DesignError, match="rendered nothing for node 9:9") as refused:
        await render_url(ctx, ENTERPRISE_KEY, "9:9", 1, "png")
    assert refused.value.code == "not_found"
