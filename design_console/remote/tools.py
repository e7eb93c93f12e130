"""The catalog as the hosted service serves it: the same tools as Local Mode, run in this process, per user.

Tools that read or write files on the user's machine are not listed: a hosted server has no such machine. Design API
tools run here with the calling user's design API client. Tools that send commands to the Desktop Bridge plugin run
the same handler as in Local Mode, with a context whose ``bridge`` goes to the plugin the user paired through the
relay (``design_pair_plugin``, listed only here). Tools that read what designd keeps of the plugin's events (console,
selection, changes, connected files) have no such state here and say so.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from design_console import __version__
from design_console.clients.design_api import DesignApi
from design_console.config import Config
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.remote.admission import Admission
from design_console.remote.browser import BROWSER_TOOLS, BrowserPool
from design_console.remote.relay import CODE_SECONDS, Relays
from design_console.runtime.user_files import FileScope
from design_console.tools import catalog
from design_console.tools.audit.code_a11y import (
    MAX_HTML_BYTES,
    SCAN_TIMEOUT_S,
    ScanArgs,
    design_scan_code_accessibility,
)
from design_console.tools.base import Args, NoArgs, ToolSpec, ok
from design_console.tools.calls import run_call
from design_console.tools.context import StateQueryName
from design_console.tools.wire.mcp import INSTRUCTIONS, to_call_tool_result, tool_definitions

#: What a call is refused with when its tool reads the plugin-fed state only designd keeps.
LOCAL_ONLY = DesignError(
    ErrorCode.NOT_CONNECTED,
    "This tool reads what the local server keeps of the Desktop Bridge plugin's events; the hosted server keeps none.",
    "Use design_execute through the paired plugin, or run Local Mode (design-console-mcp) next to the design tool.",
)

#: A design platform OAuth scope, as its refusals name them.
_SCOPE_NAME = re.compile(r"\b[a-z_]+:(?:read|write)\b")

#: Gives the design API client of the user a request comes from (raises DesignError when there is none).
ApiFor = Callable[[Any], Awaitable[DesignApi]]
#: Gives the identity a request comes from (the subject relays are bound to; raises DesignError when there is none).
SubjectFor = Callable[[Any], str]


async def _pair_plugin(ctx: RemoteCallContext, args: NoArgs) -> ToolOutput:
    code = await ctx.pair()
    minutes = int(CODE_SECONDS // 60)
    return ok(
        {
            "code": code,
            "expiresInSeconds": int(CODE_SECONDS),
            "instructions": f"In the design file, run the Desktop Bridge plugin, type {code} in its Cloud section and "
            f"press Pair. The code works once, within {minutes} minutes; the pairing then lasts 24 hours.",
        }
    )


#: Pairing exists only in Remote Mode, so this tool is listed by the hosted service alone.
PAIR_PLUGIN = ToolSpec(
    name="design_pair_plugin",
    description="Pair the Desktop Bridge plugin with this server: returns a 6-character code the user types in the "
    "plugin's Cloud section (valid 5 min, single use). Plugin tools then work remotely.",
    args=NoArgs,
    handler=_pair_plugin,
    runs_in="api",
    read_only=False,
)


async def _in_browser(ctx: RemoteCallContext, args: Args) -> ToolOutput:
    """design_navigate, design_get_console_logs and design_take_screenshot of Remote Mode: the headless browser."""
    return await ctx.browse(args)


#: What a scan is assumed to take before any has run (the busy answer's estimate starts from it).
SCAN_SECONDS = 10.0


def scan_admission(config: Config) -> Admission:
    """Turns for accessibility scans in the hosted service: as many at once as the scanner runs browsers, the same
    per-user and queue limits as the headless browser's."""
    from design_console.clients.axe import MAX_BROWSERS

    return Admission(
        "scanning browser",
        "scanning browsers",
        slots=MAX_BROWSERS,
        per_user=config.remote_browser_per_user,
        queue=config.remote_browser_queue,
        typical_seconds=SCAN_SECONDS,
        wait_limit=SCAN_TIMEOUT_S,
    )


async def _scan_in_turn(ctx: RemoteCallContext, args: ScanArgs) -> ToolOutput:
    """design_scan_code_accessibility in Remote Mode: a smaller input, and a turn shared fairly between users (each
    scan starts a browser of its own)."""
    limit = ctx.config.remote_scan_max_html
    size = len(args.html.encode())
    if size > limit:
        raise DesignError(
            ErrorCode.TOO_LARGE,
            f"html is {size:,} bytes; this server scans at most {limit:,} (REMOTE_SCAN_MAX_HTML).",
            f"Pass one component's or one page section's markup; Local Mode scans up to {MAX_HTML_BYTES:,} bytes.",
        )
    return await ctx.scan(args)


def remote_catalog(config: Config) -> dict[str, ToolSpec]:
    """The tools the hosted service lists: the user's toolsets, minus those that need files of a local machine and the
    MCP App tools, plus pairing; the three tools of spec 1 rule 3 run in the headless browser, with its arguments and
    description."""
    # MCP App tools open ui:// views that only designd serves: the hosted service lists none of them.
    tools = {name: spec for name, spec in catalog(config).items() if not spec.uses_files and spec.toolset != "apps"}
    for name, (description, args) in BROWSER_TOOLS.items():
        local = tools.get(name)
        if local is not None:
            tools[name] = dataclasses.replace(
                local,
                description=description,
                args=args,
                handler=_in_browser,
                runs_in="api",
                needs_bridge=False,
                needs_editor=(),
                open_world=True,
            )
    scan = tools.get("design_scan_code_accessibility")
    if scan is not None:
        tools[scan.name] = dataclasses.replace(scan, handler=_scan_in_turn)
    tools[PAIR_PLUGIN.name] = PAIR_PLUGIN
    return tools


def runs_here(spec: ToolSpec) -> bool:
    """Whether the hosted service can run ``spec``: any tool but those whose handler needs designd's own context
    (its plugin-fed state and file table)."""
    return not _needs_designd(spec.handler)


@functools.cache
def _needs_designd(handler: Callable[..., Any]) -> bool:
    """Whether ``handler`` takes designd's context (read once per handler, not on every call)."""
    first = next(iter(inspect.signature(handler).parameters.values()))
    annotation = first.annotation
    name = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return name == "DaemonContext"


class RemoteCallContext:
    """What a tool gets in the hosted service: the user's API client and the plugin the user paired; no local files.

    It implements :class:`tools.context.ApiContext` and :class:`tools.context.MediaContext`.
    """

    active_file_key: str | None = None

    def __init__(
        self,
        config: Config,
        api: DesignApi,
        progress: Callable[[float, float | None, str], Awaitable[None]],
        relays: Relays | None = None,
        subject: str = "",
        browser: BrowserPool | None = None,
        scans: Admission | None = None,
    ):
        self.config = config
        self.api = api
        self._progress = progress
        self._relays = relays
        self._subject = subject
        self._browser = browser
        self._scans = scans

    def _relay(self) -> Relays:
        if self._relays is None:
            raise DesignError(ErrorCode.NOT_CONNECTED, "This server has no relay for the Desktop Bridge plugin.")
        return self._relays

    async def pair(self) -> str:
        """A fresh pairing code for the calling user."""
        return await self._relay().pair(self._subject)

    @property
    def file_scope(self) -> FileScope:
        raise DesignError(ErrorCode.PATH_NOT_ALLOWED, "The hosted server cannot reach files on your machine.")

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        return await self._relay().command(
            self._subject, method, params, file_key=file_key, timeout=timeout, progress=self._progress
        )

    async def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        await self._progress(progress, total, message)

    async def browse(self, args: Args) -> ToolOutput:
        """Run a browser tool in the calling user's own browser context."""
        if self._browser is None:
            raise DesignError(
                ErrorCode.BROWSER_UNAVAILABLE,
                "Browser Rendering not enabled: this server has no headless browser.",
                "Run design-console-remote, which starts one (REMOTE_BROWSER_ENABLED, REMOTE_BROWSER_PATH).",
            )
        return await self._browser.run(self._subject, args, progress=self._progress)

    async def scan(self, args: ScanArgs) -> ToolOutput:
        """Run an accessibility scan in the calling user's turn (refused at once, busy, beyond the limits)."""
        if self._scans is None:
            return await design_scan_code_accessibility(self, args)
        async with self._scans.turn(self._subject, self._progress):
            return await design_scan_code_accessibility(self, args)

    async def state(self, what: StateQueryName, file_key: str = "") -> Any:
        raise LOCAL_ONLY


def scope_error(err: DesignError) -> DesignError:
    """A design API refusal for a missing OAuth scope, said as such with how to grant it; any other error as is."""
    if err.code not in (ErrorCode.FORBIDDEN, ErrorCode.UNAUTHORIZED) or "scope" not in err.message.lower():
        return err
    named = _SCOPE_NAME.findall(err.message)
    # The platform names the scopes the token has, then the one the endpoint requires.
    scope = named[-1] if named else "a scope this tool needs"
    return DesignError(
        ErrorCode.FORBIDDEN,
        f"The design platform refused this call: your sign-in does not grant the {scope} scope. {err.message}",
        f"Sign in again from your AI app (remove this server's sign-in and add it again) to grant {scope}; if the "
        "sign-in page does not ask for it, the server's operator adds it to DESIGN_OAUTH_SCOPES (and to the design "
        "platform's OAuth app) and restarts the server.",
    )


async def call_tool(
    tools: dict[str, ToolSpec],
    name: str,
    arguments: dict[str, Any] | None,
    context: Callable[[], Awaitable[RemoteCallContext]],
) -> types.CallToolResult:
    """Run one tool call through :func:`tools.calls.run_call` (whose texts every failure gets), in this process with
    the calling user's context."""

    async def run(spec: ToolSpec, args: Args) -> ToolOutput:
        if not runs_here(spec):
            raise LOCAL_ONLY
        try:
            return await spec.handler(await context(), args)
        except DesignError as err:
            raise scope_error(err) from err

    return to_call_tool_result(await run_call(tools, name, arguments, run))


def build_server(
    config: Config,
    api_for: ApiFor,
    relays: Relays | None = None,
    subject_for: SubjectFor | None = None,
    browser: BrowserPool | None = None,
) -> Server[Any]:
    """The SDK server behind ``/mcp`` and ``/sse``; ``api_for(request)`` picks the caller's design API client,
    ``subject_for(request)`` the identity whose paired plugin the call may reach through ``relays`` and whose
    context of the headless ``browser`` it uses."""
    tools = remote_catalog(config)
    scans = scan_admission(config)
    listing = types.ListToolsResult(tools=tool_definitions(tools.values()))

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        async def progress(value: float, total: float | None, message: str) -> None:
            await ctx.session.report_progress(value, total, message or None)

        async def context() -> RemoteCallContext:
            api = await api_for(ctx.request)
            subject = subject_for(ctx.request) if subject_for is not None else ""
            return RemoteCallContext(config, api, progress, relays, subject, browser, scans)

        return await call_tool(tools, params.name, params.arguments, context)

    return Server(
        "design-console-mcp",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
