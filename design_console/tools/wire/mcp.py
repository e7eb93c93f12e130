"""The MCP form of catalog entries and tool outputs: tool definitions, call results, the server instructions."""

from __future__ import annotations

import base64
from typing import Any

import mcp_types as types

from design_console.protocol import ImageBlock, TextBlock, ToolOutput
from design_console.tools.base import DEFAULT_RESULT_TOKENS, MAX_RESULT_TOKENS, ToolSpec
from design_console.tools.schema import input_schema
from design_console.tools.shaping import MIN_RESULT_TOKENS

INSTRUCTIONS = (
    "Live access to the design tool through the Desktop Bridge plugin. Start with design_get_status; "
    "if no plugin is connected, every bridge tool returns the setup steps. fileUrl takes a file's URL or key and "
    "fileKey a connected file's key; both default to the active file. A read that has more to give answers with "
    "nextCursor: pass it back as cursor for the next part. maxTokens sets the size of such a part: "
    f"{MIN_RESULT_TOKENS}-{MAX_RESULT_TOKENS} (clamped), default {DEFAULT_RESULT_TOKENS}."
)


def _app_only(spec: ToolSpec) -> bool:
    ui: dict[str, Any] = spec.extra.get("ui", {})
    return ui.get("visibility") == ["app"]


def tool_definition(spec: ToolSpec) -> types.Tool:
    """The MCP ``Tool`` of one catalog entry.

    Annotations are sent only where they differ from MCP's defaults (not read-only, destructive, not idempotent,
    open world), and no description for a tool that only an MCP App calls (hosts keep it from the model): the tool
    list is paid for in every session's context.
    """
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
    return types.Tool(
        name=spec.name,
        description=None if _app_only(spec) else spec.description,
        input_schema=input_schema(spec.args),
        annotations=types.ToolAnnotations.model_validate(hints),
        _meta=spec.extra or None,
    )


def to_call_tool_result(output: ToolOutput) -> types.CallToolResult:
    """Turn a handler's output into the wire result; image bytes are base64-encoded only here, at the last hop."""
    content: list[types.ContentBlock] = []
    for block in output.content:
        if isinstance(block, TextBlock):
            content.append(types.TextContent(text=block.text))
        elif isinstance(block, ImageBlock):
            content.append(types.ImageContent(data=base64.b64encode(block.data).decode(), mime_type=block.mime_type))
    return types.CallToolResult(content=content, is_error=output.is_error)
