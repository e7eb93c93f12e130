"""The read tools over the design API, each with the real client against the fake API."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext
from fakes.design_api import ENTERPRISE_KEY, PRO_KEY, STYLES_KEY

from design_console.clients.design_api import DesignApi
from design_console.engines import token_sources
from design_console.errors import PREFIX, DesignError
from design_console.protocol import ToolOutput
from design_console.tokens import export
from design_console.tools.base import CHARS_PER_TOKEN

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


def data(out: ToolOutput) -> Any:
    assert not out.is_error, out.content[0].text
    return msgspec.json.decode(out.content[0].text)


def error_text(out: ToolOutput) -> str:
    assert out.is_error
    text = out.content[0].text
    assert text.startswith(PREFIX)
    return text


async def test_variables_from_the_api_with_paging_and_filters(ctx: FakeContext) -> None:
    first = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "pageSize": 10}))
    assert first["source"] == "design_api"
    assert first["totalVariables"] == 36 and len(first["variables"]) == 10 and first["totalPages"] == 4
    second = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "pageSize": 10, "page": 2}))
    assert first["variables"][0]["name"] != second["variables"][0]["name"]
    dark = data(
        await ctx.call(
            "design_get_variables",
            {"fileUrl": FILE_URL, "collection": "semantic", "mode": "Dark", "resolveAliases": True},
        )
    )
    surface = next(v for v in dark["variables"] if v["name"] == "surface/default")
    assert list(surface["values"]) == ["Dark"] and surface["values"]["Dark"].startswith("#")
    named = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "namePattern": "^spacing/"}))
    assert {v["type"] for v in named["variables"]} == {"FLOAT"} and named["totalVariables"] == 7


async def test_variables_prefer_the_plugin(ctx: FakeContext) -> None:
    ctx.plugin = {
        "GET_VARIABLES_DATA": {
            "success": True,
            "variables": [
                {
                    "id": "V:1",
                    "name": "brand",
                    "variableCollectionId": "C:1",
                    "resolvedType": "COLOR",
                    "valuesByMode": {"m1": {"r": 1, "g": 0, "b": 0, "a": 1}},
                }
            ],
            "variableCollections": [
                {"id": "C:1", "name": "Brand", "modes": [{"modeId": "m1", "name": "Default"}], "variableIds": ["V:1"]}
            ],
        }
    }
    result = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL}))
    assert result["source"] == "plugin"
    assert result["variables"][0]["values"] == {"Default": "#FF0000"}


async def test_variables_on_a_pro_plan_fall_back_to_styles(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_variables", {"fileUrl": PRO_KEY}))
    assert result["source"] == "styles"
    assert "Enterprise" in result["note"]
    assert result["styles"][0]["name"] == "Surface/Default"


async def test_variables_rate_limited(ctx: FakeContext, fake_api: ApiServer) -> None:
    fake_api.control("fail", {"path_prefix": "/v1/files", "status": 429, "retry_after": "120"})
    assert "2 min" in error_text(await ctx.call("design_get_variables", {"fileUrl": FILE_URL}))


async def test_styles(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_styles", {"fileUrl": FILE_URL}))
    assert result["styles"][0]["name"] == "Surface/Default"
    summary = data(await ctx.call("design_get_styles", {"fileUrl": FILE_URL, "verbosity": "summary"}))
    assert summary["styles"] == [{"name": "Surface/Default", "type": "FILL"}]
    assert "found nothing" in error_text(await ctx.call("design_get_styles", {"fileUrl": "NoSuchFile000000000099"}))


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


async def test_every_file_tool_names_the_missing_file_the_same_way(ctx: FakeContext) -> None:
    for name, arguments, argument in (
        ("design_get_file_data", {}, "fileUrl"),
        ("design_get_variables", {}, "fileUrl"),
        ("design_get_styles", {}, "fileUrl"),
        ("design_get_component", {"nodeId": "1:2"}, "fileUrl"),
        ("design_get_design_system_kit", {}, "fileKey"),
    ):
        text = error_text(await ctx.call(name, arguments))
        assert "no active file" in text and f"Pass {argument} " in text, name


async def test_variables_code_exports_are_real_code(ctx: FakeContext) -> None:
    """The exports are the token formats' own files (tokens/), under the names every token tool uses."""
    whole = {"fileUrl": FILE_URL, "include_exports": True, "pageSize": 5, "maxTokens": 20_000}
    result = data(await ctx.call("design_get_variables", whole))
    exports = result["exports"]
    assert list(exports) == ["css-vars", "scss", "tailwind-v3", "ts-module", "dtcg"] and "exportsNote" not in result
    css = exports["css-vars"]
    assert ":root {\n" in css and "  --color-blue-500: #264080;" in css and "  --spacing-16: 16px;" in css
    assert "  --surface-default: var(--color-gray-100);" in css
    assert '[data-theme="dark"] {\n' in css and "  --surface-default: var(--color-gray-800);" in css
    assert '  --font-family-body: "Inter";' in css
    scss = exports["scss"]
    assert "$color-blue-500: #264080;" in scss and "$surface-default--dark: $color-gray-800;" in scss
    tailwind = exports["tailwind-v3"]
    assert tailwind.startswith("/** @type") and "module.exports = " in tailwind
    theme = json.loads(tailwind.split("module.exports = ", 1)[1].rstrip().rstrip(";"))["theme"]["extend"]
    assert theme["colors"]["color"]["blue"]["500"] == "#264080" and theme["spacing"]["spacing"]["16"] == "16px"
    assert theme["colors"]["surface"]["default"] == "#757575"
    consts = json.loads(exports["ts-module"].split("export const tokens = ", 1)[1].split(" as const;", 1)[0])
    assert consts["Semantic"]["Light"]["surface"]["default"] == "#757575"
    assert consts["Semantic"]["Dark"]["surface"]["default"] == "#2e2e2e"
    surface = json.loads(exports["dtcg"])["Semantic"]["surface"]["default"]
    assert surface["$type"] == "color" and surface["$value"] == "{Primitives.color.gray.100}"
    assert surface["$extensions"]["com.design-console"]["modes"] == {"Dark": "{Primitives.color.gray.800}"}
    only = data(
        await ctx.call(
            "design_get_variables",
            {"fileUrl": FILE_URL, "include_exports": True, "export_formats": ["scss"], "namePattern": "^spacing/"},
        )
    )
    assert list(only["exports"]) == ["scss"] and "color" not in only["exports"]["scss"]
    less_args = {"fileUrl": FILE_URL, "include_exports": True, "export_formats": ["less"], "namePattern": "^spacing/"}
    less = data(await ctx.call("design_get_variables", less_args))
    assert "@spacing-16: 16px;" in less["exports"]["less"]


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


async def test_variables_exports_stay_within_the_budget(ctx: FakeContext) -> None:
    out = await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "include_exports": True, "maxTokens": 500})
    assert len(out.content[0].text) <= 500 * CHARS_PER_TOKEN
    result = data(out)
    assert "cut to fit maxTokens" in result["exportsNote"] and "nextCursor" in result


async def test_variables_usage_dependencies_enrich_and_published(ctx: FakeContext) -> None:
    result = data(
        await ctx.call(
            "design_get_variables",
            {"fileUrl": FILE_URL, "include_usage": True, "include_dependencies": True, "enrich": True, "pageSize": 100},
        )
    )
    by_name = {v["name"]: v for v in result["variables"]}
    action = by_name["action/primary"]
    assert action["usage"] == {"nodes": 4, "fields": {"fills": 4}}
    assert by_name["spacing/16"]["usage"] == {"nodes": 3, "fields": {"paddingLeft": 3, "paddingRight": 3}}
    assert by_name["color/blue/900" if "color/blue/900" in by_name else "color/red/100"]["usage"] == {"nodes": 0}
    assert result["usage"]["scannedNodes"] > 10 and result["usage"]["unusedVariables"] == 32
    assert action["aliasChain"] == {"Light": ["color/blue/500"], "Dark": ["color/blue/300"]}
    assert by_name["color/blue/500"]["aliasedBy"] == ["action/primary"]
    assert action["cssVar"] == "--action-primary"
    assert action["resolved"] == {"Light": "#264080", "Dark": "#2B4FA8"}
    assert action["published"] is True and result["publishedVariables"] == 36
    own = data(await ctx.call("design_get_variables", {"fileUrl": PRO_KEY, "includePublished": False}))
    assert own["source"] == "styles"


async def test_variables_as_links_summary_and_full(ctx: FakeContext) -> None:
    links = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "returnAsLinks": True, "pageSize": 3}))
    assert links["variables"] == [
        {"id": "VariableID:1:1", "name": "color/blue/100"},
        {"id": "VariableID:2:2", "name": "color/blue/200"},
        {"id": "VariableID:3:3", "name": "color/blue/300"},
    ]
    summary = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "format": "summary"}))
    assert "variables" not in summary and summary["totalVariables"] == 36
    assert summary["byType"] == {"COLOR": 27, "FLOAT": 7, "STRING": 1, "BOOLEAN": 1}
    assert summary["groups"]["color"] == 24
    full = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "format": "full", "pageSize": 100}))
    assert full["totalVariables"] == 36
    refused = await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "format": "full", "collection": "x"})
    assert "format=filtered" in error_text(refused)
    with pytest.raises(DesignError, match="export_formats"):
        await ctx.run("design_get_variables", {"fileUrl": FILE_URL, "export_formats": ["yaml"]})


SNAPSHOT = {
    "success": True,
    "timestamp": 1_700_000_000_000,
    "variables": [
        {"id": "V:1", "name": "brand", "variableCollectionId": "C:1", "resolvedType": "COLOR",
         "valuesByMode": {"m1": {"r": 0, "g": 0, "b": 1, "a": 1}}},
        {"id": "V:2", "name": "lib/accent", "variableCollectionId": "C:2", "resolvedType": "COLOR", "remote": True,
         "valuesByMode": {"m2": {"r": 0, "g": 1, "b": 0, "a": 1}}},
    ],
    "variableCollections": [
        {"id": "C:1", "name": "Brand", "modes": [{"modeId": "m1", "name": "Default"}], "variableIds": ["V:1"]},
        {"id": "C:2", "name": "Library", "remote": True, "modes": [{"modeId": "m2", "name": "Default"}],
         "variableIds": ["V:2"]},
    ],
}  # fmt: skip


async def test_parse_from_console_reads_only_the_snapshot(ctx: FakeContext, fake_api: ApiServer) -> None:
    refused = await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "parseFromConsole": True})
    assert "parseFromConsole" in error_text(refused) and "Desktop Bridge plugin" in error_text(refused)
    ctx.plugin = {"GET_VARIABLES_DATA": SNAPSHOT}
    result = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "parseFromConsole": True}))
    assert result["source"] == "plugin_snapshot" and [v["name"] for v in result["variables"]] == ["brand", "lib/accent"]
    assert not [r for r in fake_api.requests() if "variables" in r["path"]]
    own = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "parseFromConsole": True,
                                                       "includePublished": False}))  # fmt: skip
    assert [v["name"] for v in own["variables"]] == ["brand"] and [c["name"] for c in own["collections"]] == ["Brand"]


async def test_console_fallback_when_fresh_read_and_api_both_fail(ctx: FakeContext) -> None:
    ctx.plugin = {
        "GET_VARIABLES_DATA": SNAPSHOT,
        "EXECUTE_CODE": DesignError("timeout", "The plugin did not answer EXECUTE_CODE in 22 s."),
    }
    args = {"fileUrl": PRO_KEY, "refreshCache": True}
    result = data(await ctx.call("design_get_variables", args))
    assert result["source"] == "plugin_snapshot" and result["variables"][0]["values"] == {"Default": "#0000FF"}
    assert "last variables snapshot, taken" in result["notes"][0] and "22 s" in result["notes"][0]
    without = data(await ctx.call("design_get_variables", {**args, "useConsoleFallback": False}))
    assert without["source"] == "styles"
    api_used = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "refreshCache": True}))
    assert api_used["source"] == "design_api" and "plugin's read failed" in api_used["notes"][0]


STYLES_URL = f"https://www.figma.com/design/{STYLES_KEY}/Style-Guide"


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


async def test_styles_without_a_token_are_counted_with_their_reason(ctx: FakeContext, fake_api: ApiServer) -> None:
    body = fake_api.fake.files[STYLES_KEY].body
    assert body is not None
    # A style whose definition node has no visible shadow (a blur, say) has no token.
    body["styles"]["S:blur"] = {
        "key": "style-blur",
        "name": "Glass",
        "description": "",
        "remote": False,
        "styleType": "EFFECT",
    }
    result = data(await ctx.call("design_get_styles", {"fileUrl": STYLES_URL, "include_exports": True}))
    assert result["exportsSkipped"] == 1 and "glass" not in result["exports"]["css-vars"]
    (why,) = result["exportsSkippedWhy"]
    assert why.startswith("a blur (or hidden) effect has no token type") and result["exportsSkippedWhy"][why] == 1


async def test_styles_values_css_usage_and_exports(ctx: FakeContext) -> None:
    result = data(
        await ctx.call(
            "design_get_styles", {"fileUrl": STYLES_URL, "enrich": True, "include_usage": True, "include_exports": True}
        )
    )
    by_name = {s["name"]: s for s in result["styles"]}
    assert set(by_name) == {"Surface/Default", "Brand/Primary", "Text/Body", "Text/Heading", "Shadow/Card"}
    assert by_name["Surface/Default"]["value"] == ["#FFFFFF"] and by_name["Surface/Default"]["css"] == {
        "color": "#FFFFFF"
    }
    assert by_name["Text/Heading"]["css"] == {
        "font-family": "Inter",
        "font-weight": "700",
        "font-size": "24px",
        "line-height": "32px",
        "letter-spacing": "-0.2px",
    }
    assert by_name["Shadow/Card"]["css"] == {"box-shadow": "0px 2px 8px 0px #00000040"}
    assert by_name["Text/Body"]["usage"] == {"nodes": 3} and by_name["Text/Heading"]["usage"] == {"nodes": 1}
    assert by_name["Brand/Primary"]["usage"] == {"nodes": 0} and result["usage"]["scannedNodes"] > 10
    css = result["exports"]["css-vars"]
    assert "  --brand-primary: #3366e6;" in css and "  --text-heading-font-size: 24px;" in css
    # The effect style's drop shadow is a shadow token: box-shadow text in the stylesheets, a DTCG shadow.
    assert "  --shadow-card: 0px 2px 8px 0px #00000040;" in css and "exportsSkipped" not in result
    assert "$shadow-card: 0px 2px 8px 0px #00000040;" in result["exports"]["scss"]
    card = json.loads(result["exports"]["dtcg"])["styles"]["Shadow"]["Card"]
    assert card["$type"] == "shadow" and card["$value"]["offsetY"] == "2px" and card["$value"]["blur"] == "8px"
    tailwind = json.loads(result["exports"]["tailwind-v3"].split("module.exports = ", 1)[1].rstrip().rstrip(";"))
    extend = tailwind["theme"]["extend"]
    assert extend["colors"]["Brand"]["Primary"] == "#3366e6"
    assert extend["spacing"]["Text"]["Heading"]["font-size"] == "24px"
    assert "$text-body-font-size: 14px;" in result["exports"]["scss"]
    assert extend["boxShadow"]["Shadow"]["Card"] == "0px 2px 8px 0px #00000040"
    ts_only = data(
        await ctx.call(
            "design_get_styles", {"fileUrl": STYLES_URL, "include_exports": True, "export_formats": ["ts-module"]}
        )
    )
    consts = ts_only["exports"]["ts-module"].split("export const tokens = ", 1)[1].split(" as const;", 1)[0]
    assert json.loads(consts)["styles"]["default"]["Brand"]["Primary"] == "#3366e6"
    assert list(ts_only["exports"]) == ["ts-module"]


async def test_styles_summary_stays_small_and_usage_reads_the_file_once(ctx: FakeContext, fake_api: ApiServer) -> None:
    result = data(
        await ctx.call("design_get_styles", {"fileUrl": STYLES_URL, "verbosity": "summary", "include_usage": True})
    )
    assert {"name": "Shadow/Card", "type": "EFFECT", "usage": {"nodes": 1}} in result["styles"]
    reads = [r for r in fake_api.requests() if r["path"] == f"/v1/files/{STYLES_KEY}"]
    assert len(reads) == 1 and not [r for r in fake_api.requests() if r["path"].endswith("/nodes")]


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


def paged_variables(params: dict[str, Any]) -> dict[str, Any]:
    """The variables script answered like the real plugin does: each array it returns holds at most 200 items."""
    offset, size = (int(n) for n in re.search(r"offset = (\d+), size = (\d+)", params["code"]).groups())
    assert size <= 200, "a page larger than the plugin's array cap would come back cut"
    every = [
        {"id": f"V:{n}", "name": f"space/{n}", "variableCollectionId": "C:1", "resolvedType": "FLOAT",
         "valuesByMode": {"m1": n}}
        for n in range(450)
    ]  # fmt: skip
    collections = [{"id": "C:1", "name": "Spacing", "modes": [{"modeId": "m1", "name": "Default"}],
                    "variableCount": 450}] if offset == 0 else []  # fmt: skip
    page = every[offset : offset + size]
    return {"success": True, "result": {"total": 450, "variableCollections": collections, "variables": page}}


async def test_fresh_plugin_read_pages_past_the_plugin_array_cap(ctx: FakeContext) -> None:
    ctx.plugin = {
        "GET_VARIABLES_DATA": {"success": True, "variables": [], "variableCollections": []},
        "EXECUTE_CODE": paged_variables,
    }
    result = data(
        await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "refreshCache": True, "format": "summary"})
    )
    assert result["source"] == "plugin"
    assert [c for c, *_ in ctx.bridge_calls].count("EXECUTE_CODE") == 3
    assert result["totalVariables"] == 450 and result["collections"][0]["variables"] == 450
