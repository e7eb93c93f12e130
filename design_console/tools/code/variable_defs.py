"""design_get_variable_defs: the variables and styles a node's layers use, with values per mode and CSS names."""

from __future__ import annotations

from design_console.engines.codegen.variables import definitions
from design_console.protocol import ToolOutput
from design_console.tools.args import NodeId
from design_console.tools.base import Args, code_read, ok
from design_console.tools.code.design_context import CODE_DEPTH
from design_console.tools.code.node_read import read_nodes
from design_console.tools.context import ApiContext


class VariableDefsArgs(Args):
    nodeId: NodeId | None = None


@code_read("design_get_variable_defs", "Variables and styles a node's layers use: values per mode, CSS names.")
async def design_get_variable_defs(ctx: ApiContext, args: VariableDefsArgs) -> ToolOutput:
    """Every variable bound in the subtree (on which properties, by how many layers) and the styles applied."""
    tree = await read_nodes(ctx, args.nodeId, depth=CODE_DEPTH, full=True)
    result = {"layers": len(tree.nodes), **definitions(tree.nodes, tree.variables, tree.styles)}
    if tree.truncated:
        result["truncated"] = "The subtree is larger than one read: layers past the limit are not counted."
    return ok(result)
