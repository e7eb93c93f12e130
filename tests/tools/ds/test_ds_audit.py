"""design_audit_design_system_report through the whole chain: a small design system made in the real plugin, crawled
by the api worker through designd, scored, cached, and refused clearly when neither plugin nor token is there."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from fakes.cases import AUDITED_DOCUMENT, AUDITED_TOKENS
from fakes.chain import OpenFile, call, js, plugin_chain, refused
from mcp import Client
from mcp.shared.exceptions import MCPError
from procs import DaemonProcess

pytestmark = pytest.mark.asyncio(loop_scope="module")

REPORT = "design_audit_design_system_report"
FILE_KEY = "auditFile"
WAIT = 10.0


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess) -> AsyncIterator[Client]:
    async with plugin_chain(chain_daemon.env, OpenFile(FILE_KEY, "Audit File")) as session:
        await call(
            session,
            "design_setup_design_tokens",
            {"collectionName": "Brand", "modes": ["Light", "Dark"], "tokens": AUDITED_TOKENS},
        )
        yield session


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def made(client: Client) -> dict[str, str]:
    ids: dict[str, str] = await js(client, AUDITED_DOCUMENT)
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
