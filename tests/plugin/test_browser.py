"""The plugin in a real browser: code.js in a Web Worker, ui.html in a sandboxed iframe (Origin ``null``) under a CSP
built from manifest.json, talking to a real designd; an MCP client drives it through the real shim."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from helpers import CHROMIUM, CHROMIUM_ARGS, held_in_a_task
from mcp import Client, StdioServerParameters
from procs import DaemonProcess, TestEnv

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "plugin-ui"
MANIFEST_FIRST_PORT = 9223

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed (apt-get install chromium)"),
]

HOST_PAGE = """<!doctype html>
<html><body style="margin:0">
<iframe id="ui" sandbox="allow-scripts" style="width:300px;height:240px;border:0;display:block"></iframe>
<script>
const worker = new Worker("/worker.js");
const frame = document.getElementById("ui");
worker.onmessage = (e) => frame.contentWindow.postMessage({ pluginMessage: e.data }, "*");
window.addEventListener("message", (e) => {
  if (e.source === frame.contentWindow && e.data && e.data.pluginMessage) worker.postMessage(e.data.pluginMessage);
});
fetch("/code.js").then((r) => r.text()).then((code) => {
  worker.postMessage({ kind: "boot", code });
  return fetch("/ui.html");
}).then((r) => r.text()).then((html) => { frame.srcdoc = html; });
</script></body></html>"""

PROBE_HOST = """<!doctype html>
<html><body><iframe id="ui" sandbox="allow-scripts"></iframe><script>
const frame = document.getElementById("ui");
window.addEventListener("message", (e) => { if (e.source === frame.contentWindow) window.cspProbe = e.data.cspProbe; });
fetch("/ui.html").then((r) => r.text()).then((html) => { frame.srcdoc = html; });
</script></body></html>"""

CSP_PROBE = """<!doctype html><html><head>{csp}</head><body><script>
const blocked = [];
document.addEventListener("securitypolicyviolation", (e) => blocked.push(e.blockedURI));
const tries = [
  fetch("http://localhost:9223/health").catch(() => null),
  fetch("http://localhost:9232/health").catch(() => null),
  fetch("http://localhost:9233/health").catch(() => null),
  new Promise((done) => { try { const ws = new WebSocket("ws://localhost:9228"); ws.onerror = ws.onclose = done; }
                          catch (err) { done(); } }),
];
Promise.all(tries).then(() => setTimeout(() => parent.postMessage({ cspProbe: blocked }, "*"), 100));
</script></body></html>"""


def csp_meta(shift: int) -> str:
    """A CSP meta tag from manifest.json's networkAccess, bridge ports moved by ``shift`` to the test's range."""
    manifest = json.loads((ROOT / "plugin" / "manifest.json").read_text())
    domains = []
    for domain in manifest["networkAccess"]["allowedDomains"]:
        if "__DESIGN_RELAY_HOST__" in domain:
            continue
        scheme_host, port = domain.rsplit(":", 1)
        domains.append(f"{scheme_host}:{int(port) + shift}")
    policy = (
        f"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src {' '.join(domains)}"
    )
    return f'<meta http-equiv="Content-Security-Policy" content="{policy}">'


def prepare_ui(html: str, first_port: int) -> str:
    """The plugin copy's ui.html as the test serves it: scanning the test's ports, under the manifest's CSP."""
    html = re.sub(
        r'"firstPort": \d+, "lastPort": \d+', f'"firstPort": {first_port}, "lastPort": {first_port + 9}', html, count=1
    )
    return html.replace("<head>", "<head>\n" + csp_meta(first_port - MANIFEST_FIRST_PORT), 1)


class Site:
    """A tiny HTTP server for the host page, the worker bundle, code.js and ui.html."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = site.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                data = body.encode()
                kind = "text/html" if self.path in ("/", "/ui.html") else "text/javascript"
                self.send_response(200)
                self.send_header("Content-Type", kind + "; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def worker_js(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("worker") / "worker.js"
    node = shutil.which("node")
    assert node, "Node.js is needed to bundle the stand-in editor"
    subprocess.run([node, str(ROOT / "tests/plugin/harness/build-worker.mjs"), str(out)], check=True, cwd=ROOT)
    return out.read_text()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[Any]:
    """One Chromium for the module."""
    from playwright.async_api import async_playwright

    async with held_in_a_task(async_playwright()) as pw:
        b = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            await b.close()


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: Any) -> AsyncIterator[Any]:
    """A browser context of the test's own in the module's Chromium: its pages close with the test."""
    context = await chromium.new_context(viewport={"width": 300, "height": 240})
    try:
        yield context
    finally:
        await context.close()


@pytest.fixture
def sites() -> Iterator[list[Site]]:
    made: list[Site] = []
    yield made
    for site in made:
        site.close()


def plugin_files(
    env: TestEnv, worker: str, first_port: int, *, ui: str | None = None, version: str | None = None
) -> dict:
    plugin_dir = env.config.plugin_dir
    code = (plugin_dir / "code.js").read_text()
    if version:
        code = re.sub(r'PLUGIN_VERSION = "[^"]+"', f'PLUGIN_VERSION = "{version}"', code)
    html = ui if ui is not None else (plugin_dir / "ui.html").read_text()
    return {"/": HOST_PAGE, "/worker.js": worker, "/code.js": code, "/ui.html": prepare_ui(html, first_port)}


async def open_plugin(browser: Any, sites: list[Site], files: dict) -> Any:
    site = Site(files)
    sites.append(site)
    page = await browser.new_page()
    await page.goto(site.url)
    return page


async def ui_state(page: Any, state: str, timeout: float = 15000) -> Any:
    frame = page.frame_locator("#ui")
    await frame.locator(f'body[data-state="{state}"]').wait_for(timeout=timeout)
    return frame


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the UI screenshots go: a temporary folder, so a test run leaves the checkout as it was; the README's
    copies in docs/plugin-ui with REFRESH_SCREENSHOTS=1."""
    if os.environ.get("REFRESH_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        return SHOTS
    return tmp_path_factory.mktemp("plugin-ui")


async def shoot(page: Any, path: Path) -> None:
    await page.locator("#ui").screenshot(path=str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def tool_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def test_mcp_round_trip_through_the_browser_plugin(
    daemon: DaemonProcess,
    shim_params: StdioServerParameters,
    browser: Any,
    sites: list[Site],
    worker_js: str,
    shots: Path,
) -> None:
    """design_execute, design_get_console_logs and design_capture_screenshot reach the plugin and come back."""
    page = await open_plugin(browser, sites, plugin_files(daemon.env, worker_js, daemon.env.port_start))
    frame = await ui_state(page, "connected")
    await frame.locator("text=Browser File").wait_for()
    await shoot(page, shots / "connected.png")

    async with Client(shim_params) as client:
        result = await client.call_tool(
            "design_execute",
            {"code": "console.log('hello from the plugin', {n: 1}); return figma.root.name + ' ' + 6 * 7"},
        )
        assert not result.is_error, tool_text(result)
        assert "Browser File 42" in tool_text(result) + json.dumps(result.structured_content or {})

        logs = await client.call_tool("design_get_console_logs", {"count": 10})
        assert not logs.is_error, tool_text(logs)
        assert "hello from the plugin" in tool_text(logs) + json.dumps(logs.structured_content or {})

        shot = await client.call_tool("design_capture_screenshot", {"format": "PNG"})
        assert not shot.is_error, tool_text(shot)
        images = [block for block in shot.content if getattr(block, "type", "") == "image"]
        assert images, f"no image block in {shot.content}"
        data = base64.b64decode(images[0].data)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width = int.from_bytes(data[16:20], "big")
        height = int.from_bytes(data[20:24], "big")
        assert (width, height) == (320, 180)


async def test_ui_states_in_the_browser(
    daemon: DaemonProcess, dc_env: TestEnv, browser: Any, sites: list[Site], worker_js: str, shots: Path
) -> None:
    """Paused, disconnected, scanning, not found, no token and update available, each screenshotted."""
    files = plugin_files(dc_env, worker_js, dc_env.port_start)
    page = await open_plugin(browser, sites, files)
    frame = await ui_state(page, "connected")
    await frame.locator("#pause").click()
    await ui_state(page, "paused")
    await shoot(page, shots / "paused.png")
    await frame.locator("#pause").click()
    await ui_state(page, "connected")

    older = await open_plugin(browser, sites, plugin_files(dc_env, worker_js, dc_env.port_start, version="0.0.1"))
    banner = (await ui_state(older, "connected")).locator("#update")
    await banner.wait_for(state="visible")
    assert "0.0.1" in (await banner.text_content() or "")
    await shoot(older, shots / "update-available.png")

    repo_copy = (ROOT / "plugin" / "ui.html").read_text()
    tokenless = await open_plugin(browser, sites, plugin_files(dc_env, worker_js, dc_env.port_start, ui=repo_copy))
    notice = tokenless.frame_locator("#ui").locator("#notice")
    await notice.wait_for(state="visible")
    assert "no bridge token" in (await notice.text_content() or "")
    await ui_state(tokenless, "disconnected")
    await shoot(tokenless, shots / "no-token.png")

    daemon.stop()
    await ui_state(page, "disconnected")
    await shoot(page, shots / "disconnected.png")

    # A foreign listener that never answers keeps the scan going until its probe times out.
    silent = socket.create_server(("localhost", 0))
    try:
        empty_range = silent.getsockname()[1]
        lonely = await open_plugin(browser, sites, plugin_files(dc_env, worker_js, empty_range))
        await ui_state(lonely, "scanning", timeout=1000)
        await shoot(lonely, shots / "scanning.png")
        await ui_state(lonely, "not-found")
        await shoot(lonely, shots / "not-found.png")
    finally:
        silent.close()


async def test_manifest_csp_allows_exactly_the_bridge_ports(browser: Any, sites: list[Site]) -> None:
    """Under the CSP from manifest.json, the sandboxed iframe may reach 9223–9232 and nothing past them."""
    probe = CSP_PROBE.replace("{csp}", csp_meta(0))
    page = await open_plugin(browser, sites, {"/": PROBE_HOST, "/ui.html": probe})
    await page.wait_for_function("window.cspProbe !== undefined", timeout=15000)
    blocked = await page.evaluate("window.cspProbe")
    assert blocked == ["http://localhost:9233/health"], blocked
