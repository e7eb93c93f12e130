"""How the hosted service holds its connections, so that it stays available on its own, without a proxy in front.

uvicorn never times out a request head that arrives a byte at a time, nor a body that never ends, and at the
descriptor limit its accept loop fails and stalls: a few hundred slow or half-open connections would starve every
real client. :func:`guarded_h11` gives each connection a deadline for its request head (from the moment it opened or
went idle) and one for its body, and caps the connections: at the cap a new connection takes the place of the one
that has waited longest for its request head, so slow connections cannot keep a real request out. The cap leaves
descriptors for the service's own work (its store, outgoing requests, the headless browser) and for one accept batch
(the listen backlog), after :func:`raise_open_files` raised the soft descriptor limit to the hard one.

:class:`DrainingServer` is uvicorn's server with a shutdown that stops accepting at once, then gives the relays the
grace period but its last seconds to finish or hand over their calls, then lets uvicorn drain the requests.

:class:`QuietAccessLog` drops query values from uvicorn's access lines (the platform's code and state on
``/oauth/callback``, pairing codes on ``/ws/pair``), and :class:`RepeatThrottle` keeps a flood of one error from
filling the disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from design_console.runtime.platform.system import open_file_limits, raise_open_file_limit

#: Descriptors the service keeps for its own work, beyond its connections and one accept batch.
RESERVED_FILES = 64
#: The most connections the kernel queues for accept; asyncio accepts up to this many in one go.
MAX_BACKLOG = 2048
#: The descriptor count a cap is sized for when the process has no limit.
FILES_WHEN_UNLIMITED = 1 << 20
#: Of the shutdown grace period, what the relays leave for the answers of the calls they ended to go out (at most a
#: quarter of it).
ANSWER_SECONDS = 2.0


def raise_open_files() -> int:
    """Raise this process's soft descriptor limit as far as the OS lets; returns the soft limit in force."""
    with contextlib.suppress(OSError, ValueError):
        raise_open_file_limit()
    limits = open_file_limits()
    # No per-process limit of this kind (Windows), or an unlimited one: count as the largest a cap is sized for.
    return FILES_WHEN_UNLIMITED if limits is None or limits[0] < 0 else limits[0]


def backlog_for(open_files: int) -> int:
    """The listen backlog for a descriptor limit: an accept batch must fit beside the connections."""
    return max(16, min(MAX_BACKLOG, open_files // 8))


def connection_cap(open_files: int, wanted: int = 0) -> int:
    """The most connections held at once: ``wanted`` (DESIGN_REMOTE_MAX_CONNECTIONS, 0 for as many as fit), never
    more than the descriptors left after the reserve and one accept batch."""
    fit = max(8, open_files - RESERVED_FILES - backlog_for(open_files))
    return min(wanted, fit) if wanted else fit


class SlowClientGuard:
    """What every connection of one server shares: the limits, and the connections still waiting for their request
    head, oldest first."""

    def __init__(self, max_connections: int, header_timeout: float, body_timeout: float) -> None:
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.waiting: dict[H11Protocol, None] = {}


def guarded_h11(guard: SlowClientGuard) -> type[H11Protocol]:
    """uvicorn's h11 protocol with ``guard``'s deadlines and connection cap (pass it as uvicorn's ``http``)."""

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None
        _body_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._track()
            if len(self.connections) > guard.max_connections:
                self._make_room()

        def _make_room(self) -> None:
            oldest = next((other for other in guard.waiting if other is not self), self)
            oldest._cut_off()  # type: ignore[attr-defined]

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._track()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._track()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timers()
            super().connection_lost(exc)

        def _track(self) -> None:
            """Start or stop the deadlines for the request's state: a head is due while the peer is idle, a body
            while it sends one."""
            state = self.conn.their_state
            # An upgraded connection (a WebSocket) belongs to another protocol now, with its own keep-alive.
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                self._stop_timers()
                return
            if state is h11.IDLE:
                if self._head_timer is None:
                    self._head_timer = self.loop.call_later(guard.header_timeout, self._cut_off)
                    guard.waiting[self] = None
            else:
                self._stop_head()
            if state is h11.SEND_BODY:
                if self._body_timer is None:
                    self._body_timer = self.loop.call_later(guard.body_timeout, self._cut_off)
            elif self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None

        def _stop_head(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            guard.waiting.pop(self, None)

        def _stop_timers(self) -> None:
            self._stop_head()
            if self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None

        def _cut_off(self) -> None:
            self._stop_timers()
            # Nothing is owed to a peer that sent no complete request in time: no answer, no lingering close.
            self.transport.abort()

    return GuardedH11Protocol


class DrainingServer(uvicorn.Server):
    """uvicorn's server whose shutdown (SIGTERM) first stops accepting, on the listening sockets and on the idle
    keep-alive connections, then runs ``drain`` (the relays') with the grace period less its last seconds, then lets
    uvicorn drain what is left of the requests in the rest."""

    def __init__(self, config: uvicorn.Config, drain: Callable[[float], Awaitable[None]]) -> None:
        super().__init__(config)
        self._drain = drain

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        grace = float(self.config.timeout_graceful_shutdown or 0)
        started = time.monotonic()
        for server in self.servers:
            server.close()
        for connection in list(self.server_state.connections):
            # An idle connection closes now, a busy one after its answer; a WebSocket is the relay's to close.
            if isinstance(connection, H11Protocol):
                connection.shutdown()
        await self._drain(max(0.0, grace - min(ANSWER_SECONDS, grace / 4)))
        left = grace - (time.monotonic() - started)
        self.config.timeout_graceful_shutdown = max(1, math.ceil(left))
        await super().shutdown(sockets)


def _without_query_values(target: str) -> str:
    path, mark, query = target.partition("?")
    if not mark:
        return target
    return path + "?" + "&".join(f"{name}=…" for name, _ in parse_qsl(query, keep_blank_values=True))


class QuietAccessLog(logging.Filter):
    """Rewrites uvicorn's request lines (``uvicorn.access``, and the WebSocket lines of ``uvicorn.error``) to name
    each query parameter without its value."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_strip(arg) for arg in record.args)
        return True


def _strip(arg: Any) -> Any:
    return _without_query_values(arg) if isinstance(arg, str) and arg.startswith("/") else arg


class RepeatThrottle(logging.Filter):
    """Lets one line of each kind (logger and message template) through per ``interval`` seconds, and says how many
    were held back when the next one goes through."""

    def __init__(self, interval: float = 10.0) -> None:
        super().__init__()
        self.interval = interval
        self._last: dict[tuple[str, str], float] = {}
        self._held: dict[tuple[str, str], int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        kind = (record.name, str(record.msg))
        now = time.monotonic()
        if now - self._last.get(kind, -self.interval) < self.interval:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        self._last[kind] = now
        held = self._held.pop(kind, 0)
        if held:
            record.msg = f"{record.msg} ({held} like it held back)"
        if len(self._last) > 1024:
            self._last = {kind: now}
        return True


def install_log_filters() -> None:
    """Quiet the access lines and throttle repeated warnings and errors on every handler of the root logger."""
    quiet = QuietAccessLog()
    for name in ("uvicorn.access", "uvicorn.error"):
        logging.getLogger(name).addFilter(quiet)
    for handler in logging.getLogger().handlers:
        handler.addFilter(RepeatThrottle())


class _SideServer(uvicorn.Server):
    """A uvicorn server run beside the main one in its loop: signals stay the main server's, which ends the app's
    lifespan and with it this server."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@contextlib.asynccontextmanager
async def side_listener(app: ASGIApp, host: str, port: int) -> AsyncIterator[None]:
    """Serve ``app`` on ``host:port`` for the duration of the block (the metrics listener); fails at start when the
    address cannot be bound."""
    server = _SideServer(
        uvicorn.Config(
            app, host=host, port=port, log_config=None, lifespan="off", access_log=False, server_header=False
        )
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            # uvicorn logs why and exits the process when the address cannot be bound.
            task.result()
            raise OSError(f"could not listen on {host}:{port}")
        await asyncio.sleep(0.01)
    try:
        yield
    finally:
        server.should_exit = True
        await task
