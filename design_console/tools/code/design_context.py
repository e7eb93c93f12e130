"""design_get_design_context: code (HTML, React with Tailwind, Vue) for a node's subtree, from the plugin's node data.

The answer is paged as one stream: the code first, then (for React and Vue, whose images are files) each image's
base64 data; a cursor continues where the last page stopped.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from msgspec import Meta

from design_console.engines import shaping
from design_console.engines.codegen import html, react, vue
from design_console.engines.codegen.build import Builder, Built
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import NodeId, PagedArgs
from design_console.tools.base import code_read, ok
from design_console.tools.code.node_read import Tree, read_nodes
from design_console.tools.context import ApiContext

Framework = Literal["react-tailwind", "html", "vue"]
FRAMEWORKS: tuple[str, ...] = ("react-tailwind", "html", "vue")
#: How deep code is generated below the node.
CODE_DEPTH = 30


#: How many recent answers the worker keeps, so that the pages after the first are cut from the code the first page
#: came from, without reading the layers again; past them, a cursor into a file that changed since is refused.
RECENT_CALLS = 4


@dataclass(frozen=True, slots=True)
class _Generated:
    version: str
    streams: list[str]
    built: Built
    truncated: bool


_RECENT: OrderedDict[tuple[str, str], _Generated] = OrderedDict()


class DesignContextArgs(PagedArgs, kw_only=True):
    nodeId: NodeId | None = None
    framework: Annotated[str, Meta(extra_json_schema={"enum": list(FRAMEWORKS)})] = "react-tailwind"


def generate(tree: Tree, framework: str) -> tuple[str, Built]:
    """The code of a read subtree in ``framework`` and what was built for it."""
    if not tree.roots:
        raise DesignError(ErrorCode.NOT_FOUND, "Nothing to write: the page is empty.", "Select a layer or pass nodeId.")
    built = Builder(tree.nodes, tree.variables, tree.images, embed=framework == "html").build(tree.roots)
    if not built.roots:
        raise DesignError(ErrorCode.BAD_ARGUMENT, "The layer is hidden: there is nothing to draw.", "Show it first.")
    name = str(tree.nodes[tree.roots[0]].get("name") or "Design") if len(tree.roots) == 1 else "Design"
    if framework == "html":
        return html.document(built, name), built
    if framework == "vue":
        return vue.component(built), built
    return react.module(built, name), built


def answer_head(framework: str, built: Built) -> dict[str, Any]:
    """What the first page lists beside the code: each asset with the path the code refers to it by, except in
    HTML, which embeds its images."""
    embedded = framework == "html"
    return {
        "framework": framework,
        "tokens": built.vars.tokens(),
        "assets": [
            {
                "nodeId": a.node_id,
                "fileName": a.file_name,
                **({} if embedded else {"path": a.path}),
                "mimeType": a.mime,
                "bytes": len(a.data) * 3 // 4,
            }
            for a in built.assets
        ],
        "components": built.components,
        "warnings": built.warnings,
    }


@code_read("design_get_design_context", "Code for a node, with the tokens, assets, components it uses.")
async def design_get_design_context(ctx: ApiContext, args: DesignContextArgs) -> ToolOutput:
    """One page of the code stream; ``nextCursor`` continues it."""
    if args.framework not in FRAMEWORKS:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"No code is written for framework {args.framework!r}.",
            f"Use one of: {', '.join(FRAMEWORKS)}.",
        )
    digest = shaping.request_digest(args.nodeId or "", args.framework)
    key = (ctx.active_file_key or "", digest)
    recent = _RECENT.get(key) if args.cursor else None
    position: Any = None
    if recent is not None:
        try:
            position = shaping.decode_cursor(args.cursor or "", "design_context", digest, recent.version)
        except DesignError:
            recent = None
    if recent is None:
        tree = await read_nodes(ctx, args.nodeId, depth=CODE_DEPTH, full=True, media=True)
        code, built = generate(tree, args.framework)
        streams = [code] + ([] if args.framework == "html" else [a.data for a in built.assets])
        version = hashlib.sha256("\0".join(streams).encode()).hexdigest()[:16]
        recent = _Generated(version, streams, built, tree.truncated)
        position = shaping.decode_cursor(args.cursor, "design_context", digest, version) if args.cursor else [0, 0]
    _RECENT[key] = recent
    _RECENT.move_to_end(key)
    while len(_RECENT) > RECENT_CALLS:
        _RECENT.popitem(last=False)
    streams, built, version = recent.streams, recent.built, recent.version
    part, offset = (int(position[0]), int(position[1])) if isinstance(position, list) and len(position) == 2 else (0, 0)
    budget = shaping.budget_chars(args.maxTokens)
    result: dict[str, Any] = answer_head(args.framework, built) if (part, offset) == (0, 0) else {}
    if recent.truncated:
        result.setdefault("warnings", []).append("The subtree is larger than one read: the code stops at its limit.")
    room = max(1_000, budget - shaping.size_of(result))
    data_parts: list[dict[str, Any]] = []
    while part < len(streams) and room > 0:
        piece = streams[part][offset : offset + room]
        if part == 0:
            result["code"] = piece
        else:
            asset = built.assets[part - 1]
            data_parts.append({"nodeId": asset.node_id, "fileName": asset.file_name, "offset": offset, "data": piece})
        room -= len(piece)
        offset += len(piece)
        if offset >= len(streams[part]):
            part, offset = part + 1, 0
    if data_parts:
        result["assetData"] = data_parts
    more = part < len(streams)
    next_cursor = shaping.encode_cursor("design_context", digest, [part, offset], version) if more else None
    return ok(shaping.paged({"framework": args.framework, **result}, next_cursor))
