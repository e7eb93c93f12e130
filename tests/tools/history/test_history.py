"""Version-history tools against the spec-validating fake design API, and their pure diff/blame logic."""

from __future__ import annotations

import copy
import json
from datetime import datetime
from typing import Any

import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext
from fakes.design_api import HISTORY_KEY, FakeDesignApi

from design_console.engines.history_diff import (
    bisect_history,
    changelog_markdown,
    count_changes,
    describe,
    diff_catalog,
    diff_trees,
    fit_tree,
    page_by_budget,
)
from design_console.errors import DesignError

Harness = tuple[FakeContext, FakeDesignApi]


@pytest.fixture
def harness(ctx: FakeContext, fake_api: ApiServer) -> Harness:
    """The api worker's context with the file of the version fixtures active, and the fake behind it."""
    ctx.active_file_key = HISTORY_KEY
    return ctx, fake_api.fake


# Pure logic -------------------------------------------------------------------------------------------------------


def node(node_id: str, name: str, kind: str = "FRAME", children: list[Any] | None = None, **props: Any) -> dict:
    out: dict[str, Any] = {"id": node_id, "name": name, "type": kind, **props}
    if children is not None:
        out["children"] = children
    return out


def test_diff_trees_reports_each_kind_once() -> None:
    old = node("1", "Page", "CANVAS", [
        node("a", "Card", children=[node("a1", "Title", "TEXT", characters="Hi"), node("a2", "Icon", "VECTOR")]),
        node("b", "Old", children=[node("b1", "Inner", "RECTANGLE")]),
        node("c", "Stays", children=[]),
    ])  # fmt: skip
    new = node("1", "Page", "CANVAS", [
        node("a", "Card", children=[node("a2", "Icon", "VECTOR"), node("a1", "Heading", "TEXT", characters="Hello")]),
        node("c", "Stays", children=[node("d", "New", children=[node("d1", "Leaf", "TEXT")])]),
    ])  # fmt: skip
    changes = diff_trees(old, new, scope="page", mode="standard")
    by_id = {c.node_id: c for c in changes}
    assert set(by_id) == {"a", "a1", "b", "d"}
    assert by_id["a"].kind == "changed" and [p.property for p in by_id["a"].properties] == ["children order"]
    assert {p.property: (p.before, p.after) for p in by_id["a1"].properties} == {
        "characters": ("Hi", "Hello"),
        "name": ("Title", "Heading"),
    }
    assert by_id["b"].kind == "removed" and by_id["b"].descendants == 1 and by_id["b"].path == "Page"
    assert by_id["d"].kind == "added" and by_id["d"].descendants == 1 and by_id["d"].path == "Page / Stays"
    assert diff_trees(old, copy.deepcopy(old), scope="page", mode="detailed") == []


def test_moves_are_reported_with_both_parents() -> None:
    old = node("p", "Page", "CANVAS", [node("x", "X", children=[node("m", "Moving")]), node("y", "Y", children=[])])
    new = node("p", "Page", "CANVAS", [node("x", "X", children=[]), node("y", "Y", children=[node("m", "Moving")])])
    moved = [c for c in diff_trees(old, new, scope="s", mode="standard") if c.node_id == "m"]
    assert moved[0].kind == "moved" and moved[0].properties[0].before == "X" and moved[0].properties[0].after == "Y"


def test_summary_mode_keeps_property_names_only_and_values_read_well() -> None:
    old = node("a", "A", fills=[{"type": "SOLID", "color": {"r": 1, "g": 0, "b": 0, "a": 1}}])
    new = node("a", "A", fills=[{"type": "SOLID", "color": {"r": 0, "g": 0.5, "b": 0, "a": 1}}])
    [summary] = diff_trees(old, new, scope="s", mode="summary")
    assert summary.properties[0].before is None
    [standard] = diff_trees(old, new, scope="s", mode="standard")
    assert '"#FF0000"' in standard.properties[0].before and '"#008000"' in standard.properties[0].after
    assert describe({"x": 1.0, "y": 2.0, "width": 30.556, "height": 4}, 100) == "30.56×4 at (1, 2)"
    assert describe("x" * 50, 10) == "x" * 9 + "…"


def test_catalog_diff() -> None:
    old = {"1:1": {"name": "Button", "description": ""}, "1:2": {"name": "Icon"}}
    new = {"1:1": {"name": "Button", "description": "Primary action"}, "1:3": {"name": "Badge"}}
    changes = diff_catalog(old, new, scope="components", mode="standard")
    assert [(c.node_id, c.kind) for c in changes] == [("1:1", "changed"), ("1:2", "removed"), ("1:3", "added")]
    assert count_changes(changes)["byKind"] == {"changed": 1, "removed": 1, "added": 1}


def test_page_by_budget_pages_through_everything() -> None:
    items = [{"n": i, "text": "x" * 50} for i in range(100)]
    seen: list[Any] = []
    cursor = None
    for _ in range(100):
        page, cursor, start = page_by_budget(items, scope="t", digest="d", cursor=cursor, budget_chars=2500)
        assert page and len(json.dumps(page)) <= 2500 and start == len(seen)
        seen += page
        if cursor is None:
            break
    assert seen == items
    first_cursor = page_by_budget(items, scope="t", digest="d", budget_chars=2500)[1]
    for scope, digest, cursor in (("t", "d", "garbage"), ("t", "other", first_cursor), ("u", "d", first_cursor)):
        with pytest.raises(DesignError) as err:
            page_by_budget(items, scope=scope, digest=digest, cursor=cursor)
        assert err.value.code == "bad_argument"
    huge = [{"text": "y" * 5000}]
    assert page_by_budget(huge, scope="t", digest="d", budget_chars=100) == (huge, None, 0)


async def test_bisect_finds_the_change_in_few_probes() -> None:
    states = ["new"] * 37 + ["old"] * 163
    asked: list[int] = []

    async def same(index: int) -> bool:
        asked.append(index)
        return states[index] == states[0]

    progress: list[tuple[int, int]] = []

    async def report(done: int, total: int) -> None:
        progress.append((done, total))

    found = await bisect_history(len(states), same, report)
    assert (found.introduced, found.previous) == (36, 37)
    assert found.probes == len(asked) <= 9
    assert progress[-1][0] == found.probes and all(done <= total for done, total in progress)
    unchanged = await bisect_history(5, same)
    assert (unchanged.introduced, unchanged.previous) == (4, None)
    assert (await bisect_history(1, same)).previous is None


def test_fit_tree_trims_to_an_outline() -> None:
    leaves = [node(f"1:{i}", f"Leaf {i}", "RECTANGLE", fills=[{"type": "SOLID"}] * 20) for i in range(200)]
    tree = node("0:1", "Page", "CANVAS", [node("1:0", "Frame", children=leaves)])
    small, note = fit_tree(tree, budget_chars=4000)
    assert len(json.dumps(small)) <= 4000 and note
    assert small["children"][0]["childCount"] == 200
    same, no_note = fit_tree(node("a", "A"), budget_chars=4000)
    assert same == node("a", "A") and no_note == ""


def test_changelog_markdown_groups_by_scope() -> None:
    old = node("p", "Page", "CANVAS", [node("a", "Card", fills=[])])
    new = node("p", "Page", "CANVAS", [node("a", "Card", fills=[{"type": "SOLID"}]), node("b", "Badge")])
    changes = diff_trees(old, new, scope='page "Page"', mode="standard")
    text = changelog_markdown(
        file_name="Kit",
        from_label="v1",
        to_label="v2",
        changes=changes,
        totals=count_changes(changes),
        mode="standard",
        between=[{"id": "5", "label": "Cards", "description": "Card fills", "created_at": "2025-01-02T03:04:05Z"}],
    )
    assert text.startswith("# Changelog: Kit\n")
    assert '## Page "Page"' in text and "- Added frame **Badge** to Page" in text
    assert "- Changed frame **Card**: fills" in text and "  - fills: `[]` →" in text
    assert "- Cards (2025-01-02 03:04) — Card fills" in text


# Through the fake design API ----------------------------------------------------------------------------------------


async def test_versions_named_only_by_default(harness: Harness) -> None:
    ctx, _ = harness
    result = await ctx.run_json("design_get_file_versions", {})
    assert [v["label"] for v in result["versions"]] == [
        "Rename button",
        "Add footer",
        "Variant property",
        "Checkpoint",
        "Button colours",
        "Initial library",
    ]
    assert result["versions"][0] == {
        "id": "1000055",
        "created_at": "2025-03-19T14:00:00Z",
        "label": "Rename button",
        "description": "Button set renamed to Primary Button",
        "user": "Grace Reviewer",
    }
    assert "nextCursor" not in result


async def test_versions_with_autosaves_page_by_cursor(harness: Harness) -> None:
    ctx, _ = harness
    first = await ctx.run_json("design_get_file_versions", {"include_autosaves": True, "max_versions": 55})
    assert first["count"] == 55 and first["versions"][0]["id"] == "1000060"
    assert first["versions"][0]["autosave"] is True
    assert first["versions"][-1]["id"] == "1000006" and first["nextCursor"]
    rest = await ctx.run_json("design_get_file_versions", {"include_autosaves": True, "cursor": first["nextCursor"]})
    assert [v["id"] for v in rest["versions"]] == [str(i) for i in range(1000005, 1000000, -1)]
    assert "nextCursor" not in rest
    with pytest.raises(DesignError, match="other arguments"):
        await ctx.run("design_get_file_versions", {"cursor": first["nextCursor"]})


async def test_file_at_version_reads_nodes_and_pages(harness: Harness) -> None:
    ctx, _ = harness
    early = await ctx.run_json("design_get_file_at_version", {"version_id": "1000001", "node_ids": ["2:1", "9:9"]})
    assert [c["name"] for c in early["nodes"]["2:1"]["children"]] == ["Title", "Button"]
    assert early["missing"] == ["9:9"]
    later = await ctx.run_json("design_get_file_at_version", {"version_id": "1000040", "node_ids": ["2:1"]})
    assert [c["name"] for c in later["nodes"]["2:1"]["children"]] == ["Title", "Button", "Footer"]
    whole = await ctx.run_json("design_get_file_at_version", {"version_id": "1000001"})
    assert [p["name"] for p in whole["document"]["children"]] == ["Components", "Screens"]
    assert whole["components"] == 4 and whole["name"] == "Design System"
    with pytest.raises(DesignError) as err:
        await ctx.run("design_get_file_at_version", {"version_id": "42"})
    assert err.value.code == "not_found"


async def test_diff_pages_catalog_and_components(harness: Harness) -> None:
    ctx, fake = harness
    args = {"from_version": "1000001", "to_version": "1000060", "component_ids": ["2:1"]}
    result = await ctx.run_json("design_diff_versions", args)
    titles = {(c["scope"], c["kind"], c["node_id"]) for c in result["changes"]}
    assert ('page "Components"', "removed", "1:3") in titles
    assert ('page "Components"', "changed", "1:2") in titles
    assert ("components", "removed", "1:3") in titles
    assert ("component sets", "changed", "1:2") in titles
    assert ('component "Sign in" (2:1)', "added", "2:5") in titles
    assert ('component "Sign in" (2:1)', "changed", "2:2") in titles
    renamed = next(c for c in result["changes"] if c["node_id"] == "1:2" and c["scope"].startswith("page"))
    assert {"property": "name", "before": "Button", "after": "Primary Button"} in renamed["properties"]
    assert result["summary"]["total"] == len(result["changes"]) == 6
    before = len(fake.seen)
    again = await ctx.run_json("design_diff_versions", args)
    assert again == result
    assert len(fake.seen) == before, "pinned versions are read from the cache"


def _edit(node_id: str, field: str, value: Any, when: str) -> dict[str, Any]:
    stamp = int(datetime.fromisoformat(when).timestamp() * 1000)
    return {"seq": 1, "timestamp": stamp, "nodeId": node_id, "nodeName": "Button", "nodeType": "COMPONENT_SET",
            "field": field, "newValue": value}  # fmt: skip


async def test_diffs_add_the_edits_the_plugin_saw_in_the_window(harness: Harness) -> None:
    ctx, _ = harness
    args = {"from_version": "1000001", "to_version": "1000060", "mode": "summary"}
    assert "pluginEdits" not in await ctx.run_json("design_diff_versions", args)
    ctx.pushed["metadata_changes"] = [
        _edit("1:2", "description", "before the window", "2025-02-01T00:00:00+00:00"),
        _edit("1:2", "description", "Primary actions", "2025-03-10T00:00:00+00:00"),
        _edit("1:2", "annotations", [{"label": "x" * 1000}], "2025-03-11T00:00:00+00:00"),
        _edit("1:3", "name", "Icon/Star filled", "2025-04-01T00:00:00+00:00"),
    ]
    diff = await ctx.run_json("design_diff_versions", args)
    assert [(e["field"], e["nodeId"]) for e in diff["pluginEdits"]] == [("description", "1:2"), ("annotations", "1:2")]
    assert diff["pluginEdits"][0]["value"] == "Primary actions"
    assert diff["pluginEdits"][1]["value"].endswith("more characters]"), "long values are cut"
    since = await ctx.run_json("design_get_changes_since_version", {"since_version": "1000001", "mode": "summary"})
    assert [e["value"] for e in since["pluginEdits"]][-1] == "Icon/Star filled", "up to now when the end is current"
    changelog = await ctx.run("design_generate_changelog", args)
    markdown = changelog.content[0].text
    assert "## Edits seen live by the plugin" in markdown and '"Primary actions"' in markdown
    assert "before the window" not in markdown


async def test_summary_mode_and_changes_since(harness: Harness) -> None:
    ctx, _ = harness
    summary = await ctx.run_json(
        "design_diff_versions", {"from_version": "1000001", "to_version": "current", "mode": "summary"}
    )
    assert all(isinstance(c, str) for c in summary["changes"])
    assert any('removed COMPONENT "Icon/Star" (1:3)' in c for c in summary["changes"])
    since = await ctx.run_json("design_get_changes_since_version", {"since_version": "1000040"})
    assert {c["node_id"] for c in since["changes"]} == {"1:2", "1:3"}
    assert since["to"] == "current"


async def test_changelog_reads_like_a_changelog(harness: Harness) -> None:
    ctx, _ = harness
    output = await ctx.run(
        "design_generate_changelog",
        {"from_version": "1000001", "to_version": "1000060", "component_ids": ["2:1"]},
    )
    text = output.content[0].text
    assert text.startswith("# Changelog: Design System\n")
    assert "From **Initial library (2025-03-01 14:00, Grace Reviewer)** to **version 1000060" in text
    assert "- Rename button (2025-03-19 14:00, Grace Reviewer) — Button set renamed to Primary Button" in text
    assert "- Initial library" not in text.split("## Versions in between")[1]
    assert "- Removed component **Icon/Star** from Components" in text
    assert "- Added text **Footer** to Sign in" in text
    assert "`Welcome back` → `Sign in to continue`" in text


async def test_blame_child_property_and_window(harness: Harness) -> None:
    ctx, _ = harness
    child = await ctx.run_json("design_blame_node", {"node_id": "2:1", "target_child_node_id": "2:2"})
    assert child["introducedIn"]["id"] == "1000025" and child["previousVersion"]["id"] == "1000024"
    assert {"property": "characters", "before": "Welcome back", "after": "Sign in to continue"} in child["change"][0][
        "properties"
    ]
    assert child["walked"] == 61 and child["probes"] <= 8
    assert ctx.progress_reports and ctx.progress_reports[-1][0] == child["probes"]
    prop = await ctx.run_json("design_blame_node", {"node_id": "1:2", "target_component_property": "State"})
    assert prop["introducedIn"]["id"] == "1000045"
    assert prop["change"]["before"] == '{"type":"VARIANT","defaultValue":"Default","variantOptions":' + (
        '["Default","Hover","Disabled"]}'
    )
    named = await ctx.run_json(
        "design_blame_node",
        {"node_id": "1:2", "target_component_property": "State", "include_autosaves": False},
    )
    assert named["introducedIn"]["label"] == "Rename button" and named["previousVersion"]["label"] == "Add footer"
    window = await ctx.run_json(
        "design_blame_node", {"node_id": "2:1", "target_child_node_id": "2:2", "max_versions_to_walk": 3}
    )
    assert window["unchangedSince"]["id"] == "1000059" and "max_versions_to_walk" in window["note"]
    old = await ctx.run_json("design_blame_node", {"node_id": "1:2", "start_version": "1000050"})
    assert old["introducedIn"]["id"] == "1000045"


async def test_blame_and_file_errors(harness: Harness) -> None:
    ctx, _ = harness
    with pytest.raises(DesignError) as err:
        await ctx.run("design_blame_node", {"node_id": "1:3"})
    assert err.value.code == "not_found" and "does not exist at current" in err.value.message
    with pytest.raises(DesignError) as err:
        await ctx.run("design_blame_node", {})
    assert err.value.code == "bad_argument"
    with pytest.raises(DesignError) as err:
        await ctx.run("design_diff_versions", {"from_version": "1000002", "to_version": "1000002"})
    assert err.value.code == "bad_argument"
    with pytest.raises(DesignError) as err:
        await ctx.run("design_diff_versions", {"from_version": "1000002", "to_version": "1000003", "cursor": "zz"})
    assert err.value.code == "bad_argument"
    with pytest.raises(DesignError) as err:
        await ctx.run("design_get_file_versions", {"max_versions": 500})
    assert err.value.code == "bad_argument" and "max_versions" in str(err.value)
    ctx.active_file_key = None
    with pytest.raises(DesignError) as err:
        await ctx.run("design_get_file_versions", {})
    assert err.value.code == "no_file" and "fileUrl" in err.value.hint
    by_url = await ctx.run_json(
        "design_get_file_versions", {"fileUrl": f"https://www.figma.com/design/{HISTORY_KEY}/Kit?node-id=1-2"}
    )
    assert by_url["fileKey"] == HISTORY_KEY


async def test_every_request_was_valid_under_the_spec(harness: Harness) -> None:
    ctx, fake = harness
    await ctx.run_json("design_get_file_versions", {"include_autosaves": True, "max_versions": 200})
    await ctx.run_json("design_get_file_at_version", {"version_id": "1000010", "node_ids": ["1:2"], "depth": 1})
    paths = [(r["path"], tuple(sorted(r["query"]))) for r in fake.seen]
    assert (f"/v1/files/{HISTORY_KEY}/versions", ("page_size",)) in paths
    assert (f"/v1/files/{HISTORY_KEY}/nodes", ("depth", "ids", "version")) in paths
