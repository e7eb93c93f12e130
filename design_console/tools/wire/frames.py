"""The JSON-RPC frames of an MCP session's hot path, built with msgspec and no MCP SDK import: the ``initialize``
negotiation, ``tools/call`` results, progress notes and result frames. designd's session front
(``daemon/mcp_front.py``) and the hosted service's lean path (``remote/lean.py``) both answer with these; tests pin
each to what the SDK itself sends."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import msgspec

from design_console import __version__
from design_console.protocol import TextBlock, ToolOutput
from design_console.tools.wire.listing import INSTRUCTIONS, SERVER_NAME


class Incoming(msgspec.Struct):
    """The parts of a JSON-RPC message a session's hot path decides on."""

    method: str | None = None
    id: int | str | None = None
    params: dict[str, Any] = {}


class CallMeta(msgspec.Struct):
    """The request metadata of a ``tools/call`` the hot path reads (field names are the wire's)."""

    progressToken: str | int | None = None


class CallParams(msgspec.Struct):
    """The params of a ``tools/call``."""

    name: str
    arguments: dict[str, Any] | None = None
    meta: CallMeta | None = msgspec.field(default=None, name="_meta")


class CancelParams(msgspec.Struct):
    """The params of ``notifications/cancelled``."""

    requestId: int | str | None = None


#: Reads a message a client sent.
incoming = msgspec.json.Decoder(Incoming)


def cancel_call(params: dict[str, Any], calls: Mapping[int | str, asyncio.Task[Any]], sdk_attached: bool) -> bool:
    """Cancel the call among ``calls`` that ``notifications/cancelled`` with ``params`` names (no answer follows, as
    MCP asks); False when it is not one of them and the SDK, ``sdk_attached``, may be running it."""
    try:
        request_id = msgspec.convert(params, CancelParams).requestId
    except msgspec.ValidationError:
        return False
    task = calls.get(request_id) if request_id is not None else None
    if task is None:
        return not sdk_attached  # nothing of the SDK's can be running yet: nothing to tell it
    task.cancel()
    return True


#: The handshake-era protocol versions the SDK accepts, newest last; a test pins them to the SDK's own list.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: What the server advertises (the SDK's options with ``tools_changed``); pinned to the SDK by the same test.
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": True}}
#: What the SDK adds for a server with resource handlers (the MCP App views); pinned to the SDK by the same test.
RESOURCE_CAPABILITIES: dict[str, Any] = {"resources": {"subscribe": False, "listChanged": False}}

encode = msgspec.json.Encoder().encode


def negotiated_version(requested: object) -> str:
    """The SDK's negotiation: the client's version when the server speaks it, else the newest handshake one."""
    return requested if isinstance(requested, str) and requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def initialize_result(params: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
    """The ``initialize`` result for a client's ``params``."""
    return {
        "capabilities": capabilities,
        "instructions": INSTRUCTIONS,
        "protocolVersion": negotiated_version(params.get("protocolVersion")),
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
    }


def _call_result(output: ToolOutput) -> dict[str, Any]:
    """A tool's output as the ``tools/call`` result, image bytes as they are: the JSON encoder writes them in base64
    straight into its output, so no base64 copy of an image is ever held beside it."""
    content: list[dict[str, Any]] = []
    for block in output.content:
        if isinstance(block, TextBlock):
            content.append({"text": block.text, "type": "text"})
        else:
            content.append({"data": block.data, "mimeType": block.mime_type, "type": "image"})
    return {"content": content, "isError": output.is_error}


def call_result(output: ToolOutput) -> bytes:
    """A tool's output as the ``tools/call`` result on the wire; image bytes are base64-encoded only here."""
    return encode(_call_result(output))


def call_frame(request_id: int | str, output: ToolOutput) -> bytes:
    """The JSON-RPC response carrying a tool's output, encoded in one pass: a big answer is held once on its way
    out, not once as a result and again inside its response."""
    return encode({"jsonrpc": "2.0", "id": request_id, "result": _call_result(output)})


def result_frame(request_id: int | str, result: bytes) -> bytes:
    """The JSON-RPC response carrying an encoded ``result``."""
    return b"".join((b'{"jsonrpc":"2.0","id":', encode(request_id), b',"result":', result, b"}"))


def progress_frame(token: str | int, value: float, total: float | None, message: str) -> bytes:
    """A ``notifications/progress`` for a request that asked for progress with ``token``."""
    note: dict[str, Any] = {"progressToken": token, "progress": value}
    if total is not None:
        note["total"] = total
    if message:
        note["message"] = message
    return encode({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})
