"""The front of every AI app session: it serves the handshake-era session's hot path without the MCP SDK.

Importing the SDK and building its server costs designd about half a second and 35 MB, and its per-message
validation and models cost more than the tool call they carry. So designd answers a session opened with
``initialize`` here: the ``initialize`` reply, ``ping``, ``tools/list`` and ``tools/call`` (with progress and
cancellation), built with msgspec from the catalog; a test pins each answer to what the SDK itself sends. Every
other message (a 2026-era request, a tool that reads the user's files and so needs the client's roots, anything
unknown) goes to a real SDK session, which designd loads the first time one is needed: the front replays
``initialize`` and ``notifications/initialized`` into it (swallowing the duplicate reply, as the shim does after a
designd restart) and hands it the held messages in order.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.runtime.user_files import FileScope
from design_console.tools import TOOLSET_SUMMARIES
from design_console.tools.base import ToolSpec, failure, ok
from design_console.tools.context import ProgressFn
from design_console.tools.wire.frames import (
    CAPABILITIES,
    RESOURCE_CAPABILITIES,
    CallParams,
    Incoming,
    call_frame,
    call_result,
    cancel_call,
    incoming,
    initialize_result,
    progress_frame,
    result_frame,
)
from design_console.tools.wire.listing import tool_entries

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

#: The one tool a DESIGN_TOOLSETS=auto session lists beside the core toolset; the front answers it itself.
TOOLSETS_TOOL = "design_toolsets"
#: The toolset every session lists.
CORE = "core"


class Answers:
    """The session-opening replies, built once per designd from its catalog (``tools_result``: the encoded
    ``tools/list`` answer kept from an earlier start, see ``daemon/listing_cache.py``).

    With ``auto`` (DESIGN_TOOLSETS=auto) a session lists only the toolsets it enabled (``core`` at first) and
    design_toolsets; :meth:`listing` builds each such answer once.
    """

    def __init__(
        self,
        tools: dict[str, ToolSpec],
        *,
        resources: bool = False,
        tools_result: bytes | None = None,
        auto: bool = False,
    ) -> None:
        #: Whether ``tools_result`` was built here rather than kept from an earlier start.
        self.built = tools_result is None
        self.tools_result = tools_result or msgspec.json.encode({"tools": tool_entries(tools.values())})
        #: With MCP App views (``resources``) the server lists resources too, as the SDK advertises.
        self.capabilities = {**CAPABILITIES, **RESOURCE_CAPABILITIES} if resources else CAPABILITIES
        self.auto = auto
        #: Each toolset's tools, in catalog order.
        self.toolsets: dict[str, list[str]] = {}
        for spec in tools.values():
            self.toolsets.setdefault(spec.toolset, []).append(spec.name)
        self._listings: dict[frozenset[str], bytes] = {}

    def listing(self, enabled: frozenset[str]) -> bytes:
        """The ``tools/list`` result of a session: every tool, or under ``auto`` the ``enabled`` toolsets' tools
        and design_toolsets."""
        if not self.auto:
            return self.tools_result
        cached = self._listings.get(enabled)
        if cached is None:
            shown = {name for toolset in enabled for name in self.toolsets.get(toolset, [])}
            entries = msgspec.json.decode(self.tools_result)["tools"]
            tools = [entry for entry in entries if entry["name"] in shown] + [self.toolsets_entry()]
            cached = self._listings[enabled] = msgspec.json.encode({"tools": tools})
        return cached

    def toolsets_entry(self) -> dict[str, Any]:
        """design_toolsets as ``tools/list`` shows it."""
        return {
            "name": TOOLSETS_TOOL,
            "description": "More tools, by toolset: without enable, what each toolset does and its tools; enable "
            "lists a toolset's tools in this session. Any tool can be called by name, listed or not.",
            "inputSchema": {
                "type": "object",
                "properties": {"enable": {"type": "string", "enum": [t for t in self.toolsets if t != CORE]}},
            },
            "annotations": {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
        }

    def toolsets_result(self, enabled: set[str], enable: str | None) -> tuple[dict[str, Any], bool]:
        """design_toolsets' answer, and whether it enabled a toolset (the session's list changed)."""
        if enable is not None and enable not in self.toolsets:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT,
                f"There is no toolset {enable!r}.",
                f"Use one of {', '.join(t for t in self.toolsets if t != CORE)}.",
            )
        if enable is not None:
            added = enable not in enabled
            enabled.add(enable)
            return {"enabled": enable, "tools": self.toolsets[enable], "listChanged": added}, added
        described = [
            {
                "toolset": name,
                "about": TOOLSET_SUMMARIES.get(name, ""),
                "enabled": name in enabled,
                "tools": tools,
            }
            for name, tools in self.toolsets.items()
        ]
        return {"toolsets": described}, False

    def initialize_result(self, params: dict[str, Any]) -> dict[str, Any]:
        """The SDK's negotiation: the client's version when the server speaks it, else the newest handshake one."""
        return initialize_result(params, self.capabilities)


class _Reply(msgspec.Struct):
    id: int | str | None = None


_reply = msgspec.json.Decoder(_Reply)
_encode = msgspec.json.Encoder().encode


class Session(Protocol):
    """The SDK-backed session the front hands over to (``mcp_host.McpSession``)."""

    def start(self) -> None: ...

    async def feed(self, data: bytes) -> None: ...

    async def close(self) -> None: ...


#: Builds the SDK session of a front: ``mcp_host.McpSession(server, send, name, cwd)``.
SessionFactory = Callable[["Server[Any]", Callable[[bytes], Awaitable[None]], str, str], Session]
#: Asked only by tools that touch the user's files: the session's working directory and MCP roots.
ScopeFn = Callable[[], Awaitable[FileScope]]
#: Runs one tool wherever it lives and turns every failure into an error result, never raising: ``Daemon.call_tool``,
#: which goes through ``tools.calls.run_call``.
ToolCaller = Callable[[str, dict[str, Any] | None, ProgressFn, ScopeFn], Awaitable[ToolOutput]]


async def _no_scope() -> FileScope:
    return FileScope()


class SessionFront:
    """One AI app's session as designd sees it.

    A session opened with ``initialize`` has its tool calls run here, without the SDK's per-message validation and
    models: ``tools/call`` (but for tools that read the user's files, which need the client's roots), ``tools/list``,
    ``ping`` and the cancellation of a call run here. Everything else goes to the SDK session, which is asked for
    (``need_sdk``) the first time such a message arrives and held until it exists.
    """

    def __init__(
        self,
        answers: Answers,
        send: Callable[[bytes], Awaitable[None]],
        name: str,
        cwd: str = "",
        *,
        tools: dict[str, ToolSpec] | None = None,
        call: ToolCaller | None = None,
        need_sdk: Callable[[], None] = lambda: None,
    ) -> None:
        self.name = name
        self.cwd = cwd
        self._answers = answers
        self._send = send
        self._tools = tools or {}
        self._call = call
        self._need_sdk = need_sdk
        self._session: Session | None = None
        self._held: deque[bytes] = deque()
        self._initialize: bytes | None = None
        self._initialize_id: int | str | None = None
        self._initialized: bytes | None = None
        self._swallow: int | str | None = None
        self._calls: dict[int | str, asyncio.Task[None]] = {}
        self._closed = False
        #: The toolsets this session lists under DESIGN_TOOLSETS=auto.
        self._enabled = {CORE}

    async def feed(self, data: bytes) -> None:
        """Hand one JSON-RPC message from the AI app to the session."""
        try:
            message = incoming.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            await self._to_sdk(data)  # the SDK answers malformed messages with the right error
            return
        method, request_id = message.method, message.id
        opened = self._initialize is not None
        if method == "tools/call" and request_id is not None and opened and self._start_call(request_id, message):
            return
        if method == "ping" and request_id is not None and (opened or self._session is None):
            await self._result(request_id, b"{}")
        elif method == "tools/list" and request_id is not None and self._initialized is not None:
            await self._result(request_id, self._answers.listing(frozenset(self._enabled)))
        elif method == "notifications/cancelled" and self._cancel(message.params):
            return
        elif self._session is not None:
            await self._session.feed(data)
        elif method == "initialize" and request_id is not None and not opened and not self._held:
            self._initialize, self._initialize_id = data, request_id
            await self._result(request_id, _encode(self._answers.initialize_result(message.params)))
        elif method == "notifications/initialized" and opened and self._initialized is None:
            self._initialized = data
        else:
            await self._to_sdk(data)

    async def _to_sdk(self, data: bytes) -> None:
        if self._session is not None:
            await self._session.feed(data)
        else:
            self._held.append(data)
            self._need_sdk()

    def _start_call(self, request_id: int | str, message: Incoming) -> bool:
        """Run a tool call here; False leaves it to the SDK (bad params, no such tool, a tool that uses files)."""
        if self._call is None:
            return False
        try:
            params = msgspec.convert(message.params, CallParams)
        except msgspec.ValidationError:
            return False
        if params.name == TOOLSETS_TOOL and self._answers.auto:
            task = asyncio.create_task(self._toolsets_call(request_id, params), name="call-toolsets")
            self._calls[request_id] = task
            task.add_done_callback(lambda _: self._calls.pop(request_id, None))
            return True
        spec = self._tools.get(params.name)
        if spec is None or spec.uses_files:
            return False
        token = params.meta.progressToken if params.meta is not None else None
        task = asyncio.create_task(self._run_call(request_id, params, token), name=f"call-{params.name}")
        self._calls[request_id] = task
        task.add_done_callback(lambda _: self._calls.pop(request_id, None))
        return True

    async def _run_call(self, request_id: int | str, params: CallParams, token: str | int | None) -> None:
        async def progress(value: float, total: float | None, message: str) -> None:
            if token is not None:
                await self._send(progress_frame(token, value, total, message))

        assert self._call is not None
        # The output is handed over without a name, so only its encoded response outlives the encoding.
        await self._send(call_frame(request_id, await self._call(params.name, params.arguments, progress, _no_scope)))

    async def _toolsets_call(self, request_id: int | str, params: CallParams) -> None:
        """design_toolsets: describe the toolsets, or enable one and tell the AI app its list changed."""
        enable = (params.arguments or {}).get("enable")
        try:
            if enable is not None and not isinstance(enable, str):
                raise DesignError(ErrorCode.BAD_ARGUMENT, "enable must be a toolset name.", "Pass one name.")
            answer, changed = self._answers.toolsets_result(self._enabled, enable)
        except DesignError as exc:
            await self._result(request_id, call_result(failure(exc)))
            return
        await self._result(request_id, call_result(ok(answer)))
        if changed:
            await self._send(_encode({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))

    def _cancel(self, params: dict[str, Any]) -> bool:
        """Cancel a call running here (no answer follows, as MCP asks); False when the call is not one of ours."""
        return cancel_call(params, self._calls, self._session is not None)

    async def _result(self, request_id: int | str, result: bytes) -> None:
        await self._send(result_frame(request_id, result))

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
        for task in list(self._calls.values()):
            task.cancel()
        await asyncio.gather(*self._calls.values(), return_exceptions=True)
        if self._session is not None:
            await self._session.close()
