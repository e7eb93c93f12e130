"""design_lint_design on a generated page of 20,000 layers, run against the shipped plugin code
(tests/fakes/big_plugin.py): the first page checks only as many layers as it needs, the pages after it go on from
there (every layer checked once in the whole walk, every finding listed once), the last page's counts are the whole
page's, each plugin reply stays under the bound, and a cursor from an older version of the file is refused."""

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
    plugin = await BigPlugin.start(layers=20_000)
    yield plugin
    await plugin.stop()


def lint_args(plugin: BigPlugin) -> dict[str, Any]:
    return {"nodeId": plugin.counts["page"], "maxDepth": 50, "maxFindings": 5_000, "maxTokens": 20_000}


async def test_a_paged_lint_walks_the_page_once_and_lists_every_finding_once(ctx: FakeContext, big: BigPlugin) -> None:
    big.serve(ctx)
    whole = await big.bridge("LINT_DESIGN", {"nodeId": big.counts["page"], "maxDepth": 50, "maxFindings": 5_000})
    big.replies.clear()
    args = lint_args(big)
    began = time.perf_counter()
    first = await ctx.run_json("design_lint_design", args)
    assert time.perf_counter() - began < 1.0
    assert first["nodesChecked"] < big.counts["pageLayers"] / 2 and "nextCursor" in first
    listed = [(f["nodeId"], f["rule"], f["message"]) for f in first["findings"]]
    page = first
    while "nextCursor" in page:
        page = await ctx.run_json("design_lint_design", {**args, "cursor": page["nextCursor"]})
        listed += [(f["nodeId"], f["rule"], f["message"]) for f in page["findings"]]
    assert page["counts"] == whole["counts"] and page["nodesChecked"] == whole["nodesChecked"]
    assert len(listed) == len(set(listed)) == len(whole["findings"]) == 5_000
    reads = [r for r in big.replies if r.method == "LINT_DESIGN"]
    assert sum(1 for _ in reads) > 3 and max(r.chars for r in reads) < 300_000


async def test_a_cursor_from_an_older_version_is_refused(ctx: FakeContext, big: BigPlugin) -> None:
    first = await big.serve(ctx).run_json("design_lint_design", lint_args(big))
    ctx.pushed["change_seq"] = 4
    with pytest.raises(DesignError, match=r"file changed since this cursor.*without cursor"):
        await ctx.run("design_lint_design", {**lint_args(big), "cursor": first["nextCursor"]})
