"""Comment tools: read a file's comment threads, post a comment or reply, delete a comment (the design API)."""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from design_console.engines import shaping
from design_console.engines.history_diff import page_by_budget
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import Cursor, FileArgs, NodeId
from design_console.tools.base import api_read, api_write, ok
from design_console.tools.context import ApiContext
from design_console.tools.files import file_key_for

#: Longest comment we send; longer text is almost certainly a mistake (a pasted file), not a comment.
MAX_MESSAGE_CHARS = 10_000
CommentId = Annotated[str, Meta(pattern=r"^[0-9A-Za-z_-]{1,64}$", description="Id from design_get_comments")]


def compact_comment(comment: dict[str, Any]) -> dict[str, Any]:
    """A comment as a model reads it: author handle, text, dates, where it is pinned, reaction counts."""
    out: dict[str, Any] = {
        "id": str(comment.get("id", "")),
        "author": (comment.get("user") or {}).get("handle", ""),
        "message": comment.get("message", ""),
        "created_at": comment.get("created_at"),
    }
    if comment.get("order_id"):
        out["number"] = comment["order_id"]
    if comment.get("resolved_at"):
        out["resolved_at"] = comment["resolved_at"]
    meta = comment.get("client_meta") or {}
    if meta.get("node_id"):
        out["node_id"] = meta["node_id"]
    offset = meta.get("node_offset") or meta
    if isinstance(offset.get("x"), int | float) and isinstance(offset.get("y"), int | float):
        out["position"] = {"x": offset["x"], "y": offset["y"]}
    reactions: dict[str, int] = {}
    for reaction in comment.get("reactions") or []:
        emoji = reaction.get("emoji")
        if emoji:
            reactions[emoji] = reactions.get(emoji, 0) + 1
    if reactions:
        out["reactions"] = reactions
    return out


def threads(comments: list[dict[str, Any]], *, include_resolved: bool) -> list[dict[str, Any]]:
    """Top-level comments newest first, each with its replies (oldest first) under ``replies``.

    A resolved thread is left out unless ``include_resolved``; a reply whose parent is not in the list (the API can
    return orphans) becomes a thread of its own.
    """
    ids = {str(c.get("id")) for c in comments}
    roots = [c for c in comments if not c.get("parent_id") or str(c["parent_id"]) not in ids]
    replies: dict[str, list[dict[str, Any]]] = {}
    for comment in comments:
        parent = str(comment.get("parent_id") or "")
        if parent and parent in ids:
            replies.setdefault(parent, []).append(comment)
    out = []
    for root in sorted(roots, key=lambda c: str(c.get("created_at", "")), reverse=True):
        if root.get("resolved_at") and not include_resolved:
            continue
        entry = compact_comment(root)
        kids = sorted(replies.get(str(root.get("id")), []), key=lambda c: str(c.get("created_at", "")))
        if kids:
            entry["replies"] = [compact_comment(c) for c in kids]
        out.append(entry)
    return out


class GetCommentsArgs(FileArgs, kw_only=True):
    as_md: bool = False
    include_resolved: bool = False
    cursor: Cursor | None = None


@api_read("design_get_comments", "A file's comment threads, newest first, with replies, authors, pinned node.")
async def get_comments(ctx: ApiContext, args: GetCommentsArgs) -> ToolOutput:
    key = file_key_for(ctx, args.fileUrl)
    body = await ctx.api.request(
        "GET", f"/v1/files/{key}/comments", params={"as_md": True} if args.as_md else None, cache="none"
    )
    comments = body.get("comments") if isinstance(body, dict) else None
    if not isinstance(comments, list):
        raise DesignError(ErrorCode.BAD_RESPONSE, "The design API's comment list has no comments array.", "Try again.")
    listed = threads([c for c in comments if isinstance(c, dict)], include_resolved=args.include_resolved)
    digest = shaping.request_digest(key, args.as_md, args.include_resolved)
    page, rest, _ = page_by_budget(listed, scope="comments", digest=digest, cursor=args.cursor)
    result: dict[str, Any] = {"fileKey": key, "threads": len(listed), "comments": page}
    if rest is not None:
        result["nextCursor"] = rest
        result["note"] = "More threads than fit in one result: call again with cursor=nextCursor."
    return ok(result)


class PostCommentArgs(FileArgs, kw_only=True):
    message: Annotated[str, Meta(min_length=1, max_length=MAX_MESSAGE_CHARS)]
    node_id: NodeId | None = None
    x: float | None = None
    y: float | None = None
    reply_to_comment_id: CommentId | None = None


def comment_body(args: PostCommentArgs) -> dict[str, Any]:
    """The request body of ``POST /v1/files/:key/comments`` for these arguments; raises DesignError when they
    contradict each other."""
    if not args.message.strip():
        raise DesignError(ErrorCode.BAD_ARGUMENT, "The comment message is empty.", "Pass the text to post as message.")
    if (args.x is None) != (args.y is None):
        raise DesignError(ErrorCode.BAD_ARGUMENT, "Pass both x and y, or neither.", "x and y place the comment pin.")
    body: dict[str, Any] = {"message": args.message}
    if args.reply_to_comment_id:
        if args.node_id or args.x is not None:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT,
                "A reply sits in its thread and takes no node_id, x or y.",
                "Drop them, or post a new comment instead of a reply.",
            )
        body["comment_id"] = args.reply_to_comment_id
    elif args.node_id:
        body["client_meta"] = {"node_id": args.node_id, "node_offset": {"x": args.x or 0, "y": args.y or 0}}
    elif args.x is not None:
        body["client_meta"] = {"x": args.x, "y": args.y}
    return body


@api_write(
    "design_post_comment", "Comment on a node (node_id, offset x/y) or canvas point (x/y), or reply to a comment."
)
async def post_comment(ctx: ApiContext, args: PostCommentArgs) -> ToolOutput:
    body = comment_body(args)
    key = file_key_for(ctx, args.fileUrl)
    posted = await ctx.api.request("POST", f"/v1/files/{key}/comments", json=body, cache="none")
    if not isinstance(posted, dict) or "id" not in posted:
        raise DesignError(
            ErrorCode.BAD_RESPONSE, "The design API did not return the posted comment.", "Check the file."
        )
    return ok({"fileKey": key, "posted": compact_comment(posted)})


class DeleteCommentArgs(FileArgs, kw_only=True):
    comment_id: CommentId


@api_write("design_delete_comment", "Delete a comment (only the token's own).", destructive=True, idempotent=True)
async def delete_comment(ctx: ApiContext, args: DeleteCommentArgs) -> ToolOutput:
    key = file_key_for(ctx, args.fileUrl)
    await ctx.api.request("DELETE", f"/v1/files/{key}/comments/{args.comment_id}", cache="none")
    return ok({"fileKey": key, "deleted": args.comment_id})
