"""Comment tools against the spec-validating fake design API, with the comments of fixtures/history/comments.json."""

from __future__ import annotations

import json

import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext
from fakes.design_api import ENTERPRISE_KEY, FakeDesignApi

from design_console.errors import DesignError
from design_console.tools import catalog

Harness = tuple[FakeContext, FakeDesignApi]


@pytest.fixture
def harness(ctx: FakeContext, fake_api: ApiServer) -> Harness:
    """The api worker's context with the file of the comment fixtures active, and the fake behind it."""
    ctx.active_file_key = ENTERPRISE_KEY
    return ctx, fake_api.fake


async def test_threads_newest_first_with_replies_and_reactions(harness: Harness) -> None:
    ctx, fake = harness
    result = await ctx.run_json("design_get_comments", {})
    assert [c["id"] for c in result["comments"]] == ["105", "101"]
    assert result["threads"] == 2 and "nextCursor" not in result
    newest, thread = result["comments"]
    assert newest == {
        "id": "105",
        "author": "Grace Reviewer",
        "message": "Can we add a **forgot password** link here?",
        "created_at": "2025-03-08T15:30:00Z",
        "number": "3",
        "position": {"x": 180.5, "y": 640},
    }
    assert thread["node_id"] == "2:2" and thread["position"] == {"x": 12, "y": 4}
    assert thread["reactions"] == {":eyes:": 1}
    assert [r["id"] for r in thread["replies"]] == ["102", "103"]
    assert thread["replies"][1]["reactions"] == {":+1:": 2}
    assert fake.seen[-1]["query"] == {}


async def test_resolved_threads_and_markdown_on_request(harness: Harness) -> None:
    ctx, fake = harness
    result = await ctx.run_json("design_get_comments", {"include_resolved": True, "as_md": True})
    assert [c["id"] for c in result["comments"]] == ["105", "104", "101"]
    assert result["comments"][1]["resolved_at"] == "2025-03-07T09:00:00Z"
    assert fake.seen[-1]["query"] == {"as_md": "true"}


async def test_post_pinned_comment_and_reply_then_delete(harness: Harness) -> None:
    ctx, fake = harness
    pinned = await ctx.run_json("design_post_comment", {"message": "Align this", "node_id": "2:3", "x": 5, "y": 6})
    pinned_meta = {"node_id": "2:3", "node_offset": {"x": 5, "y": 6}}
    assert fake.last_body == {"message": "Align this", "client_meta": pinned_meta}
    assert pinned["posted"]["node_id"] == "2:3" and pinned["posted"]["author"] == "Ada Designer"
    point = await ctx.run_json("design_post_comment", {"message": "Here", "x": 10.5, "y": 20})
    assert fake.last_body == {"message": "Here", "client_meta": {"x": 10.5, "y": 20}}
    reply = await ctx.run_json("design_post_comment", {"message": "Done", "reply_to_comment_id": "105"})
    assert fake.last_body == {"message": "Done", "comment_id": "105"}
    listed = await ctx.run_json("design_get_comments", {})
    ids = [c["id"] for c in listed["comments"]]
    assert ids[:2] == [point["posted"]["id"], pinned["posted"]["id"]]
    assert next(c for c in listed["comments"] if c["id"] == "105")["replies"][0]["id"] == reply["posted"]["id"]
    deleted = await ctx.run_json("design_delete_comment", {"comment_id": pinned["posted"]["id"]})
    assert deleted == {"fileKey": ENTERPRISE_KEY, "deleted": pinned["posted"]["id"]}
    after = await ctx.run_json("design_get_comments", {})
    assert pinned["posted"]["id"] not in [c["id"] for c in after["comments"]]
    with pytest.raises(DesignError) as err:
        await ctx.run("design_delete_comment", {"comment_id": pinned["posted"]["id"]})
    assert err.value.code == "not_found"


@pytest.mark.parametrize(
    "arguments",
    [
        {"message": "   "},
        {"message": ""},
        {"message": "x" * 10_001},
        {"message": "Hi", "x": 3},
        {"message": "Hi", "reply_to_comment_id": "105", "node_id": "2:3"},
        {"message": "Hi", "reply_to_comment_id": "../../secrets"},
        {"message": "Hi", "node_id": "2:3", "colour": "red"},
    ],
)
async def test_bad_post_arguments_never_reach_the_api(harness: Harness, arguments: dict) -> None:
    ctx, fake = harness
    with pytest.raises(DesignError) as err:
        await ctx.run("design_post_comment", arguments)
    assert err.value.code == "bad_argument" and str(err.value).startswith("[design-console-mcp] ")
    assert fake.seen == []


async def test_delete_refuses_path_like_ids(harness: Harness) -> None:
    ctx, fake = harness
    with pytest.raises(DesignError) as err:
        await ctx.run("design_delete_comment", {"comment_id": "101/../../x"})
    assert err.value.code == "bad_argument" and fake.seen == []


async def test_many_threads_page_by_cursor(harness: Harness) -> None:
    ctx, fake = harness
    stored = fake.files[ENTERPRISE_KEY]
    template = stored.comments[-1]
    stored.comments = [
        {**template, "id": str(1000 + i), "created_at": f"2025-05-01T{i // 60:02d}:{i % 60:02d}:00Z",
         "message": f"Comment {i}: " + "detail " * 60}
        for i in range(200)
    ]  # fmt: skip
    seen: list[str] = []
    cursor: str | None = None
    for _ in range(20):
        result = await ctx.run_json("design_get_comments", {"cursor": cursor} if cursor else {})
        assert len(result["comments"]) < 200 and len(json.dumps(result)) < 36_000
        seen += [c["id"] for c in result["comments"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert seen == [str(1000 + i) for i in range(199, -1, -1)]


async def test_other_files_and_missing_file(harness: Harness) -> None:
    ctx, _ = harness
    with pytest.raises(DesignError) as err:
        await ctx.run("design_get_comments", {"fileUrl": "https://www.figma.com/design/NoSuchFile123/x"})
    assert err.value.code == "not_found"
    ctx.active_file_key = None
    with pytest.raises(DesignError) as err:
        await ctx.run("design_get_comments", {})
    assert err.value.code == "no_file"


def test_writing_comment_tools_are_annotated_as_writes() -> None:
    tools = catalog()
    assert tools["design_get_comments"].read_only and tools["design_get_comments"].toolset == "read"
    post, delete = tools["design_post_comment"], tools["design_delete_comment"]
    assert not post.read_only and not post.destructive and post.toolset == "write"
    assert not delete.read_only and delete.destructive and delete.toolset == "write"
