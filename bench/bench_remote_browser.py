"""Figures of Remote Mode's headless browser: screenshot time cold (Chromium not running yet) and warm.

Run: ``.venv/bin/python bench/bench_remote_browser.py [--rounds 10]``. It serves a small page on a free loopback
port, allows only that host, and prints, in milliseconds:

- cold: the first design_take_screenshot with a url (start Chromium, create the user's context, load, capture);
- warm, new user: the same call for another user (a context of its own in the running Chromium);
- warm, same page: a screenshot of the page already open (the median over the rounds);
- warm, navigate + screenshot: a fresh load of the page and a screenshot (median).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from design_console.config import load_config
from design_console.remote.browser import BrowserPool

PAGE = (
    b"""<!doctype html><title>Bench</title><style>body { font: 16px sans-serif; margin: 40px }
.card { display: inline-block; width: 200px; height: 120px; margin: 8px; border-radius: 12px;
        background: linear-gradient(135deg, #4f46e5, #06b6d4) }</style>
<h1>Design console</h1>"""
    + b'<div class="card"></div>' * 24
)


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: Any) -> None:
        return


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


async def run(rounds: int) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    with tempfile.TemporaryDirectory() as home:
        config = load_config({"HOME": home, "REMOTE_BROWSER_ALLOWLIST": f"127.0.0.1:{server.server_address[1]}"})
        pool = BrowserPool(config)
        await pool.start()
        try:
            cold = await timed(lambda: pool.screenshot("first", url=url))
            new_user = await timed(lambda: pool.screenshot("second", url=url))
            same = [await timed(lambda: pool.screenshot("first")) for _ in range(rounds)]
            again = [await timed(lambda: pool.screenshot("first", url=url)) for _ in range(rounds)]
            jpeg = [await timed(lambda: pool.screenshot("first", format="jpeg", quality=80)) for _ in range(rounds)]
        finally:
            await pool.stop()
            server.shutdown()
            server.server_close()
    print(f"cold (start Chromium + context + load + PNG): {cold:7.1f} ms")
    print(f"warm, new user (context + load + PNG):       {new_user:7.1f} ms")
    print(f"warm, same page, PNG (median of {rounds}):        {statistics.median(same):7.1f} ms")
    print(f"warm, same page, JPEG q80 (median of {rounds}):   {statistics.median(jpeg):7.1f} ms")
    print(f"warm, navigate + PNG (median of {rounds}):        {statistics.median(again):7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
