"""design_get_styles: the file's styles with their values, CSS, usage and code exports, with the real client against
the fake design API."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.api_server import ApiServer
from fakes.context import FakeContext, data, error_text
from fakes.design_api import ENTERPRISE_KEY, STYLES_KEY

from design_console.clients.design_api import DesignApi

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


STYLES_URL = f"https://www.figma.com/design/{STYLES_KEY}/Style-Guide"


async def test_styles(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_styles", {"fileUrl": FILE_URL}))
    assert result["styles"][0]["name"] == "Surface/Default"
    summary = data(await ctx.call("design_get_styles", {"fileUrl": FILE_URL, "verbosity": "summary"}))
    assert summary["styles"] == [{"name": "Surface/Default", "type": "FILL"}]
    assert "found nothing" in error_text(await ctx.call("design_get_styles", {"fileUrl": "NoSuchFile000000000099"}))


async def test_a_call_without_an_access_token_is_a_tool_error(fake_api: ApiServer, home: Path) -> None:
    client = DesignApi(fake_api.client_config(home, token=""))
    try:
        out = await FakeContext(client.config, api=client).call("design_get_styles", {"fileUrl": FILE_URL})
    finally:
        await client.aclose()
    assert "DESIGN_ACCESS_TOKEN" in error_text(out)


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
    assert "  --brand-primary: #3366E6;" in css and "  --text-heading-font-size: 24px;" in css
    # The effect style's drop shadow is a shadow token: box-shadow text in the stylesheets, a DTCG shadow.
    assert "  --shadow-card: 0px 2px 8px 0px #00000040;" in css and "exportsSkipped" not in result
    assert "$shadow-card: 0px 2px 8px 0px #00000040;" in result["exports"]["scss"]
    card = json.loads(result["exports"]["dtcg"])["styles"]["Shadow"]["Card"]
    assert card["$type"] == "shadow" and card["$value"]["offsetY"] == "2px" and card["$value"]["blur"] == "8px"
    tailwind = json.loads(result["exports"]["tailwind-v3"].split("module.exports = ", 1)[1].rstrip().rstrip(";"))
    extend = tailwind["theme"]["extend"]
    assert extend["colors"]["Brand"]["Primary"] == "#3366E6"
    assert extend["spacing"]["Text"]["Heading"]["font-size"] == "24px"
    assert "$text-body-font-size: 14px;" in result["exports"]["scss"]
    assert extend["boxShadow"]["Shadow"]["Card"] == "0px 2px 8px 0px #00000040"
    ts_only = data(
        await ctx.call(
            "design_get_styles", {"fileUrl": STYLES_URL, "include_exports": True, "export_formats": ["ts-module"]}
        )
    )
    consts = ts_only["exports"]["ts-module"].split("export const tokens = ", 1)[1].split(" as const;", 1)[0]
    assert json.loads(consts)["styles"]["default"]["Brand"]["Primary"] == "#3366E6"
    assert list(ts_only["exports"]) == ["ts-module"]


async def test_styles_summary_stays_small_and_usage_reads_the_file_once(ctx: FakeContext, fake_api: ApiServer) -> None:
    result = data(
        await ctx.call("design_get_styles", {"fileUrl": STYLES_URL, "verbosity": "summary", "include_usage": True})
    )
    assert {"name": "Shadow/Card", "type": "EFFECT", "usage": {"nodes": 1}} in result["styles"]
    reads = [r for r in fake_api.requests() if r["path"] == f"/v1/files/{STYLES_KEY}"]
    assert len(reads) == 1 and not [r for r in fake_api.requests() if r["path"].endswith("/nodes")]
