"""The catalog as ``tools/list`` lists it, in plain JSON-ready data: no MCP SDK import, so designd can answer a
session's opening without loading the SDK (``daemon/mcp_front.py``), and the SDK-typed form (``wire/mcp.py``) is
built from the same entries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from design_console.engines.shaping import MIN_RESULT_TOKENS
from design_console.tools.base import DEFAULT_RESULT_TOKENS, MAX_RESULT_TOKENS, ToolSpec
from design_console.tools.schema import input_schemas

SERVER_NAME = "design-console-mcp"

INSTRUCTIONS = (
    "Live access to the design tool through the Desktop Bridge plugin. Start with design_get_status; "
    "if no plugin is connected, every bridge tool returns the setup steps. fileUrl takes a file's URL or key and "
    "fileKey a connected file's key; both default to the active file. A read that has more to give answers with "
    "nextCursor: pass it back as cursor for the next part. maxTokens sets the size of such a part: "
    f"{MIN_RESULT_TOKENS}-{MAX_RESULT_TOKENS} (clamped), default {DEFAULT_RESULT_TOKENS}."
)


def tool_annotations(spec: ToolSpec) -> dict[str, bool]:
    """Annotations sent only where they differ from MCP's defaults (not read-only, destructive, not idempotent, open
    world): the tool list is paid for in every session's context."""
    hints: dict[str, bool] = {}
    if spec.read_only:
        hints["readOnlyHint"] = True
    else:
        if not spec.destructive:
            hints["destructiveHint"] = False
        if spec.idempotent:
            hints["idempotentHint"] = True
    if not spec.open_world:
        hints["openWorldHint"] = False
    return hints


def app_only(spec: ToolSpec) -> bool:
    """A tool only an MCP App calls: hosts keep it from the model, so it is listed without a description."""
    ui: dict[str, Any] = spec.extra.get("ui", {})
    return ui.get("visibility") == ["app"]


def tool_entries(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Tools of ``tools/list`` as they go on the wire, in order; their schemas come from one pass over all their
    argument structs (:func:`~design_console.tools.schema.input_schemas`)."""
    specs = list(specs)
    schemas = input_schemas([spec.args for spec in specs])
    return [_entry(spec, schema) for spec, schema in zip(specs, schemas, strict=True)]


def _entry(spec: ToolSpec, schema: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": spec.name}
    if not app_only(spec):
        entry["description"] = spec.description
    entry["inputSchema"] = schema
    entry["annotations"] = tool_annotations(spec)
    if spec.extra:
        entry["_meta"] = spec.extra
    return entry
