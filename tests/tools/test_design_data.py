"""The read tools over the design API, each with the real client against the fake API."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext, data, error_text
from fakes.design_api import ENTERPRISE_KEY, HUGE_KEY, PRO_KEY, FakeDesignApi

from design_console.clients.design_api import DesignApi
from design_console.engines import token_sources
from design_console.errors import DesignError
from design_console.tokens import export
from design_console.tools.base import CHARS_PER_TOKEN

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


async def test_file_data_summary(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_file_data", {"fileUrl": FILE_URL}))
    assert result["file"]["name"] == "Design System"
    assert result["counts"]["components"] == 4
    assert [n["name"] for n in result["nodes"] if n["depth"] == 0] == ["Components", "Screens"]
    assert "nextCursor" not in result


async def test_file_data_uses_the_active_file_and_enriches(ctx: FakeContext) -> None:
    ctx.active_file_key = ENTERPRISE_KEY
    result = data(await ctx.call("design_get_file_data", {"depth": 2, "verbosity": "standard", "enrich": True}))
    instance = next(n for n in result["nodes"] if n["type"] == "INSTANCE")
    assert instance["componentName"] == "State=Default"


async def test_file_data_for_nodes_and_missing_nodes(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_file_data", {"fileUrl": FILE_URL, "nodeIds": ["2-1"], "depth": 1}))
    assert result["nodes"][0]["name"] == "Sign in"
    assert "No node 9:9" in error_text(
        await ctx.call("design_get_file_data", {"fileUrl": FILE_URL, "nodeIds": ["9:9"]})
    )


async def test_file_data_errors(ctx: FakeContext) -> None:
    assert "active file" in error_text(await ctx.call("design_get_file_data", {}))
    with pytest.raises(DesignError, match=re.escape("`fileUrl`: 'http://x.y/z' is not a design file URL")):
        await ctx.run("design_get_file_data", {"fileUrl": "http://x.y/z"})
    missing = await ctx.call("design_get_file_data", {"fileUrl": "NoSuchFile000000000099"})
    assert "found nothing" in error_text(missing)
    bad_cursor = await ctx.call("design_get_file_data", {"fileUrl": FILE_URL, "cursor": "bogus"})
    assert "cursor" in error_text(bad_cursor)


async def test_file_for_plugin(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_file_for_plugin", {"fileUrl": FILE_URL, "depth": 1}))
    assert {n["type"] for n in result["nodes"]} <= {"CANVAS", "FRAME", "COMPONENT", "COMPONENT_SET"}
    assert "box" not in result["nodes"][0]


async def test_component_metadata_and_reconstruction(ctx: FakeContext) -> None:
    meta = data(await ctx.call("design_get_component", {"fileUrl": FILE_URL, "nodeId": "1:2", "enrich": True}))
    assert meta["type"] == "COMPONENT_SET" and len(meta["variants"]) == 3
    assert "unavailable" in meta["plugin"]
    tree = data(
        await ctx.call("design_get_component", {"fileUrl": FILE_URL, "nodeId": "1:2", "format": "reconstruction"})
    )
    assert tree["nodes"][0]["id"] == "1:2" and "fills" in tree["nodes"][0]
    with pytest.raises(DesignError, match="`nodeId`: 'x' is not a node id"):
        await ctx.run("design_get_component", {"fileUrl": FILE_URL, "nodeId": "x"})


async def test_component_for_development(ctx: FakeContext) -> None:
    ctx.plugin = {"GET_ANNOTATIONS": {"success": True, "annotations": [{"label": "Primary action"}]}}
    result = data(await ctx.call("design_get_component_for_development", {"fileUrl": FILE_URL, "nodeId": "2:1"}))
    assert result["annotations"]["annotations"][0]["label"] == "Primary action"
    assert result["image"]["imageUrl"].endswith(".png")
    assert len(result["nodes"]) == 4


async def test_component_image(ctx: FakeContext, fake_api: ApiServer) -> None:
    args = {"fileUrl": FILE_URL, "nodeId": "1:3", "scale": 1, "format": "svg"}
    first = data(await ctx.call("design_get_component_image", args))
    assert first["imageUrl"].endswith(".svg")
    assert await ctx.api.get_bytes(first["imageUrl"])
    again = data(await ctx.call("design_get_component_image", args))
    assert again == first
    assert sum(1 for r in fake_api.requests() if r["path"].startswith("/v1/images/")) == 1
    missing = await ctx.call("design_get_component_image", {"fileUrl": FILE_URL, "nodeId": "9:9"})
    assert "rendered nothing" in error_text(missing)
    with pytest.raises(DesignError, match="scale"):
        await ctx.run("design_get_component_image", {"nodeId": "1:3", "scale": 9})


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


async def test_design_system_kit(ctx: FakeContext) -> None:
    kit = data(await ctx.call("design_get_design_system_kit", {"fileKey": ENTERPRISE_KEY}))
    assert kit["tokens"]["total"] == 36 and kit["components"]["total"] == 2 and kit["styles"]["total"] == 1
    pro = data(await ctx.call("design_get_design_system_kit", {"fileKey": PRO_KEY, "include": ["tokens"]}))
    assert "Enterprise" in pro["notes"][0]


async def test_no_token_is_a_tool_error(fake_api: ApiServer, home: Path) -> None:
    client = DesignApi(fake_api.client_config(home, token=""))
    try:
        out = await FakeContext(client.config, api=client).call("design_get_styles", {"fileUrl": FILE_URL})
    finally:
        await client.aclose()
    assert "DESIGN_ACCESS_TOKEN" in error_text(out)


@pytest.mark.slow
@pytest.mark.timeout(120)
async def test_a_50_mb_file_is_walked_whole_within_the_budget(fake_api: ApiServer, home: Path) -> None:
    fake_api.reset(FakeDesignApi(huge_mb=50))
    client = DesignApi(fake_api.client_config(home))
    context = FakeContext(client.config, api=client)
    args: dict[str, Any] = {"fileUrl": HUGE_KEY, "depth": 3, "maxTokens": 20_000}
    seen = 0
    parts = 0
    started = time.monotonic()
    try:
        while True:
            out = await context.call("design_get_file_data", args)
            assert len(out.content[0].text) <= 20_000 * CHARS_PER_TOKEN
            result = data(out)
            seen += len(result["nodes"])
            parts += 1
            if "nextCursor" not in result:
                break
            args["cursor"] = result["nextCursor"]
        stats = client.stats()
    finally:
        await client.aclose()
    expected = msgspec.json.decode(await _raw(fake_api), type=_Count)
    assert seen == expected.total()
    assert stats["upstream_requests"] <= 2 + parts // 10
    assert time.monotonic() - started < 60


class _Node(msgspec.Struct):
    children: list[_Node] = []

    def total(self) -> int:
        return 1 + sum(c.total() for c in self.children)


class _Count(msgspec.Struct):
    document: _Node

    def total(self) -> int:
        return self.document.total() - 1


async def _raw(server: ApiServer) -> bytes:
    client = DesignApi(server.client_config(Path("/nonexistent-cache")))
    try:
        return await client.request_bytes("GET", f"/v1/files/{HUGE_KEY}", cache="none")
    finally:
        await client.aclose()


@pytest.mark.parametrize(
    ("old", "new"),
    [("css", "css-vars"), ("sass", "scss"), ("tailwind", "tailwind-v3"), ("typescript", "ts-module"), ("json", "dtcg")],
)
async def test_an_old_export_format_name_is_refused_with_its_new_name(ctx: FakeContext, old: str, new: str) -> None:
    for tool in ("design_get_variables", "design_get_styles"):
        refused = await ctx.call(tool, {"fileUrl": FILE_URL, "include_exports": True, "export_formats": [old]})
        assert f"`export_formats`: the token format {old!r} is now called {new!r}" in error_text(refused), tool
    refused = await ctx.call("design_export_tokens", {"format": old})
    assert f"`format`: the token format {old!r} is now called {new!r}" in error_text(refused)


async def test_the_import_takes_the_formats_by_the_same_names(ctx: FakeContext) -> None:
    refused = await ctx.call("design_import_tokens", {"format": "tailwind-v3-config", "payload": "{}"})
    assert "`format`: the token format 'tailwind-v3-config' is now called 'tailwind-v3'" in error_text(refused)


def test_effect_styles_become_shadow_tokens_and_blurs_are_skipped_with_the_reason() -> None:
    drop = {"type": "DROP_SHADOW", "color": {"r": 0, "g": 0, "b": 0, "a": 0.5}, "offset": {"x": 1, "y": 2}, "radius": 4}
    inner = {"type": "INNER_SHADOW", "color": {"r": 1, "g": 1, "b": 1}, "offset": {"x": 0, "y": 1}, "spread": 1}
    blur = {"type": "LAYER_BLUR", "radius": 6}
    styles = [
        ({"name": "Depth/Inset", "type": "EFFECT"}, {"effects": [drop, blur, inner]}),
        ({"name": "Glass", "type": "EFFECT"}, {"effects": [blur, {**drop, "visible": False}]}),
        ({"name": "Sky", "type": "FILL"}, {"fills": [{"type": "GRADIENT_LINEAR"}]}),
    ]
    tokens, skipped = token_sources.style_token_set(styles)
    assert [(t.name, t.type) for t in tokens.collections[0].tokens] == [("Depth/Inset", "shadow")]
    css = export(tokens, "css-vars")["tokens.css"]
    assert "  --depth-inset: 1px 2px 4px 0px #00000080, inset 0px 1px 0px 1px #ffffff;" in css
    assert set(skipped) == {"Glass", "Sky"} and skipped["Glass"].startswith("a blur (or hidden) effect has no token")


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
        "Background": {"fills": [{"color": "#264CBF", "variable": "VariableID:35:35"}]}
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


async def test_kit_with_specs_and_images_keeps_to_max_tokens(ctx: FakeContext) -> None:
    args = {"fileKey": ENTERPRISE_KEY, "includeImages": True, "maxTokens": 500}
    out = await ctx.call("design_get_design_system_kit", args)
    assert len(out.content[0].text) <= 500 * CHARS_PER_TOKEN
    assert any(note.startswith("components: cut") for note in data(out)["notes"])


async def test_component_for_development_finds_the_code_in_a_codebase(ctx: FakeContext, tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "components" / "SignIn").mkdir(parents=True)
    (src / "components" / "SignIn" / "index.tsx").write_text("export { SignIn } from './SignIn';\n")
    (src / "components" / "SignIn" / "SignIn.tsx").write_text(
        "import React from 'react';\n\nexport function SignIn() {\n  return null;\n}\n"
    )
    (src / "components" / "SignIn" / "sign-in.stories.tsx").write_text("export default { title: 'Sign in' };\n")
    (src / "node_modules" / "lib").mkdir(parents=True)
    (src / "node_modules" / "lib" / "SignIn.js").write_text("export const SignIn = 1;\n")
    (src / "Other.tsx").write_text("export const SignInButton = 1;\n")
    args = {"fileUrl": FILE_URL, "nodeId": "2:1", "includeImage": False, "codebasePath": str(src)}
    result = data(await ctx.call("design_get_component_for_development", args))
    found = result["codebase"]
    assert found["codeNames"] == ["SignIn"] and found["scannedFiles"] == 4
    assert {(m["path"], m["kind"], m.get("line")) for m in found["matches"]} == {
        ("components/SignIn/index.tsx", "file", None),
        ("components/SignIn/SignIn.tsx", "file", None),
        ("components/SignIn/SignIn.tsx", "export", 3),
        ("components/SignIn/sign-in.stories.tsx", "story", None),
    }
    missing = await ctx.call(
        "design_get_component_for_development", {**args, "codebasePath": str(tmp_path / "nowhere")}
    )
    assert "codebasePath" in error_text(missing) and "absolute path" in error_text(missing)
    relative = await ctx.call("design_get_component_for_development", {**args, "codebasePath": "src"})
    assert "codebasePath" in error_text(relative)
