"""The catalog as the hosted service serves it: the same tools as Local Mode, run in this process, per user.

A tool is part of it when what it needs (declared on the tool: :attr:`tools.base.ToolSpec.needs`) is something a
hosted server can have: tools that need files on the user's machine or what designd keeps of the plugin's events
(console, selection, changes, connected files) are not. Design API tools run here with the calling user's design API
client. Tools that send commands to the Desktop Bridge plugin run the same handler as in Local Mode, with a context
whose ``bridge`` goes to the plugin the user paired through the relay (``design_pair_plugin``, listed only here); they
are listed to a user while that plugin is connected (:mod:`remote.listing`). As in Local Mode, a tool whose call names
no file works on the file the plugin runs in: here the file of the user's connected paired plugin, whichever instance
holds it. ``design_get_status`` and ``design_diagnose`` answer with what this server knows: the sign-in, the pairing
(with that file), the browser.
"""

from __future__ import annotations

import dataclasses
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions

from design_console import PLUGIN_VERSION, __version__
from design_console.clients.design_api import DesignApi
from design_console.config import Config
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import Method
from design_console.protocol import ToolOutput
from design_console.remote.admission import Admission
from design_console.remote.browser import BROWSER_TOOLS, BrowserPool
from design_console.remote.listing import REMOTE_NEEDS, ListChanges, UserStates, listings, session_key
from design_console.remote.relay import CODE_SECONDS, Pairing, Relays
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
from design_console.tools.core.connection import DiagnoseArgs, StatusArgs
from design_console.tools.wire.mcp import INSTRUCTIONS, to_call_tool_result

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
    from design_console.clients.devtools import MAX_BROWSERS

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


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


async def _report(ctx: RemoteCallContext) -> tuple[dict[str, Any], list[str]]:
    """What this server knows of the caller's setup (sign-in, platform token, pairing, browser), and the likely causes
    of failures it shows."""
    causes: list[str] = []
    signed_in = bool(ctx.subject)
    token: dict[str, Any] = {"valid": False}
    try:
        me = await ctx.api.request("GET", "/v1/me", cache="none")
        token = {"valid": True, "user": str(me.get("handle") or me.get("email") or me.get("id") or "")}
    except DesignError as err:
        if err.code == ErrorCode.FORBIDDEN and "scope" in err.message.lower():
            # The token works; the sign-in only did not grant reading who it belongs to.
            token = {"valid": True, "user": None}
        else:
            token["error"] = err.message
            causes.append(
                "The design platform refused this server's token for you: sign in again from your AI app (remove "
                "this server's sign-in and add it again)."
                if signed_in
                else "The server's DESIGN_ACCESS_TOKEN is missing or refused: its operator sets a valid one, or "
                "configures OAuth so that each user signs in."
            )
    pairing_report, pairing_causes = await _pairing_report(ctx, await ctx.pairing())
    causes.extend(pairing_causes)
    browser = ctx.browser_status()
    if not browser["available"]:
        causes.append(
            "No headless browser on this server: design_navigate, design_get_console_logs and "
            "design_take_screenshot are not listed (its operator sets REMOTE_BROWSER_ENABLED=1 with Chromium)."
        )
    report: dict[str, Any] = {
        "server": {"version": __version__, "mode": "remote", "bundledPluginVersion": PLUGIN_VERSION},
        "auth": {"oauth": signed_in, "platformToken": token},
        "pairing": pairing_report,
        "browser": browser,
    }
    return report, causes


async def _pairing_report(ctx: RemoteCallContext, pairing: Pairing | None) -> tuple[dict[str, Any], list[str]]:
    """The caller's pairing: since when, and while its plugin is connected, the file it runs in (one live round
    trip through the relay, whichever instance holds the plugin)."""
    if pairing is None:
        hint = "No Desktop Bridge plugin is paired: call design_pair_plugin and have the user type its code in the "
        return {"paired": False}, [hint + "plugin's Cloud section; the plugin tools are listed once it connects."]
    report: dict[str, Any] = {"paired": True, "since": _iso(pairing.paired_at), "connected": pairing.connected}
    if not pairing.connected:
        cause = "The paired plugin is not connected: the user opens the Desktop Bridge plugin in the design file "
        return report, [cause + "(it reconnects by itself); the plugin tools are listed again once it is back."]
    # What a call that names no file works on, as every instance reads it.
    report["activeFile"] = {"fileKey": pairing.file_key, "fileName": pairing.file_name} if pairing.file_key else None
    started = time.perf_counter()
    try:
        reply = await ctx.bridge(Method.GET_FILE_INFO)
    except DesignError as err:
        report["probe"] = {"ok": False, "error": err.message}
        return report, [f"The paired plugin did not answer: {err.message} {err.hint}".strip()]
    report["probe"] = {"ok": True, "latencyMs": round((time.perf_counter() - started) * 1000, 2)}
    report["file"] = {key: reply[key] for key in ("fileKey", "fileName", "currentPage", "editorType") if key in reply}
    version = str(reply.get("pluginVersion") or "")
    report["pluginVersion"] = version or None
    if version and version != PLUGIN_VERSION:
        return report, [f"The paired plugin is version {version}, this server's is {PLUGIN_VERSION}: update it."]
    return report, []


async def _remote_status(ctx: RemoteCallContext, args: StatusArgs) -> ToolOutput:
    """design_get_status of Remote Mode: mode, sign-in, pairing and browser as this server knows them."""
    report, causes = await _report(ctx)
    report["transport"] = {"mode": "remote"}
    if causes:
        report["nextSteps"] = causes
    return ok(report)


async def _remote_diagnose(ctx: RemoteCallContext, args: DiagnoseArgs) -> ToolOutput:
    """design_diagnose of Remote Mode: the status and the likely causes of common failures."""
    report, causes = await _report(ctx)
    report["likelyCauses"] = causes or ["No problem found."]
    if args.verbose:
        report["designApi"] = ctx.api.stats()
    return ok(report)


#: The tools whose Remote Mode handler answers from what this server knows instead of designd's state.
REMOTE_HANDLERS: dict[str, Callable[[Any, Any], Awaitable[ToolOutput]]] = {
    "design_get_status": _remote_status,
    "design_diagnose": _remote_diagnose,
}


#: The tools that never work on a design file, so that their calls do not look up the paired plugin's.
_FILELESS = frozenset({*REMOTE_HANDLERS, *BROWSER_TOOLS, PAIR_PLUGIN.name})


def remote_catalog(config: Config) -> dict[str, ToolSpec]:
    """The tools the hosted service can run: the user's toolsets whose needs a hosted server can meet (no local files,
    no designd state), minus the MCP App tools, plus pairing; status and diagnose answer from what this server knows;
    the three tools of spec 1 rule 3 run in the headless browser, with its arguments and description."""
    tools: dict[str, ToolSpec] = {}
    for name, spec in catalog(config).items():
        # MCP App tools open ui:// views that only designd serves: the hosted service lists none of them.
        if spec.toolset == "apps":
            continue
        if name in REMOTE_HANDLERS:
            spec = dataclasses.replace(
                spec, handler=REMOTE_HANDLERS[name], runs_in="api", needs_bridge=False, also_needs=frozenset()
            )
        elif name in BROWSER_TOOLS:
            description, args = BROWSER_TOOLS[name]
            spec = dataclasses.replace(
                spec,
                description=description,
                args=args,
                handler=_in_browser,
                runs_in="api",
                needs_bridge=False,
                needs_editor=(),
                open_world=True,
                also_needs=frozenset({"browser"}),
            )
        elif name == "design_scan_code_accessibility":
            spec = dataclasses.replace(spec, handler=_scan_in_turn)
        if spec.needs <= REMOTE_NEEDS:
            tools[name] = spec
    tools[PAIR_PLUGIN.name] = PAIR_PLUGIN
    return tools


class RemoteCallContext:
    """What a tool gets in the hosted service: the user's API client and the plugin the user paired; no local files.

    It implements :class:`tools.context.ApiContext` and :class:`tools.context.MediaContext`.
    """

    #: The file of the caller's connected paired plugin, read when the call starts (see :meth:`paired_file`).
    active_file_key: str | None = None
    #: The arguments of the running tool that may name a file (what a refusal to reach one names).
    file_args: tuple[str, ...] = ()

    def __init__(
        self,
        config: Config,
        api: DesignApi,
        progress: Callable[[float, float | None, str], Awaitable[None]],
        relays: Relays | None = None,
        subject: str = "",
        browser: BrowserPool | None = None,
        scans: Admission | None = None,
        states: UserStates | None = None,
    ):
        self.config = config
        self.api = api
        self._progress = progress
        self._relays = relays
        self.subject = subject
        self._browser = browser
        self._scans = scans
        self._states = states

    def _relay(self) -> Relays:
        if self._relays is None:
            raise DesignError(ErrorCode.NOT_CONNECTED, "This server has no relay for the Desktop Bridge plugin.")
        return self._relays

    async def pair(self) -> str:
        """A fresh pairing code for the calling user."""
        return await self._relay().pair(self.subject)

    async def pairing(self) -> Pairing | None:
        """The calling user's pairing, if any."""
        return await self._relays.pairing(self.subject) if self._relays is not None else None

    async def paired_file(self) -> str | None:
        """The key of the file the caller's paired plugin runs in while it is connected, else None. Whether it is
        connected comes from ``states`` (memory) when given, so a user without a pairing costs no store read."""
        if self._relays is None or not self.subject:
            return None
        if self._states is not None and not await self._states.paired(self.subject):
            return None
        return await self._relays.active_file(self.subject)

    def browser_status(self) -> dict[str, Any]:
        """The headless browser as a status report shows it."""
        if self._browser is None:
            return {"available": False, "enabled": False}
        return {"available": self._browser.available(), **self._browser.status()}

    @property
    def file_scope(self) -> FileScope:
        named = f" ({', '.join(self.file_args)})" if self.file_args else ""
        raise DesignError(
            ErrorCode.PATH_NOT_ALLOWED,
            f"This call names a file on your machine{named}; the hosted server cannot reach your files.",
            "Give the data itself instead (inline content or payload, base64 or an https URL) and leave the file "
            "arguments out to get the result inline; Local Mode (design-console-mcp) reads and writes files.",
        )

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        # The paired file the call started with goes unchecked, as the empty key did: a plugin that moved to another
        # file since runs the command where it now is, as a call that named no file always did.
        target = "" if file_key == self.active_file_key else file_key
        return await self._relay().command(
            self.subject, method, params, file_key=target, timeout=timeout, progress=self._progress
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
        return await self._browser.run(self.subject, args, progress=self._progress)

    async def scan(self, args: ScanArgs) -> ToolOutput:
        """Run an accessibility scan in the calling user's turn (refused at once, busy, beyond the limits)."""
        if self._scans is None:
            return await design_scan_code_accessibility(self, args)
        async with self._scans.turn(self.subject, self._progress):
            return await design_scan_code_accessibility(self, args)

    async def state(self, what: StateQueryName, file_key: str = "") -> Any:
        """The hosted server keeps none of the plugin's events: no metadata edits, and a data version never seen
        before (so that nothing read through the plugin earlier is taken as current)."""
        if what == "metadata_changes":
            return []
        return f"relay:{uuid.uuid4().hex}"


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


async def run_tool(
    tools: dict[str, ToolSpec],
    name: str,
    arguments: dict[str, Any] | None,
    context: Callable[[], Awaitable[RemoteCallContext]],
) -> ToolOutput:
    """Run one tool call through :func:`tools.calls.run_call` (whose texts every failure gets), in this process with
    the calling user's context."""

    async def run(spec: ToolSpec, args: Args) -> ToolOutput:
        try:
            ctx = await context()
            ctx.file_args = spec.file_args
            if spec.name not in _FILELESS:
                ctx.active_file_key = await ctx.paired_file()
            return await spec.handler(ctx, args)
        except DesignError as err:
            raise scope_error(err) from err

    return await run_call(tools, name, arguments, run)


async def call_tool(
    tools: dict[str, ToolSpec],
    name: str,
    arguments: dict[str, Any] | None,
    context: Callable[[], Awaitable[RemoteCallContext]],
) -> types.CallToolResult:
    """:func:`run_tool` with the SDK's result type."""
    return to_call_tool_result(await run_tool(tools, name, arguments, context))


def user_states(relays: Relays | None, browser: BrowserPool | None, max_age: float) -> UserStates:
    """What each user has now: a connected paired plugin (kept in memory up to ``max_age`` seconds, or until a
    pairing change is heard), and this server's headless browser."""

    async def paired(subject: str) -> bool:
        pairing = await relays.pairing(subject) if relays is not None else None
        return pairing is not None and pairing.connected

    return UserStates(paired, lambda: browser is not None and browser.available(), max_age)


class _ListChangingServer(Server[Any]):
    """The SDK server, advertising ``tools.listChanged``: the tools listed to a user follow the user's pairing."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), experimental_capabilities, extensions
        )


def build_server(
    config: Config,
    api_for: ApiFor,
    relays: Relays | None = None,
    subject_for: SubjectFor | None = None,
    browser: BrowserPool | None = None,
    *,
    tools: dict[str, ToolSpec] | None = None,
    scans: Admission | None = None,
    changes: ListChanges | None = None,
    states: UserStates | None = None,
) -> Server[Any]:
    """The SDK server behind ``/mcp`` and ``/sse``; ``api_for(request)`` picks the caller's design API client,
    ``subject_for(request)`` the identity whose paired plugin the call may reach through ``relays`` and whose
    context of the headless ``browser`` it uses. ``tools`` and ``scans`` are shared with the lean path when given.
    Each user is listed the tools that can work for them now; the sessions that list or call are remembered in
    ``changes``, which tells them when that changes; ``states`` (shared with the lean path when given) says what each
    user has."""
    tools = tools if tools is not None else remote_catalog(config)
    scans = scans if scans is not None else scan_admission(config)
    answers = listings(tools)
    states = states if states is not None else user_states(relays, browser, 0)

    def subject_of(ctx: Any) -> str:
        subject = subject_for(ctx.request) if subject_for is not None else ""
        if changes is not None:
            changes.remember(subject, session_key(ctx.request), ctx.session)
        return subject

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return answers[await states(subject_of(ctx))]

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        async def progress(value: float, total: float | None, message: str) -> None:
            await ctx.session.report_progress(value, total, message or None)

        async def context() -> RemoteCallContext:
            api = await api_for(ctx.request)
            return RemoteCallContext(config, api, progress, relays, subject_of(ctx), browser, scans, states)

        return await call_tool(tools, params.name, params.arguments, context)

    return _ListChangingServer(
        "design-console-mcp",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
