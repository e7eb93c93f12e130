"""design_get_component_for_development_deep and design_analyze_component_set over a real bridge, the fake plugin
answering DEEP_GET_COMPONENT and ANALYZE_COMPONENT_SET as the Desktop Bridge plugin does."""

from __future__ import annotations

from fakes.context import data, error_text
from fakes.harness import Harness, size
from fakes.plugin_payloads import analysis, deep_reply

from design_console.tools.base import CHARS_PER_TOKEN

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
