"""Component reads through the design API: metadata or reconstruction, a development view, a render URL."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

import msgspec

from design_console.engines import component_code
from design_console.errors import DesignError
from design_console.protocol import ToolOutput
from design_console.tools.args import FileUrl, NodeArgs, NodePagedArgs
from design_console.tools.base import api_read, ok
from design_console.tools.components.component_data import component_metadata, fetch_node, render_url
from design_console.tools.context import ApiContext
from design_console.tools.files import file_key_for
from design_console.tools.nodes.file_tree import walk_file


class ComponentArgs(NodePagedArgs):
    fileUrl: FileUrl | None = None
    format: Literal["metadata", "reconstruction"] = "metadata"
    enrich: bool = False


@api_read(
    "design_get_component",
    "A component's key, description, properties, variants; format=reconstruction: node tree; enrich: local "
    "description.",
)
async def design_get_component(ctx: ApiContext, args: ComponentArgs) -> ToolOutput:
    """Component metadata or reconstruction spec."""
    key = file_key_for(ctx, args.fileUrl)
    nid = args.nodeId
    if args.format == "reconstruction":
        return ok(
            await walk_file(
                ctx,
                key,
                "component",
                depth=3,
                verbosity="full",
                node_ids=[nid],
                page=args,
            )
        )
    result = component_metadata(await fetch_node(ctx, key, nid, 1))
    if args.enrich:
        result["plugin"] = await plugin_extra(ctx, "GET_COMPONENT", {"nodeId": nid}, key)
    return ok(result)


async def plugin_extra(ctx: ApiContext, method: str, params: dict[str, Any], key: str) -> Any:
    """What the plugin adds, or a note saying why it could not."""
    try:
        reply = await ctx.bridge(method, params, file_key=key)
    except DesignError as exc:
        return {"unavailable": exc.message}
    reply = dict(reply)
    reply.pop("success", None)
    return reply


class DevArgs(NodePagedArgs):
    fileUrl: FileUrl | None = None
    includeImage: bool = True
    codebasePath: str | None = None


@api_read(
    "design_get_component_for_development",
    "A component's tree (depth 4): layout, colours, bound variables, annotations, render URL; codebasePath: source "
    "files.",
)
async def design_get_component_for_development(ctx: ApiContext, args: DevArgs) -> ToolOutput:
    """Node tree + annotations + render for implementing a component."""
    key = file_key_for(ctx, args.fileUrl)
    nid = args.nodeId
    result = await walk_file(
        ctx,
        key,
        "component_dev",
        depth=4,
        verbosity="standard",
        node_ids=[nid],
        page=args,
    )
    if not args.cursor:
        result["annotations"] = await plugin_extra(
            ctx, "GET_ANNOTATIONS", {"nodeId": nid, "includeChildren": True, "depth": 4}, key
        )
        if args.includeImage:
            result["image"] = await render_url(ctx, key, nid, 2, "png")
        if args.codebasePath and result["nodes"]:
            name = str(result["nodes"][0].get("name", ""))
            result["codebase"] = await asyncio.to_thread(component_code.find_component_code, args.codebasePath, name)
    return ok(result)


class ImageArgs(NodeArgs):
    fileUrl: FileUrl | None = None
    scale: Annotated[float, msgspec.Meta(ge=0.01, le=4)] = 2
    format: Literal["png", "jpg", "svg", "pdf"] = "png"


@api_read("design_get_component_image", "Render a node via the design API: image URL (valid 30 days).")
async def design_get_component_image(ctx: ApiContext, args: ImageArgs) -> ToolOutput:
    """Rendered image URL of a node."""
    key = file_key_for(ctx, args.fileUrl)
    return ok(await render_url(ctx, key, args.nodeId, args.scale, args.format))
