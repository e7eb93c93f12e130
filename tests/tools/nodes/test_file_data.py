"""design_get_file_data and design_get_file_for_plugin: a file's node tree through the real design API client
against the fake API, shaped and paged to a budget."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext, data, error_text
from fakes.design_api import ENTERPRISE_KEY, HUGE_KEY, PRO_KEY, FakeDesignApi

from design_console.clients.design_api import DesignApi
from design_console.errors import DesignError
from design_console.tools.base import CHARS_PER_TOKEN

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


async def test_file_data_summary(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_file_data", {"fileUrl": FILE_URL}))
    assert result["file"]["name"] == "Design System"
    assert result["counts"]["components"] == 4
    assert [n["name"] for n in result["nodes"] if n["depth"] == 0] == ["Components", "Screens"]
    assert "nextCursor" not in result


async def test_file_data_uses_the_active_file_and_enriches(ctx: FakeContext) -> None:
    ctx.active_file_key = ENTERPRISE_KEY
    result = data(await ctx.call("design_get_file_data", {"depth": 2, "verbosity": "standard", "enrich": True}))
    instance = next(n for n in result["nodes"] if n["type"] == "INSTANCE")
    assert instance["componentName"] == "State=Default"


async def test_file_data_for_nodes_and_missing_nodes(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_file_data", {"fileUrl": FILE_URL, "nodeIds": ["2-1"], "depth": 1}))
    assert result["nodes"][0]["name"] == "Sign in"
    assert "No node 9:9" in error_text(
        await ctx.call("design_get_file_data", {"fileUrl": FILE_URL, "nodeIds": ["9:9"]})
    )


async def test_file_data_errors(ctx: FakeContext) -> None:
    assert "active file" in error_text(await ctx.call("design_get_file_data", {}))
    with pytest.raises(DesignError, match=re.escape("`fileUrl`: 'http://x.y/z' is not a design file URL")):
        await ctx.run("design_get_file_data", {"fileUrl": "http://x.y/z"})
    missing = await ctx.call("design_get_file_data", {"fileUrl": "NoSuchFile000000000099"})
    assert "found nothing" in error_text(missing)
    bad_cursor = await ctx.call("design_get_file_data", {"fileUrl": FILE_URL, "cursor": "bogus"})
    assert "cursor" in error_text(bad_cursor)


async def test_a_cursor_of_another_file_is_refused_naming_that_file(ctx: FakeContext) -> None:
    first = data(await ctx.call("design_get_file_data", {"fileUrl": FILE_URL, "depth": 3, "maxTokens": 1}))
    other = await ctx.call("design_get_file_data", {"fileUrl": PRO_KEY, "depth": 3, "cursor": first["nextCursor"]})
    assert f"another file ({ENTERPRISE_KEY})" in error_text(other) and "without cursor" in error_text(other)


async def test_file_for_plugin(ctx: FakeContext) -> None:
    result = data(await ctx.call("design_get_file_for_plugin", {"fileUrl": FILE_URL, "depth": 1}))
    assert {n["type"] for n in result["nodes"]} <= {"CANVAS", "FRAME", "COMPONENT", "COMPONENT_SET"}
    assert "box" not in result["nodes"][0]
    missing = await ctx.call("design_get_file_for_plugin", {"fileUrl": "NoSuchFile000000000099"})
    assert "found nothing" in error_text(missing)


@pytest.mark.slow
@pytest.mark.timeout(120)
async def test_a_large_file_is_walked_whole_in_parts_within_the_token_budget(fake_api: ApiServer, home: Path) -> None:
    # bench/bench_api.py walks a 50 MB file and prints how long it takes; a fifth of that proves the walk.
    fake_api.reset(FakeDesignApi(huge_mb=10))
    client = DesignApi(fake_api.client_config(home))
    context = FakeContext(client.config, api=client)
    args: dict[str, Any] = {"fileUrl": HUGE_KEY, "depth": 3, "maxTokens": 20_000}
    seen = 0
    parts = 0
    try:
        while True:
            out = await context.call("design_get_file_data", args)
            assert len(out.content[0].text) <= 20_000 * CHARS_PER_TOKEN
            result = data(out)
            seen += len(result["nodes"])
            parts += 1
            if "nextCursor" not in result:
                break
            args["cursor"] = result["nextCursor"]
        stats = client.stats()
    finally:
        await client.aclose()
    expected = msgspec.json.decode(await _raw(fake_api), type=_Count)
    assert seen == expected.total()
    assert parts > 10 and stats["upstream_requests"] <= 2 + parts // 10


class _Node(msgspec.Struct):
    children: list[_Node] = []

    def total(self) -> int:
        return 1 + sum(c.total() for c in self.children)


class _Count(msgspec.Struct):
    document: _Node

    def total(self) -> int:
        return self.document.total() - 1


async def _raw(server: ApiServer) -> bytes:
    client = DesignApi(server.client_config(Path("/nonexistent-cache")))
    try:
        return await client.request_bytes("GET", f"/v1/files/{HUGE_KEY}", cache="none")
    finally:
        await client.aclose()
