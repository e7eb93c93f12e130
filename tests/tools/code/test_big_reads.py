"""Reads of any size: design_get_metadata and the selection on generated documents of 10,000 to 40,000 layers, run
against the shipped plugin code (tests/fakes/big_plugin.py). A paged walk reads every layer once, its time per layer
stays flat as the file grows, and a cursor from another file, an older version or another selection is refused."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from fakes.big_plugin import BigPlugin
from fakes.context import FakeContext

from design_console.errors import DesignError
from design_console.tools.nodes.selection_pages import selection_page

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def big() -> AsyncIterator[BigPlugin]:
    """A 20,000-layer page with 100 rows selected."""
    plugin = await BigPlugin.start(layers=20_000, select=100)
    yield plugin
    await plugin.stop()


async def walk(ctx: FakeContext, args: dict[str, Any]) -> tuple[list[str], int]:
    """Every layer id of a paged metadata walk (re-opened ancestors left out), and how many pages it took."""
    seen: list[str] = []
    pages = 0
    args = dict(args)
    while True:
        answer = await ctx.run_json("design_get_metadata", args)
        pages += 1
        seen += [
            e.get("id") or "" for e in ET.fromstring(answer["xml"]).iter() if e.get("id") and not e.get("continued")
        ]
        if "nextCursor" not in answer:
            return seen, pages
        args["cursor"] = answer["nextCursor"]


async def test_a_paged_walk_of_a_20k_layer_page_reads_every_layer_exactly_once(
    ctx: FakeContext, big: BigPlugin
) -> None:
    big.serve(ctx)
    seen, pages = await walk(ctx, {"nodeId": big.counts["page"], "depth": 50, "maxTokens": 20_000})
    assert len(seen) == len(set(seen)) == big.counts["pageLayers"] + 1
    assert pages > 10
    # Each page is one plugin read of bounded size, whatever the file's.
    reads = [r for r in big.replies if r.method == "READ_LAYERS"]
    assert len(reads) == pages and max(r.chars for r in reads) < 300_000


async def test_a_selection_of_100_layers_pages_fully(ctx: FakeContext, big: BigPlugin) -> None:
    big.serve(ctx)
    ids: list[str] = []
    cursor = None
    pages = 0
    while True:
        nodes, cursor = await selection_page(ctx, "fileA", cursor, 500)
        ids += [n["id"] for n in nodes]
        pages += 1
        if cursor is None:
            break
    assert len(ids) == len(set(ids)) == big.counts["selection"] == 100
    assert pages > 2


async def test_a_cursor_from_another_file_is_refused(ctx: FakeContext, big: BigPlugin) -> None:
    first = await big.serve(ctx, "fileA").run_json("design_get_metadata", {"depth": 50, "maxTokens": 500})
    big.serve(ctx, "fileB")
    with pytest.raises(DesignError, match=r"another file \(fileA\).*without cursor"):
        await ctx.run("design_get_metadata", {"depth": 50, "maxTokens": 500, "cursor": first["nextCursor"]})


async def test_a_cursor_from_an_older_version_is_refused(ctx: FakeContext, big: BigPlugin) -> None:
    first = await big.serve(ctx).run_json("design_get_metadata", {"depth": 50, "maxTokens": 500})
    ctx.pushed["change_seq"] = 3
    with pytest.raises(DesignError, match=r"file changed since this cursor.*without cursor"):
        await ctx.run("design_get_metadata", {"depth": 50, "maxTokens": 500, "cursor": first["nextCursor"]})


async def test_a_cursor_over_another_selection_is_refused(ctx: FakeContext, big: BigPlugin) -> None:
    first = await big.serve(ctx).run_json("design_get_metadata", {"depth": 50, "maxTokens": 500})
    assert first["scope"] == "selection"
    await big.select(5)
    with pytest.raises(DesignError, match=r"another selection.*without cursor"):
        await ctx.run("design_get_metadata", {"depth": 50, "maxTokens": 500, "cursor": first["nextCursor"]})


async def test_a_walk_takes_time_in_proportion_to_the_layers(ctx: FakeContext) -> None:
    per_layer: dict[int, float] = {}
    for size in (10_000, 40_000):
        plugin = await BigPlugin.start(layers=size)
        try:
            plugin.serve(ctx)
            args = {"nodeId": plugin.counts["page"], "depth": 50, "maxTokens": 20_000}
            # The best of two walks: the machine is shared, and a slower walk says nothing about growth.
            times = []
            for _ in range(2):
                began = time.perf_counter()
                seen, _ = await walk(ctx, args)
                times.append(time.perf_counter() - began)
            per_layer[size] = min(times) / len(seen)
        finally:
            await plugin.stop()
    assert per_layer[40_000] <= 1.5 * per_layer[10_000], per_layer
