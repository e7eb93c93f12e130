"""design_audit_component_accessibility on a components page of 150 component sets, run against the shipped plugin
code (tests/fakes/big_plugin.py): a walk through its pages runs the audit once and lists every component once, and a
cursor from an older version of the file is refused."""

from __future__ import annotations

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
    plugin = await BigPlugin.start(layers=5_000, componentSets=150)
    # The audit reads the current page; the generator puts the component sets on a page of their own.
    show = "await figma.setCurrentPageAsync(figma.root.children.find((p) => p.name === 'Components')); return 1;"
    await plugin.bridge("EXECUTE_CODE", {"code": show})
    yield plugin
    await plugin.stop()


async def test_a_walk_runs_the_audit_once_and_lists_every_component_once(ctx: FakeContext, big: BigPlugin) -> None:
    big.serve(ctx)
    big.replies.clear()
    args: dict[str, Any] = {"maxTokens": 2_000}
    first = page = await ctx.run_json("design_audit_component_accessibility", args)
    names = [c["name"] for c in page["components"]]
    variants = sum(len(c["variants"]) for c in page["components"])
    while "nextCursor" in page:
        page = await ctx.run_json("design_audit_component_accessibility", {**args, "cursor": page["nextCursor"]})
        names += [c["name"] for c in page["components"]]
        variants += sum(len(c["variants"]) for c in page["components"])
    assert len(names) == len(set(names)) > 150 and variants == first["componentCount"]
    assert len([r for r in big.replies if r.method == "AUDIT_COMPONENT_ACCESSIBILITY"]) == 1
    ctx.pushed["change_seq"] = 1
    with pytest.raises(DesignError, match=r"file changed since this cursor.*without cursor"):
        await ctx.run("design_audit_component_accessibility", {**args, "cursor": first["nextCursor"]})
