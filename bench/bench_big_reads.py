"""Figures of reads of any size: the read tools' own code against the shipped plugin code on generated documents
(tests/plugin/harness/big-document.mjs: pages, sections, screens of frames, instances and text), without designd
between them, so the times are our work and the plugin's (the stand-in editor is fast; the design tool is not).

For 1k, 10k and 100k layers: design_get_metadata's first page and a full paged walk of the current page (all depths),
the time per layer, the bridge characters per layer (the READ_LAYERS replies' JSON) and the largest reply, the
plugin's heap after the walk; then design_get_selection's pages over 100 selected layers. For 50, 500 and 5,000
variables in 4 modes: design_get_variables' first page, the mean of the later pages and the full walk. For 40 and
400 component sets: design_search_components' first page and full walk. Last, the peak RSS of this process (the tool
side).

Run: ``.venv/bin/python bench/bench_big_reads.py [--layers 1000,10000,100000] [--variables 50,500,5000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.big_plugin import BigPlugin  # noqa: E402
from fakes.context import FakeContext, data  # noqa: E402

from design_console.config import load_config  # noqa: E402
from design_console.tools import catalog  # noqa: E402
from design_console.tools.calls import parse_args  # noqa: E402
from design_console.tools.nodes.selection_pages import selection_page  # noqa: E402

#: The largest page a model may ask for: fewer round trips for a walk.
MAX_TOKENS = 20_000


async def _walk(ctx: FakeContext, tool: str, args: dict[str, Any], key: str) -> tuple[float, float, int, int]:
    """First page time, whole walk time (seconds), pages, items (``key``: the list or text the items are in)."""
    args = dict(args)
    # The handler itself, as the worker runs it; FakeContext.run would look the tool up again on every call.
    spec = catalog()[tool]
    began = time.perf_counter()
    first = 0.0
    pages = items = 0
    while True:
        answer = data(await spec.handler(ctx, parse_args(spec, args)))
        pages += 1
        if pages == 1:
            first = time.perf_counter() - began
        items += answer[key] if isinstance(answer[key], int) else len(answer[key])
        if "nextCursor" not in answer:
            return first, time.perf_counter() - began, pages, items
        args["cursor"] = answer["nextCursor"]


async def _layers(ctx: FakeContext, size: int) -> None:
    plugin = await BigPlugin.start(layers=size, select=100)
    try:
        ctx.plugin = plugin.bridge
        # The whole page at every depth, as a walk of the file reads it.
        args = {"nodeId": plugin.counts["page"], "depth": 50, "maxTokens": MAX_TOKENS}
        first, whole, pages, layers = await _walk(ctx, "design_get_metadata", args, "layers")
        reads = [r for r in plugin.replies if r.method == "READ_LAYERS"]
        chars = sum(r.chars for r in reads)
        heap = max(r.heap for r in reads) / 2**20
        print(
            f"{size:>7} layers (build {plugin.counts['buildMs'] / 1000:.1f} s): metadata first page "
            f"{first * 1000:6.1f} ms, walk of {layers} layers {whole:6.2f} s in {pages} pages "
            f"({whole / layers * 1e6:5.1f} µs/layer), {chars / layers:5.1f} bridge chars/layer, "
            f"largest reply {max(r.chars for r in reads) / 1024:.0f} KiB, plugin heap {heap:.0f} MiB"
        )
        began = time.perf_counter()
        cursor, shown, rounds = None, 0, 0
        while True:
            nodes, cursor = await selection_page(ctx, "fileA", cursor, 2_000)
            shown, rounds = shown + len(nodes), rounds + 1
            if cursor is None:
                break
        print(f"{'':>7} selection of {shown} layers in {rounds} pages: {(time.perf_counter() - began) * 1000:.1f} ms")
    finally:
        await plugin.stop()


async def _variables(ctx: FakeContext, count: int) -> None:
    plugin = await BigPlugin.start(layers=100, variables=count, modes=4)
    try:
        ctx.plugin = plugin.bridge
        first, whole, pages, items = await _walk(ctx, "design_get_variables", {"pageSize": 50}, "variables")
        later = (whole - first) / max(1, pages - 1)
        print(
            f"{count:>7} variables × 4 modes: first page {first * 1000:6.1f} ms, later pages {later * 1000:5.1f} ms "
            f"each, walk of {items} in {pages} pages {whole:5.2f} s, plugin reads {len(plugin.replies)}"
        )
    finally:
        await plugin.stop()


async def _components(ctx: FakeContext, sets: int) -> None:
    plugin = await BigPlugin.start(layers=max(1_000, sets * 12), componentSets=sets)
    try:
        ctx.plugin = plugin.bridge
        first, whole, pages, items = await _walk(
            ctx, "design_search_components", {"query": "", "limit": 50}, "components"
        )
        print(
            f"{sets:>7} component sets: search first page {first * 1000:6.1f} ms, walk of {items} in {pages} pages "
            f"{whole:5.2f} s, plugin scans {len(plugin.replies)}"
        )
    finally:
        await plugin.stop()


async def main(layers: list[int], variables: list[int], sets: list[int]) -> None:
    # The tool catalog is built once per process, on the first call: not part of any read's time.
    catalog()
    with tempfile.TemporaryDirectory() as home:
        ctx = FakeContext(load_config({"HOME": home, "DESIGN_CONSOLE_HOME": home}), active_file_key="fileA")
        for size in layers:
            await _layers(ctx, size)
        for count in variables:
            await _variables(ctx, count)
        for count in sets:
            await _components(ctx, count)
    print(f"peak RSS of the tool side: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


def _sizes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=_sizes, default=[1_000, 10_000, 100_000])
    parser.add_argument("--variables", type=_sizes, default=[50, 500, 5_000])
    parser.add_argument("--component-sets", type=_sizes, default=[40, 400])
    options = parser.parse_args()
    asyncio.run(main(options.layers, options.variables, options.component_sets))
