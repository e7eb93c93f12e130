"""The catalog as the hosted service serves it: the same tools as Local Mode, run in this process, per user.

Tools that read or write files on the user's machine are not listed: a hosted server has no such machine. Tools that
need the Desktop Bridge plugin are listed (one catalog for both modes) and answer that pairing a plugin with the
hosted service is not available yet. Design API tools run here with the calling user's design API client.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from design_console import __version__
from design_console.clients.design_api import DesignApi
from design_console.config import Config
from design_console.errors import DesignError, ErrorCode, format_error
from design_console.runtime.user_files import FileScope
from design_console.tools import catalog
from design_console.tools.base import ToolSpec, failure, parse_args
from design_console.tools.context import StateQueryName
from design_console.tools.wire.mcp import INSTRUCTIONS, to_call_tool_result, tool_definition

log = logging.getLogger("design_console.remote")

#: What a call is refused with when its tool needs the plugin (the relay comes with pairing).
PAIRING_UNAVAILABLE = DesignError(
    ErrorCode.NOT_CONNECTED,
    "This tool needs the Desktop Bridge plugin, and pairing a plugin with the hosted server is not available yet.",
    "Use a design API tool (they work here), or run Local Mode (design-console-mcp) next to the design tool.",
)

#: Gives the design API client of the user a request comes from (raises DesignError when there is none).
ApiFor = Callable[[Any], Awaitable[DesignApi]]


def remote_catalog(config: Config) -> dict[str, ToolSpec]:
    """The tools the hosted service lists: the user's toolsets, minus those that need files of a local machine."""
    return {name: spec for name, spec in catalog(config).items() if not spec.uses_files}


def runs_here(spec: ToolSpec) -> bool:
    """Whether the hosted service can run ``spec`` now: a design API tool that needs no plugin."""
    return spec.runs_in != "daemon" and not spec.needs_bridge


class RemoteCallContext:
    """What a design API tool gets in the hosted service: the user's API client; no plugin, no local files.

    It implements :class:`tools.context.ApiContext` and :class:`tools.context.MediaContext`.
    """

    active_file_key: str | None = None

    def __init__(self, config: Config, api: DesignApi, progress: Callable[[float, float | None, str], Awaitable[None]]):
        self.config = config
        self.api = api
        self._progress = progress

    @property
    def file_scope(self) -> FileScope:
        raise DesignError(ErrorCode.PATH_NOT_ALLOWED, "The hosted server cannot reach files on your machine.")

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        raise PAIRING_UNAVAILABLE

    async def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        await self._progress(progress, total, message)

    async def state(self, what: StateQueryName, file_key: str = "") -> Any:
        raise PAIRING_UNAVAILABLE


async def call_tool(
    spec: ToolSpec, arguments: dict[str, Any] | None, context: Callable[[], Awaitable[RemoteCallContext]]
) -> types.CallToolResult:
    """Run one tool call; every failure becomes a result the model reads (the one seam of this process)."""
    try:
        args = parse_args(spec, arguments)
        if not runs_here(spec):
            raise PAIRING_UNAVAILABLE
        output = await spec.handler(await context(), args)
    except DesignError as err:
        output = failure(err)
    except Exception:
        log.exception("tool %s failed", spec.name)
        output = failure(format_error(f"Internal error in {spec.name}.", "Try again; the server's log has details."))
    return to_call_tool_result(output)


def build_server(config: Config, api_for: ApiFor) -> Server[Any]:
    """The SDK server behind ``/mcp`` and ``/sse``; ``api_for(request)`` picks the caller's design API client."""
    tools = remote_catalog(config)
    listing = types.ListToolsResult(tools=[tool_definition(spec) for spec in tools.values()])

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = tools.get(params.name)
        if spec is None:
            return to_call_tool_result(
                failure(DesignError(ErrorCode.UNKNOWN_TOOL, f"There is no tool {params.name!r}.", "Call tools/list."))
            )

        async def progress(value: float, total: float | None, message: str) -> None:
            await ctx.session.report_progress(value, total, message or None)

        async def context() -> RemoteCallContext:
            return RemoteCallContext(config, await api_for(ctx.request), progress)

        return await call_tool(spec, params.arguments, context)

    return Server(
        "design-console-mcp",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
