"""designd's control socket: a ZeroMQ ROUTER that shims, designctl and workers talk to (see ``runtime/transport.py``).

Every frame is a :mod:`design_console.protocol` message. A frame that cannot be decoded is answered with
``Error(code=ErrorCode.BAD_REQUEST)`` and the loop goes on; nothing a peer sends can stop it.

``runtime/socket_thread.py`` drives the socket (from the loop where it can watch the socket's descriptor, from a
thread of its own on Windows' default loop) and, over tcp, answers libzmq's ZAP requests: only a peer that proves
the user's CURVE client key gets a frame through; every refused handshake is counted. This module takes the frames
in order and queues the replies, the same on any asyncio loop.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import zmq
from zmq.utils import z85

from design_console.config import Config
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
from design_console.runtime.socket_thread import SEND_STALL_LIMIT, Gone, SocketThread
from design_console.runtime.transport import ZAP_DOMAIN, ZAP_ENDPOINT, bind_server, ensure_keys, withdraw_endpoint

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
    #: The design API token the peer's AI app gave it ("" when none); repr=False keeps it out of any log line.
    access_token: str = field(default="", repr=False)
    connected_at: float = field(default_factory=time.time)
    last_seen: float = field(default_factory=time.monotonic)


FrameHandler = Callable[[Peer, AnyFrame], Awaitable[None]]
PeerHook = Callable[[Peer], Awaitable[None]]


class ControlServer:
    """Receives frames, tracks peers, and hands each frame to the daemon's handler."""

    def __init__(self, config: Config, *, server_version: str, send_stall_limit: float = SEND_STALL_LIMIT) -> None:
        self.config = config
        self.send_stall_limit = send_stall_limit
        self.server_version = server_version
        #: Where peers reach the socket, once bound.
        self.endpoint = ""
        self.peers: dict[bytes, Peer] = {}
        #: Frames refused and handlers that raised: each counted, none ends the loop.
        self.bad_frames = 0
        self.handler_errors = 0
        self._throttle = LogThrottle(log)
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._sock: zmq.Socket[bytes] | None = None
        self._zap: zmq.Socket[bytes] | None = None
        self._client_key = b""
        self._thread: SocketThread | None = None
        self.on_frame: FrameHandler | None = None
        self.on_join: PeerHook | None = None
        self.on_leave: PeerHook | None = None

    @property
    def receive_errors(self) -> int:
        """Receives that failed for a moment (out of descriptors or memory)."""
        return self._thread.receive_errors if self._thread is not None else 0

    @property
    def refused(self) -> int:
        """Connections refused before any frame: a peer without the user's key, or not ZeroMQ at all."""
        return self._thread.refused if self._thread is not None else 0

    @property
    def driver(self) -> str:
        """What drives the socket: "loop" where the loop watches descriptors, "thread" on Windows' default loop."""
        return self._thread.driver if self._thread is not None else ""

    def bind(self) -> None:
        """Bind the ROUTER socket where peers find it (over tcp: behind the ZAP handler, which is bound first)."""
        sock: zmq.Socket[bytes] = self._ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        sock.setsockopt(zmq.ROUTER_HANDOVER, 1)
        sock.setsockopt(zmq.LINGER, 0)
        thread = SocketThread(self._ctx, sock, routed=True, name="control", stall_limit=self.send_stall_limit)
        keys = None
        if self.config.transport == "tcp":
            keys, client = ensure_keys(self.config)
            self._client_key = z85.decode(client.public)
            zap: zmq.Socket[bytes] = self._ctx.socket(zmq.REP)
            zap.setsockopt(zmq.LINGER, 0)
            zap.bind(ZAP_ENDPOINT)
            thread.watch(zap, self._authenticate)
            self._zap = zap
        self.endpoint = bind_server(sock, self.config, keys)
        self._sock = sock
        self._thread = thread

    def _authenticate(self) -> None:
        """Answer libzmq's ZAP requests (wherever the socket is driven): admit only the user's client key over CURVE."""
        zap = self._zap
        assert zap is not None
        while True:
            try:
                request = zap.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            version, request_id = [*request, b"", b""][:2]
            mechanism, credentials = (request[5], request[6:]) if len(request) > 5 else (b"", [])
            admitted = (
                len(request) > 2
                and request[2] == ZAP_DOMAIN.encode()
                and mechanism == b"CURVE"
                and credentials == [self._client_key]
            )
            status = (b"200", b"OK") if admitted else (b"400", b"not this user's key")
            zap.send_multipart([version, request_id, *status, b"", b""])

    async def send(self, identity: bytes, frame: Frame) -> bool:
        """Queue one frame for a peer without ever blocking the loop; False once the socket is closed.

        A peer whose queue is full (busy, or stopped reading) has its frames kept in order in a backlog; one that
        stays full for ``send_stall_limit`` is dropped, like one that is gone.
        """
        if self._thread is None:
            return False
        self._thread.send([identity, encode(frame)])
        return True

    async def drop(self, identity: bytes, reason: str) -> None:
        """Forget a peer and tell the daemon it left."""
        peer = self.peers.pop(identity, None)
        if peer is not None:
            log.debug("peer %s pid %s left: %s", peer.kind, peer.pid, reason)
            if self.on_leave is not None:
                await self.on_leave(peer)

    async def serve(self) -> None:
        """Receive frames until cancelled."""
        thread = self._thread
        assert thread is not None
        thread.start()
        while True:
            item = await thread.receive()
            if isinstance(item, Gone):
                await self.drop(item.peer, item.reason)
                continue
            if len(item) != 2:
                self.bad_frames += 1
                self._throttle.warning("parts", "ignored a control message of %d parts", len(item) - 1)
                continue
            await self._handle(item[0], item[1])

    async def _handle(self, identity: bytes, payload: bytes) -> None:
        try:
            frame = decode(payload)
        except Exception as exc:
            # Not only DecodeError: invalid UTF-8 raises UnicodeDecodeError and deep nesting RecursionError.
            self.bad_frames += 1
            self._throttle.warning("bad-frame", "undecodable control frame from %r: %s", identity[:48], exc)
            await self._reply_error(identity, f"undecodable frame: {exc}"[:500])
            return
        try:
            await self._dispatch(identity, frame)
        except Exception:
            self.handler_errors += 1
            log.exception("control frame %s from %r failed", type(frame).__name__, identity[:48])

    async def _reply_error(self, identity: bytes, message: str) -> None:
        """Tell a peer its frame was refused (a peer that is gone by then is only noted as such by the thread)."""
        await self.send(identity, Error(code=ErrorCode.BAD_REQUEST, message=message))

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
            joined = Peer(
                identity=identity,
                kind=frame.peer,
                pid=frame.pid,
                session=frame.session,
                cwd=frame.cwd,
                access_token=frame.access_token,
            )
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
        """Drop peers that went silent: frozen, or gone without their connection ending (a dead one is seen at once).

        Workers are left to the supervisor, which kills and replaces a silent one instead of only forgetting it.
        """
        now = time.monotonic()
        for identity, peer in list(self.peers.items()):
            if peer.kind.startswith(WORKER_PREFIX):
                continue
            if now - peer.last_seen > PEER_SILENCE_LIMIT:
                await self.drop(identity, "silent")

    def close(self) -> None:
        """Stop the socket's thread (what was queued goes out first), close the sockets, and withdraw the endpoint."""
        if self._thread is not None:
            self._thread.close()
            self._thread = None
        for sock in (self._sock, self._zap):
            if sock is not None:
                sock.close(linger=0)
        self._sock = self._zap = None
        if self.endpoint:
            withdraw_endpoint(self.config)
        self._ctx.term()
