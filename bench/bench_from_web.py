"""Figures for design_generate_from_web, through the whole chain: MCP client → shim → designd → api worker (the page
read in the local headless Chromium) → the shipped plugin (ui.html in jsdom, code.js in node on the stand-in editor).
The stand-in editor is fast, so the build figures are our overhead plus the plugin's own work, not the design tool's.

Run: ``.venv/bin/python bench/bench_from_web.py [--rounds 3] [--rows 400]``. Prints one line per page of
tests/fixtures/web (the form, pricing grid, navigation bar with a hero, table) and one for a generated long table of
``--rows`` rows: layers by type, answer time (median and worst of the rounds) and the time the tool reports for its
own work. Serves the pages on a loopback port and starts its own designd and plugin in a throwaway HOME.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.real_plugin import installation_with_plugin  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from procs import BIN  # noqa: E402

PAGES = ROOT / "tests" / "fixtures" / "web"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def long_table(rows: int) -> str:
    """A page of one table with ``rows`` rows of four cells: a long page, as an admin list is."""
    body = "".join(
        f"<tr><td>#{1000 + i}</td><td>Customer {i}</td><td>{'Paid' if i % 3 else 'Due'}</td><td>${i * 7}.00</td></tr>"
        for i in range(rows)
    )
    return (
        "<!doctype html><html><head><title>Long table</title><style>body{margin:24px;font-family:Inter,Arial,"
        "sans-serif}td{padding:6px 12px;border-bottom:1px solid #e5e7eb;font-size:14px;line-height:20px}"
        f"</style></head><body><table>{body}</table></body></html>"
    )


async def _call(client: Client, args: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    result = await client.call_tool("design_generate_from_web", args)
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        raise SystemExit(f"design_generate_from_web failed: {result.content[0].text}")
    answer: dict[str, Any] = json.loads(result.content[0].text)
    return elapsed, answer


def _phases(answer: dict[str, Any]) -> str:
    """Where the tool's time went: the page, the conversion, the build."""
    timings = answer.get("timings") or {}
    return ", ".join(f"{phase} {seconds * 1000:.0f}" for phase, seconds in timings.items())


async def run(rounds: int, rows: int, site: str) -> None:
    with installation_with_plugin(file_key="benchWeb", file_name="Bench Web") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client:
            cases = [(page.name, {"url": f"{site}/{page.name}"}) for page in sorted(PAGES.glob("*.html"))]
            cases.append((f"long table ({rows} rows)", {"url": f"{site}/long.html", "maxNodes": 20000}))
            for label, args in cases:
                times: list[float] = []
                answer: dict[str, Any] = {}
                for _ in range(rounds):
                    elapsed, answer = await _call(client, args)
                    times.append(elapsed)
                counts = ", ".join(f"{k} {v}" for k, v in sorted(answer["counts"].items()))
                print(
                    f"{label}: {counts}; {answer['width']}x{answer['height']:g} px; "
                    f"median {statistics.median(times):.0f} ms, worst {max(times):.0f} ms "
                    f"(tool's own {answer['seconds'] * 1000:.0f} ms: {_phases(answer)}), "
                    f"warnings {len(answer['warnings'])}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=400)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-web-") as folder:
        for page in PAGES.iterdir():
            if page.is_file():
                (Path(folder) / page.name).write_bytes(page.read_bytes())
        (Path(folder) / "long.html").write_text(long_table(options.rows))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=folder))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            asyncio.run(run(options.rounds, options.rows, f"http://127.0.0.1:{server.server_address[1]}"))
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    main()
