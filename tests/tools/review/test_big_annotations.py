"""design_get_annotations on a generated page of 20,000 layers, every seventh annotated, run against the shipped
plugin code (tests/fakes/big_plugin.py): a paged walk reads every annotated layer once, each page is one bounded
plugin read, and a cursor from an older version of the file or from another file is refused."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from fakes.big_plugin import BigPlugin
from fakes.context import FakeContext

from design_console.errors import DesignError

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def big() -> AsyncIterator[BigPlugin]:
    plugin = await BigPlugin.start(layers=20_000, annotate=7)
    yield plugin
    await plugin.stop()


def whole_page(plugin: BigPlugin) -> dict[str, Any]:
    return {"nodeId": plugin.counts["page"], "include_children": True, "depth": 20, "maxTokens": 5_000}


async def test_a_paged_walk_reads_every_annotated_layer_once(ctx: FakeContext, big: BigPlugin) -> None:
    big.serve(ctx)
    args = whole_page(big)
    seen: list[str] = []
    pages = 0
    slowest = 0.0
    while True:
        began = time.perf_counter()
        answer = await ctx.run_json("design_get_annotations", args)
        slowest = max(slowest, time.perf_counter() - began)
        pages += 1
        seen += [entry["nodeId"] for entry in answer["nodes"]]
        assert all(entry["annotations"][0]["label"].startswith("Check ") for entry in answer["nodes"])
        if "nextCursor" not in answer:
            break
        args["cursor"] = answer["nextCursor"]
    assert len(seen) == len(set(seen)) == big.counts["pageAnnotated"] > 2_000
    assert pages > 10 and slowest < 1.0
    reads = [r for r in big.replies if r.method == "GET_ANNOTATIONS"]
    assert len(reads) == pages and max(r.chars for r in reads) < 5_000 * 4


async def test_a_cursor_from_an_older_version_or_another_file_is_refused(ctx: FakeContext, big: BigPlugin) -> None:
    first = await big.serve(ctx).run_json("design_get_annotations", whole_page(big))
    ctx.pushed["change_seq"] = 2
    with pytest.raises(DesignError, match=r"file changed since this cursor.*without cursor"):
        await ctx.run("design_get_annotations", {**whole_page(big), "cursor": first["nextCursor"]})
    big.serve(ctx, "fileB")
    with pytest.raises(DesignError, match=r"another file \(fileA\).*without cursor"):
        await ctx.run("design_get_annotations", {**whole_page(big), "cursor": first["nextCursor"]})


async def test_a_position_that_left_the_tree_is_refused(ctx: FakeContext, big: BigPlugin) -> None:
    big.serve(ctx)
    with pytest.raises(DesignError, match=r"no longer in this file's tree"):
        await big.bridge("GET_ANNOTATIONS", {"nodeId": big.counts["page"], "includeChildren": True, "start": [99_999]})
