"""design_search_components on a file of 500 component sets, against the shipped plugin code
(tests/fakes/big_plugin.py): a walk through every page of the results reads the file's components once, in replies of
bounded size (each page scanned the file again, so 10× the items took 19× the time), and a cursor of an older
version of the file is refused."""

from __future__ import annotations

import pytest
from fakes.big_plugin import BigPlugin
from fakes.context import FakeContext

from design_console.errors import DesignError


async def test_every_page_of_a_search_comes_from_one_scan_of_the_file(ctx: FakeContext) -> None:
    plugin = await BigPlugin.start(layers=10_000, componentSets=500)
    try:
        ctx.plugin, ctx.active_file_key = plugin.bridge, "fileA"
        for query, expected in (("", 503), ("button", 125)):
            plugin.replies.clear()
            ctx.bridge_calls.clear()
            names: list[str] = []
            args: dict[str, object] = {"query": query, "limit": 100}
            while True:
                answer = await ctx.run_json("design_search_components", args)
                names += [c["name"] for c in answer["components"]]
                if "nextCursor" not in answer:
                    break
                args["cursor"] = answer["nextCursor"]
            assert len(names) == len(set(names)) == expected
            # One pass over the file's components for the whole walk, in replies of bounded size.
            offsets = [p["offset"] for p in ctx.sent("GET_LOCAL_COMPONENTS")]
            assert offsets[0] == 0 and offsets == sorted(set(offsets)) and len(offsets) == len(plugin.replies)
            assert max(r.chars for r in plugin.replies) < 300_000
        first = await ctx.run_json("design_search_components", {"query": "", "limit": 100})
        ctx.pushed["change_seq"] = 7
        with pytest.raises(DesignError, match=r"file changed since this cursor.*without cursor"):
            await ctx.run("design_search_components", {"query": "", "limit": 100, "cursor": first["nextCursor"]})
    finally:
        await plugin.stop()
