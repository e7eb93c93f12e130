"""The MCP Apps (ENABLE_MCP_APPS=true) through the whole chain: tools and ui:// resources listed and served by
designd, and both views running in Debian chromium inside a sandboxed iframe of a test host page that speaks the
host side of the extension and forwards the views' tool calls to a real designd session fed by the real plugin.

UPDATE_SCREENSHOTS=1 rewrites docs/apps/*.png from these runs.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio
from fakes.cases import APP_TOOLS, AUDITED_DOCUMENT, AUDITED_TOKENS
from fakes.chain import OpenFile, call, held_session, js, plugin_chain
from helpers import CHROMIUM, CHROMIUM_ARGS
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from procs import BIN, DaemonProcess, TestEnv, isolated, make_env, running_daemon

from design_console.tools.apps.apps import DASHBOARD, EXTENSION, MIME_TYPE, TOKEN_BROWSER

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROOT = Path(__file__).resolve().parents[3]
HOST_PAGE = ROOT / "tests" / "fakes" / "fixtures" / "app_host.html"
SHOTS = ROOT / "docs" / "apps"
FILE_KEY = "appsFile"
NO_PLUGIN_FILE = "https://www.figma.com/design/elsewhere1/Elsewhere"
SPACING = [
    {"name": "space/4", "resolvedType": "FLOAT", "values": {"Base": 4}},
    {"name": "space/8", "resolvedType": "FLOAT", "values": {"Base": 8}},
]
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed")


@pytest.fixture(scope="module")
def apps_env() -> Iterator[TestEnv]:
    yield from isolated(make_env(ENABLE_MCP_APPS="true"))


@pytest.fixture(scope="module")
def apps_daemon(apps_env: TestEnv) -> Iterator[DaemonProcess]:
    yield from running_daemon(apps_env)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(apps_daemon: DaemonProcess) -> AsyncIterator[Client]:
    async with plugin_chain(apps_daemon.env, OpenFile(FILE_KEY, "Apps File")) as session:
        brand = {"collectionName": "Brand", "modes": ["Light", "Dark"], "tokens": AUDITED_TOKENS}
        await call(session, "design_setup_design_tokens", brand)
        await call(
            session, "design_setup_design_tokens", {"collectionName": "Spacing", "modes": ["Base"], "tokens": SPACING}
        )
        await js(session, AUDITED_DOCUMENT)
        yield session


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            await chromium.close()


# Listing and serving ------------------------------------------------------------------------------------------------


async def test_apps_and_their_views_are_listed(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert APP_TOOLS <= set(tools)
    assert tools["design_browse_tokens"].meta == {"ui": {"resourceUri": TOKEN_BROWSER.uri}}
    assert tools["design_audit_design_system"].meta == {"ui": {"resourceUri": DASHBOARD.uri}}
    for name in ("design_token_browser_refresh", "design_ds_dashboard_refresh"):
        assert tools[name].meta == {"ui": {"visibility": ["app"]}}
    caps = client.server_capabilities
    assert caps is not None and caps.resources is not None
    listed = {str(r.uri): r for r in (await client.list_resources()).resources}
    assert set(listed) == {TOKEN_BROWSER.uri, DASHBOARD.uri}
    for resource in listed.values():
        assert resource.mime_type == MIME_TYPE
        assert resource.meta == {"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}}


async def test_the_2026_era_advertises_the_extension(apps_env: TestEnv, client: Client) -> None:
    # The handshake era has no extensions field; the 2026 envelope carries the SEP-2133 map.
    params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(apps_env.env))
    async with held_session(params) as modern:
        caps = modern.server_capabilities
        assert caps is not None and caps.extensions == {EXTENSION: {"mimeTypes": [MIME_TYPE]}}
        assert {str(r.uri) for r in (await modern.list_resources()).resources} == {TOKEN_BROWSER.uri, DASHBOARD.uri}


@pytest.mark.parametrize("view", [TOKEN_BROWSER, DASHBOARD], ids=["token-browser", "dashboard"])
async def test_each_view_is_one_self_contained_document(client: Client, view: Any) -> None:
    (content,) = (await client.read_resource(view.uri)).contents
    assert isinstance(content, types.TextResourceContents)
    assert content.mime_type == MIME_TYPE and str(content.uri) == view.uri
    assert content.meta and content.meta["ui"]["csp"] == {"connectDomains": [], "resourceDomains": []}
    html = content.text
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    assert "const appBridge" in html and "const runView" in html and "APP-" not in html
    assert html.count('http-equiv="Content-Security-Policy"') == 1
    # Nothing is loaded from anywhere: no src/href attributes, no URLs.
    assert " src=" not in html and " href=" not in html and "http" not in html.replace("http-equiv", "")


async def test_an_unknown_resource_is_refused(client: Client) -> None:
    with pytest.raises(MCPError, match="No resource ui://design/nothing"):
        await client.read_resource("ui://design/nothing")


async def test_the_open_tools_answer_the_model_briefly(client: Client) -> None:
    tokens = await call(client, "design_browse_tokens", {})
    assert tokens["source"] == "plugin" and tokens["variables"] == 5
    assert {c["name"]: c["modes"] for c in tokens["collections"]} == {"Brand": ["Light", "Dark"], "Spacing": ["Base"]}
    board = await call(client, "design_audit_design_system", {})
    assert len(board["categories"]) == 6 and "topFindings" in board
    data = await call(client, "design_token_browser_refresh", {})
    primary = next(v for v in data["variables"] if v["name"] == "color/primary")
    assert primary["values"] == {"Light": {"alias": "color/blue/500"}, "Dark": {"alias": "color/blue/500"}}
    assert primary["resolved"] == {"Light": "#3366FF", "Dark": "#6699FF"}


# In the browser ------------------------------------------------------------------------------------------------------


async def open_view(browser: Any, client: Client, view: Any, open_tool: str, args: dict[str, Any]) -> tuple[Any, Any]:
    """A page of the test host showing ``view`` as the host would after the model called ``open_tool``."""
    listed = (await client.list_tools()).tools
    app_tools = [t.name for t in listed if "app" in ((t.meta or {}).get("ui", {}).get("visibility") or ["app"])]
    html = (await client.read_resource(view.uri)).contents[0].text
    opened = await client.call_tool(open_tool, args)
    page = await browser.new_page(viewport={"width": 720, "height": 520})

    async def host_call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(name, arguments)
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")

    await page.expose_function("hostCallTool", host_call_tool)
    await page.set_content(HOST_PAGE.read_text())
    await page.evaluate(
        "(setup) => window.openView(setup)",
        {
            "html": html,
            "toolInput": args,
            "toolResult": opened.model_dump(by_alias=True, exclude_none=True, mode="json"),
            "appTools": app_tools,
        },
    )
    frame = page.frame_locator("#view")
    return page, frame


async def shoot(page: Any, name: str) -> None:
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        await page.locator("#view").screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.browser
@needs_chromium
async def test_token_browser_shows_swatches_and_filters(browser: Any, client: Client) -> None:
    page, frame = await open_view(browser, client, TOKEN_BROWSER, "design_browse_tokens", {})
    try:
        await frame.locator('body[data-ready="true"]').wait_for(timeout=20_000)
        rows = frame.locator("tr.token")
        assert await rows.count() == 5
        assert await frame.locator("#count").inner_text() == "5 of 5 tokens"
        blue = frame.locator('tr.token[data-name="color/blue/500"] .swatch i')
        assert await blue.nth(0).evaluate("(e) => getComputedStyle(e).backgroundColor") == "rgb(51, 102, 255)"
        assert await blue.nth(1).evaluate("(e) => getComputedStyle(e).backgroundColor") == "rgb(102, 153, 255)"
        # The alias shows its target's name and, in the swatch, the colour it resolves to.
        primary = frame.locator('tr.token[data-name="color/primary"]')
        assert (await primary.locator(".alias").all_inner_texts()) == ["→ color/blue/500"] * 2
        swatch = primary.locator(".swatch i").nth(1)
        assert await swatch.evaluate("(e) => getComputedStyle(e).backgroundColor") == "rgb(102, 153, 255)"
        assert await frame.locator('section[data-collection="Spacing"] th').all_inner_texts() == ["Name", "Base"]
        await shoot(page, "token-browser")

        await frame.locator("#search").fill("PRIMARY")
        assert await rows.count() == 1 and await frame.locator("#count").inner_text() == "1 of 5 tokens"
        await frame.locator("#search").fill("")
        await frame.locator("#collection").select_option("Spacing")
        names = await frame.locator("tr.token").evaluate_all("(rows) => rows.map((r) => r.dataset.name)")
        assert names == ["space/4", "space/8"]
        await frame.locator("#search").fill("no such token")
        assert await frame.locator(".status").inner_text() == "No token matches the search."
        log = await page.evaluate("window.hostLog")
        assert log[:2] == ["ui/initialize", "ui/notifications/initialized"] and "tools/call" in log
    finally:
        await page.close()


@pytest.mark.browser
@needs_chromium
async def test_token_browser_shows_why_it_has_no_data(browser: Any, client: Client) -> None:
    page, frame = await open_view(
        browser, client, TOKEN_BROWSER, "design_token_browser_refresh", {"fileUrl": NO_PLUGIN_FILE}
    )
    try:
        await frame.locator('body[data-ready="error"]').wait_for(timeout=20_000)
        message = await frame.locator(".status.error").inner_text()
        assert "No Desktop Bridge plugin is connected" in message and "DESIGN_ACCESS_TOKEN" in message
    finally:
        await page.close()


@pytest.mark.browser
@needs_chromium
async def test_dashboard_shows_categories_and_their_findings(browser: Any, client: Client) -> None:
    report = await call(client, "design_ds_dashboard_refresh", {})
    page, frame = await open_view(browser, client, DASHBOARD, "design_audit_design_system", {})
    try:
        await frame.locator('body[data-ready="true"]').wait_for(timeout=20_000)
        assert await frame.locator("#overall").inner_text() == str(report["score"])
        cards = frame.locator(".card")
        assert await cards.evaluate_all("(cs) => cs.map((c) => c.dataset.category)") == [
            c["id"] for c in report["categories"]
        ]
        for category in report["categories"]:
            card = frame.locator(f'.card[data-category="{category["id"]}"]')
            assert await card.locator(".score").inner_text() == str(category["score"])
        # It opens on the weakest category (the first of equals): that is where the work is.
        weakest = min(report["categories"], key=lambda c: c["score"])["id"]
        assert await frame.locator('.card[aria-pressed="true"]').get_attribute("data-category") == weakest
        await frame.locator('.card[data-category="accessibility"]').click()
        rules = await frame.locator(".finding").evaluate_all("(fs) => fs.map((f) => f.dataset.rule)")
        a11y = next(c for c in report["categories"] if c["id"] == "accessibility")
        assert rules == [f["id"] for f in a11y["findings"]] == ["a11y.contrast", "a11y.small-text", "a11y.target-size"]
        contrast = frame.locator('.finding[data-rule="a11y.contrast"]')
        assert await contrast.get_attribute("data-severity") == "error"
        assert "Fix: Darken the text" in await contrast.inner_text()
        await shoot(page, "dashboard")

        await frame.locator('.card[data-category="component-metadata"]').click()
        assert await frame.locator(".finding").evaluate_all("(fs) => fs.map((f) => f.dataset.rule)") == [
            "components.no-description"
        ]
        await frame.locator('.card[data-category="token-architecture"]').click()
        assert await frame.locator(".status").inner_text() == "No findings in this category."
    finally:
        await page.close()
