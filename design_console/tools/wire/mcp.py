"""The MCP form of catalog entries and tool outputs: tool definitions, call results, the server instructions."""

from __future__ import annotations

import base64
from collections.abc import Iterable

import mcp_types as types

from design_console.protocol import ImageBlock, TextBlock, ToolOutput
from design_console.tools.base import ToolSpec
from design_console.tools.wire.listing import INSTRUCTIONS, tool_entries

__all__ = ["INSTRUCTIONS", "to_call_tool_result", "tool_definition", "tool_definitions"]


def tool_definitions(specs: Iterable[ToolSpec]) -> list[types.Tool]:
    """The MCP ``Tool``s of catalog entries: their ``tools/list`` entries (``wire/listing.py``) as the SDK's type."""
    return [types.Tool.model_validate(entry, by_alias=True) for entry in tool_entries(specs)]


def tool_definition(spec: ToolSpec) -> types.Tool:
    """The MCP ``Tool`` of one catalog entry (see :func:`tool_definitions`, which lists many at less cost)."""
    return tool_definitions([spec])[0]


def to_call_tool_result(output: ToolOutput) -> types.CallToolResult:
    """Turn a handler's output into the wire result; image bytes are base64-encoded only here, at the last hop."""
    content: list[types.ContentBlock] = []
    for block in output.content:
        if isinstance(block, TextBlock):
            content.append(types.TextContent(text=block.text))
        elif isinstance(block, ImageBlock):
            content.append(types.ImageContent(data=base64.b64encode(block.data).decode(), mime_type=block.mime_type))
    return types.CallToolResult(content=content, is_error=output.is_error)
