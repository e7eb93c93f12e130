"""The whole tools/list is sent into every session's context: it must stay within 60 KB for all 134 tools.

The check is a projection over the planned catalog: what is listed now, plus what each planned tool not yet declared
may add on average, must fit the budget. The catalog is complete today, so it is the listing itself; whoever plans
more tools raises CATALOG_SIZE first and learns here what room they have, and a tool declared without that fails at
once. A tool whose declaration grows past its share fails here first.
"""

from __future__ import annotations

import mcp_types as types

from design_console.tools import catalog
from design_console.tools.wire.listing import tool_entries
from design_console.tools.wire.mcp import tool_definition, tool_definitions

#: The budget of the whole tools/list payload (ARCHITECTURE.md "Performance budgets").
LIST_BUDGET = 60_000
#: The planned catalog: the 125 tools of the specification (MCP Apps tools included), the 7 design-to-code tools, and
#: the batches of any size: design_batch_delete_variables and design_batch_edit_nodes.
CATALOG_SIZE = 134
#: What one planned tool not yet declared may cost on average: most tools are one-line forwards.
REMAINING_TOOL_BYTES = 360
#: No single tool may cost more than this, however much it does.
MAX_TOOL_BYTES = 2_000


def _sizes() -> dict[str, int]:
    return {
        name: len(tool_definition(spec).model_dump_json(by_alias=True, exclude_none=True))
        for name, spec in catalog().items()
    }


def test_the_tool_list_is_on_course_for_its_budget() -> None:
    tools = catalog()
    listing = types.ListToolsResult(tools=tool_definitions(tools.values()))
    total = len(listing.model_dump_json(by_alias=True, exclude_none=True))
    remaining = CATALOG_SIZE - len(tools)
    assert remaining >= 0, (
        f"{len(tools)} tools declared but {CATALOG_SIZE} planned: raise CATALOG_SIZE and fit the budget"
    )
    projected = total + remaining * REMAINING_TOOL_BYTES
    assert projected <= LIST_BUDGET, (
        f"tools/list is {total:,} bytes for {len(tools)} tools; with {remaining} still to come at "
        f"{REMAINING_TOOL_BYTES} bytes each it would reach {projected:,} (budget {LIST_BUDGET:,}). "
        f"Largest: {sorted(_sizes().items(), key=lambda kv: -kv[1])[:5]}"
    )


def test_no_single_tool_is_oversized() -> None:
    oversized = {name: size for name, size in _sizes().items() if size > MAX_TOOL_BYTES}
    assert not oversized, f"shorten these declarations: {oversized}"


def test_the_write_tools_cost_what_a_forward_should() -> None:
    """The write group is mostly one-line forwards: on average well under the read tools' size."""
    sizes = _sizes()
    writes = [sizes[name] for name, spec in catalog().items() if spec.toolset == "write"]
    assert sum(writes) / len(writes) <= 500, sum(writes) / len(writes)


def test_no_schema_pays_for_a_struct_docstring() -> None:
    """A struct's docstring would be listed as its schema's description: the argument structs and the field sets
    they inherit carry none, since a field's own description says what the model needs."""
    described = [entry["name"] for entry in tool_entries(catalog().values()) if "description" in entry["inputSchema"]]
    assert not described, described
