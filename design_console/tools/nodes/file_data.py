"""File data through the design API: the shaped file tree, and the tree reduced to what a plugin needs."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from design_console.protocol import ToolOutput
from design_console.tools.args import FilePagedArgs, NodeId
from design_console.tools.base import api_read, ok
from design_console.tools.context import ApiContext
from design_console.tools.files import file_key_for
from design_console.tools.nodes.file_tree import walk_file


class FileDataArgs(FilePagedArgs):
    depth: Annotated[int, msgspec.Meta(ge=0, le=3)] = 1
    verbosity: Literal["summary", "standard", "full"] = "summary"
    nodeIds: list[NodeId] | None = None
    enrich: bool = False


@api_read("design_get_file_data", "File structure via the design API: pages and nodes to `depth`.")
async def design_get_file_data(ctx: ApiContext, args: FileDataArgs) -> ToolOutput:
    """Shaped file tree, one budget-sized part at a time."""
    key = file_key_for(ctx, args.fileUrl)
    return ok(
        await walk_file(
            ctx,
            key,
            "file_data",
            depth=args.depth,
            verbosity=args.verbosity,
            node_ids=args.nodeIds,
            page=args,
            enrich=args.enrich,
        )
    )


class FileForPluginArgs(FilePagedArgs):
    depth: Annotated[int, msgspec.Meta(ge=0, le=5)] = 2
    nodeIds: list[NodeId] | None = None


@api_read("design_get_file_for_plugin", "File tree: ids, names, types, shared plugin data.")
async def design_get_file_for_plugin(ctx: ApiContext, args: FileForPluginArgs) -> ToolOutput:
    """Structure and plugin data of a file."""
    key = file_key_for(ctx, args.fileUrl)
    return ok(
        await walk_file(
            ctx,
            key,
            "file_for_plugin",
            depth=args.depth,
            verbosity="plugin",
            node_ids=args.nodeIds,
            page=args,
            extra_params={"plugin_data": "shared"},
        )
    )
