"""Remote Mode's headless browser against fixture pages on loopback: one real Chromium for the module.

The allowlist names one fixture server by host and port; a second server on another port stands for every host that
is not allowed, and records each request that reaches it, so a refusal is proven by the request never arriving.
"""

from __future__ import annotations

import asyncio
import io
import json
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit
from urllib.request import urlopen

import psutil
import pytest
import pytest_asyncio
from fakes.api_server import ApiServer
from fakes.design_api import PERSONAL_TOKEN
from fakes.remote import remote_env, running_remote
from mcp import Client
from PIL import Image

from design_console.config import Config, load_config
from design_console.errors import PREFIX, DesignError, ErrorCode
from design_console.protocol import ImageBlock, TextBlock, ToolOutput
from design_console.remote.browser import BROWSER_TOOLS, BrowserPool
from design_console.remote.tools import RemoteCallContext, remote_catalog, run_tool
from design_console.tools.schema import input_schema

CHROMIUM = Path("/usr/bin/chromium")
WAIT = 20.0

pytestmark = [
    pytest.mark.browser,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed (apt-get install chromium)"),
]

CONSOLE_PAGE = """<!doctype html><title>Console</title><script>
console.log("plain log"); console.info("some info"); console.warn("a warning");
console.error("an error"); console.debug("debug detail");
setTimeout(() => { throw new Error("boom"); }, 0);
</script>"""

RED_PAGE = """<!doctype html><title>Red</title><style>html, body { margin: 0; background: #ff0000; }</style>
<body><div style="height: 2000px"></div></body>"""

STORAGE_PAGE = """<!doctype html><title>Storage</title><script>
const set = new URLSearchParams(location.search).get("set");
if (set) { document.cookie = "who=" + set + "; path=/"; localStorage.setItem("who", set); }
console.log("cookie=" + document.cookie + " storage=" + localStorage.getItem("who"));
</script>"""


class Site:
    """A fixture web server on 127.0.0.1 that records the paths it was asked for."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.gate = threading.Event()
        self.closing = threading.Event()
        self.at_gate = threading.Semaphore(0)
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.requests.append(self.path)
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                if parts.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", query["to"])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if parts.path == "/gate":
                    site.at_gate.release()
                    site.gate.wait(WAIT)
                elif parts.path == "/never":
                    site.closing.wait(WAIT)
                    return
                body = site.page(parts.path, query)
                if body is None:
                    self.send_error(404)
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @staticmethod
    def page(path: str, query: dict[str, str]) -> str | None:
        if path == "/console":
            return CONSOLE_PAGE
        if path in ("/red", "/gate"):
            return RED_PAGE
        if path == "/storage":
            return STORAGE_PAGE
        if path == "/many":
            lines = "".join(f'console.log("line {i}");' for i in range(int(query["n"])))
            return f"<!doctype html><title>Many</title><script>{lines}</script>"
        if path == "/popup":
            return f"<!doctype html><title>Popup</title><script>window.open({json.dumps(query['to'])})</script>"
        if path == "/iframe":
            return f'<!doctype html><title>Frame</title><iframe src="{query["to"]}"></iframe>'
        if path == "/subresources":
            to = json.dumps(query["to"])
            return (
                f"<!doctype html><title>Fetches</title><img src={to}><script>fetch({to}).catch(() => "
                'console.log("fetch failed"));</script>'
            )
        if path == "/plain":
            return "<!doctype html><title>Plain</title><p>hello</p>"
        return None

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self.gate.set()
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    s = Site()
    yield s
    s.close()


@pytest.fixture(scope="module")
def forbidden() -> Iterator[Site]:
    """A server the allowlist does not name; it must never see a request from the browser."""
    s = Site()
    yield s
    s.close()


def closed_port() -> int:
    """A loopback port nothing listens on (it was free a moment ago and nothing here binds it again)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


CLOSED_PORT = closed_port()


def browser_config(tmp: Path, site: Site, **env: str) -> Config:
    values = {
        "HOME": str(tmp),
        "REMOTE_BROWSER_ALLOWLIST": f"127.0.0.1:{site.port},127.0.0.1:{CLOSED_PORT}",
        "REMOTE_BROWSER_MAX": "2",
        "REMOTE_BROWSER_QUEUE": "1",
        "MAX_CONSOLE_LOGS": "20",
        "BROWSER_TIMEOUT": "5000",
        **env,
    }
    return load_config(values)


def chromium_children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if "chrom" in p.name().lower()]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pool(site: Site, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BrowserPool]:
    browsers = BrowserPool(browser_config(tmp_path_factory.mktemp("home"), site))
    await browsers.start()
    try:
        yield browsers
    finally:
        await browsers.stop()
    assert chromium_children() == []


def text_of(out: ToolOutput) -> dict[str, Any]:
    assert not out.is_error
    block = out.content[0]
    assert isinstance(block, TextBlock)
    data: dict[str, Any] = json.loads(block.text)
    return data


def image_of(out: ToolOutput) -> tuple[dict[str, Any], ImageBlock]:
    meta = text_of(out)
    block = out.content[1]
    assert isinstance(block, ImageBlock)
    return meta, block


async def logs(pool: BrowserPool, user: str, **kwargs: Any) -> dict[str, Any]:
    return text_of(await pool.console_logs(user, **kwargs))


async def wait_for_log(pool: BrowserPool, user: str, needle: str) -> list[dict[str, Any]]:
    """Console entries once one contains ``needle`` (pages log after load, so the entry may come a moment later)."""
    async with asyncio.timeout(WAIT):
        while True:
            entries: list[dict[str, Any]] = (await logs(pool, user, count=1000))["logs"]
            if any(needle in e["message"] for e in entries):
                return entries
            await asyncio.sleep(0.05)


# --- the three tools -----------------------------------------------------------------------------------------


async def test_navigate_and_console_entries_with_levels(pool: BrowserPool, site: Site) -> None:
    nav = text_of(await pool.navigate("levels", site.url("/console")))
    assert nav["url"] == site.url("/console") and nav["title"] == "Console" and nav["status"] == 200
    entries = await wait_for_log(pool, "levels", "boom")
    assert [(e["level"], e["message"]) for e in entries] == [
        ("log", "plain log"),
        ("info", "some info"),
        ("warn", "a warning"),
        ("error", "an error"),
        ("debug", "debug detail"),
        ("error", "Uncaught Error: boom"),
    ]
    for entry in entries:
        assert set(entry) == {"timestamp", "level", "message", "source"} and entry["source"] == "browser"
        assert isinstance(entry["timestamp"], int) and entry["timestamp"] > 1_700_000_000_000
    warn = await logs(pool, "levels", level="warn")
    assert [e["message"] for e in warn["logs"]] == ["a warning"]
    since = await logs(pool, "levels", since=entries[3]["timestamp"] - 1, count=2)
    assert [e["message"] for e in since["logs"]] == ["debug detail", "Uncaught Error: boom"]
    result = await logs(pool, "levels")
    assert result["url"] == site.url("/console") and "Local Mode" in result["note"]
    assert result["newestTimestamp"] == entries[-1]["timestamp"]


async def test_console_of_a_user_without_page(pool: BrowserPool) -> None:
    result = await logs(pool, "nobody-yet")
    assert result["logs"] == [] and result["count"] == 0 and "design_navigate" in result["hint"]
    with pytest.raises(DesignError) as err:
        await pool.screenshot("nobody-yet")
    assert err.value.code == ErrorCode.BAD_ARGUMENT


async def test_png_and_jpeg_screenshots(pool: BrowserPool, site: Site) -> None:
    meta, png = image_of(await pool.screenshot("shots", url=site.url("/red")))
    assert png.mime_type == "image/png" and png.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (meta["width"], meta["height"], meta["format"]) == (1280, 800, "png")
    assert meta["url"] == site.url("/red") and meta["title"] == "Red" and meta["warning"]  # one colour
    with Image.open(io.BytesIO(png.data)) as img:
        assert img.convert("RGB").getpixel((10, 10)) == (255, 0, 0)

    meta, low = image_of(await pool.screenshot("shots", format="jpeg", quality=10))
    assert low.mime_type == "image/jpeg" and low.data[:2] == b"\xff\xd8" and meta["format"] == "jpeg"
    _, high = image_of(await pool.screenshot("shots", format="jpg", quality=100))
    assert len(high.data) > len(low.data)
    with Image.open(io.BytesIO(high.data)) as img:
        red, green, blue = img.convert("RGB").getpixel((10, 10))
        assert red > 240 and green < 15 and blue < 15

    meta, full = image_of(await pool.screenshot("shots", full_page=True))
    assert full.data[:8] == b"\x89PNG\r\n\x1a\n"
    # The page is 2000 px tall; the long edge is capped at 1568 px like every screenshot the tools return.
    assert meta["fullPage"] and meta["resizedFrom"] == {"width": 1280, "height": 2000}
    assert max(meta["width"], meta["height"]) == 1568


# --- the allowlist in the browser ----------------------------------------------------------------------------


async def test_a_page_outside_the_allowlist_is_refused(pool: BrowserPool, forbidden: Site) -> None:
    for url in (forbidden.url("/plain"), "file:///etc/passwd", "javascript:alert(1)", "ftp://127.0.0.1/"):
        with pytest.raises(DesignError) as err:
            await pool.navigate("outsider", url)
        assert err.value.code == ErrorCode.URL_NOT_ALLOWED and "REMOTE_BROWSER_ALLOWLIST" in str(err.value)
    assert forbidden.requests == []
    with urlopen(forbidden.url("/plain"), timeout=WAIT) as reply:  # the server is there: the refusal is ours
        assert reply.status == 200


async def test_redirects_are_checked_hop_by_hop(pool: BrowserPool, site: Site, forbidden: Site) -> None:
    forbidden.requests.clear()
    direct = site.url("/redirect?to=" + quote(forbidden.url("/secret"), safe=""))
    via_allowed_hop = site.url("/redirect?to=" + quote("/redirect?to=" + quote(forbidden.url("/deeper"), safe="")))
    for url in (direct, via_allowed_hop):
        with pytest.raises(DesignError) as err:
            await pool.navigate("redirected", url)
        assert err.value.code == ErrorCode.URL_NOT_ALLOWED and forbidden.url("/") in err.value.message
    assert forbidden.requests == []
    refusals = [e for e in (await logs(pool, "redirected"))["logs"] if e["source"] == "navigation"]
    assert len(refusals) == 2 and all(e["level"] == "error" for e in refusals)

    allowed_chain = site.url("/redirect?to=" + quote("/redirect?to=" + quote("/red")))
    nav = text_of(await pool.navigate("redirected", allowed_chain))
    assert nav["url"] == site.url("/red") and nav["redirects"] == 2 and nav["title"] == "Red"


@pytest.mark.parametrize("opener", ["/popup", "/iframe"])
async def test_popups_and_frames_are_checked(pool: BrowserPool, site: Site, forbidden: Site, opener: str) -> None:
    forbidden.requests.clear()
    user = f"opener{opener}"
    target = forbidden.url(f"/from{opener}")
    await pool.navigate(user, site.url(f"{opener}?to=" + quote(target, safe="")))
    entries = await wait_for_log(pool, user, target)
    assert any(e["source"] == "navigation" and target in e["message"] for e in entries)
    assert forbidden.requests == []
    if opener == "/popup":
        await wait_for_log(pool, user, "opened a popup; it was closed")


async def test_a_pages_requests_to_private_addresses_are_refused(
    pool: BrowserPool, site: Site, forbidden: Site
) -> None:
    forbidden.requests.clear()
    target = forbidden.url("/internal")
    await pool.navigate("fetcher", site.url("/subresources?to=" + quote(target, safe="")))
    entries = await wait_for_log(pool, "fetcher", "fetch failed")
    assert len([e for e in entries if e["source"] == "navigation" and target in e["message"]]) == 2
    assert forbidden.requests == []


async def test_an_allowed_host_that_does_not_answer(pool: BrowserPool) -> None:
    with pytest.raises(DesignError) as err:
        await pool.navigate("unlucky", f"http://127.0.0.1:{CLOSED_PORT}/")
    assert err.value.code == ErrorCode.PAGE_FAILED and "could not be loaded" in err.value.message


# --- users, slots, failures ----------------------------------------------------------------------------------


async def test_users_are_isolated(pool: BrowserPool, site: Site) -> None:
    await pool.navigate("alice", site.url("/storage?set=alice"))
    await wait_for_log(pool, "alice", "cookie=who=alice storage=alice")
    await pool.navigate("bob", site.url("/storage"))
    assert (await wait_for_log(pool, "bob", "cookie="))[-1]["message"] == "cookie= storage=null"
    await pool.navigate("alice", site.url("/storage"))
    entries = await wait_for_log(pool, "alice", "cookie=")
    assert entries[-1]["message"] == "cookie=who=alice storage=alice"
    assert "alice" not in json.dumps((await logs(pool, "bob"))["logs"])


async def test_calls_queue_when_every_browser_is_busy(pool: BrowserPool, site: Site) -> None:
    site.gate.clear()
    holders = [asyncio.create_task(pool.navigate(f"holder{i}", site.url(f"/gate?i={i}"))) for i in range(2)]
    for _ in holders:
        assert await asyncio.to_thread(site.at_gate.acquire, True, WAIT)
    told: list[str] = []
    waiting = asyncio.Event()

    async def progress(done: float, total: float | None, message: str) -> None:
        told.append(message)
        waiting.set()

    queued = asyncio.create_task(pool.navigate("latecomer", site.url("/plain"), progress=progress))
    async with asyncio.timeout(WAIT):
        await waiting.wait()
    assert "All 2 browsers are busy" in told[0] and pool.status()["waiting"] == 1
    assert not queued.done()
    site.gate.set()
    for holder in holders:
        assert text_of(await holder)["title"] == "Red"
    result = text_of(await queued)
    assert result["title"] == "Plain" and result["queuedMs"] > 0
    assert told[-1] == "A browser is free; running." and pool.status()["waiting"] == 0


async def test_a_user_or_a_full_queue_beyond_its_limit_is_told_to_come_back(pool: BrowserPool, site: Site) -> None:
    """One user holds one browser at a time and REMOTE_BROWSER_QUEUE calls may wait: a call beyond either is
    answered at once with when to try again, instead of waiting behind the others' work."""
    site.gate.clear()
    holders = [asyncio.create_task(pool.navigate(f"hog{i}", site.url(f"/gate?i={i}"))) for i in range(2)]
    try:
        for _ in holders:
            assert await asyncio.to_thread(site.at_gate.acquire, True, WAIT)
        async with asyncio.timeout(WAIT / 4):
            with pytest.raises(DesignError) as own:
                await pool.navigate("hog0", site.url("/plain"))
        assert own.value.code == ErrorCode.RATE_LIMITED and "try again in" in own.value.message
        waiting = asyncio.Event()

        async def progress(done: float, total: float | None, message: str) -> None:
            waiting.set()

        queued = asyncio.create_task(pool.navigate("patient", site.url("/plain"), progress=progress))
        async with asyncio.timeout(WAIT):
            await waiting.wait()
        async with asyncio.timeout(WAIT / 4):
            with pytest.raises(DesignError) as full:
                await pool.screenshot("another", url=site.url("/plain"))
        assert full.value.code == ErrorCode.RATE_LIMITED and "1 call(s) are waiting" in full.value.message
    finally:
        site.gate.set()
    for holder in holders:
        assert text_of(await holder)["title"] == "Red"
    assert text_of(await queued)["title"] == "Plain"


async def test_a_page_that_never_loads_times_out(pool: BrowserPool, site: Site) -> None:
    with pytest.raises(DesignError) as err:
        await pool.navigate("patient", site.url("/never"))
    assert err.value.code == ErrorCode.TIMEOUT and "BROWSER_TIMEOUT" in str(err.value)
    assert text_of(await pool.navigate("patient", site.url("/plain")))["title"] == "Plain"


async def test_a_crashed_page_is_reported_and_replaced(pool: BrowserPool, site: Site) -> None:
    await pool.navigate("crashy", site.url("/red"))
    page = pool._sessions["crashy"].page
    assert page is not None
    cdp = await page.context.new_cdp_session(page)
    crashed = asyncio.Event()
    page.on("crash", lambda _: crashed.set())
    # The renderer dies before it can answer the crash command.
    send = asyncio.create_task(cdp.send("Page.crash"))
    async with asyncio.timeout(WAIT):
        await crashed.wait()
    send.cancel()
    with pytest.raises(DesignError) as err:
        await pool.screenshot("crashy")
    assert err.value.code == ErrorCode.PAGE_FAILED and "crashed" in err.value.message
    assert text_of(await pool.navigate("crashy", site.url("/plain")))["title"] == "Plain"
    assert any("The page crashed" in e["message"] for e in (await logs(pool, "crashy"))["logs"])


async def test_the_console_ring_keeps_the_newest_entries(pool: BrowserPool, site: Site) -> None:
    await pool.navigate("chatty", site.url("/many?n=50"))
    await wait_for_log(pool, "chatty", "line 49")
    result = await logs(pool, "chatty", count=1000)
    assert result["buffered"] == 20 and result["dropped"] == 30
    assert [e["message"] for e in result["logs"]] == [f"line {i}" for i in range(30, 50)]
    assert [e["message"] for e in (await logs(pool, "chatty", count=3))["logs"]] == ["line 47", "line 48", "line 49"]


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"REMOTE_BROWSER_ENABLED": "0"}, "REMOTE_BROWSER_ENABLED=1"),
        ({"REMOTE_BROWSER_PATH": "/nonexistent/chromium"}, "apt-get install chromium"),
    ],
)
async def test_disabled_or_missing_browser(tmp_path: Path, site: Site, env: dict[str, str], said: str) -> None:
    browsers = BrowserPool(browser_config(tmp_path, site, **env))
    await browsers.start()
    try:
        calls = (
            browsers.navigate("u", site.url("/plain")),
            browsers.console_logs("u"),
            browsers.screenshot("u", url=site.url("/plain")),
        )
        for call in calls:
            with pytest.raises(DesignError) as err:
                await call
            assert err.value.code == ErrorCode.BROWSER_UNAVAILABLE
            assert err.value.message.startswith("Browser Rendering not enabled") and said in err.value.hint
        assert browsers.status()["running"] is False
    finally:
        await browsers.stop()


async def test_a_browser_that_does_not_start(tmp_path: Path, site: Site) -> None:
    browsers = BrowserPool(browser_config(tmp_path, site, REMOTE_BROWSER_PATH="/bin/false"))
    await browsers.start()
    try:
        with pytest.raises(DesignError) as err:
            await browsers.navigate("u", site.url("/plain"))
        assert err.value.code == ErrorCode.BROWSER_UNAVAILABLE and "/bin/false did not start" in err.value.message
    finally:
        await browsers.stop()


async def test_idle_contexts_and_then_chromium_are_closed(tmp_path: Path, site: Site) -> None:
    browsers = BrowserPool(browser_config(tmp_path, site), idle_seconds=0.5)
    await browsers.start()
    try:
        await browsers.navigate("brief", site.url("/plain"))
        assert browsers.users() == ["brief"] and browsers.status()["running"]
        async with asyncio.timeout(WAIT):
            while True:
                if not browsers.users() and not browsers.status()["running"]:
                    break
                await asyncio.sleep(0.05)
        # A later call starts over: a fresh Chromium, a fresh context.
        assert text_of(await browsers.navigate("brief", site.url("/plain")))["title"] == "Plain"
    finally:
        await browsers.stop()


async def test_the_remote_variants_run_through_the_one_call_path(pool: BrowserPool, site: Site) -> None:
    """The three browser tools as Remote Mode runs them: its catalog's specs through ``tools.calls.run_call``, with
    the caller's context; bad arguments answer an error result and never reach the browser."""
    assert set(BROWSER_TOOLS) == {"design_navigate", "design_get_console_logs", "design_take_screenshot"}
    for _, args in BROWSER_TOOLS.values():
        assert input_schema(args)["type"] == "object"
    tools = remote_catalog(pool.config)

    async def progress(done: float, total: float | None, message: str) -> None:
        """No progress is looked at."""

    async def context() -> RemoteCallContext:
        return RemoteCallContext(pool.config, None, progress, None, "caller", pool)  # type: ignore[arg-type]

    async def call(name: str, arguments: dict[str, Any]) -> ToolOutput:
        return await run_tool(tools, name, arguments, context)

    nav = text_of(await call("design_navigate", {"url": site.url("/console")}))
    assert nav["title"] == "Console"
    await wait_for_log(pool, "caller", "boom")
    errors = text_of(await call("design_get_console_logs", {"level": "error", "count": 1}))
    assert [e["message"] for e in errors["logs"]] == ["Uncaught Error: boom"]
    meta, shot = image_of(await call("design_take_screenshot", {"format": "jpg", "scale": 0.5, "quality": 60}))
    assert (meta["width"], meta["height"], meta["scale"], shot.mime_type) == (640, 400, 0.5, "image/jpeg")
    asked = len(site.requests)
    for bad in ({"url": site.url("/plain"), "extra": 1}, {"scale": 2}, {"format": "gif"}):
        refused = await call("design_take_screenshot", bad)
        assert refused.is_error, bad
        block = refused.content[0]
        assert isinstance(block, TextBlock)
        assert block.text.startswith(f"{PREFIX}Invalid arguments for design_take_screenshot: "), block.text
    assert len(site.requests) == asked


async def test_chromium_killed_is_started_again(pool: BrowserPool, site: Site) -> None:
    await pool.navigate("survivor", site.url("/plain"))
    roots = [p for p in chromium_children() if "chrom" not in p.parent().name().lower()]
    assert len(roots) == 1
    roots[0].kill()
    roots[0].wait(WAIT)
    async with asyncio.timeout(WAIT):
        while True:
            if not pool.status()["running"]:
                break
            await asyncio.sleep(0.05)
    assert text_of(await pool.navigate("survivor", site.url("/plain")))["title"] == "Plain"
    assert pool.status()["running"] and pool.users() == ["survivor"]


async def test_the_hosted_service_runs_the_three_tools_in_its_browser(
    site: Site, forbidden: Site, fake_api_server: ApiServer, tmp_path: Path
) -> None:
    """Spec 1 rule 3 over /mcp: design_navigate, design_get_console_logs and design_take_screenshot are the browser's,
    listed with its arguments, in the server's own Chromium."""
    env = remote_env(
        tmp_path,
        fake_api_server.url,
        DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN,
        REMOTE_BROWSER_ALLOWLIST=f"127.0.0.1:{site.port}",
        BROWSER_TIMEOUT="10000",
    )
    with running_remote(env) as server:
        async with Client(f"{server.url}/mcp", mode="legacy") as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert "url" in listed["design_take_screenshot"].input_schema["properties"]
            opened = await client.call_tool("design_navigate", {"url": site.url("/console")})
            assert not opened.is_error, opened.content
            assert json.loads(first_text(opened))["title"] == "Console"
            deadline = asyncio.get_running_loop().time() + WAIT
            while True:
                read = json.loads(first_text(await client.call_tool("design_get_console_logs", {"level": "error"})))
                if (
                    any("boom" in entry["message"] for entry in read["logs"])
                    or asyncio.get_running_loop().time() > deadline
                ):
                    break
                await asyncio.sleep(0.1)
            assert [entry["message"] for entry in read["logs"]][-1] == "Uncaught Error: boom"
            shot = await client.call_tool("design_take_screenshot", {"url": site.url("/red"), "format": "jpeg"})
            assert not shot.is_error and shot.content[1].type == "image"
            assert shot.content[1].mime_type == "image/jpeg"
            refused = await client.call_tool("design_navigate", {"url": forbidden.url("/console")})
            assert refused.is_error and "allowlist" in first_text(refused).lower()
    assert "/console" not in forbidden.requests


def first_text(result: Any) -> str:
    block = result.content[0]
    assert block.type == "text"
    return str(block.text)
