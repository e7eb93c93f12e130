"""The daemon's WebSocket bridge to the Desktop Bridge plugin (see docs/bridge-protocol.md).

The daemon is the server; every plugin UI iframe is a client socket. A socket becomes a *file* when it sends
FILE_INFO; commands go to a file (the active one unless the caller names a fileKey) and only a reply from that file's
socket counts. Plain HTTP on the same port answers ``/health``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import itertools
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, cast

import msgspec
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import MultipleValuesError
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from design_console.bridge_frames import (
    MAX_FRAME_BYTES,
    NONCE_BYTES,
    Frame,
    HelloData,
    ProgressData,
    decode_frame,
    decode_hello,
    plugin_proof_valid,
)
from design_console.clients.plugin_link import (
    PluginLink,
    ProgressFn,
    ReplyOutcome,
    disconnected_error,
    interrupted_error,
    stalled_error,
)
from design_console.config import Config
from design_console.daemon.state import EVENT_TYPES, FileData, FileState, State
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import BRIDGE_PROTOCOL, bridge_proof
from design_console.runtime.logs import LogThrottle, throttle_loop_errors
from design_console.runtime.ports import LISTEN_RETRY_FIRST_SECONDS, LISTEN_RETRY_MAX_SECONDS, ports_busy_error
from design_console.runtime.setup_text import not_connected_error

log = logging.getLogger("design_console.bridge")

#: websockets logs every plain HTTP answer (each /health probe of every plugin) at INFO as "connection rejected";
#: our own lines cover connects and disconnects, so only its warnings are kept.
_ws_log = logging.getLogger("design_console.bridge.websockets")
_ws_log.setLevel(logging.WARNING)

SERVICE_NAME = "design-console-mcp"
GRACE_SECONDS = 5.0
IDENTIFY_TIMEOUT_SECONDS = 30.0
#: A socket must prove it holds the token this soon (when auth is required); a plugin does it in milliseconds.
HANDSHAKE_TIMEOUT_SECONDS = 10.0
#: At most this many sockets may wait to identify at once; a new one past it pushes out the oldest waiting, so a
#: flood of idle sockets can neither exhaust designd's descriptors nor lock the real plugin out.
MAX_WAITING_SOCKETS = 64
PING_INTERVAL_SECONDS = 10.0
MISSED_PONGS_TO_DROP = 2
CLOSE_TIMEOUT_SECONDS = 5.0

ALLOWED_ORIGINS = frozenset({"null", "https://www.figma.com", "https://figma.com"})
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", "*", ""})


def _semver(version: str) -> tuple[int, ...]:
    core = version.strip().lstrip("v").split("-", 1)[0].split("+", 1)[0]
    parts: list[int] = []
    for piece in core.split("."):
        digits = "".join(itertools.takewhile(str.isdigit, piece))
        parts.append(int(digits) if digits else 0)
    return tuple([*parts, 0, 0, 0][:3])


def is_older(version: str | None, than: str) -> bool:
    """True when plugin ``version`` is missing or older (semver) than ``than``."""
    return not version or _semver(version) < _semver(than)


def _is_loopback_name(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    """The host part of a Host header, lower-case, without port, brackets or trailing dot."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0].rstrip(".") if value.count(":") <= 1 else value


def _ipv6_loopback_available() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


_progress_decoder = msgspec.json.Decoder(ProgressData)
_encoder = msgspec.json.Encoder()


@dataclass(eq=False)
class _Socket:
    ws: ServerConnection
    sid: int
    #: designd's fresh nonce for this socket's handshake (sent in SERVER_HELLO).
    nonce: str = field(default_factory=lambda: secrets.token_hex(NONCE_BYTES))
    hello_seen: bool = False
    authenticated: bool = False
    hello_version: str | None = None
    file_key: str | None = None
    update_sent: bool = False
    closing: bool = False
    identify_timer: asyncio.TimerHandle | None = None
    handshake_timer: asyncio.TimerHandle | None = None
    keepalive: asyncio.Task[None] | None = None


@dataclass(eq=False)
class _File:
    """An identified file: the peer its commands go to, whichever of its sockets is live."""

    key: str
    data: FileData
    bridge: Bridge
    socket: _Socket | None = None
    grace: asyncio.TimerHandle | None = None
    live: asyncio.Event = field(default_factory=asyncio.Event)
    gone: bool = False
    activity: int = 0
    #: The socket a command frame is being written to.
    writing: _Socket | None = None

    @property
    def label(self) -> str:
        name = self.data.info.file_name
        return f"'{name}' ({self.key})" if name else f"({self.key})"

    async def send(self, frame: bytes, method: str) -> None:
        """Write ``frame`` to the file's socket, waiting within the grace period for a disconnected file."""
        self.writing = None
        while self.socket is None:
            if self.gone:
                raise DesignError(
                    ErrorCode.DISCONNECTED,
                    f"The plugin in {self.label} disconnected and did not come back; {method} was not sent.",
                    "Reopen the plugin in that file, check with design_get_status, then retry.",
                )
            await self.live.wait()
        # Left set if the deadline interrupts the write: :meth:`unsent` then knows which socket stopped reading.
        sock = self.writing = self.socket
        try:
            # The encoded JSON as it is, sent as text: no decoding to str for websockets to encode again.
            await sock.ws.send(frame, text=True)
        except ConnectionClosed:
            self.writing = None
            raise disconnected_error(self.label, method) from None
        self.writing = None

    async def cancel(self, frame: bytes) -> bool:
        """Write a CANCEL to the live socket, if there is one."""
        if self.socket is None:
            return False
        try:
            await self.socket.ws.send(frame, text=True)
        except ConnectionClosed:
            return False
        return True

    def unsent(self, method: str, wait: float) -> DesignError:
        """The deadline came while the file was reconnecting, or while its socket would not take the frame."""
        sock, self.writing = self.writing, None
        if sock is None:
            return DesignError(
                ErrorCode.TIMEOUT,
                f"The plugin in {self.label} is reconnecting; {method} was not sent before its timeout.",
                "Call design_get_status, then retry once the file shows as connected.",
            )
        self.bridge.drop_stalled(sock)
        return stalled_error(self.label, method, wait)


class Bridge:
    """The WebSocket server the plugin connects to, and the command channel to it."""

    def __init__(
        self,
        config: Config,
        *,
        token: str,
        server_version: str,
        plugin_version: str,
        state: State,
        grace: float = GRACE_SECONDS,
        identify_timeout: float = IDENTIFY_TIMEOUT_SECONDS,
        handshake_timeout: float = HANDSHAKE_TIMEOUT_SECONDS,
        max_waiting: int = MAX_WAITING_SOCKETS,
        ping_interval: float = PING_INTERVAL_SECONDS,
    ) -> None:
        self._config = config
        self._token = token.encode()
        self._server_version = server_version
        self._plugin_version = plugin_version
        self._state = state
        self._grace = grace
        self._identify_timeout = identify_timeout
        self._handshake_timeout = handshake_timeout
        self._max_waiting = max_waiting
        self._ping_interval = ping_interval
        host = config.ws_host.strip().lower()
        self._host = host
        self._loopback_only = host == "localhost" or _is_loopback_name(host.strip("[]"))
        #: A bridge reachable from other machines always asks for the token, whatever DESIGN_BRIDGE_AUTH says.
        self.auth_required = config.bridge_auth == "required" or not self._loopback_only
        #: Besides loopback names, a Host header may name the address the bridge is bound to.
        self._bound_name = None if host in WILDCARD_HOSTS else host.strip("[]")
        self.port: int | None = None
        self.started_at: float = time.time()
        self._server: Server | None = None
        #: The addresses :meth:`start` listens on (both loopbacks for localhost where IPv6 has one).
        self._hosts: str | list[str] = []
        self._closed = False
        self._sockets: set[_Socket] = set()
        self._files: dict[str, _File] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._active: str | None = None
        self._locked = False
        self._activity = itertools.count(1)
        self._sids = itertools.count(1)
        self._throttle = LogThrottle(log)
        #: When designd last closed a plugin's socket for a wrong or missing bridge-token handshake.
        self._last_refused: float | None = None
        #: Why the bridge does not listen (every port of the range taken); every command answers it.
        self.unavailable: DesignError | None = None
        self._counters: dict[str, int] = dict.fromkeys(
            (
                "socketsAccepted",
                "unauthenticatedRejects",
                "failedProofs",
                "originRejects",
                "hostRejects",
                "badFrames",
                "surrogatesReplaced",
                "oversizedFrames",
                "unknownTypes",
                "unidentifiedEvents",
                "unknownReplies",
                "wrongFileReplies",
                "lateRepliesDropped",
                "identificationTimeouts",
                "handshakeTimeouts",
                "waitingSocketsEvicted",
                "replacedSockets",
                "pingsSent",
                "pingDrops",
                "commandsSent",
                "commandsFailed",
                "commandsTimedOut",
                "stalledSockets",
            ),
            0,
        )
        self._last_error: str | None = None
        manifest = config.plugin_dir / "manifest.json"
        self._link = PluginLink(
            self._counters,
            id_prefix=f"{os.getpid():x}{int(self.started_at * 1000) % 0xFFFFFF:x}-",
            outdated_hint=f"re-import it from {manifest} (Plugins > Development > Import plugin from manifest…) "
            "and run it again.",
        )

    # --- lifecycle ----------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on the first free port of the configured range; sets :attr:`port`.

        Raises DesignError ``ports_busy`` naming who holds each port when all ten are taken (then
        :meth:`listen_when_free` keeps trying), ``bind_failed`` when the host cannot be listened on at all.
        """
        hosts: str | list[str]
        if self._host == "localhost":
            hosts = ["127.0.0.1", "::1"] if _ipv6_loopback_available() else ["127.0.0.1"]
        else:
            hosts = self._host.strip("[]")
        if not self._loopback_only:
            log.warning(
                "the bridge listens on %s, reachable from other machines; plugins must prove they hold the token",
                self._host,
            )
            if self._config.bridge_auth == "off":
                log.warning("DESIGN_BRIDGE_AUTH=off is ignored because the bridge is not bound to loopback only")
        self.started_at = time.time()
        throttle_loop_errors(asyncio.get_running_loop(), self._throttle)
        self._hosts = hosts
        if not await self._listen(logging.INFO):
            self.unavailable = ports_busy_error(self._config)
            raise self.unavailable

    async def listen_when_free(self) -> int:
        """After :meth:`start` found every port taken: try again, waiting :data:`LISTEN_RETRY_FIRST_SECONDS` and
        twice as long after each failure up to :data:`LISTEN_RETRY_MAX_SECONDS`, until a port is free. Returns it.

        Meanwhile :attr:`unavailable` names who holds the ports as of the last try. Raises DesignError
        ``bind_failed`` when the host cannot be listened on at all.
        """
        delay = LISTEN_RETRY_FIRST_SECONDS
        while self.port is None:
            await asyncio.sleep(delay)
            delay = min(2 * delay, LISTEN_RETRY_MAX_SECONDS)
            if not await self._listen(logging.DEBUG):
                # Who holds the ports, asked off the loop: listing every socket of the machine takes a while.
                self.unavailable = await asyncio.to_thread(ports_busy_error, self._config)
        return self.port

    async def _listen(self, busy_level: int) -> bool:
        """Listen on the first free port of the range; False when every one is taken. ``busy_level``: the level of
        the line each taken port gets (each retry's would fill the log)."""
        for port in self._config.ports:
            try:
                self._server = await serve(
                    self._serve_socket,
                    # asyncio's create_server takes a list of hosts; websockets annotates only one.
                    cast(str, self._hosts),
                    port,
                    process_request=self._process_request,
                    max_size=MAX_FRAME_BYTES,
                    compression=None,
                    ping_interval=None,
                    ping_timeout=None,
                    close_timeout=CLOSE_TIMEOUT_SECONDS,
                    logger=_ws_log,
                )
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    log.log(busy_level, "bridge port %d is busy, trying the next one", port)
                    continue
                raise DesignError(
                    ErrorCode.BIND_FAILED,
                    f"Cannot listen on {self._host} port {port}: {exc.strerror or exc}.",
                    "Set DESIGN_WS_HOST to localhost (the default) or to an address of this machine.",
                ) from None
            self.port = port
            self.unavailable = None
            log.info("bridge listening on %s port %d (auth %s)", self._host, port, self._auth_mode())
            return True
        return False

    async def close(self) -> None:
        """Close every socket (1001 going away) and fail every command in flight."""
        if self._closed:
            return
        self._closed = True
        error = DesignError(
            ErrorCode.DISCONNECTED, "designd is shutting down.", "Start it again (designctl start) and retry the call."
        )
        for f in list(self._files.values()):
            if f.grace is not None:
                f.grace.cancel()
            f.gone = True
            f.live.set()
        await self._link.close(error)
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- reading the state ----------------------------------------------------------------------------------

    def files(self) -> list[FileState]:
        """Identified files (connected or within the grace period), the active one first, then most recent."""
        ordered = sorted(self._files.values(), key=lambda f: (f.key != self._active, -f.activity))
        return [f.data.info for f in ordered]

    def is_connected(self) -> bool:
        """True when at least one identified file has a live socket."""
        return any(f.socket is not None for f in self._files.values())

    def active_file_key(self) -> str | None:
        """The file commands go to when the caller names none."""
        return self._active if self._active in self._files else None

    @property
    def locked(self) -> bool:
        """True when navigate pinned the active file."""
        return self._locked

    def navigate(self, file_key: str, lock: bool) -> FileState:
        """Make ``file_key`` the active file; ``lock`` keeps it active until it disconnects."""
        f = self._files.get(file_key)
        if f is None:
            raise self._unknown_file(file_key)
        self._active = file_key
        self._locked = lock
        f.activity = next(self._activity)
        return f.data.info

    def _auth_mode(self) -> str:
        return "required" if self.auth_required else "off"

    def health(self) -> dict[str, Any]:
        """The /health body.

        It is readable by any web page (CORS), so it names no file: file names and keys stay in designctl/status.
        """
        return {
            "status": "ok",
            "version": self._server_version,
            "clients": len(self._files),
            "connectedClients": len(self._sockets),
            "uptime": round(time.time() - self.started_at, 3),
            "service": SERVICE_NAME,
            "pid": os.getpid(),
            "port": self.port,
            "authRequired": self.auth_required,
            "protocol": BRIDGE_PROTOCOL,
            "files": [
                {
                    "active": info.file_key == self._active,
                    "connected": info.connected,
                    "editorType": info.editor_type,
                    "pluginVersion": info.plugin_version,
                }
                for info in self.files()
            ],
        }

    def stats(self) -> dict[str, Any]:
        """Counters for status and diagnose."""
        return {
            **self._counters,
            "sockets": len(self._sockets),
            "files": len(self._files),
            "pendingCommands": len(self._link),
            "malformedEvents": self._state.malformed_events,
            "unauthenticatedFiles": sum(1 for f in self._files.values() if not f.data.info.authenticated),
            "lastError": self._last_error,
            "lastRefusedAt": self._last_refused,
            "authMode": self._auth_mode(),
            "host": self._host,
            "port": self.port,
        }

    # --- HTTP -----------------------------------------------------------------------------------------------

    def _process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        try:
            host = request.headers.get("Host")
            origin = request.headers.get("Origin")
        except MultipleValuesError:
            self._counters["hostRejects"] += 1
            return conn.respond(HTTPStatus.FORBIDDEN, "Repeated Host or Origin header.\n")
        if host is None or not self._host_allowed(_host_name(host)):
            self._counters["hostRejects"] += 1
            self._throttle.warning("host", "refused a request with Host %r (not a loopback name)", host)
            return conn.respond(HTTPStatus.FORBIDDEN, "Host not allowed.\n")
        path = request.path.split("?", 1)[0]
        upgrade = request.headers.get_all("Upgrade")
        if request.method == "GET" and any(v.strip().lower() == "websocket" for v in upgrade):
            if origin is not None and origin not in ALLOWED_ORIGINS:
                self._counters["originRejects"] += 1
                self._throttle.warning("origin", "refused a WebSocket from origin %r", origin)
                return conn.respond(HTTPStatus.FORBIDDEN, "Origin not allowed.\n")
            return None
        health_path = path in ("/health", "/")
        if request.method == "OPTIONS":
            response = conn.respond(HTTPStatus.NO_CONTENT, "")
            if health_path:
                response.headers["Access-Control-Allow-Origin"] = "*"
                response.headers["Access-Control-Allow-Methods"] = "GET, OPTIONS"
                response.headers["Access-Control-Allow-Headers"] = "*"
            return response
        if request.method == "GET" and health_path:
            response = conn.respond(HTTPStatus.OK, _encoder.encode(self.health()).decode())
            response.headers["Content-Type"] = "application/json"
            response.headers["Access-Control-Allow-Origin"] = "*"
            response.headers["Cache-Control"] = "no-store"
            return response
        return conn.respond(HTTPStatus.NOT_FOUND, "Not found. This port serves the bridge WebSocket and /health.\n")

    def _host_allowed(self, name: str) -> bool:
        return name == self._bound_name or _is_loopback_name(name)

    # --- sockets --------------------------------------------------------------------------------------------

    async def _serve_socket(self, ws: ServerConnection) -> None:
        loop = asyncio.get_running_loop()
        sock = _Socket(ws, next(self._sids))
        self._make_room()
        self._sockets.add(sock)
        self._counters["socketsAccepted"] += 1
        try:
            await ws.send(self._server_hello(sock))
            sock.identify_timer = loop.call_later(self._identify_timeout, self._identification_expired, sock)
            if self.auth_required:
                sock.handshake_timer = loop.call_later(self._handshake_timeout, self._handshake_expired, sock)
            sock.keepalive = loop.create_task(self._keepalive(sock))
            async for message in ws:
                if not sock.closing:
                    await self._on_message(sock, message)
        except ConnectionClosed:
            pass
        finally:
            for timer in (sock.identify_timer, sock.handshake_timer):
                if timer is not None:
                    timer.cancel()
            if sock.keepalive is not None:
                sock.keepalive.cancel()
            self._sockets.discard(sock)
            sent = ws.protocol.close_sent
            if sent is not None and sent.code == 1009:
                self._counters["oversizedFrames"] += 1
                self._last_error = f"closed socket {sock.sid}: a frame was larger than {MAX_FRAME_BYTES} bytes"
            self._detach(sock)

    def _server_hello(self, sock: _Socket) -> str:
        hello = {
            "type": "SERVER_HELLO",
            "data": {
                "port": self.port,
                "nonce": sock.nonce,
                "pid": os.getpid(),
                "serverVersion": self._server_version,
                "startedAt": int(self.started_at * 1000),
                "protocol": BRIDGE_PROTOCOL,
                "authRequired": self.auth_required,
            },
        }
        return _encoder.encode(hello).decode()

    async def _close_socket(self, sock: _Socket, code: int, reason: str) -> None:
        sock.closing = True
        with contextlib.suppress(ConnectionClosed):
            await sock.ws.close(code, reason)

    def _make_room(self) -> None:
        """Keep the sockets still waiting to identify under the cap by closing the oldest of them."""
        waiting = sorted((s for s in self._sockets if s.file_key is None and not s.closing), key=lambda s: s.sid)
        for old in waiting[: max(0, len(waiting) - self._max_waiting + 1)]:
            self._counters["waitingSocketsEvicted"] += 1
            self._throttle.warning("evicted", "too many sockets waiting to identify; closing socket %d", old.sid)
            old.closing = True
            self._spawn(self._close_socket(old, 1013, "Too many connections waiting to identify"))

    def _handshake_expired(self, sock: _Socket) -> None:
        if not sock.authenticated and not sock.closing:
            self._counters["handshakeTimeouts"] += 1
            self._throttle.warning("handshake", "socket %d did not authenticate in time; closing it", sock.sid)
            self._spawn(self._close_socket(sock, 4401, "authentication required"))

    def _identification_expired(self, sock: _Socket) -> None:
        if sock.file_key is None and not sock.closing:
            self._counters["identificationTimeouts"] += 1
            log.info("socket %d sent no FILE_INFO within %g s; closing it", sock.sid, self._identify_timeout)
            self._spawn(self._close_socket(sock, 1000, "File identification timeout"))

    async def _keepalive(self, sock: _Socket) -> None:
        """Ping every interval; drop a socket that missed two pongs, unless a command to its file is in flight."""
        waiter: asyncio.Future[float] | None = None
        missed = 0
        while True:
            await asyncio.sleep(self._ping_interval)
            missed = missed + 1 if waiter is not None and not waiter.done() else 0
            if missed >= MISSED_PONGS_TO_DROP and not self._busy(sock):
                self._counters["pingDrops"] += 1
                log.warning("socket %d missed %d pongs; dropping it", sock.sid, missed)
                self._detach(sock)
                await self._close_socket(sock, 1011, "keepalive ping timeout")
                return
            try:
                async with asyncio.timeout(self._ping_interval):
                    new_waiter = asyncio.ensure_future(await sock.ws.ping())
            except TimeoutError:
                continue
            except ConnectionClosed:
                return
            self._counters["pingsSent"] += 1
            if waiter is None or waiter.done():
                waiter = new_waiter

    def _busy(self, sock: _Socket) -> bool:
        f = self._files.get(sock.file_key) if sock.file_key else None
        return f is not None and f.socket is sock and self._link.busy(f)

    def _bad_frame(self, sock: _Socket, what: str, exc: Exception) -> None:
        """Count and log (at most so often for each kind) a frame of ``sock`` that could not be read."""
        self._counters["badFrames"] += 1
        self._throttle.warning(f"bad-{what}", "ignored an unreadable %s from socket %d: %s", what, sock.sid, exc)

    async def _on_message(self, sock: _Socket, message: str | bytes) -> None:
        try:
            frame = decode_frame(message, self._counters)
        except msgspec.DecodeError as exc:
            self._bad_frame(sock, "frame", exc)
            return
        if frame.type == "HELLO":
            await self._on_hello(sock, frame)
            return
        if self.auth_required and not sock.authenticated:
            self._counters["unauthenticatedRejects"] += 1
            self._last_refused = time.time()
            log.warning("socket %d sent %s without a valid HELLO; closing it", sock.sid, frame.type or "a reply")
            await self._close_socket(sock, 4401, "authentication required")
            return
        if frame.id is not None and frame.method is None:
            self._on_reply(sock, frame)
        elif frame.type == "FILE_INFO":
            await self._identify(sock, bytes(frame.data) or b"{}")
        elif frame.type == "PROGRESS":
            self._on_progress(sock, bytes(frame.data) or b"{}")
        elif frame.type in EVENT_TYPES:
            self._on_event(sock, frame.type, bytes(frame.data) or b"{}")
        else:
            self._counters["unknownTypes"] += 1
            kind = frame.type or frame.method
            self._throttle.warning("unknown-type", "ignored a frame of unknown type %r from socket %d", kind, sock.sid)

    async def _on_hello(self, sock: _Socket, frame: Frame) -> None:
        """Check the plugin's proof that it holds the token, and prove designd holds it too (protocol 3).

        The proof is bound to this socket's nonce and to designd's own port, so a proof made for another server (a
        relay) does not verify. Only the first HELLO of a socket counts.
        """
        if sock.hello_seen:
            self._throttle.warning("second-hello", "ignored a second HELLO from socket %d", sock.sid)
            return
        sock.hello_seen = True
        try:
            hello = decode_hello(bytes(frame.data) or b"{}")
        except msgspec.DecodeError as exc:
            self._bad_frame(sock, "HELLO", exc)
            hello = HelloData()
        sock.hello_version = hello.pluginVersion or sock.hello_version
        if self._proof_valid(sock, hello):
            sock.authenticated = True
            proof = bridge_proof(self._token.decode(), "server", self._port(), hello.nonce, sock.nonce)
            with contextlib.suppress(ConnectionClosed):
                await sock.ws.send(_encoder.encode({"type": "SERVER_PROOF", "data": {"proof": proof}}).decode())
            return
        self._counters["failedProofs"] += 1
        legacy = bool(hello.token) or (hello.protocol is not None and hello.protocol < BRIDGE_PROTOCOL)
        # Throttled: anyone on this machine can open sockets, and must not be able to flood the log.
        if legacy:
            self._throttle.warning("old-hello", "socket %d sent an older plugin's protocol-2 HELLO", sock.sid)
        else:
            self._throttle.warning("bad-proof", "socket %d sent a wrong or missing handshake proof", sock.sid)
        if not self.auth_required:
            return
        self._last_refused = time.time()
        if legacy:
            await self._send_update_notice(sock, hello.pluginVersion)
        await self._close_socket(sock, 4401, "authentication required")

    def _proof_valid(self, sock: _Socket, hello: HelloData) -> bool:
        return plugin_proof_valid(self._token.decode(), self._port(), sock.nonce, hello)

    def _port(self) -> int:
        if self.port is None:
            raise RuntimeError("the bridge serves sockets only once it listens")
        return self.port

    async def _send_update_notice(self, sock: _Socket, version: str | None) -> None:
        """Tell the plugin once (PLUGIN_UPDATE_AVAILABLE) that designd ships a newer one; its window shows a banner."""
        if sock.update_sent:
            return
        sock.update_sent = True
        notice = {
            "type": "PLUGIN_UPDATE_AVAILABLE",
            "serverVersion": self._server_version,
            "bundledPluginVersion": self._plugin_version,
            "pluginVersion": version or "unknown",
        }
        with contextlib.suppress(ConnectionClosed):
            await sock.ws.send(_encoder.encode(notice).decode())

    async def _identify(self, sock: _Socket, payload: bytes) -> None:
        try:
            info = State.parse_file_info(payload)
        except msgspec.DecodeError as exc:
            self._bad_frame(sock, "FILE_INFO", exc)
            return
        key = info.file_key or f"name:{info.file_name or 'untitled'}"
        if sock.file_key is not None and sock.file_key != key:
            self._detach(sock)
        f = self._files.get(key)
        newly_attached = f is None or f.socket is not sock
        data = self._state.identify(info, key, authenticated=sock.authenticated)
        if f is None:
            f = _File(key, data, self)
            self._files[key] = f
        if f.grace is not None:
            f.grace.cancel()
            f.grace = None
        old = f.socket
        if old is not None and old is not sock:
            self._counters["replacedSockets"] += 1
            log.info("file %s reconnected on socket %d; closing its old socket %d", key, sock.sid, old.sid)
            old.file_key = None
            self._link.fail_peer(f, interrupted_error(f.label, "reconnected"))
            self._spawn(self._close_socket(old, 1000, "Replaced by same file reconnection"))
        f.socket = sock
        f.live.set()
        sock.file_key = key
        if sock.identify_timer is not None:
            sock.identify_timer.cancel()
            sock.identify_timer = None
        if newly_attached:
            log.info("file %s connected on socket %d", f.label, sock.sid)
            self._make_active(f)
        version = info.plugin_version or sock.hello_version
        if is_older(version, self._plugin_version):
            await self._send_update_notice(sock, version)

    def _on_event(self, sock: _Socket, kind: str, payload: bytes) -> None:
        key = sock.file_key
        if key is None:
            self._counters["unidentifiedEvents"] += 1
            self._throttle.warning("unidentified", "ignored %s from socket %d before FILE_INFO", kind, sock.sid)
            return
        if self._state.apply_event(key, kind, payload) and kind in ("SELECTION_CHANGE", "PAGE_CHANGE"):
            f = self._files.get(key)
            if f is not None:
                self._make_active(f)

    def _on_progress(self, sock: _Socket, payload: bytes) -> None:
        """Hand a long command's progress to its caller; progress for anything else is dropped like a stray reply."""
        try:
            data = _progress_decoder.decode(payload)
        except msgspec.DecodeError as exc:
            self._bad_frame(sock, "PROGRESS", exc)
            return
        self._link.progress(self._file_of(sock), str(data.id), data.progress, data.total, data.message)

    def _file_of(self, sock: _Socket) -> _File | None:
        """The file ``sock`` is the live socket of, if any: only its replies and progress count."""
        f = self._files.get(sock.file_key) if sock.file_key else None
        return f if f is not None and f.socket is sock else None

    def _make_active(self, f: _File) -> None:
        f.activity = next(self._activity)
        if not self._locked:
            self._active = f.key

    def _detach(self, sock: _Socket) -> None:
        """The socket is gone: its file keeps its state for the grace period, then is removed (its console entries
        stay in the daemon's ring, readable by fileKey)."""
        key, sock.file_key = sock.file_key, None
        f = self._files.get(key) if key else None
        if f is None or f.socket is not sock:
            return
        f.socket = None
        f.live.clear()
        f.data.info.connected = False
        self._state.mark_left(f.key)
        if self._closed:
            return
        log.info("file %s disconnected; keeping its state for %g s", f.label, self._grace)
        f.grace = asyncio.get_running_loop().call_later(self._grace, self._expire, f)

    def _expire(self, f: _File) -> None:
        f.grace = None
        f.gone = True
        f.live.set()
        if self._files.get(f.key) is f:
            del self._files[f.key]
            self._state.remove(f.key)
        log.info("file %s did not come back within %g s; dropping its state (its console stays)", f.label, self._grace)
        self._link.fail_peer(
            f,
            DesignError(
                ErrorCode.DISCONNECTED,
                f"The plugin in {f.label} disconnected while the command was running and did not come back.",
                "The result is unknown: reopen the plugin in that file, check with design_get_status, then retry.",
            ),
        )
        if self._active == f.key:
            self._locked = False
            recent = max(self._files.values(), key=lambda g: (g.socket is not None, g.activity), default=None)
            self._active = recent.key if recent else None

    # --- commands -------------------------------------------------------------------------------------------

    def _on_reply(self, sock: _Socket, frame: Frame) -> None:
        outcome = self._link.resolve(self._file_of(sock), frame)
        if outcome is ReplyOutcome.LATE:
            log.info("dropped a late reply to command %s on socket %d", frame.id, sock.sid)
        elif outcome is ReplyOutcome.UNKNOWN:
            self._throttle.warning("unknown-reply", "ignored a reply to unknown id %r on socket %d", frame.id, sock.sid)
        elif outcome is ReplyOutcome.WRONG_PEER:
            self._throttle.warning(
                "wrong-file", "ignored a reply to %s that came from socket %d, not its file's", frame.id, sock.sid
            )

    def _target(self, file_key: str) -> _File:
        if self.unavailable is not None:
            raise self.unavailable
        if self._closed or not self._files:
            raise not_connected_error(self._config)
        key = file_key or self.active_file_key()
        if key is None:
            raise not_connected_error(self._config)
        f = self._files.get(key)
        if f is None:
            raise self._unknown_file(key)
        return f

    def _unknown_file(self, key: str) -> DesignError:
        if not self._files:
            return not_connected_error(self._config)
        known = ", ".join(f.label for f in self._files.values())
        return DesignError(
            ErrorCode.UNKNOWN_FILE,
            f"No file with key '{key}' has the plugin running. Connected files: {known}.",
            "Run the Desktop Bridge plugin in that file, or use one of the connected files' keys.",
        )

    def drop_stalled(self, sock: _Socket) -> None:
        """Drop a socket that stopped reading: a command written to it would hold every one behind it."""
        self._counters["stalledSockets"] += 1
        self._throttle.warning("stalled", "socket %d stopped reading; dropping it", sock.sid)
        self._detach(sock)
        sock.ws.transport.abort()

    async def command(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        file_key: str = "",
        timeout: float = 0.0,
        progress: ProgressFn | None = None,
        params_json: bytes = b"",
    ) -> dict[str, Any]:
        """Send one command to the plugin of ``file_key`` (default: the active file) and return its result object.

        ``timeout`` 0 uses the method's default. ``progress`` receives the PROGRESS frames the plugin sends for
        this command (long batches and layouts do). ``params_json``, params already encoded (a worker's), goes out
        as it is instead of ``params``. Raises DesignError ``not_connected``, ``unknown_file``,
        ``timeout`` (after sending CANCEL), ``plugin_error``, ``disconnected`` or ``bad_reply``.
        """
        try:
            f = self._target(file_key)
        except DesignError as exc:
            self._last_error = str(exc)
            raise
        try:
            return await self._link.call(f, method, params, timeout=timeout, progress=progress, params_json=params_json)
        except DesignError as exc:
            self._counters["commandsFailed"] += 1
            self._last_error = str(exc)
            raise
