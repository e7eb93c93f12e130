"""designd's control socket: a ZeroMQ ROUTER on ``ipc://`` that shims, designctl and workers talk to.

Every frame is a :mod:`design_console.protocol` message. A frame that cannot be decoded is answered with
``Error(code=ErrorCode.BAD_REQUEST)`` and the loop goes on; nothing a peer sends can stop it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import zmq
import zmq.asyncio

from design_console.errors import ErrorCode
from design_console.protocol import (
    PROTOCOL_VERSION,
    WORKER_PREFIX,
    AnyFrame,
    Error,
    Frame,
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


FrameHandler = Callable[[Peer, AnyFrame], Awaitable[None]]
PeerHook = Callable[[Peer], Awaitable[None]]


class ControlServer:
    """Receives frames, tracks peers, and hands each frame to the daemon's handler."""

    def __init__(self, endpoint: str, *, server_version: str) -> None:
        self.endpoint = endpoint
        self.server_version = server_version
        self.peers: dict[bytes, Peer] = {}
        #: Frames refused, receives that failed, and handlers that raised: each counted, none ends the loop.
        self.bad_frames = 0
        self.receive_errors = 0
        self.handler_errors = 0
        self._throttle = LogThrottle(log)
        self._ctx = zmq.asyncio.Context()
        self._sock: zmq.asyncio.Socket | None = None
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

    async def send(self, identity: bytes, frame: Frame) -> bool:
        """Send one frame to a peer; False (and the peer dropped) when it is no longer there."""
        if self._sock is None:
            return False
        try:
            await self._sock.send_multipart([identity, encode(frame)])
            return True
        except zmq.ZMQError as exc:
            if exc.errno == zmq.EHOSTUNREACH:
                await self.drop(identity, "unreachable")
                return False
            raise

    async def drop(self, identity: bytes, reason: str) -> None:
        peer = self.peers.pop(identity, None)
        if peer is not None:
            log.debug("peer %s pid %s left: %s", peer.kind, peer.pid, reason)
            if self.on_leave is not None:
                await self.on_leave(peer)

    async def serve(self) -> None:
        """Receive frames until cancelled."""
        assert self._sock is not None
        while True:
            try:
                parts = await self._sock.recv_multipart()
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
        if self._sock is not None:
            self._sock.close(linger=0)
            self._sock = None
        with contextlib.suppress(Exception):
            Path(self.endpoint.removeprefix("ipc://")).unlink(missing_ok=True)
        self._ctx.term()
