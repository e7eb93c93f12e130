"""Figures of the api worker: shaping a 50 MB file (time, peak memory, result size) and requests the cache saves.

Run: ``.venv/bin/python bench/bench_api.py [--mb 50]``. It starts the fake design API on a free localhost port,
reads the generated file through the real client and tools, prints the figures, and stops the fake.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.api_server import api_process, client_config  # noqa: E402
from fakes.context import FakeContext  # noqa: E402
from fakes.design_api import HUGE_KEY  # noqa: E402

from design_console.clients.design_api import DesignApi  # noqa: E402


async def run(mb: float) -> None:
    with api_process(huge_mb=mb) as url, tempfile.TemporaryDirectory() as home:
        api = DesignApi(client_config(url, Path(home)))
        ctx = FakeContext(api.config, api=api)
        try:
            raw = await api.request_bytes("GET", f"/v1/files/{HUGE_KEY}", params={"depth": 4})
            print(f"raw response: {len(raw) / 1e6:.1f} MB")
            args: dict[str, Any] = {"fileUrl": HUGE_KEY, "depth": 3, "maxTokens": 20_000}
            tracemalloc.start()
            started = time.perf_counter()
            out = await ctx.call("design_get_file_data", args)
            first = time.perf_counter() - started
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            size = len(out.content[0].text)
            print(
                f"first part: {first * 1000:.0f} ms, peak extra memory {peak / 1e6:.1f} MB, "
                f"{size} chars ({size / len(raw) * 100:.3f}% of the raw response)"
            )
            parts, total_chars, started = 1, size, time.perf_counter()
            result = msgspec.json.decode(out.content[0].text)
            while "nextCursor" in result:
                args["cursor"] = result["nextCursor"]
                out = await ctx.call("design_get_file_data", args)
                result = msgspec.json.decode(out.content[0].text)
                parts += 1
                total_chars += len(out.content[0].text)
            walk = time.perf_counter() - started
            print(
                f"whole walk: {parts} parts, {walk:.1f} s, {walk / parts * 1000:.0f} ms a part, "
                f"{total_chars / 1e6:.1f} MB of summaries"
            )
            print(f"cache: {api.stats()}")
        finally:
            await api.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=50)
    asyncio.run(run(parser.parse_args().mb))


if __name__ == "__main__":
    main()
