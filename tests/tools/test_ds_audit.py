"""design_audit_design_system_report through the whole chain: a small design system made in the real plugin, crawled
by the api worker through designd, scored, cached, and refused clearly when neither plugin nor token is there."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import call, chain_session, js, refused
from fakes.real_plugin import RealPlugin
from mcp import Client
from mcp.shared.exceptions import MCPError
from procs import DaemonProcess, TestEnv

pytestmark = pytest.mark.asyncio(loop_scope="module")

REPORT = "design_audit_design_system_report"
#: The tools this module runs through the whole chain (tests/workers/test_every_tool.py runs the others).
REPORT_TOOLS = frozenset({REPORT})
FILE_KEY = "auditFile"
WAIT = 10.0

TOKENS = [
    {"name": "color/blue/500", "resolvedType": "COLOR", "values": {"Light": "#3366ff", "Dark": "#6699ff"}},
    {"name": "color/primary", "resolvedType": "COLOR", "values": {"Light": "{color.blue.500}", "Dark": "{color.blue.500}"}},  # noqa: E501
    {"name": "space/4", "resolvedType": "FLOAT", "values": {"Light": 16, "Dark": 16}},
]  # fmt: skip

#: A card with 10 px grey text on white (2.8:1), a hard-coded red box, and an undocumented 16x16 button.
BUILD = """
await figma.loadFontAsync({ family: "Inter", style: "Regular" });
const card = figma.createFrame();
card.name = "Card";
card.fills = [{ type: "SOLID", color: { r: 1, g: 1, b: 1 } }];
figma.currentPage.appendChild(card);
const label = figma.createText();
label.characters = "Hello";
label.fontSize = 10;
label.fills = [{ type: "SOLID", color: { r: 0.6, g: 0.6, b: 0.6 } }];
card.appendChild(label);
const box = figma.createRectangle();
box.fills = [{ type: "SOLID", color: { r: 1, g: 0, b: 0 } }];
card.appendChild(box);
const button = figma.createComponent();
button.name = "Button";
button.resize(16, 16);
figma.currentPage.appendChild(button);
return { card: card.id, label: label.id, box: box.id, button: button.id };
"""


@pytest.fixture(scope="module")
def real_plugin(chain_daemon: DaemonProcess) -> Iterator[RealPlugin]:
    plugin = RealPlugin.start(chain_daemon.env, file_key=FILE_KEY, file_name="Audit File")
    yield plugin
    plugin.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_env: TestEnv, real_plugin: RealPlugin) -> AsyncIterator[Client]:
    async with chain_session(chain_env) as session:
        await call(
            session,
            "design_setup_design_tokens",
            {"collectionName": "Brand", "modes": ["Light", "Dark"], "tokens": TOKENS},
        )
        yield session


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def made(client: Client) -> dict[str, str]:
    ids: dict[str, str] = await js(client, BUILD)
    return ids


def categories(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in report["categories"]}


def findings(category: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in category["findings"]}


async def test_the_report_scores_what_the_plugin_sees(client: Client, made: dict[str, str]) -> None:
    summary = await call(client, REPORT, {"forceRefresh": True})
    assert summary["source"] == "plugin" and summary["fileKey"] == FILE_KEY and summary["fromCache"] is False
    assert summary["counts"]["variables"] == 3 and summary["counts"]["components"] == 1
    assert [c["id"] for c in summary["categories"]] == [
        "naming-semantics",
        "token-architecture",
        "component-metadata",
        "accessibility",
        "consistency",
        "coverage",
    ]
    assert summary["topFindings"][0] == {
        "category": "accessibility",
        "id": "a11y.contrast",
        "severity": "error",
        "message": "1 of 1 text layers are below 4.5:1 contrast with their background.",
        "count": 1,
        "fix": "Darken the text or lighten the background (WCAG 1.4.3).",
    }
    a11y = await call(client, REPORT, {"category": "accessibility"})
    (only,) = a11y["categories"]
    rules = findings(only)
    assert rules["a11y.contrast"]["ids"] == [made["label"]]
    assert rules["a11y.small-text"]["ids"] == [made["label"]]
    assert rules["a11y.target-size"]["ids"] == [made["button"]]
    assert only["score"] == 0

    full = await call(client, REPORT, {"format": "full"})
    cats = categories(full)
    # The three variables are grouped, aliased, complete and distinct: nothing to find.
    assert cats["token-architecture"]["findings"] == [] and cats["token-architecture"]["score"] == 100
    assert findings(cats["component-metadata"])["components.no-description"]["ids"] == [made["button"]]
    hard_coded = findings(cats["consistency"])["consistency.hardcoded-fill"]["ids"]
    assert {made["card"], made["label"], made["box"]} <= set(hard_coded)
    weighted = sum(c["score"] * round(c["weight"] * 100) for c in full["categories"])
    assert full["score"] == (weighted + 50) // 100


async def test_the_report_is_cached_until_the_file_changes(client: Client, made: dict[str, str]) -> None:
    first = await call(client, REPORT, {"forceRefresh": True})
    again = await call(client, REPORT, {})
    assert first["fromCache"] is False and again["fromCache"] is True and again["score"] == first["score"]

    # An edit the plugin reports moves the data version on: the next call reads the file again.
    node = json.dumps({"id": made["button"], "name": "Button", "type": "COMPONENT", "removed": False})
    change = f"{{ type: 'PROPERTY_CHANGE', id: '{made['button']}', node: {node}, properties: ['description'] }}"
    await js(client, f"figma.testControl.fireDocumentChange([{change}]); return true;")
    await _designd_sees_a_change(client)
    after = await call(client, REPORT, {})
    assert after["fromCache"] is False
    assert (await call(client, REPORT, {}))["fromCache"] is True
    assert (await call(client, REPORT, {"forceRefresh": True}))["fromCache"] is False


async def _designd_sees_a_change(client: Client) -> None:
    """Wait until the plugin's batched DOCUMENT_CHANGE has reached designd."""
    deadline = time.monotonic() + WAIT
    while not (await call(client, "design_get_design_changes", {}))["changes"]:
        assert time.monotonic() < deadline, "the plugin's document change never reached designd"
        await asyncio.sleep(0.02)


async def test_without_plugin_or_token_the_report_says_both(client: Client) -> None:
    text = await refused(client, REPORT, {"fileUrl": "https://www.figma.com/design/noPluginHere/Other"})
    assert "Neither the Desktop Bridge plugin" in text and "design API" in text
    assert "DESIGN_ACCESS_TOKEN" in text


async def test_apps_are_not_listed_unless_enabled(client: Client) -> None:
    tools = {t.name for t in (await client.list_tools()).tools}
    assert REPORT in tools
    assert not tools & {
        "design_browse_tokens",
        "design_token_browser_refresh",
        "design_audit_design_system",
        "design_ds_dashboard_refresh",
    }
    caps = client.server_capabilities
    assert caps is not None and caps.resources is None and not caps.extensions
    with pytest.raises(MCPError, match="Method not found"):
        await client.list_resources()
    with pytest.raises(MCPError, match="Method not found"):
        await client.read_resource("ui://design/tokens")
