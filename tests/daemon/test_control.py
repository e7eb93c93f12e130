"""designd's control socket in-process, with real ZeroMQ peers on both transports, driven by the loop and by a
thread: order, peers that stop reading, peers whose connection ends, and peers without the user's key."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from design_console.config import load_config
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
)
from design_console.runtime import socket_thread
from design_console.runtime.transport import client_socket

STALL_LIMIT = 0.5


@pytest.fixture(params=[(ipc, side) for ipc in ("ipc", "tcp") for side in ("loop", "thread")], ids="-".join)
async def server(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[ControlServer]:
    transport, side = request.param
    if side == "thread":
        # As on Windows' default loop, which cannot watch the socket's descriptor: a thread drives it.
        monkeypatch.setattr(socket_thread, "watch_readable", lambda *_: False)
    folder = Path(tempfile.mkdtemp(prefix="ctl-", dir="/tmp"))
    for name in ("home", "run"):
        (folder / name).mkdir(mode=0o700)
    config = load_config(
        {"HOME": str(folder), "DESIGN_CONSOLE_HOME": str(folder / "home"), "DESIGN_RUNTIME_DIR": str(folder / "run")}
        | {"DESIGN_IPC": transport}
    )
    control = ControlServer(config, server_version="test", send_stall_limit=STALL_LIMIT)
    control.bind()
    serving = asyncio.create_task(control.serve())
    yield control
    serving.cancel()
    await asyncio.gather(serving, return_exceptions=True)
    control.close()
    shutil.rmtree(folder)


def _socket(ctx: zmq.asyncio.Context, server: ControlServer, name: str) -> zmq.asyncio.Socket:
    sock = client_socket(ctx, server.config, name)  # type: ignore[arg-type]
    assert isinstance(sock, zmq.asyncio.Socket)
    return sock


async def _peer(ctx: zmq.asyncio.Context, server: ControlServer, name: str, rcvhwm: int = 1000) -> zmq.asyncio.Socket:
    sock = _socket(ctx, server, name)
    sock.setsockopt(zmq.RCVHWM, rcvhwm)
    sock.setsockopt(zmq.RCVBUF, 4096)
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
    left: list[str] = []
    gone = asyncio.Event()

    async def leave(peer: Peer) -> None:
        left.append(peer.session)
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
        assert left == ["stuck"] and [p.session for p in server.peers.values()] == ["other"]
    finally:
        ctx.destroy(linger=0)


async def test_a_peer_whose_connection_ends_is_dropped_at_once(server: ControlServer) -> None:
    """A peer that dies says no goodbye: the end of its connection drops it within a second (not after the silence
    limit), and another peer that connected meanwhile stays."""
    left: list[str] = []
    gone = asyncio.Event()

    async def leave(peer: Peer) -> None:
        left.append(peer.session)
        gone.set()

    server.on_leave = leave
    ctx = zmq.asyncio.Context()
    try:
        dying = await _peer(ctx, server, "dying")
        other = await _peer(ctx, server, "other")
        started = time.monotonic()
        dying.close(linger=0)
        await asyncio.wait_for(gone.wait(), 5)
        assert time.monotonic() - started < 1.0
        assert left == ["dying"] and [p.session for p in server.peers.values()] == ["other"]
        await _answered_at_once(other)
    finally:
        ctx.destroy(linger=0)


async def test_a_peer_without_the_users_key_gets_nothing_and_is_counted(server: ControlServer) -> None:
    """Over tcp only a peer proving the user's CURVE client key gets a frame through; every other handshake is
    refused and counted. Over ipc the private folder is what keeps others out."""
    if server.config.transport != "tcp":
        pytest.skip("CURVE guards the tcp transport; ipc:// lives in the private runtime dir")
    ctx = zmq.asyncio.Context()
    try:
        stranger = _socket(ctx, server, "stranger")
        public, secret = zmq.curve_keypair()
        stranger.setsockopt(zmq.CURVE_PUBLICKEY, public)
        stranger.setsockopt(zmq.CURVE_SECRETKEY, secret)
        plain = ctx.socket(zmq.DEALER)
        plain.setsockopt(zmq.LINGER, 0)
        before = server.refused
        for sock in (stranger, plain):
            sock.connect(server.endpoint)
            await sock.send(encode(Hello(id="hello", peer="ctl", version=PROTOCOL_VERSION, pid=os.getpid())))
        deadline = time.monotonic() + 5
        while server.refused < before + 2:
            assert time.monotonic() < deadline, "the refused handshakes were not counted"
            await asyncio.sleep(0.01)
        for sock in (stranger, plain):
            assert not await sock.poll(300), "a peer without the user's key got an answer"
        assert server.peers == {}
        await _answered_at_once(await _peer(ctx, server, "user"))
    finally:
        ctx.destroy(linger=0)
