"""The read tools over the design API, each with the real client against the fake API."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext, data, error_text
from fakes.design_api import ENTERPRISE_KEY, PRO_KEY

from design_console.clients.design_api import DesignApi
from design_console.engines import token_sources
from design_console.tokens import export
from design_console.tools.base import CHARS_PER_TOKEN

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


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
    assert "  --depth-inset: 1px 2px 4px 0px #00000080, inset 0px 1px 0px 1px #FFFFFF;" in css
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


async def test_kit_with_specs_and_images_keeps_to_max_tokens(ctx: FakeContext) -> None:
    args = {"fileKey": ENTERPRISE_KEY, "includeImages": True, "maxTokens": 500}
    out = await ctx.call("design_get_design_system_kit", args)
    assert len(out.content[0].text) <= 500 * CHARS_PER_TOKEN
    assert any(note.startswith("components: cut") for note in data(out)["notes"])
