"""Figures for the design ↔ code loop, through the whole chain: each page of tests/fixtures/web built as layers by
design_generate_from_web, written back as HTML by design_get_design_context, and both rendered at the same width in
one local headless Chromium.

Run: ``.venv/bin/python bench/bench_design_loop.py [--rounds 3]``. Prints one line per page: the share of pixels of the
two full-page screenshots that agree (every channel within 16 of 255), the layers by type, and the time of each leg
(median of the rounds): page to layers, layers to HTML, and the whole loop. Serves the pages on a loopback port and
starts its own designd and plugin in a throwaway HOME.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.pixels import pixel_agreement  # noqa: E402
from fakes.real_plugin import installation_with_plugin  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from playwright.async_api import Browser, async_playwright  # noqa: E402
from procs import BIN  # noqa: E402

PAGES = ROOT / "tests" / "fixtures" / "web"
CHROMIUM = "/usr/bin/chromium"
WIDTH = 1280
HEIGHT = 800


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


async def _call(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, args)
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text}")
    answer: dict[str, Any] = json.loads(result.content[0].text)
    return answer


async def _html(client: Client, node_id: str) -> str:
    args: dict[str, Any] = {"nodeId": node_id, "framework": "html"}
    parts: list[str] = []
    while True:
        answer = await _call(client, "design_get_design_context", args)
        parts.append(answer.get("code", ""))
        if "nextCursor" not in answer:
            return "".join(parts)
        args["cursor"] = answer["nextCursor"]


async def _shot(browser: Browser, *, url: str | None = None, html: str = "") -> bytes:
    page = await browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    try:
        if url is not None:
            await page.goto(url)
        else:
            await page.set_content(html)
        await page.evaluate("document.fonts.ready")
        return await page.screenshot(full_page=True)
    finally:
        await page.close()


async def _loop(client: Client, browser: Browser, url: str) -> tuple[float, dict[str, Any], list[float]]:
    """One pass: the agreement, the build answer and the times (ms) of page to layers, layers to HTML, the whole."""
    started = time.perf_counter()
    made = await _call(client, "design_generate_from_web", {"url": url, "width": WIDTH, "height": HEIGHT})
    built = time.perf_counter()
    code = await _html(client, made["rootId"])
    written = time.perf_counter()
    agreement = pixel_agreement(await _shot(browser, url=url), await _shot(browser, html=code))
    done = time.perf_counter()
    return agreement, made, [(built - started) * 1000, (written - built) * 1000, (done - started) * 1000]


async def run(rounds: int, site: str) -> None:
    with installation_with_plugin(file_key="benchLoop", file_name="Bench Loop") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client, async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
            )
            try:
                for page in sorted(PAGES.glob("*.html")):
                    passes = [await _loop(client, browser, f"{site}/{page.name}") for _ in range(rounds)]
                    agreement, made, _ = passes[-1]
                    legs = [statistics.median(p[2][leg] for p in passes) for leg in range(3)]
                    counts = ", ".join(f"{k} {v}" for k, v in sorted(made["counts"].items()))
                    print(
                        f"{page.name}: {agreement:.2%} of pixels agree; {counts}; {made['width']}x{made['height']:g}"
                        f" px; page to layers {legs[0]:.0f} ms, layers to html {legs[1]:.0f} ms,"
                        f" whole loop {legs[2]:.0f} ms"
                    )
            finally:
                await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(PAGES)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        asyncio.run(run(options.rounds, f"http://127.0.0.1:{server.server_address[1]}"))
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    main()
