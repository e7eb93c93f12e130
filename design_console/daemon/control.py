"""designd's control socket: a ZeroMQ ROUTER on ``ipc://`` that shims, designctl and workers talk to.

Every frame is a :mod:`design_console.protocol` message. A frame that cannot be decoded is answered with
``Error(code=ErrorCode.BAD_REQUEST)`` and the loop goes on; nothing a peer sends can stop it.

The socket is a plain (synchronous) ZeroMQ socket driven from the event loop: the loop watches its notification
descriptor, and frames are received and sent without blocking. Every tool call crosses this socket twice, and
``zmq.asyncio``'s future per receive and per send cost more than the rest of designd's part of a call.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import zmq

from design_console.errors import ErrorCode
from design_console.protocol import (
    LENGTH_BYTES,
    PROTOCOL_VERSION,
    WORKER_PREFIX,
    AnyFrame,
    Error,
    Frame,
    FrameReader,
    FramingError,
    Hello,
    Ping,
    Pong,
    Welcome,
    decode,
    encode,
)
from design_console.runtime.logs import LogThrottle

log = logging.getLogger("design_console.control")

#: A peer that sent nothing for this long (shims ping every 2 s) is considered gone.
PEER_SILENCE_LIMIT = 15.0
#: A peer whose queue stays full this long (it stopped reading) is dropped; its frames wait in a backlog meanwhile.
SEND_STALL_LIMIT = 10.0
#: How often a stalled peer's backlog is retried.
SEND_RETRY = 0.005
#: Frames received on stream connections and not yet handled; past this, the connections stop being read a while.
INBOX_LIMIT = 10_000


@dataclass
class Peer:
    """One connected process, keyed by its ZeroMQ identity."""

    identity: bytes
    kind: str
    pid: int
    session: str
    cwd: str = ""
    connected_at: float = field(default_factory=time.time)
    last_seen: float = field(default_factory=time.monotonic)


def _has_input(sock: zmq.Socket[bytes]) -> bool:
    """Whether a frame waits; reading the events also re-arms the socket's notification descriptor."""
    events = sock.get(zmq.EVENTS)
    return isinstance(events, int) and bool(events & zmq.POLLIN)


class _Link(asyncio.Protocol):
    """One stream connection (a shim or designctl): frames in go to the server's inbox, frames out to the socket."""

    def __init__(self, server: ControlServer, identity: bytes) -> None:
        self.server = server
        self.identity = identity
        self.reader = FrameReader()
        self.transport: asyncio.WriteTransport | None = None
        #: When the socket's send buffer filled up (the peer stopped reading), or 0.
        self.stalled_since = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self.transport = transport
        self.server._links[self.identity] = self

    def data_received(self, data: bytes) -> None:
        try:
            payloads = self.reader.feed(data)
        except FramingError as exc:
            self.server.bad_frames += 1
            self.server._throttle.warning("framing", "closed a stream connection: %s", exc)
            assert self.transport is not None
            self.transport.close()
            return
        if payloads:
            self.server._arrived(self, payloads)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server._arrived(self, [None])

    def pause_writing(self) -> None:
        self.stalled_since = time.monotonic()

    def resume_writing(self) -> None:
        self.stalled_since = 0.0

    def write(self, payload: bytes, stall_limit: float) -> bool:
        """Send one frame; False when the peer has not read for ``stall_limit`` seconds."""
        assert self.transport is not None
        if self.stalled_since and time.monotonic() - self.stalled_since > stall_limit:
            return False
        self.transport.write(len(payload).to_bytes(LENGTH_BYTES, "big") + payload)
        return True


FrameHandler = Callable[[Peer, AnyFrame], Awaitable[None]]
PeerHook = Callable[[Peer], Awaitable[None]]


class ControlServer:
    """Receives frames, tracks peers, and hands each frame to the daemon's handler."""

    def __init__(
        self,
        endpoint: str,
        *,
        server_version: str,
        link_path: Path | None = None,
        send_stall_limit: float = SEND_STALL_LIMIT,
    ) -> None:
        self.endpoint = endpoint
        self.link_path = link_path
        self.send_stall_limit = send_stall_limit
        self.server_version = server_version
        self.peers: dict[bytes, Peer] = {}
        #: Frames refused, receives that failed, and handlers that raised: each counted, none ends the loop.
        self.bad_frames = 0
        self.receive_errors = 0
        self.handler_errors = 0
        self._throttle = LogThrottle(log)
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._sock: zmq.Socket[bytes] | None = None
        #: Set by the loop when the socket's notification descriptor fires, and after a send that found frames
        #: waiting (ZeroMQ signals each change once: a send can take the signal meant for the receiver).
        self._readable = asyncio.Event()
        self._backlogs: dict[bytes, deque[bytes]] = {}
        self._flushers: set[asyncio.Task[None]] = set()
        self._links: dict[bytes, _Link] = {}
        self._link_ids = itertools.count(1)
        self._link_server: asyncio.Server | None = None
        #: Frames from stream connections in arrival order; None marks a connection's end, after its last frame.
        self._inbox: deque[tuple[bytes, bytes | None]] = deque()
        self._paused: set[_Link] = set()
        self._zmq_turn = False
        #: Whether the ZeroMQ socket may hold a frame: set when its descriptor fires or a send found one waiting,
        #: cleared when a receive finds none. Stream traffic then never pays for looking at an idle ZeroMQ socket.
        self._zmq_pending = True
        self.on_frame: FrameHandler | None = None
        self.on_join: PeerHook | None = None
        self.on_leave: PeerHook | None = None

    def bind(self) -> None:
        """Bind the ROUTER socket with mode 0600 (the directory is already 0700)."""
        path = Path(self.endpoint.removeprefix("ipc://"))
        path.unlink(missing_ok=True)
        sock = self._ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        sock.setsockopt(zmq.ROUTER_HANDOVER, 1)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.MAXMSGSIZE, 96 * 1024 * 1024)
        sock.setsockopt(zmq.HEARTBEAT_IVL, 2000)
        sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 6000)
        old = os.umask(0o177)
        try:
            sock.bind(self.endpoint)
        finally:
            os.umask(old)
        self._sock = sock

    async def listen(self) -> None:
        """Open the stream socket with mode 0600 (the directory is already 0700)."""
        if self.link_path is None:
            return
        self.link_path.unlink(missing_ok=True)
        loop = asyncio.get_running_loop()
        old = os.umask(0o177)
        try:
            self._link_server = await loop.create_unix_server(
                lambda: _Link(self, b"\x00link-%d" % next(self._link_ids)), path=str(self.link_path)
            )
        finally:
            os.umask(old)

    def _arrived(self, link: _Link, payloads: list[bytes] | list[None]) -> None:
        for payload in payloads:
            self._inbox.append((link.identity, payload))
        self._readable.set()
        if len(self._inbox) > INBOX_LIMIT and link.transport is not None and not link.transport.is_closing():
            # Back-pressure instead of memory: the peer's writes wait in its socket until the loop catches up.
            assert isinstance(link.transport, asyncio.ReadTransport)
            link.transport.pause_reading()
            self._paused.add(link)

    def _take(self) -> tuple[bytes, bytes | None]:
        item = self._inbox.popleft()
        if self._paused and len(self._inbox) < INBOX_LIMIT // 2:
            for link in self._paused:
                if link.transport is not None and not link.transport.is_closing():
                    assert isinstance(link.transport, asyncio.ReadTransport)
                    link.transport.resume_reading()
            self._paused.clear()
        return item

    async def send(self, identity: bytes, frame: Frame) -> bool:
        """Send one frame to a peer without ever blocking the loop; False when the peer is gone.

        A peer whose queue is full (busy, or stopped reading) has its frames kept in order in a backlog that a task
        of its own retries; one that stays full for ``send_stall_limit`` is dropped.
        """
        link = self._links.get(identity)
        if link is not None:
            if link.transport is None or link.transport.is_closing():
                return False  # it is leaving: the end of its stream, queued behind its frames, drops it
            if link.write(encode(frame), self.send_stall_limit):
                return True
            self._throttle.warning("stalled", "peer %r stopped reading; dropping it", identity[:48])
            if link.transport is not None:
                link.transport.abort()
            await self.drop(identity, "stopped reading")
            return False
        try:
            return self._send(identity, encode(frame))
        except zmq.ZMQError as exc:
            if exc.errno != zmq.EHOSTUNREACH:
                raise
        await self.drop(identity, "unreachable")
        return False

    def _send(self, identity: bytes, payload: bytes) -> bool:
        sock = self._sock
        if sock is None:
            return False
        backlog = self._backlogs.get(identity)
        if backlog is not None:
            backlog.append(payload)  # behind the frames already waiting: replies keep their order
            return True
        try:
            sock.send_multipart([identity, payload], zmq.NOBLOCK)
        except zmq.Again:
            self._backlogs[identity] = deque([payload])
            task = asyncio.create_task(self._flush(identity), name="control-backlog")
            self._flushers.add(task)
            task.add_done_callback(self._flushers.discard)
            return True
        if _has_input(sock):
            self._zmq_signal()
        return True

    def _zmq_signal(self) -> None:
        self._zmq_pending = True
        self._readable.set()

    async def _flush(self, identity: bytes) -> None:
        """Send a stalled peer's backlog as its queue drains; drop the peer if it stays full too long."""
        backlog = self._backlogs[identity]
        stalled_since = time.monotonic()
        while backlog and (sock := self._sock) is not None:
            try:
                sock.send_multipart([identity, backlog[0]], zmq.NOBLOCK)
            except zmq.Again:
                if time.monotonic() - stalled_since > self.send_stall_limit:
                    self._throttle.warning("stalled", "peer %r stopped reading; dropping it", identity[:48])
                    await self.drop(identity, "stopped reading")
                    return
                await asyncio.sleep(SEND_RETRY)
                continue
            except zmq.ZMQError as exc:
                # The peer is gone: what it was owed goes with it.
                await self.drop(identity, "unreachable" if exc.errno == zmq.EHOSTUNREACH else str(exc))
                return
            backlog.popleft()
            stalled_since = time.monotonic()
            if _has_input(sock):
                self._zmq_signal()
        if self._backlogs.get(identity) is backlog:
            del self._backlogs[identity]

    async def drop(self, identity: bytes, reason: str) -> None:
        """Forget a peer (and what it was still owed) and tell the daemon it left."""
        self._backlogs.pop(identity, None)
        peer = self.peers.pop(identity, None)
        if peer is not None:
            log.debug("peer %s pid %s left: %s", peer.kind, peer.pid, reason)
            if self.on_leave is not None:
                await self.on_leave(peer)

    async def serve(self) -> None:
        """Receive frames until cancelled."""
        sock = self._sock
        assert sock is not None
        loop = asyncio.get_running_loop()
        loop.add_reader(sock, self._zmq_signal)
        try:
            await self._receive(sock)
        finally:
            loop.remove_reader(sock)

    async def _next(self, sock: zmq.Socket[bytes]) -> list[bytes] | tuple[bytes, bytes | None]:
        """The next frame of either socket (taking turns), waiting on the loop (not blocking it) while there is none."""
        while True:
            self._zmq_turn = not self._zmq_turn
            if self._inbox and not (self._zmq_turn and self._zmq_pending):
                return self._take()
            if self._zmq_pending:
                try:
                    return sock.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    self._zmq_pending = _has_input(sock)
                continue
            self._readable.clear()
            await self._readable.wait()

    async def _receive(self, sock: zmq.Socket[bytes]) -> None:
        while True:
            try:
                parts = await self._next(sock)
            except zmq.ZMQError as exc:
                # Out of descriptors or memory for a moment: the loop waits and carries on, it never ends.
                self.receive_errors += 1
                self._throttle.warning("receive", "control socket receive failed: %s", exc)
                await asyncio.sleep(0.05)
                continue
            if len(parts) != 2:
                self.bad_frames += 1
                self._throttle.warning("parts", "ignored a control message of %d parts", len(parts))
                continue
            identity, payload = parts
            if payload is None:  # a stream connection ended, after every frame it sent was handled
                self._links.pop(identity, None)
                await self.drop(identity, "closed")
                continue
            try:
                frame = decode(payload)
            except Exception as exc:
                # Not only DecodeError: invalid UTF-8 raises UnicodeDecodeError and deep nesting RecursionError.
                self.bad_frames += 1
                self._throttle.warning("bad-frame", "undecodable control frame from %r: %s", identity[:48], exc)
                await self._reply_error(identity, f"undecodable frame: {exc}"[:500])
                continue
            try:
                await self._dispatch(identity, frame)
            except Exception:
                self.handler_errors += 1
                log.exception("control frame %s from %r failed", type(frame).__name__, identity[:48])

    async def _reply_error(self, identity: bytes, message: str) -> None:
        """Tell a peer its frame was refused; a peer that cannot be answered is not worth failing for."""
        try:
            await self.send(identity, Error(code=ErrorCode.BAD_REQUEST, message=message))
        except zmq.ZMQError as exc:
            self._throttle.warning("reply", "could not answer a refused frame: %s", exc)

    async def _dispatch(self, identity: bytes, frame: AnyFrame) -> None:
        if isinstance(frame, Hello):
            if frame.version != PROTOCOL_VERSION:
                await self.send(
                    identity,
                    Error(
                        id=frame.id,
                        code=ErrorCode.VERSION_MISMATCH,
                        message=f"designd speaks protocol {PROTOCOL_VERSION}, peer speaks {frame.version}: "
                        "restart the AI app or designd so both run the same build.",
                    ),
                )
                return
            if identity in self.peers:
                await self.drop(identity, "said hello again")
            joined = Peer(identity=identity, kind=frame.peer, pid=frame.pid, session=frame.session, cwd=frame.cwd)
            self.peers[identity] = joined
            await self.send(
                identity,
                Welcome(id=frame.id, version=PROTOCOL_VERSION, server_version=self.server_version, pid=os.getpid()),
            )
            if self.on_join is not None:
                await self.on_join(joined)
            return
        peer = self.peers.get(identity)
        if peer is None:
            await self.send(identity, Error(id=frame.id, code=ErrorCode.NO_HELLO, message="send hello first"))
            return
        peer.last_seen = time.monotonic()
        if isinstance(frame, Ping):
            await self.send(identity, Pong(id=frame.id))
            return
        if self.on_frame is not None:
            await self.on_frame(peer, frame)

    async def reap_silent(self) -> None:
        """Drop peers that went silent (a shim killed with SIGKILL never says goodbye).

        Workers are left to the supervisor, which kills and replaces a silent one instead of only forgetting it.
        """
        now = time.monotonic()
        for identity, peer in list(self.peers.items()):
            if peer.kind.startswith(WORKER_PREFIX):
                continue
            if now - peer.last_seen > PEER_SILENCE_LIMIT:
                await self.drop(identity, "silent")

    def close(self) -> None:
        """Close both sockets and every stream connection; remove the socket files."""
        if self._link_server is not None:
            self._link_server.close()
            self._link_server = None
        for link in list(self._links.values()):
            if link.transport is not None:
                link.transport.close()
        self._links.clear()
        if self.link_path is not None:
            with contextlib.suppress(OSError):
                self.link_path.unlink(missing_ok=True)
        if self._sock is not None:
            self._sock.close(linger=0)
            self._sock = None
        with contextlib.suppress(Exception):
            Path(self.endpoint.removeprefix("ipc://")).unlink(missing_ok=True)
        self._ctx.term()
