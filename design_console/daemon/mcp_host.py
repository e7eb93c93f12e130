"""The MCP side of designd: one low-level SDK ``Server`` built from the catalog, one session per connected shim.

A shim forwards raw JSON-RPC bytes; :class:`McpSession` turns them into SDK session messages on memory streams and
sends what the server writes back to the shim. Both protocol eras (the ``initialize`` handshake and the 2026
per-request envelope) are served by the SDK's dual-era loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import warnings
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.shared._context_streams import create_context_streams
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.message import SessionMessage

from design_console import __version__
from design_console.daemon.mcp_front import ToolCaller
from design_console.errors import DesignError, ErrorCode
from design_console.runtime.user_files import FileScope, session_scope
from design_console.tools.apps.apps import EXTENSION, MIME_TYPE, AppView
from design_console.tools.base import ToolSpec
from design_console.tools.wire.listing import INSTRUCTIONS, SERVER_NAME
from design_console.tools.wire.mcp import to_call_tool_result, tool_definitions

log = logging.getLogger("design_console.mcp")


#: The working directory of the AI app a request comes from. One SDK server serves every session; the SDK runs each
#: request's handler in the context its message was fed in, so :meth:`McpSession.feed` sets this around the feed.
_SESSION_CWD: contextvars.ContextVar[str] = contextvars.ContextVar("session_cwd", default="")


async def _roots(session: Any) -> list[str] | None:
    """The client's MCP roots as URIs, or None when it offers none (then any path of this user is allowed)."""
    caps = session.client_capabilities
    if caps is None or caps.roots is None:
        return None
    try:
        with warnings.catch_warnings():
            # Roots are deprecated in the 2026 protocol; clients of the handshake era still offer them.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            listed = await session.list_roots()
    except Exception as exc:
        raise DesignError(
            ErrorCode.UNAVAILABLE,
            f"The AI app offers MCP roots but did not list them ({exc}), so no file of it can be used.",
            "Retry; if it persists, restart the AI app.",
        ) from None
    return [str(root.uri) for root in listed.roots]


#: JSON-RPC error of a read of a resource the server does not have (MCP's resource-not-found code).
RESOURCE_NOT_FOUND = -32002


def build_server(
    tools: dict[str, ToolSpec],
    call: ToolCaller,
    views: Mapping[str, AppView] | None = None,
    file_roots: tuple[Path, ...] = (),
) -> Server[Any]:
    """The SDK server every shim session shares. Given MCP App ``views`` (ENABLE_MCP_APPS), it lists and serves
    them as ``ui://`` resources and advertises the ``io.modelcontextprotocol/ui`` extension; else it has no
    resources at all. A session whose client shares no roots may use its working directory and ``file_roots``."""
    definitions = tool_definitions(tools.values())
    listing = types.ListToolsResult(tools=definitions)

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        async def progress(value: float, total: float | None, message: str) -> None:
            await ctx.session.report_progress(value, total, message or None)

        async def file_scope() -> FileScope:
            return session_scope(_SESSION_CWD.get(), await _roots(ctx.session), file_roots)

        return to_call_tool_result(await call(params.name, params.arguments, progress, file_scope))

    resource_handlers: dict[str, Any] = {}
    if views:
        resources = types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=view.uri, name=view.name, description=view.description, mime_type=MIME_TYPE, _meta=view.meta()
                )
                for view in views.values()
            ]
        )

        async def on_list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
            return resources

        async def on_read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
            view = views.get(str(params.uri))
            if view is None:
                raise MCPError(RESOURCE_NOT_FOUND, f"No resource {params.uri}; resources/list names those there are.")
            content = types.TextResourceContents(uri=view.uri, mime_type=MIME_TYPE, text=view.html(), _meta=view.meta())
            return types.ReadResourceResult(contents=[content])

        resource_handlers = {"on_list_resources": on_list_resources, "on_read_resource": on_read_resource}

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        **resource_handlers,
    )
    if views:
        server.extensions[EXTENSION] = {"mimeTypes": [MIME_TYPE]}
    return server


class McpSession:
    """One AI app's MCP session, fed with raw JSON-RPC bytes from its shim."""

    def __init__(self, server: Server[Any], send: Callable[[bytes], Awaitable[None]], name: str, cwd: str = "") -> None:
        self.name = name
        self.cwd = cwd
        self._server = server
        self._send = send
        self._in_send, self._in_recv = create_context_streams[SessionMessage | Exception](256)
        self._out_send, self._out_recv = create_context_streams[SessionMessage](256)
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        options = self._server.create_initialization_options(NotificationOptions(tools_changed=True))
        self._tasks = [
            asyncio.create_task(self._server.run(self._in_recv, self._out_send, options), name=f"mcp-{self.name}"),
            asyncio.create_task(self._pump(), name=f"mcp-out-{self.name}"),
        ]

    async def feed(self, data: bytes) -> None:
        """Hand one JSON-RPC message from the AI app to the session; invalid JSON reaches the SDK as an error."""
        try:
            message: Any = types.jsonrpc_message_adapter.validate_json(data, by_name=False)
            item: SessionMessage | Exception = SessionMessage(message)
        except Exception as exc:
            item = exc
        token = _SESSION_CWD.set(self.cwd)
        try:
            await self._in_send.send(item)
        finally:
            _SESSION_CWD.reset(token)

    async def _pump(self) -> None:
        async for item in self._out_recv:
            payload = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
            try:
                await self._send(payload)
            except Exception:
                log.debug("session %s: reply could not be delivered", self.name, exc_info=True)

    async def close(self) -> None:
        """End the session: in-flight tool calls are cancelled."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._in_send.aclose()
