"""The daemon's centre: it owns the bridge, the state, the MCP sessions and the workers, and runs tool calls."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import importlib
import logging
import os
import time
from collections.abc import Awaitable, Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from design_console import PLUGIN_VERSION, __version__
from design_console.config import Config
from design_console.daemon.bridge import Bridge
from design_console.daemon.control import ControlServer, Peer
from design_console.daemon.listing_cache import ListingCache
from design_console.daemon.mcp_front import Answers, ScopeFn, SessionFactory, SessionFront
from design_console.daemon.state import FileState, State
from design_console.daemon.supervisor import Supervisor
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import (
    PEER_CTL,
    PEER_SHIM,
    WORKER_PREFIX,
    AnyFrame,
    BridgeCall,
    Bye,
    Call,
    Command,
    Error,
    Progress,
    Result,
    Rpc,
    StateQuery,
    ToolOutput,
    ToolResult,
)
from design_console.runtime.platform.memory import Reclaimer
from design_console.runtime.setup_text import not_connected_error, refused_plugin_notice, setup_steps
from design_console.runtime.user_files import FileScope
from design_console.tools import catalog
from design_console.tools.apps.apps import VIEWS
from design_console.tools.base import TARGET_FILE_FIELD, Args, ToolSpec
from design_console.tools.calls import run_call
from design_console.tools.context import DaemonContext, ProgressFn

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

#: The MCP SDK side of designd, imported off the event loop when a session first needs it (see ``mcp_front``).
MCP_HOST_MODULE = "design_console.daemon.mcp_host"

#: How people call the files of each editor type the plugin reports.
EDITOR_NAMES = {"figma": "design", "dev": "design (Dev Mode)", "figjam": "FigJam whiteboard", "slides": "Slides"}

log = logging.getLogger("design_console.daemon")

#: How long ``designctl stop``'s answer may take to be read before designd stops regardless.
STOP_ANSWER_GRACE = 1.0


async def _no_progress(value: float, total: float | None, message: str) -> None:
    return None


async def _no_scope() -> FileScope:
    return FileScope()


#: The design API token of the AI app whose message is being handled ("": designd's own). Set around each feed of a
#: session's messages: the lean front and the SDK run a call in the context its message was fed in.
SESSION_TOKEN: contextvars.ContextVar[str] = contextvars.ContextVar("session_token", default="")


@contextlib.contextmanager
def session_token(token: str) -> Iterator[None]:
    """Run the enclosed feed or call on behalf of an AI app whose own token is ``token``."""
    reset = SESSION_TOKEN.set(token)
    try:
        yield
    finally:
        SESSION_TOKEN.reset(reset)


def with_token(config: Config, token: str) -> Config:
    """``config`` as a call of a session with its own design API token sees it (designd's own when ``token`` is "")."""
    return msgspec.structs.replace(config, access_token=token) if token else config


class DaemonCallContext:
    """What a tool handler running inside designd gets (it implements :class:`tools.context.DaemonContext`): the
    plugin-fed state and the bridge's view of the files, not the daemon itself."""

    def __init__(self, daemon: Daemon, progress: ProgressFn, file_scope: FileScope, token: str = "") -> None:
        self._daemon = daemon
        self._bridge = daemon.bridge
        self._progress = progress
        self.file_scope = file_scope
        self.config = with_token(daemon.config, token)
        self.state = daemon.state

    @property
    def active_file_key(self) -> str | None:
        return self._bridge.active_file_key()

    @property
    def port(self) -> int | None:
        return self._bridge.port

    @property
    def locked(self) -> bool:
        return self._bridge.locked

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        # A long command's progress (batches, layouts) reaches the caller as this call's progress.
        return await self._bridge.command(method, params, file_key=file_key, timeout=timeout, progress=self._progress)

    async def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        await self._progress(progress, total, message)

    def files(self) -> list[FileState]:
        return self._bridge.files()

    def is_connected(self) -> bool:
        return self._bridge.is_connected()

    def navigate(self, file_key: str, lock: bool) -> FileState:
        return self._bridge.navigate(file_key, lock)

    def bridge_stats(self) -> dict[str, Any]:
        return self._bridge.stats()

    def setup_report(self) -> dict[str, Any]:
        return self._daemon.setup_report()

    def worker_status(self) -> list[dict[str, object]]:
        return self._daemon.supervisor.status()

    def session_count(self) -> int:
        return len(self._daemon.sessions)


class Daemon:
    """Everything one designd process runs."""

    def __init__(self, config: Config, *, token: str) -> None:
        self.config = config
        self.token = token
        self.started_at = time.time()
        self.state = State(config)
        self.bridge = Bridge(
            config, token=token, server_version=__version__, plugin_version=PLUGIN_VERSION, state=self.state
        )
        self.tools: dict[str, ToolSpec] = catalog(config)
        self.control = ControlServer(config, server_version=__version__)
        self.control.on_frame = self._on_frame
        self.control.on_join = self._on_join
        self.control.on_leave = self._on_leave
        self.supervisor = Supervisor(config, self.control)
        self.sessions: dict[bytes, SessionFront] = {}
        #: The MCP App views designd serves as ``ui://`` resources (ENABLE_MCP_APPS); none otherwise.
        self.views = VIEWS if config.enable_mcp_apps else None
        self.listing_cache = ListingCache(config.cache_dir, list(self.tools))
        self.answers = Answers(
            self.tools,
            resources=bool(self.views),
            tools_result=self.listing_cache.load(),
            auto=config.toolsets_auto,
        )
        self.server: Server[Any] | None = None
        self._session_class: SessionFactory | None = None
        self._mcp_load: asyncio.Task[None] | None = None
        #: The designctl that asked designd to stop: designd stops once it has read the answer and left.
        self._stop_when_gone: bytes | None = None
        self.stopping = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.reclaimer = Reclaimer()

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        progress: ProgressFn = _no_progress,
        scope: ScopeFn = _no_scope,
    ) -> ToolOutput:
        """Validate and run one tool wherever it lives (through :func:`tools.calls.run_call`, whose texts every
        failure gets): in designd itself, or on the worker of its ``runs_in``."""

        async def run(spec: ToolSpec, args: Args) -> ToolOutput:
            if spec.needs_bridge and not self.bridge.is_connected():
                raise self.bridge.unavailable or not_connected_error(self.config)
            if spec.needs_editor:
                self._check_editor(spec, getattr(args, TARGET_FILE_FIELD, None))
            file_scope = await scope() if spec.uses_files else FileScope()
            token = SESSION_TOKEN.get()
            if spec.runs_in == "daemon":
                context: DaemonContext = DaemonCallContext(self, progress, file_scope, token)
                return await spec.handler(context, args)
            return await self.supervisor.call(
                spec.runs_in,
                name,
                arguments or {},
                self.bridge.active_file_key() or "",
                progress,
                file_scope,
                access_token=token,
            )

        try:
            return await run_call(self.tools, name, arguments, run)
        finally:
            # On a later turn of the loop, once the caller has encoded and queued the answer.
            asyncio.get_running_loop().call_soon(self.reclaimer.after_job)

    def _check_editor(self, spec: ToolSpec, file_key: str | None) -> None:
        """Refuse, before anything is sent, a tool made for one editor when its target file is of another.

        A file whose editor type is not known yet is let through: the plugin refuses such a call itself.
        """
        target = file_key or self.bridge.active_file_key()
        file = next((f for f in self.bridge.files() if f.file_key == target), None)
        if file is None or not file.editor_type or file.editor_type in spec.needs_editor:
            return
        wanted = " or ".join(EDITOR_NAMES.get(editor, editor) for editor in spec.needs_editor)
        raise DesignError(
            ErrorCode.WRONG_EDITOR,
            f"{spec.name} works on {wanted} files; the active file {file.file_name!r} is a "
            f"{EDITOR_NAMES.get(file.editor_type, file.editor_type)} file ({file.editor_type}).",
            "design_list_open_files shows each connected file's editor type; design_navigate makes one active.",
        )

    def setup_report(self) -> dict[str, Any]:
        """The ``setup`` / ``bridge`` part of status, shared with not-connected errors."""
        connected = self.bridge.is_connected()
        active = self.bridge.active_file_key()
        file = next((f for f in self.bridge.files() if f.file_key == active), None)
        report: dict[str, Any] = {
            "setup": {
                "valid": connected,
                "message": (
                    f"Desktop Bridge connected to {file.file_name!r}."
                    if connected and file
                    else str(self.bridge.unavailable or "No Desktop Bridge plugin is connected.")
                ),
            },
            "bridge": {
                "connected": connected,
                "port": self.bridge.port,
                "file": {"name": file.file_name, "key": file.file_key, "currentPage": file.current_page}
                if file
                else None,
            },
        }
        if not connected:
            report["setup"]["steps"] = setup_steps(self.config)
        refused = refused_plugin_notice(self.config, self.bridge.stats())
        if refused:
            report["setup"]["refusedPlugin"] = refused
        return report

    def status(self) -> dict[str, Any]:
        """The daemon-wide report designctl status and design_diagnose show."""
        shims = [p for p in self.control.peers.values() if p.kind == PEER_SHIM]
        return {
            "version": __version__,
            "pid": os.getpid(),
            "uptime": round(time.time() - self.started_at, 1),
            "port": self.bridge.port,
            "host": self.config.ws_host,
            "bridgeAuth": self.config.bridge_auth,
            "bridgeError": str(self.bridge.unavailable) if self.bridge.unavailable else None,
            "pluginDir": str(self.config.plugin_dir),
            "bundledPluginVersion": PLUGIN_VERSION,
            "files": [
                {
                    "fileKey": f.file_key,
                    "fileName": f.file_name,
                    "currentPage": f.current_page,
                    "pluginVersion": f.plugin_version,
                    "editorType": f.editor_type,
                    "active": f.file_key == self.bridge.active_file_key(),
                }
                for f in self.bridge.files()
            ],
            "locked": self.bridge.locked,
            "shims": [{"pid": p.pid, "since": round(p.connected_at)} for p in shims],
            "workers": self.supervisor.status(),
            "tools": len(self.tools),
            "bridgeStats": self.bridge.stats(),
            "refusedPlugin": refused_plugin_notice(self.config, self.bridge.stats()),
            "controlStats": {
                "badFrames": self.control.bad_frames,
                "receiveErrors": self.control.receive_errors,
                "handlerErrors": self.control.handler_errors,
                "refusedPeers": self.control.refused,
            },
            "control": {
                "transport": self.config.transport,
                "endpoint": self.control.endpoint,
                "drivenBy": self.control.driver,
            },
            "designApi": {
                # What designd uses for whom: a session whose AI app gave DESIGN_ACCESS_TOKEN uses its own; the others
                # use designd's (the environment designd started with). Never a token itself.
                "designdToken": bool(self.config.access_token),
                "sessionsWithOwnToken": len([p for p in shims if p.access_token]),
                "sessions": len(shims),
            },
        }

    def need_mcp(self) -> None:
        """Load the MCP SDK (once): a session has a message only the SDK can serve."""
        if self._mcp_load is None:
            self._mcp_load = asyncio.create_task(self.load_mcp(), name="mcp-load")

    async def load_mcp(self) -> None:
        """Import the MCP SDK and build its server off the event loop, then hand it every session opened so far."""
        try:
            host = await asyncio.to_thread(importlib.import_module, MCP_HOST_MODULE)
            server = await asyncio.to_thread(
                host.build_server, self.tools, self.call_tool, self.views, self.config.file_roots
            )
        except Exception:
            # Without the SDK no AI app can be served: stop, so the shims report it and start a new designd.
            log.exception("the MCP server could not be loaded; designd stops")
            self.stopping.set()
            return
        self.server = server
        log.debug("MCP server ready")
        self._session_class = host.McpSession
        for identity, front in list(self.sessions.items()):
            peer = self.control.peers.get(identity)
            with session_token(peer.access_token if peer is not None else ""):
                await front.attach(server, self._session_class)

    def spawn(self, coro: Awaitable[Any], name: str) -> None:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _on_join(self, peer: Peer) -> None:
        if peer.kind == PEER_SHIM:
            identity = peer.identity

            async def send(data: bytes) -> None:
                await self.control.send(identity, Rpc(data=data))

            session = SessionFront(
                self.answers,
                send,
                name=f"shim-{peer.pid}",
                cwd=peer.cwd,
                tools=self.tools,
                call=self.call_tool,
                need_sdk=self.need_mcp,
            )
            self.sessions[identity] = session
            if self.server is not None and self._session_class is not None:
                with session_token(peer.access_token):
                    await session.attach(self.server, self._session_class)
            log.info("AI app session %s opened (shim pid %s, %d open)", peer.session[:8], peer.pid, len(self.sessions))
        elif peer.kind.startswith(WORKER_PREFIX):
            self.supervisor.attach(peer)

    async def _on_leave(self, peer: Peer) -> None:
        if peer.identity == self._stop_when_gone:
            self.stopping.set()
        session = self.sessions.pop(peer.identity, None)
        if session is not None:
            await session.close()
            log.info("AI app session closed (shim pid %s, %d open)", peer.pid, len(self.sessions))
        if peer.kind.startswith(WORKER_PREFIX):
            self.supervisor.detach(peer)

    async def _on_frame(self, peer: Peer, frame: AnyFrame) -> None:
        if isinstance(frame, Rpc) and peer.kind == PEER_SHIM:
            session = self.sessions.get(peer.identity)
            if session is not None:
                # session_token() without its generator: this runs for every message of every AI app.
                reset = SESSION_TOKEN.set(peer.access_token)
                try:
                    await session.feed(frame.data)
                finally:
                    SESSION_TOKEN.reset(reset)
        elif isinstance(frame, Bye):
            await self.control.drop(peer.identity, frame.reason or "bye")
        elif peer.kind.startswith(WORKER_PREFIX):
            await self._on_worker_frame(peer, frame)
        elif peer.kind == PEER_CTL and isinstance(frame, Call):
            self.spawn(self._ctl_call(peer, frame), f"ctl-call-{frame.tool}")
        elif peer.kind == PEER_CTL and isinstance(frame, Command):
            await self._ctl_command(peer, frame)
        else:
            await self.control.send(
                peer.identity,
                Error(
                    id=frame.id,
                    code=ErrorCode.BAD_REQUEST,
                    message=f"{type(frame).__name__} is not valid from {peer.kind}",
                ),
            )

    async def _on_worker_frame(self, peer: Peer, frame: AnyFrame) -> None:
        if isinstance(frame, BridgeCall):
            self.spawn(self._worker_bridge_call(peer, frame), f"worker-bridge-{frame.method}")
        elif isinstance(frame, StateQuery):
            await self._state_query(peer, frame)
        elif isinstance(frame, ToolResult | Error | Progress):
            await self.supervisor.on_reply(peer, frame)

    async def _state_query(self, peer: Peer, frame: StateQuery) -> None:
        """Plugin-fed state a worker's tool needs (the worker processes cannot see the daemon's memory)."""
        key = frame.file_key or self.bridge.active_file_key() or ""
        if frame.what == "metadata_changes":
            data = msgspec.to_builtins(self.state.metadata_changes(key, count=None)) if key else []
            await self.control.send(peer.identity, Result(id=frame.id, data=data))
        elif frame.what == "change_seq":
            await self.control.send(peer.identity, Result(id=frame.id, data=self.state.change_seq(key)))
        else:
            await self.control.send(
                peer.identity, Error(id=frame.id, code=ErrorCode.BAD_REQUEST, message=f"unknown state {frame.what!r}")
            )

    async def _worker_bridge_call(self, peer: Peer, frame: BridgeCall) -> None:
        async def progress(value: float, total: float | None, message: str) -> None:
            # Back to the worker, whose call passes it on to the AI app.
            await self.control.send(peer.identity, Progress(id=frame.id, progress=value, total=total, message=message))

        try:
            result = await self.bridge.command(
                frame.method,
                frame.params,
                file_key=frame.file_key,
                timeout=frame.timeout,
                params_json=frame.params_json,
                progress=progress,
            )
            await self.control.send(peer.identity, Result(id=frame.id, data=result))
        except DesignError as err:
            await self.control.send(peer.identity, Error(id=frame.id, code=err.code, message=str(err)))
        finally:
            # A worker's command can be the biggest thing designd carries (a token import's change set).
            asyncio.get_running_loop().call_soon(self.reclaimer.after_job)

    async def _ctl_call(self, peer: Peer, frame: Call) -> None:
        async def progress(value: float, total: float | None, message: str) -> None:
            await self.control.send(peer.identity, Progress(id=frame.id, progress=value, total=total, message=message))

        async def scope() -> FileScope:
            # designctl call resolves relative paths in the terminal it was run from; a terminal offers no roots.
            return FileScope.from_wire(peer.cwd, None)

        with session_token(peer.access_token):
            output = await self.call_tool(frame.tool, frame.arguments, progress, scope)
        await self.control.send(peer.identity, ToolResult(id=frame.id, output=output))

    async def _ctl_command(self, peer: Peer, frame: Command) -> None:
        if frame.name == "status":
            data: Any = self.status()
        elif frame.name == "stop":
            # The shutdown closes the socket the answer goes out on, and a queued frame does not always leave before:
            # it begins when designctl says goodbye (it has the answer then), or after a second at most.
            self._stop_when_gone = peer.identity
            asyncio.get_running_loop().call_later(STOP_ANSWER_GRACE, self.stopping.set)
            await self.control.send(peer.identity, Result(id=frame.id, data={"stopping": True}))
            return
        else:
            await self.control.send(
                peer.identity,
                Error(id=frame.id, code=ErrorCode.UNKNOWN_COMMAND, message=f"unknown command {frame.name!r}"),
            )
            return
        await self.control.send(peer.identity, Result(id=frame.id, data=data))
