"""tools/code/node_read: a subtree read through the plugin's EXECUTE_CODE in one script, whose JSON answer comes back
cut into chunks (the plugin caps each string and array) and is joined and decoded here. The real script in the real
plugin is read by the design-to-code chain tests (test_metadata.py and the others beside this one)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakes.context import FakeContext

from design_console.errors import DesignError
from design_console.tools.code.node_read import READ_TIMEOUT_MS, SEND_JSON, json_result, read_nodes

TREE = {
    "roots": [0],
    "nodes": [
        {"id": "1:2", "name": "Card", "type": "FRAME", "p": -1, "d": 0, "x": 0, "y": 0, "w": 400, "h": 300},
        {"id": "1:3", "name": "Title " + "x" * 5000, "type": "TEXT", "p": 0, "d": 1, "x": 24, "y": 20, "w": 300,
         "h": 32},
    ],
    "variables": {"V:1": {"name": "color/brand", "resolvedType": "COLOR", "valuesByMode": {}}},
    "styles": {"S:1": {"name": "Surface", "type": "PAINT"}},
    "scope": "",
}  # fmt: skip


def chunked(value: Any, size: int = 20) -> dict[str, Any]:
    """An EXECUTE_CODE answer as SEND_JSON makes it: the JSON text in chunks of ``size``, 200 chunks a group."""
    text = json.dumps(value)
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    return {"success": True, "result": {"json": [chunks[i : i + 200] for i in range(0, len(chunks), 200)]}}


async def test_the_chunks_of_every_group_join_into_the_tree(ctx: FakeContext) -> None:
    reply = chunked(TREE)
    assert len(reply["result"]["json"]) > 1, "the answer must span more than one group of chunks"
    ctx.plugin = {"EXECUTE_CODE": reply}
    tree = await read_nodes(ctx, "1:2", depth=3, full=True)
    assert [n["id"] for n in tree.nodes] == ["1:2", "1:3"] and tree.nodes[1]["name"] == TREE["nodes"][1]["name"]
    assert tree.roots == [0] and tree.variables == TREE["variables"] and tree.styles == TREE["styles"]
    assert tree.truncated is False and tree.images == {}
    (sent,) = ctx.sent("EXECUTE_CODE")
    assert sent["timeout"] == READ_TIMEOUT_MS and sent["code"].endswith(SEND_JSON)
    assert 'const rootId = "1:2", maxDepth = 3, limit = 5000, full = true, media = false;' in sent["code"]


async def test_without_a_node_the_script_reads_the_selection_or_page(ctx: FakeContext) -> None:
    ctx.plugin = {"EXECUTE_CODE": chunked({**TREE, "scope": "selection"})}
    tree = await read_nodes(ctx, None, depth=1, full=False, limit=10)
    assert tree.scope == "selection"
    assert 'const rootId = "", maxDepth = 1, limit = 10, full = false' in ctx.sent("EXECUTE_CODE")[0]["code"]


async def test_a_missing_node_is_refused_with_the_next_step(ctx: FakeContext) -> None:
    ctx.plugin = {"EXECUTE_CODE": {"success": True, "result": {"missing": "9:9"}}}
    with pytest.raises(DesignError, match="No node 9:9 in this file") as refused:
        await read_nodes(ctx, "9:9", depth=1, full=False)
    assert refused.value.code == "not_found" and "design_get_metadata" in str(refused.value.hint)


@pytest.mark.parametrize(
    ("result", "text"),
    [
        ({"nodes": []}, "unexpected shape"),
        ({"json": ["not a group"]}, "unexpected shape"),
        ({"json": [['{"roots": [0], "nodes": ']]}, "did not decode"),
        ({"json": [['{"roots": "none", "nodes": []}']]}, "did not decode"),
    ],
)
async def test_a_reply_of_another_shape_is_refused(ctx: FakeContext, result: Any, text: str) -> None:
    ctx.plugin = {"EXECUTE_CODE": {"success": True, "result": result}}
    with pytest.raises(DesignError, match=text) as refused:
        await read_nodes(ctx, "1:2", depth=1, full=False)
    assert refused.value.code == "bad_reply"


async def test_json_result_gives_back_any_json_the_script_sent(ctx: FakeContext) -> None:
    ctx.plugin = {"EXECUTE_CODE": chunked({"pages": ["A", "B"], "count": 2}, size=5)}
    assert await json_result(ctx, "const out = {};" + SEND_JSON) == {"pages": ["A", "B"], "count": 2}
