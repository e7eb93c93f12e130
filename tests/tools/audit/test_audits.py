"""The audit tools through the whole chain: lint and component accessibility against the real plugin (contrast
checked against the WCAG 2.2 formula computed here), design–code parity in the api worker against the fake design
API's design-system file."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from fakes.api_server import ApiServer
from fakes.chain import OpenFile, call, js, plugin_chain, refused
from fakes.design_api import ENTERPRISE_KEY, PERSONAL_TOKEN, PRO_KEY
from mcp import Client
from procs import DaemonProcess, isolated, make_env, running_daemon, wait_for, workers_running

pytestmark = pytest.mark.asyncio(loop_scope="module")


ENT = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"
PRO = f"https://www.figma.com/design/{PRO_KEY}/Design-System"


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def wcag_ratio(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The WCAG 2.2 contrast ratio of two opaque sRGB colours (channels 0..1)."""
    la, lb = (0.2126 * _linear(c[0]) + 0.7152 * _linear(c[1]) + 0.0722 * _linear(c[2]) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def over(top: tuple[float, ...], alpha: float, bottom: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(t * alpha + u * (1 - alpha) for t, u in zip(top, bottom, strict=True))


def hex_of(rgb: tuple[float, ...]) -> str:
    """Hex of a colour, halves rounded up as the plugin (and CSS) round them."""
    return "#" + "".join(f"{int(c * 255 + 0.5):02X}" for c in rgb)


@pytest.fixture(scope="module")
def daemon(fake_api_server: ApiServer) -> Iterator[DaemonProcess]:
    fake_api_server.reset()
    settings = {"DESIGN_API_URL": fake_api_server.url, "DESIGN_ACCESS_TOKEN": PERSONAL_TOKEN}
    for env in isolated(make_env(**settings)):
        for running in running_daemon(env):
            wait_for(functools.partial(workers_running, env), 20, "the workers")
            yield running


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(daemon: DaemonProcess) -> AsyncIterator[Client]:
    async with plugin_chain(daemon.env, OpenFile("auditFile", "Audit File")) as session:
        yield session


SOLID = "(rgb, opacity) => ({type: 'SOLID', color: {r: rgb[0], g: rgb[1], b: rgb[2]}, opacity})"


async def build(client: Client, body: str) -> Any:
    """Run document-building code in the plugin with helpers ``solid(rgb, opacity)`` and the font loaded."""
    code = f"""
        await figma.loadFontAsync({{family: 'Inter', style: 'Regular'}});
        const solid = {SOLID};
        {body}
    """
    return await js(client, code)


async def test_lint_measures_contrast_as_rendered(client: Client) -> None:
    ids = await build(
        client,
        """
        const card = figma.createFrame(); figma.currentPage.appendChild(card);
        card.name = 'Card'; card.x = 0; card.y = 0; card.resize(300, 200); card.fills = [solid([1, 1, 1], 1)];
        const faint = figma.createText(); card.appendChild(faint);
        faint.characters = 'Faint'; faint.fontSize = 16; faint.x = 10; faint.y = 10; faint.resize(100, 20);
        faint.fills = [solid([0, 0, 0], 0.3)];
        const dark = figma.createFrame(); figma.currentPage.appendChild(dark);
        dark.name = 'Dark'; dark.x = 400; dark.y = 0; dark.resize(300, 200); dark.fills = [solid([0, 0, 0], 1)];
        const veil = figma.createFrame(); dark.appendChild(veil);
        veil.name = 'Veil'; veil.x = 10; veil.y = 10; veil.resize(200, 100);
        veil.fills = [solid([0.733, 0.733, 0.733], 0.2)];
        const light = figma.createText(); veil.appendChild(light);
        light.characters = 'Light'; light.fontSize = 16; light.x = 10; light.y = 10; light.resize(100, 20);
        light.fills = [solid([1, 1, 1], 1)];
        return {card: card.id, faint: faint.id, dark: dark.id, light: light.id};
        """,
    )
    lint = await call(client, "design_lint_design", {"nodeId": ids["card"], "rules": ["wcag"]})
    assert lint["root"] == {"id": ids["card"], "name": "Card"}
    (finding,) = [f for f in lint["findings"] if f["rule"] == "wcag-contrast"]
    black, white = (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    seen = over(black, 0.3, white)
    assert wcag_ratio(black, white) > 20  # the raw colours pass
    assert finding["nodeId"] == ids["faint"]
    assert finding["ratio"] == pytest.approx(wcag_ratio(seen, white), abs=0.01)
    assert finding["ratio"] < 4.5 and finding["required"] == 4.5
    assert (finding["foreground"], finding["background"]) == (hex_of(seen), "#FFFFFF")

    # The reverse: white on the raw grey fails, but the grey is a 20 % veil over black, and white on that passes.
    grey = (0.733, 0.733, 0.733)
    assert wcag_ratio(white, grey) < 4.5 <= wcag_ratio(white, over(grey, 0.2, black))
    dark = await call(client, "design_lint_design", {"nodeId": ids["dark"], "rules": ["wcag-contrast"]})
    assert dark["findings"] == [] and dark["counts"] == {}


async def test_lint_pages_its_findings_with_a_cursor(client: Client) -> None:
    frame = await build(
        client,
        """
        const f = figma.createFrame(); figma.currentPage.appendChild(f);
        f.name = 'Many'; f.x = 0; f.y = 400; f.fills = [];
        for (let i = 0; i < 30; i++) {
          const r = figma.createRectangle(); f.appendChild(r); r.fills = [solid([1, 0, 0], 1)];
        }
        return f.id;
        """,
    )
    args = {"nodeId": frame, "rules": ["ds-hardcoded-color", "bp-default-name"], "maxFindings": 50, "maxTokens": 1000}
    first = await call(client, "design_lint_design", args)
    assert first["counts"] == {"ds-hardcoded-color": 30, "bp-default-name": 30}
    assert first["notes"] and "nextCursor" in first
    findings, page = list(first["findings"]), first
    while "nextCursor" in page:
        page = await call(client, "design_lint_design", {**args, "cursor": page["nextCursor"]})
        assert len(str(page)) < 1000 * 4
        findings.extend(page["findings"])
    assert len(findings) == 50
    assert len({(f["nodeId"], f["rule"]) for f in findings}) == 50

    other = await refused(client, "design_lint_design", {**args, "maxFindings": 40, "cursor": first["nextCursor"]})
    assert "other arguments" in other
    unknown = await refused(client, "design_lint_design", {"rules": ["spelling"]})
    assert "Unknown rule 'spelling'" in unknown and "best-practice" in unknown


async def test_component_accessibility_per_variant(client: Client) -> None:
    ids = await build(
        client,
        """
        const make = (name, h) => {
          const c = figma.createComponent(); c.name = name; c.resize(80, h); c.fills = [solid([0.1, 0.2, 0.6], 1)];
          const t = figma.createText(); c.appendChild(t); t.characters = 'Go'; t.fontSize = 14; t.x = 4; t.y = 2;
          t.resize(60, Math.min(16, h - 4)); t.fills = [solid([1, 1, 1], 0.4)];
          return c;
        };
        const set = figma.combineAsVariants([make('State=Default', 20), make('State=Hover', 32)], figma.currentPage);
        set.name = 'Button';
        const frame = figma.createFrame(); figma.currentPage.appendChild(frame); frame.name = 'Not a component';
        return {set: set.id, frame: frame.id};
        """,
    )
    audit = await call(client, "design_audit_component_accessibility", {"nodeId": ids["set"]})
    assert audit["targetSize"] == 24
    (owner,) = audit["components"]
    assert owner["name"] == "Button" and owner["hasFocusState"] is False
    assert {i["rule"] for i in owner["issues"]} == {"focus-state", "description"}
    variants = {v["name"]: v for v in owner["variants"]}
    small = [i for i in variants["State=Default"]["issues"] if i["rule"] == "target-size"]
    assert len(small) == 1 and "80×20" in small[0]["message"]
    assert not [i for i in variants["State=Hover"]["issues"] if i["rule"] == "target-size"]
    # White text at 40 % over the blue fill, measured as drawn.
    blue = (0.1, 0.2, 0.6)
    expected = wcag_ratio(over((1.0, 1.0, 1.0), 0.4, blue), blue)
    assert variants["State=Hover"]["minContrast"] == pytest.approx(expected, abs=0.01)
    contrast = [i for i in variants["State=Hover"]["issues"] if i["rule"] == "contrast"]
    assert contrast and contrast[0]["ratio"] < 4.5

    loose = await call(client, "design_audit_component_accessibility", {"nodeId": ids["set"], "targetSize": 20})
    assert not [i for v in loose["components"][0]["variants"] for i in v["issues"] if i["rule"] == "target-size"]
    text = await refused(client, "design_audit_component_accessibility", {"nodeId": ids["frame"]})
    assert "is a FRAME, not a component or component set" in text


#: What the code of the Button says it implements, with five deliberate differences from the design (see below).
CODE_SPEC: dict[str, Any] = {
    "filePath": "src/components/Button.tsx",
    "visual": {"backgroundColor": "#2f5fd0", "textColor": "rgb(26, 26, 26)", "borderRadius": 4, "opacity": 1},
    "spacing": {"paddingLeft": 12, "paddingRight": 16, "width": 96, "height": 40},
    "typography": {"fontFamily": "Inter, sans-serif", "fontSize": 14, "fontWeight": 400},
    "tokens": ["--action-primary", "color.text.primary", "$spacing-16", "radius-sm"],
    "componentAPI": {
        "props": [
            {"name": "state", "type": "variant", "values": ["Default", "Hover", "Disabled"], "default": "Default"},
            {"name": "size", "type": "variant"},
        ]
    },
    "accessibility": {"focusVisible": True, "disabledState": True, "minTargetSize": 40},
    "metadata": {"name": "Button", "description": "Buttons"},
}


async def test_design_parity_against_the_design_api(client: Client) -> None:
    result = await call(client, "design_check_design_parity", {"fileUrl": ENT, "nodeId": "1:2", "codeSpec": CODE_SPEC})
    # Checks: visual 4, spacing 4, typography 3, tokens 3 design + 1 code-only, props 3 + 1, a11y 3, metadata 2.
    assert result["compared"] == 24
    differing = {(c, d["property"]) for c, cat in result["categories"].items() for d in cat.get("discrepancies", [])}
    assert differing == {
        ("visual", "backgroundColor"),
        ("spacing", "paddingLeft"),
        ("tokens", "radius-sm"),
        ("componentAPI", "prop size"),
        ("accessibility", "focusVisible"),
    }
    assert result["matched"] == 19 and result["score"] == round(100 * 19 / 24)
    background = result["categories"]["visual"]["discrepancies"][0]
    assert (background["design"], background["code"]) == ("#3366E6", "#2F5FD0")
    assert result["categories"]["spacing"]["discrepancies"][0]["severity"] == "major"
    assert all(f["change"] == "code" and f["in"] == "src/components/Button.tsx" for f in result["fixes"])
    assert any(f["fix"] == "set backgroundColor to '#3366E6'" for f in result["fixes"])

    code_wins = await call(
        client,
        "design_check_design_parity",
        {"fileUrl": ENT, "nodeId": "1:2", "codeSpec": CODE_SPEC, "canonicalSource": "code"},
    )
    assert code_wins["score"] == result["score"]
    assert all(f["change"] == "design" and f["in"] == "node 1:2" for f in code_wins["fixes"])
    assert any(f["fix"] == "set paddingLeft to 12.0" for f in code_wins["fixes"])

    plain = await call(
        client, "design_check_design_parity", {"fileUrl": ENT, "nodeId": "1:2", "codeSpec": CODE_SPEC, "enrich": False}
    )
    assert "tokens" not in plain["categories"] and any("tokens" in n for n in plain["notes"])
    # A Professional plan cannot read variables over the API, and no plugin runs in that file.
    pro = await call(client, "design_check_design_parity", {"fileUrl": PRO, "nodeId": "1:2", "codeSpec": CODE_SPEC})
    assert any("variable names unavailable" in n for n in pro["notes"])


async def test_design_parity_refusals(client: Client) -> None:
    typo = await refused(
        client, "design_check_design_parity", {"fileUrl": ENT, "nodeId": "1:2", "codeSpec": {"visual": {"bg": "#fff"}}}
    )
    assert "bg" in typo and "visual{backgroundColor" in typo
    colour = await refused(
        client,
        "design_check_design_parity",
        {"fileUrl": ENT, "nodeId": "1:2", "codeSpec": {"visual": {"backgroundColor": "blueish"}}},
    )
    assert "codeSpec.visual.backgroundColor" in colour
    empty = await refused(
        client, "design_check_design_parity", {"fileUrl": ENT, "nodeId": "1:2", "codeSpec": {"filePath": "a.tsx"}}
    )
    assert "nothing to compare" in empty
    text_node = await refused(
        client, "design_check_design_parity", {"fileUrl": ENT, "nodeId": "2:2", "codeSpec": CODE_SPEC}
    )
    assert "is a TEXT, not a component" in text_node
    missing = await refused(
        client, "design_check_design_parity", {"fileUrl": ENT, "nodeId": "9:99", "codeSpec": CODE_SPEC}
    )
    assert "No node 9:99" in missing
