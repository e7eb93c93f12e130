"""designd's control socket in-process, with real ZeroMQ peers: order, and peers that stop reading."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from design_console.daemon.control import ControlServer, Peer
from design_console.protocol import (
    PROTOCOL_VERSION,
    AnyFrame,
    Hello,
    Ping,
    Pong,
    Result,
    Welcome,
    decode,
    encode,
    framed,
)

STALL_LIMIT = 0.5


@pytest.fixture
async def server() -> AsyncIterator[ControlServer]:
    folder = Path(tempfile.mkdtemp(prefix="ctl-", dir="/tmp"))
    control = ControlServer(
        f"ipc://{folder}/control", server_version="test", link_path=folder / "link", send_stall_limit=STALL_LIMIT
    )
    control.bind()
    await control.listen()
    serving = asyncio.create_task(control.serve())
    yield control
    serving.cancel()
    await asyncio.gather(serving, return_exceptions=True)
    control.close()
    os.rmdir(folder)


async def _peer(ctx: zmq.asyncio.Context, server: ControlServer, name: str, rcvhwm: int = 1000) -> zmq.asyncio.Socket:
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVHWM, rcvhwm)
    sock.setsockopt(zmq.RCVBUF, 4096)
    sock.setsockopt(zmq.IDENTITY, name.encode())
    sock.connect(server.endpoint)
    hello = Hello(id="hello", peer="ctl", version=PROTOCOL_VERSION, pid=os.getpid(), session=name)
    await sock.send(encode(hello))
    assert isinstance(decode(await asyncio.wait_for(sock.recv(), 5)), Welcome)
    return sock


async def _answered_at_once(peer: zmq.asyncio.Socket) -> None:
    """A Ping from ``peer`` is answered within half a second, whatever another peer is doing."""
    started = time.monotonic()
    await peer.send(encode(Ping(id="other")))
    answer = decode(await asyncio.wait_for(peer.recv(), 5))
    assert isinstance(answer, Pong) and answer.id == "other"
    assert time.monotonic() - started < 0.5, "a peer that stopped reading held up another peer's answer"


async def test_replies_keep_their_order_and_each_is_sent_once(server: ControlServer) -> None:
    async def echo(peer: Peer, frame: AnyFrame) -> None:
        await server.send(peer.identity, Result(id=frame.id, data=frame.id))

    server.on_frame = echo
    ctx = zmq.asyncio.Context()
    try:
        sock = await _peer(ctx, server, "orderly")
        for n in range(2000):
            await sock.send(encode(Result(id=str(n), data=None)))
        got = [decode(await asyncio.wait_for(sock.recv(), 5)).id for _ in range(2000)]
        assert got == [str(n) for n in range(2000)]
    finally:
        ctx.destroy(linger=0)


async def test_a_peer_that_stops_reading_stalls_nobody_and_is_dropped(server: ControlServer) -> None:
    """Its replies wait in a backlog; other peers are answered at once; after the stall limit it is dropped."""
    left: list[bytes] = []
    gone = asyncio.Event()

    async def leave(peer: Peer) -> None:
        left.append(peer.identity)
        gone.set()

    server.on_leave = leave
    ctx = zmq.asyncio.Context()
    try:
        stuck = await _peer(ctx, server, "stuck", rcvhwm=1)
        other = await _peer(ctx, server, "other")
        # Pings the stuck peer never reads the answers to, until designd's queue to it is full.
        for n in range(20000):
            await stuck.send(encode(Ping(id=f"p{n}")))
        await asyncio.sleep(0)
        await _answered_at_once(other)
        await asyncio.wait_for(gone.wait(), 10)
        assert left == [b"stuck"]
        assert b"other" in server.peers and b"stuck" not in server.peers
    finally:
        ctx.destroy(linger=0)


async def test_a_stream_peer_that_stops_reading_stalls_nobody_and_is_dropped(server: ControlServer) -> None:
    """The same on the stream socket: designd's writes to it wait in its transport, and past the stall limit the
    connection is cut."""
    assert server.link_path is not None
    gone = asyncio.Event()

    async def leave(peer: Peer) -> None:
        if peer.session == "stuck":
            gone.set()

    server.on_leave = leave
    _reader, writer = await asyncio.open_unix_connection(str(server.link_path), limit=1024)
    hello = Hello(id="hello", peer="ctl", version=PROTOCOL_VERSION, pid=os.getpid(), session="stuck")
    writer.write(framed(hello))
    ctx = zmq.asyncio.Context()
    try:
        other = await _peer(ctx, server, "other")

        async def flood() -> None:
            # Pings whose answers are never read, until designd cuts the connection.
            n = 0
            while not gone.is_set():
                writer.write(b"".join(framed(Ping(id=f"p{n + k}")) for k in range(100)))
                n += 100
                await asyncio.sleep(0.005)

        flooding = asyncio.create_task(flood())
        await asyncio.sleep(0.2)
        await _answered_at_once(other)
        await asyncio.wait_for(gone.wait(), 10)
        flooding.cancel()
        assert b"other" in server.peers and len(server.peers) == 1
    finally:
        writer.transport.abort()
        ctx.destroy(linger=0)
