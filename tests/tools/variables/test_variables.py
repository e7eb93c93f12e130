"""design_get_variables: the file's variables from the plugin, the design API or its styles, shaped, paged and
exported, with the real client against the fake design API."""

from __future__ import annotations

import json

import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext, data, error_text
from fakes.design_api import ENTERPRISE_KEY, PRO_KEY

from design_console.errors import DesignError

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


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
    assert consts["Semantic"]["Dark"]["surface"]["default"] == "#2E2E2E"
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
        "READ_VARIABLES": DesignError("timeout", "The plugin did not answer READ_VARIABLES in 22 s."),
    }
    args = {"fileUrl": PRO_KEY, "refreshCache": True}
    result = data(await ctx.call("design_get_variables", args))
    assert result["source"] == "plugin_snapshot" and result["variables"][0]["values"] == {"Default": "#0000FF"}
    assert "last variables snapshot, taken" in result["notes"][0] and "22 s" in result["notes"][0]
    without = data(await ctx.call("design_get_variables", {**args, "useConsoleFallback": False}))
    assert without["source"] == "styles"
    api_used = data(await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "refreshCache": True}))
    assert api_used["source"] == "design_api" and "plugin's read failed" in api_used["notes"][0]
