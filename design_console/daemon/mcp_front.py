"""The front of every AI app session: it answers the opening of a session before the MCP SDK is loaded.

Importing the SDK and building its server costs designd about half a second, most of a cold start. designd binds
its control socket without it and loads it in the background; meanwhile :class:`SessionFront` answers the handshake
era's ``initialize``, ``ping`` and ``tools/list`` itself and holds every other message. Once the SDK server exists,
the front replays ``initialize`` and ``notifications/initialized`` into a real session (swallowing the duplicate
reply, as the shim does after a designd restart), hands it the held messages in order, and from then on only
passes messages through. Nothing here imports the SDK: the answers are built from the catalog with msgspec, and a
test pins them to what the SDK itself answers.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from design_console import __version__
from design_console.runtime.user_files import FileScope
from design_console.tools.base import ToolSpec
from design_console.tools.schema import input_schema

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

log = logging.getLogger("design_console.mcp")

SERVER_NAME = "design-console-mcp"

INSTRUCTIONS = (
    "Live access to the design tool through the Desktop Bridge plugin. Start with design_get_status; "
    "if no plugin is connected, every bridge tool returns the setup steps. fileUrl takes a file's URL or key and "
    "fileKey a connected file's key; both default to the active file. A read that has more to give answers with "
    "nextCursor: pass it back as cursor for the next part."
)

#: The handshake-era protocol versions the SDK accepts, newest last; a test pins them to the SDK's own list.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: What the server advertises (the SDK's options with ``tools_changed``); pinned to the SDK by the same test.
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": True}}


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


def tool_entry(spec: ToolSpec) -> dict[str, Any]:
    """One tool of ``tools/list`` as it goes on the wire."""
    return {
        "annotations": tool_annotations(spec),
        "description": spec.description,
        "inputSchema": input_schema(spec.args),
        "name": spec.name,
    }


class Answers:
    """The session-opening replies, built once per designd from its catalog."""

    def __init__(self, tools: dict[str, ToolSpec]) -> None:
        self.tools_result = msgspec.json.encode({"tools": [tool_entry(spec) for spec in tools.values()]})

    def initialize_result(self, params: dict[str, Any]) -> dict[str, Any]:
        """The SDK's negotiation: the client's version when the server speaks it, else the newest handshake one."""
        requested = params.get("protocolVersion")
        return {
            "capabilities": CAPABILITIES,
            "instructions": INSTRUCTIONS,
            "protocolVersion": requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
            "serverInfo": {"name": SERVER_NAME, "version": __version__},
        }


class _Request(msgspec.Struct):
    """The parts of a JSON-RPC message the front decides on."""

    method: str | None = None
    id: int | str | None = None
    params: dict[str, Any] = {}


class _Reply(msgspec.Struct):
    id: int | str | None = None


_request = msgspec.json.Decoder(_Request)
_reply = msgspec.json.Decoder(_Reply)


class Session(Protocol):
    """The SDK-backed session the front hands over to (``mcp_host.McpSession``)."""

    def start(self) -> None: ...

    async def feed(self, data: bytes) -> None: ...

    async def close(self) -> None: ...


#: Builds the SDK session of a front: ``mcp_host.McpSession(server, send, name, cwd)``.
SessionFactory = Callable[["Server[Any]", Callable[[bytes], Awaitable[None]], str, str], Session]
#: Asked only by tools that touch the user's files: the session's working directory and MCP roots.
ScopeFn = Callable[[], Awaitable[FileScope]]


class SessionFront:
    """One AI app's session as designd sees it: answered here until the SDK is loaded, by the SDK afterwards."""

    def __init__(self, answers: Answers, send: Callable[[bytes], Awaitable[None]], name: str, cwd: str = "") -> None:
        self.name = name
        self.cwd = cwd
        self._answers = answers
        self._send = send
        self._session: Session | None = None
        self._held: deque[bytes] = deque()
        self._initialize: bytes | None = None
        self._initialize_id: int | str | None = None
        self._initialized: bytes | None = None
        self._swallow: int | str | None = None
        self._closed = False

    async def feed(self, data: bytes) -> None:
        """Hand one JSON-RPC message from the AI app to the session."""
        if self._session is not None:
            await self._session.feed(data)
            return
        try:
            message = _request.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            self._held.append(data)  # the SDK answers malformed messages with the right error
            return
        if self._held or message.method is None:
            self._held.append(data)
        elif message.method == "initialize" and message.id is not None and self._initialize is None:
            self._initialize, self._initialize_id = data, message.id
            await self._result(message.id, msgspec.json.encode(self._answers.initialize_result(message.params)))
        elif message.method == "notifications/initialized" and self._initialize is not None:
            self._initialized = data
        elif message.method == "ping" and message.id is not None:
            await self._result(message.id, b"{}")
        elif message.method == "tools/list" and message.id is not None and self._initialized is not None:
            await self._result(message.id, self._answers.tools_result)
        else:
            self._held.append(data)

    async def _result(self, request_id: int | str, result: bytes) -> None:
        await self._send(b'{"jsonrpc":"2.0","id":' + msgspec.json.encode(request_id) + b',"result":' + result + b"}")

    async def attach(self, server: Server[Any], factory: SessionFactory) -> None:
        """Hand the session to the SDK: replay its opening, then every message held meanwhile, in order."""
        if self._closed or self._session is not None:
            return
        session = factory(server, self._forward, self.name, self.cwd)
        session.start()
        if self._initialize is not None:
            self._swallow = self._initialize_id
            await session.feed(self._initialize)
        if self._initialized is not None:
            await session.feed(self._initialized)
        while self._held:
            await session.feed(self._held.popleft())
        # Nothing awaits between the last look at the held messages and this: no message can slip past the order.
        self._session = session

    async def _forward(self, data: bytes) -> None:
        """The SDK's replies to the AI app, less its answer to the replayed ``initialize`` (already answered)."""
        if self._swallow is not None:
            try:
                reply_id = _reply.decode(data).id
            except (msgspec.DecodeError, msgspec.ValidationError):
                reply_id = None
            if reply_id == self._swallow:
                self._swallow = None
                return
        await self._send(data)

    async def close(self) -> None:
        """End the session: in-flight tool calls are cancelled."""
        self._closed = True
        if self._session is not None:
            await self._session.close()
