"""tools/nodes/file_tree.walk_file: a file's tree (or some of its nodes) read through the real design API client
against the fake API, shaped to a verbosity and depth, in budget-sized parts joined by cursors."""

from __future__ import annotations

from typing import Any

import pytest
from fakes.context import FakeContext
from fakes.design_api import ENTERPRISE_KEY

from design_console.errors import DesignError
from design_console.tools.args import PagedArgs
from design_console.tools.nodes.file_tree import walk_file


async def walk(ctx: FakeContext, **options: Any) -> dict[str, Any]:
    page = PagedArgs(maxTokens=options.pop("maxTokens", None), cursor=options.pop("cursor", None))
    arguments: dict[str, Any] = {"depth": 2, "verbosity": "summary", "node_ids": None, **options}
    return await walk_file(ctx, ENTERPRISE_KEY, "test", page=page, **arguments)


async def test_a_whole_file_comes_with_its_counts_and_names_its_pages_first(ctx: FakeContext) -> None:
    result = await walk(ctx, depth=1)
    assert result["file"]["key"] == ENTERPRISE_KEY and result["file"]["name"] == "Design System"
    assert (result["depth"], result["verbosity"]) == (1, "summary")
    assert result["counts"]["pages"] == 2 and result["counts"]["components"] == 4
    assert [n["name"] for n in result["nodes"] if n["depth"] == 0] == ["Components", "Screens"]
    assert "nextCursor" not in result


async def test_parts_of_a_small_budget_join_into_the_whole_and_only_the_first_has_the_counts(
    ctx: FakeContext,
) -> None:
    whole = [n["id"] for n in (await walk(ctx, depth=3))["nodes"]]
    seen: list[str] = []
    cursor = None
    for part_number in range(len(whole) + 1):
        part = await walk(ctx, depth=3, maxTokens=200, cursor=cursor)
        assert ("counts" in part) == (part_number == 0)
        seen += [n["id"] for n in part["nodes"]]
        cursor = part.get("nextCursor")
        if cursor is None:
            break
    assert part_number > 0 and seen == whole


async def test_a_cursor_of_other_arguments_is_refused(ctx: FakeContext) -> None:
    first = await walk(ctx, depth=3, maxTokens=200)
    with pytest.raises(DesignError, match="other arguments") as refused:
        await walk(ctx, depth=2, maxTokens=200, cursor=first["nextCursor"])
    assert refused.value.code == "bad_argument"


async def test_named_nodes_are_read_alone_and_a_missing_one_is_named(ctx: FakeContext) -> None:
    result = await walk(ctx, depth=1, node_ids=["2:1"])
    assert result["nodes"][0]["name"] == "Sign in" and "counts" not in result
    with pytest.raises(DesignError, match="No node 9:9 in this file") as refused:
        await walk(ctx, node_ids=["2:1", "9:9"])
    assert refused.value.code == "not_found"


async def test_enrich_names_the_component_of_each_instance(ctx: FakeContext) -> None:
    plain = await walk(ctx, depth=2, verbosity="standard")
    rich = await walk(ctx, depth=2, verbosity="standard", enrich=True)
    instances = [n for n in rich["nodes"] if n["type"] == "INSTANCE"]
    assert instances and all(n["componentName"] == "State=Default" for n in instances)
    assert not [n for n in plain["nodes"] if "componentName" in n]
