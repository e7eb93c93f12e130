"""The session front answers exactly what the MCP SDK would, and hands the session over to it without a seam."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest
from mcp.server.runner import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from design_console.daemon.mcp_front import Answers, SessionFront
from design_console.daemon.mcp_host import McpSession, build_server
from design_console.protocol import ImageBlock, TextBlock, ToolOutput
from design_console.tools import catalog
from design_console.tools.apps.apps import VIEWS, AppView
from design_console.tools.base import failure, text
from design_console.tools.calls import internal_error
from design_console.tools.context import ProgressFn
from design_console.tools.wire.frames import HANDSHAKE_VERSIONS


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


async def _sdk_replies(lines: list[bytes], count: int, views: dict[str, AppView] | None = None) -> list[dict[str, Any]]:
    """What the SDK session alone answers to ``lines``."""
    inbox = Inbox()
    session = McpSession(build_server(catalog(), _caller, views), inbox.send, "sdk")
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


@pytest.mark.parametrize("apps", [False, True], ids=["plain", "with MCP Apps"])
@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "1999-01-01"])
async def test_front_answers_the_opening_as_the_sdk_does(version: str, apps: bool) -> None:
    views = VIEWS if apps else None
    expected = await _sdk_replies([_initialize(version), INITIALIZED, LIST, PING], 3, views)
    inbox = Inbox()
    front = SessionFront(Answers(catalog(), resources=apps), inbox.send, "front")
    for line in (_initialize(version), INITIALIZED, LIST, PING):
        await front.feed(line)
    assert inbox.messages == expected


async def _media_caller(name: str, arguments: dict[str, Any] | None, progress: ProgressFn, scope: Any) -> ToolOutput:
    await progress(1, 2, "half")
    await progress(2, None, "")
    if name == "design_get_status":
        return failure(internal_error(name))  # what designd's caller answers for a handler that raised
    blocks = [TextBlock(f"{name} {json.dumps(arguments)}"), ImageBlock(b"\x89PNG", "image/png")]
    return ToolOutput(content=blocks, is_error=name == "design_execute")


def _call(request_id: int, name: str, progress: str | None = None) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": {"code": "return 1"}}
    if progress is not None:
        params["_meta"] = {"progressToken": progress}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


OPENING = [_initialize("2025-11-25"), INITIALIZED]
CALLS = [_call(5, "design_get_console_logs", progress="tok"), _call(6, "design_execute"), _call(7, "design_get_status")]


async def test_front_runs_tool_calls_as_the_sdk_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Results (text, image, error flag), progress notifications and an internal error: the same bytes' meaning."""
    monkeypatch.setattr(sys.modules[__name__], "_caller", _media_caller)
    expected = await _sdk_replies(OPENING + CALLS, 1 + 2 + 3)
    inbox = Inbox()
    front = SessionFront(Answers(catalog()), inbox.send, "front", tools=catalog(), call=_media_caller)
    for line in OPENING + CALLS:
        await front.feed(line)
    out = await inbox.until(len(expected))
    key = lambda m: json.dumps(m, sort_keys=True)  # noqa: E731 (the calls run concurrently: compare as sets)
    assert sorted(map(key, out)) == sorted(map(key, expected))
    await front.close()


async def test_cancelling_a_call_the_front_runs() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow(name: str, arguments: dict[str, Any] | None, progress: ProgressFn, scope: Any) -> ToolOutput:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return text("late")

    inbox = Inbox()
    needed: list[bool] = []
    front = SessionFront(
        Answers(catalog()), inbox.send, "front", tools=catalog(), call=slow, need_sdk=lambda: needed.append(True)
    )
    for line in [*OPENING, _call(9, "design_execute")]:
        await front.feed(line)
    await asyncio.wait_for(started.wait(), 10)
    await front.feed(_line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}))
    await asyncio.wait_for(cancelled.wait(), 10)
    await front.feed(PING)
    assert [m["id"] for m in await inbox.until(2)] == [1, "p"], "a cancelled call gets no answer"
    assert not needed, "nothing here needed the SDK"
    await front.close()


async def test_what_the_front_does_not_serve_waits_for_the_sdk_in_order() -> None:
    """A tool that reads the user's files needs the client's roots: it goes to the SDK, loaded for it on demand."""
    inbox = Inbox()
    needed: list[bool] = []
    tools = catalog()
    files_tool = next(name for name, spec in tools.items() if spec.uses_files)
    front = SessionFront(
        Answers(tools), inbox.send, "front", tools=tools, call=_caller, need_sdk=lambda: needed.append(True)
    )
    await front.feed(_initialize("2025-11-25", request_id=0))
    await front.feed(INITIALIZED)
    await front.feed(_call(3, files_tool))
    await front.feed(_line({"jsonrpc": "2.0", "id": 4, "method": "resources/list"}))
    await front.feed(LIST)  # served at once, held messages or not
    assert [m["id"] for m in inbox.messages] == [0, 2] and needed
    await front.attach(build_server(tools, _caller), McpSession)
    try:
        out = await inbox.until(4)
        assert [m["id"] for m in out] == [0, 2, 3, 4], "the replayed initialize is swallowed, the rest kept in order"
        assert out[2]["result"]["content"][0]["text"].startswith(files_tool)
        assert "error" in out[3]
    finally:
        await front.close()


def _tool_call(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    params = {"name": name, "arguments": arguments}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def _listed(message: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in message["result"]["tools"]]


async def test_auto_toolsets_list_the_core_and_enable_more_per_session() -> None:
    """DESIGN_TOOLSETS=auto: a session lists the core toolset and design_toolsets; enabling a toolset lists its
    tools in that session only, announced with list_changed; a tool not listed can still be called by name."""
    tools = catalog()
    answers = Answers(tools, auto=True)
    core = sorted(name for name, spec in tools.items() if spec.toolset == "core")
    inbox, other = Inbox(), Inbox()
    front = SessionFront(answers, inbox.send, "front", tools=tools, call=_caller)
    second = SessionFront(answers, other.send, "second", tools=tools, call=_caller)
    for session in (front, second):
        for line in (_initialize(LATEST_HANDSHAKE_VERSION), INITIALIZED, LIST):
            await session.feed(line)
    listed = (await inbox.until(2))[1]
    assert sorted(_listed(listed)) == sorted([*core, "design_toolsets"])
    assert len(json.dumps(listed["result"])) < len(answers.tools_result) / 4

    await front.feed(_tool_call(10, "design_toolsets", {}))
    described = json.loads((await inbox.until(3))[2]["result"]["content"][0]["text"])
    write = next(t for t in described["toolsets"] if t["toolset"] == "write")
    assert write["enabled"] is False and "design_set_text" in write["tools"] and write["about"]
    assert {t["toolset"] for t in described["toolsets"]} >= {"core", "read", "write", "tokens", "slides"}

    await front.feed(_tool_call(11, "design_toolsets", {"enable": "write"}))
    enabled, note = (await inbox.until(5))[3:5]
    assert json.loads(enabled["result"]["content"][0]["text"])["listChanged"] is True
    assert note == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    await front.feed(LIST)
    assert "design_set_text" in _listed((await inbox.until(6))[5])
    await front.feed(_tool_call(12, "design_toolsets", {"enable": "write"}))
    again = (await inbox.until(7))[6]
    assert json.loads(again["result"]["content"][0]["text"])["listChanged"] is False
    await front.feed(_tool_call(13, "design_toolsets", {"enable": "nope"}))
    assert (await inbox.until(8))[7]["result"]["isError"] is True
    assert len(inbox.messages) == 8, "a refused or repeated enable announces nothing"

    await second.feed(LIST)
    assert "design_set_text" not in _listed((await other.until(3))[2]), "each session enables its own"
    await second.feed(_tool_call(14, "design_get_styles", {}))
    assert (await other.until(4))[3]["result"]["content"][0]["text"].startswith("design_get_styles")


async def test_without_auto_every_tool_is_listed_and_design_toolsets_is_unknown() -> None:
    tools = catalog()
    inbox = Inbox()
    front = SessionFront(Answers(tools), inbox.send, "front", tools=tools, call=_caller)
    for line in (_initialize(LATEST_HANDSHAKE_VERSION), INITIALIZED, LIST):
        await front.feed(line)
    assert sorted(_listed((await inbox.until(2))[1])) == sorted(tools)
