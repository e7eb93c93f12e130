"""design_get_library_components, design_search_components and design_get_library_component_by_key: a library's
components through the real client against the fake API, and the open file's through the plugin."""

from __future__ import annotations

from fakes.context import FakeContext, data, error_text
from fakes.design_api import ENTERPRISE_KEY

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


async def test_library_components_and_search(ctx: FakeContext) -> None:
    lib = data(await ctx.call("design_get_library_components", {"libraryFileUrl": FILE_URL, "includeVariants": True}))
    assert [c["name"] for c in lib["components"]] == ["Button", "Icon/Star"]
    assert lib["components"][0]["variantCount"] == 3
    page = data(await ctx.call("design_get_library_components", {"libraryFileKey": ENTERPRISE_KEY, "limit": 1}))
    assert [c["name"] for c in page["components"]] == ["Button"] and page["total"] == 2
    rest = {"libraryFileKey": ENTERPRISE_KEY, "limit": 1, "cursor": page["nextCursor"]}
    last = data(await ctx.call("design_get_library_components", rest))
    assert [c["name"] for c in last["components"]] == ["Icon/Star"] and "nextCursor" not in last
    assert data(await ctx.call("design_get_library_components", {**rest, "cursor": None, "offset": 1})) == last
    found = data(await ctx.call("design_search_components", {"query": "star", "libraryFileKey": ENTERPRISE_KEY}))
    assert [c["name"] for c in found["components"]] == ["Icon/Star"]
    assert "No library" in error_text(await ctx.call("design_get_library_components", {}))


async def test_search_without_library_needs_the_plugin(ctx: FakeContext) -> None:
    assert "plugin" in error_text(await ctx.call("design_search_components", {"query": "x"}))
    ctx.plugin = {"GET_LOCAL_COMPONENTS": {"success": True, "components": [{"name": "Card", "id": "5:1"}]}}
    result = data(await ctx.call("design_search_components", {"query": "car"}))
    assert result["components"] == [{"name": "Card", "id": "5:1", "source": "local", "match": "name"}]


LOCAL_COMPONENTS = {
    "success": True,
    "components": [
        {"name": "Icon/Chevron", "id": "7:1", "type": "COMPONENT"},
        {"name": "Card", "id": "5:1", "type": "COMPONENT", "description": "Shows a chip of content"},
    ],
    "componentSets": [
        {
            "name": "Chip",
            "id": "6:1",
            "type": "COMPONENT_SET",
            "variants": [
                {"name": "Kind=Filter, State=Default", "id": "6:2"},
                {"name": "Kind=Input, State=Hover", "id": "6:3"},
            ],
        },
        {
            "name": "Button",
            "id": "8:1",
            "type": "COMPONENT_SET",
            "variants": [{"name": "State=Default", "id": "8:2"}, {"name": "State=Hover", "id": "8:3"}],
        },
        {"name": "Action chips/Button row", "id": "9:1", "type": "COMPONENT_SET", "variants": []},
    ],
}


async def test_search_finds_component_sets_and_variants_ranked_by_match(ctx: FakeContext) -> None:
    ctx.plugin = {"GET_LOCAL_COMPONENTS": LOCAL_COMPONENTS}
    chips = data(await ctx.call("design_search_components", {"query": "chip"}))["components"]
    assert [(c["name"], c["match"]) for c in chips] == [
        ("Chip", "name"),
        ("Action chips/Button row", "name"),
        ("Card", "description"),
    ], "an exact name first, then a word of a name, then a description"
    buttons = data(await ctx.call("design_search_components", {"query": "button"}))["components"]
    assert [c["name"] for c in buttons] == ["Button", "Action chips/Button row"]
    assert buttons[0]["type"] == "COMPONENT_SET" and buttons[0]["variantCount"] == 2
    hover = data(await ctx.call("design_search_components", {"query": "hover"}))["components"]
    assert [(c["name"], c["match"]) for c in hover] == [("Chip", "variant"), ("Button", "variant")]
    assert hover[1]["matchedVariants"] == [{"name": "State=Hover", "id": "8:3"}]
    both = data(await ctx.call("design_search_components", {"query": "star", "libraryFileKey": ENTERPRISE_KEY}))
    assert [(c["name"], c["source"]) for c in both["components"]] == [("Icon/Star", "library")]
    library = data(await ctx.call("design_search_components", {"query": "hover", "libraryFileKey": ENTERPRISE_KEY}))
    assert [(c["name"], c["source"], c["match"]) for c in library["components"]] == [
        ("Chip", "local", "variant"),
        ("Button", "local", "variant"),
        ("Button", "library", "variant"),
    ], "the open file and the library together, a shorter name first among equal matches"


async def test_library_component_by_key(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_library_component_by_key", {"componentKey": "key-set-1:2"}))
    assert result["name"] == "Button" and len(result["variants"]) == 3 and result["visual"]
    single = data(
        await ctx.call("design_get_library_component_by_key", {"componentKey": "key-1:3", "format": "summary"})
    )
    assert single["nodeId"] == "1:3"
    missing = await ctx.call("design_get_library_component_by_key", {"componentKey": "nope"})
    assert "found nothing" in error_text(missing)
