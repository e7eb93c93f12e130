"""The session front answers exactly what the MCP SDK would, and hands the session over to it without a seam."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp.server.runner import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from design_console.daemon.mcp_front import HANDSHAKE_VERSIONS, Answers, SessionFront
from design_console.daemon.mcp_host import McpSession, build_server
from design_console.protocol import ToolOutput
from design_console.tools import catalog
from design_console.tools.base import text
from design_console.tools.context import ProgressFn


class Inbox:
    """What a session sends to its AI app, with a wait for the n-th message."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._grew = asyncio.Condition()

    async def send(self, data: bytes) -> None:
        async with self._grew:
            self.messages.append(json.loads(data))
            self._grew.notify_all()

    async def until(self, count: int) -> list[dict[str, Any]]:
        async with asyncio.timeout(10), self._grew:
            await self._grew.wait_for(lambda: len(self.messages) >= count)
        return self.messages


async def _caller(name: str, arguments: dict[str, Any] | None, progress: ProgressFn, scope: Any) -> ToolOutput:
    return text(f"{name} {json.dumps(arguments, sort_keys=True)}")


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def _initialize(version: str, request_id: int | str = 1) -> bytes:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params})


INITIALIZED = _line({"jsonrpc": "2.0", "method": "notifications/initialized"})
LIST = _line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
PING = _line({"jsonrpc": "2.0", "id": "p", "method": "ping"})
CALL = _line(
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "design_get_status", "arguments": {}}}
)


async def _sdk_replies(lines: list[bytes], count: int) -> list[dict[str, Any]]:
    """What the SDK session alone answers to ``lines``."""
    inbox = Inbox()
    session = McpSession(build_server(catalog(), _caller), inbox.send, "sdk")
    session.start()
    try:
        for line in lines:
            await session.feed(line)
        return await inbox.until(count)
    finally:
        await session.close()


def test_the_handshake_versions_are_the_sdks() -> None:
    assert HANDSHAKE_VERSIONS == tuple(HANDSHAKE_PROTOCOL_VERSIONS)
    assert HANDSHAKE_VERSIONS[-1] == LATEST_HANDSHAKE_VERSION


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "1999-01-01"])
async def test_front_answers_the_opening_as_the_sdk_does(version: str) -> None:
    expected = await _sdk_replies([_initialize(version), INITIALIZED, LIST, PING], 3)
    inbox = Inbox()
    front = SessionFront(Answers(catalog()), inbox.send, "front")
    for line in (_initialize(version), INITIALIZED, LIST, PING):
        await front.feed(line)
    assert inbox.messages == expected


async def test_held_messages_reach_the_sdk_in_order_after_the_replayed_opening() -> None:
    inbox = Inbox()
    front = SessionFront(Answers(catalog()), inbox.send, "front")
    await front.feed(_initialize("2025-11-25", request_id=0))
    await front.feed(INITIALIZED)
    await front.feed(CALL)  # held: only the SDK runs tools
    await front.feed(LIST)  # held too, so that it cannot overtake the call
    assert [m["id"] for m in inbox.messages] == [0]
    await front.attach(build_server(catalog(), _caller), McpSession)
    try:
        await front.feed(PING)  # answered by the SDK after everything before it
        out = await inbox.until(4)
        assert [m["id"] for m in out] == [0, 3, 2, "p"], "the replayed initialize is swallowed, the rest kept in order"
        assert out[1]["result"]["content"][0]["text"] == "design_get_status {}"
        assert out[3] == {"jsonrpc": "2.0", "id": "p", "result": {}}
    finally:
        await front.close()
