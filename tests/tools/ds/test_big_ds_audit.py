"""The design-system audit on a generated file of 20,000 layers over two pages, run against the shipped plugin code
(tests/fakes/big_plugin.py): its crawl reads every relevant layer of every page once, in bounded chunks (it stopped
at 1,200 layers, re-walking the file from its start for each batch of 150)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from fakes.big_plugin import BigPlugin
from fakes.context import FakeContext

from design_console.tools.ds.ds_audit import REPORTS

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def big() -> AsyncIterator[BigPlugin]:
    plugin = await BigPlugin.start(layers=20_000, pages=2)
    yield plugin
    await plugin.stop()


async def test_the_report_crawls_every_layer_of_every_page_once(ctx: FakeContext, big: BigPlugin) -> None:
    big.serve(ctx)
    REPORTS.clear()
    report = await ctx.run_json("design_audit_design_system_report", {"format": "full"})
    assert report["source"] == "plugin" and not any("stopped" in n for n in report.get("notes", []))
    cached = REPORTS.get("fileA")
    assert cached is not None
    ids = [n["id"] for n in cached.gathered.data.nodes]
    # Texts, instances and filled layers are most of a file: far more than the 1,200 the crawl kept.
    assert len(ids) == len(set(ids)) > 8_000
    reads = [r for r in big.replies if r.method == "READ_AUDIT_NODES"]
    assert len(reads) > 3 and max(r.chars for r in reads) < 300_000
