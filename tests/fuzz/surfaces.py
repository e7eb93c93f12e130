"""Driving a real designd with hostile input: a daemon whose log is read (a full stderr pipe would block it), raw
peers on its control socket and raw sockets on its bridge, and the checks that it still serves afterwards.

Shared by the fuzz tests and bench/fuzz_long.py, so the long run drives designd exactly as CI does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import threading
from collections import deque
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import psutil
import zmq
from fakes.fake_plugin import FakePlugin
from procs import BIN, DaemonProcess, TestEnv, control_peer, isolated, make_env, running_daemon
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from design_console.config import Config
from design_console.protocol import (
    PEER_SHIM,
    PROTOCOL_VERSION,
    AnyFrame,
    Bye,
    Call,
    Command,
    Error,
    Hello,
    Ping,
    Pong,
    Result,
    Rpc,
    ToolResult,
    Welcome,
    decode,
    encode,
)

WAIT = 10.0
#: What designd's RSS may grow by over a run: allocator arenas and caches that are kept, not a leak.
RSS_SLACK = 30 * 1024 * 1024
#: The file key of the plugin that must keep working while another socket is fuzzed.
LEGIT_FILE = "legit-file"
#: Log lines that mean a handler died instead of refusing its input.
CRASH_MARKERS = ("Traceback", "connection handler failed", "Task exception was never retrieved")


@dataclass
class FuzzedDaemon:
    """A designd under fuzz, with its stderr read into a ring so a crash in any loop shows up as a log line."""

    daemon: DaemonProcess
    log: deque[str] = field(default_factory=lambda: deque(maxlen=2000))
    crashes: list[str] = field(default_factory=list)

    @property
    def env(self) -> TestEnv:
        return self.daemon.env

    def rss(self) -> int:
        """designd's resident memory now."""
        return int(psutil.Process(self.daemon.pid).memory_info().rss)

    def alive(self) -> bool:
        return self.daemon.proc is not None and self.daemon.proc.poll() is None

    def _drain(self) -> None:
        assert self.daemon.proc is not None and self.daemon.proc.stderr is not None
        # The pipe is closed when the daemon is stopped; a read racing that close ends the reader, nothing else.
        with contextlib.suppress(ValueError, OSError):
            for raw in self.daemon.proc.stderr:
                line = raw.decode(errors="replace").rstrip()
                self.log.append(line)
                if any(marker in line for marker in CRASH_MARKERS):
                    self.crashes.append(line)


@contextmanager
def fuzzed_daemon() -> Iterator[FuzzedDaemon]:
    """designd in an isolated installation, stopped and checked for leftover processes afterwards."""
    with contextmanager(isolated)(make_env(LOG_LEVEL="info")) as env, contextmanager(running_daemon)(env) as daemon:
        fuzzed = FuzzedDaemon(daemon)
        threading.Thread(target=fuzzed._drain, name="designd-stderr", daemon=True).start()
        _load_the_sdk(fuzzed)
        yield fuzzed


def _load_the_sdk(designd: FuzzedDaemon) -> None:
    """Have designd load the MCP SDK, which it does the first time a session needs it: a one-off 35 MB that would
    otherwise land inside whichever memory check first sends such a message, and read as a leak."""
    peer = RawPeer(designd.env.config)
    try:
        assert isinstance(peer.request(hello(PEER_SHIM)), Welcome)
        opening = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}
        for message in (
            {"jsonrpc": "2.0", "id": "open", "method": "initialize", "params": opening},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": "sdk", "method": "prompts/list"},  # answered by the SDK, not the front
        ):
            peer.send([encode(Rpc(data=json.dumps(message).encode()))])
        while True:
            reply = peer.recv(WAIT * 3)
            assert isinstance(reply, Rpc), f"designd did not answer through its MCP SDK: {reply}"
            if json.loads(reply.data).get("id") == "sdk":
                break
        peer.send([encode(Bye(reason="warm"))])
    finally:
        peer.close()


# --- the control socket -------------------------------------------------------------------------------------------


class RawPeer:
    """A bare ZeroMQ DEALER on designd's control socket (with the user's key over tcp) that sends whatever it is
    given."""

    def __init__(self, config: Config) -> None:
        self.zmq = control_peer(config, "fuzz")

    def send(self, parts: list[bytes]) -> None:
        self.zmq.send_multipart(parts)

    def request(self, frame: AnyFrame, timeout: float = WAIT) -> AnyFrame:
        """Send a frame and return the first answer with its id."""
        self.send([encode(frame)])
        while True:
            reply = self.recv(timeout)
            if reply is not None and reply.id == frame.id:
                return reply

    def recv(self, timeout: float) -> AnyFrame | None:
        """The next frame, or None when none came within ``timeout``."""
        if not self.zmq.poll(int(timeout * 1000), zmq.POLLIN):
            return None
        return decode(self.zmq.recv())

    def close(self) -> None:
        self.zmq.close(linger=0)


def hello(peer: str = "ctl") -> Hello:
    return Hello(id="hello", peer=peer, version=PROTOCOL_VERSION, pid=os.getpid())


def send_control_message(config: Config, parts: list[bytes]) -> AnyFrame | None:
    """Send one message from a fresh peer and return designd's answer (None for a multipart message, which is
    refused unanswered: it has no frame to take an id from; a Ping after it proves designd read it)."""
    peer = RawPeer(config)
    try:
        peer.send(parts)
        if len(parts) != 1:
            assert peer.request(Ping(id="after-parts")).id == "after-parts"
            return None
        reply = peer.recv(WAIT)
        assert reply is not None, f"designd did not answer {parts[0][:80]!r}"
        if isinstance(reply, Welcome):
            # Past the hello: one more frame of the same kind exercises the handlers behind it, and must not hurt.
            peer.send(parts)
            peer.recv(0.05)
        else:
            assert isinstance(reply, Error), reply
        peer.send([encode(Bye(reason="fuzz"))])
        return reply
    finally:
        peer.close()


def undecodable(reply: AnyFrame | None) -> bool:
    """Whether designd refused a message as undecodable (multipart messages included): each one is counted."""
    return reply is None or (isinstance(reply, Error) and reply.message.startswith("undecodable frame"))


def send_control_session(config: Config, kind: str, frames: list[bytes]) -> int:
    """Say hello as ``kind``, then send each frame followed by a Ping: designd must answer every Ping (a Bye or a
    second hello may turn its answer into an Error with the Ping's id), so no frame stopped its loop. Returns how
    many frames were answered before their Ping's answer."""
    peer = RawPeer(config)
    answered = 0
    try:
        assert isinstance(peer.request(hello(kind)), Welcome)
        for n, frame in enumerate(frames):
            peer.send([frame])
            probe = f"probe-{n}"
            peer.send([encode(Ping(id=probe))])
            while True:
                reply = peer.recv(WAIT)
                assert reply is not None, f"designd stopped answering after {frame[:80]!r} from a {kind} peer"
                if reply.id == probe:
                    break
                answered += 1
        peer.send([encode(Bye(reason="fuzz"))])
        return answered
    finally:
        peer.close()


def raw_bytes_batch(designd: FuzzedDaemon, batch: list[bytes]) -> None:
    """Raw bytes on fresh connections to the control socket, each then closed: whatever reaches libzmq's handshake
    (over tcp, CURVE's), designd never stops serving and no handler sees a frame."""
    config = designd.env.config
    before = control_status(config)["controlStats"]
    endpoint = config.control_endpoint_file.read_text().strip() if config.transport == "tcp" else ""
    for data in batch:
        if endpoint:
            host, port = endpoint.removeprefix("tcp://").rsplit(":", 1)
            raw = socket.create_connection((host, int(port)), timeout=WAIT)
        else:
            raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            raw.settimeout(WAIT)
            raw.connect(str(config.control_socket))
        with raw:
            with contextlib.suppress(OSError):
                raw.sendall(data)
    after = control_status(config)["controlStats"]
    assert after["badFrames"] == before["badFrames"], (before, after)
    assert after["receiveErrors"] == 0 and after["handlerErrors"] == 0, after
    assert not designd.crashes, designd.crashes


def control_status(config: Config) -> dict[str, Any]:
    """designd answers a Ping after a Hello, and a status Command; returns the status."""
    peer = RawPeer(config)
    try:
        assert isinstance(peer.request(hello()), Welcome)
        assert peer.request(Ping(id="alive")) == Pong(id="alive")
        result = peer.request(Command(id="status", name="status"))
        assert isinstance(result, Result) and isinstance(result.data, dict), result
        peer.send([encode(Bye(reason="checked"))])
        return result.data
    finally:
        peer.close()


def call_tool(config: Config, tool: str, arguments: dict[str, Any]) -> ToolResult:
    """Run one tool through designd as designctl call does."""
    peer = RawPeer(config)
    try:
        assert isinstance(peer.request(hello()), Welcome)
        reply = peer.request(Call(id="call", tool=tool, arguments=arguments), timeout=WAIT * 2)
        assert isinstance(reply, ToolResult), reply
        peer.send([encode(Bye(reason="checked"))])
        return reply
    finally:
        peer.close()


def designctl_status(env: TestEnv) -> dict[str, Any]:
    """``designctl status --json`` run as the user would."""
    done = subprocess.run(
        [str(BIN / "designctl"), "status", "--json"], env=env.env, capture_output=True, timeout=WAIT * 3, check=True
    )
    status: dict[str, Any] = json.loads(done.stdout)
    return status


# --- plugins on a loop of their own --------------------------------------------------------------------------------

T = TypeVar("T")


class LoopThread:
    """An event loop in a thread of its own, so synchronous hypothesis tests can drive WebSocket clients on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="fuzz-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = WAIT * 6) -> T:
        """Run a coroutine on the loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(WAIT)
        self.loop.close()


@contextmanager
def plugin_on(loop: LoopThread, designd: FuzzedDaemon, file_key: str) -> Iterator[FakePlugin]:
    """A fake plugin authenticated the way the real one is, on ``loop``, closed afterwards."""
    plugin = loop.run(FakePlugin.connect(designd.daemon.port, designd.env.token, file_key=file_key))
    try:
        yield plugin
    finally:
        loop.run(plugin.close())


# --- the bridge wire ------------------------------------------------------------------------------------------------


async def raw_bridge_socket(port: int) -> ClientConnection:
    """A WebSocket the way the plugin UI opens one (Origin "null"), past SERVER_HELLO but not authenticated."""
    ws = await connect(f"ws://127.0.0.1:{port}/", origin="null", max_size=None, compression=None)  # type: ignore[arg-type]
    first = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
    assert first.get("type") == "SERVER_HELLO", first
    return ws


#: Close codes designd chooses on purpose: normal, frame too big, authentication required. 1011 means a handler raised.
DELIBERATE_CLOSES = {1000, 1009, 4401}
#: A frame designd handles only after the ones before it, and answers by closing an unauthenticated socket: the
#: fuzzer's proof that everything sent before it was read.
_NEEDS_AUTH = json.dumps({"type": "FILE_INFO", "data": {"fileKey": "fuzz-unauthenticated"}})


async def _closed_by_designd(ws: ClientConnection) -> int | None:
    try:
        await asyncio.wait_for(ws.wait_closed(), WAIT)
    except TimeoutError:
        raise AssertionError("designd did not close a socket it must close") from None
    return ws.close_code


async def send_unauthenticated(port: int, message: str | bytes) -> int | None:
    """Send one message on a fresh unauthenticated socket, then a frame that needs authentication; returns the code
    designd closed the socket with once it had read both."""
    ws = await raw_bridge_socket(port)
    try:
        with contextlib.suppress(ConnectionClosed):
            await ws.send(message)
            await ws.send(_NEEDS_AUTH)
        return await _closed_by_designd(ws)
    finally:
        await ws.close()


async def send_authenticated(plugin: FakePlugin, messages: list[str | bytes]) -> list[int | None]:
    """Send messages on an authenticated plugin's socket, opening a new one whenever designd closed it, then say
    FILE_INFO again (a fuzzed frame may have renamed the socket's file); returns the codes designd closed with."""
    codes: list[int | None] = []
    for message in messages:
        if not await plugin.send_raw(message):
            codes.append(await _closed_by_designd(_current(plugin)))
            await plugin.open()
            await plugin.send_raw(message)
    if not await plugin.send_json({"type": "FILE_INFO", "data": plugin.file_info()}):
        codes.append(await _closed_by_designd(_current(plugin)))
        await plugin.open()
    return codes


def _current(plugin: FakePlugin) -> ClientConnection:
    assert plugin.ws is not None
    return plugin.ws


def legit_plugin_answers(designd: FuzzedDaemon, loop: LoopThread) -> None:
    """A legitimate plugin still connects (and authenticates), and a command sent through designd reaches it and
    its answer comes back."""
    with plugin_on(loop, designd, LEGIT_FILE):
        reply = call_tool(designd.env.config, "design_execute", {"code": "return 42", "fileKey": LEGIT_FILE})
    assert not reply.output.is_error, reply
    assert "42" in reply.output.content[0].text, reply  # type: ignore[union-attr]


# --- one batch of each surface, checked (the tests and the bench run these) ---------------------------------------


def control_batch(designd: FuzzedDaemon, batch: list[list[bytes]]) -> int:
    """Send a batch from fresh peers: designd answers each single-part message, counts every one it could not
    decode, and still serves afterwards. Returns how many it refused as undecodable."""
    config = designd.env.config
    before = control_status(config)["controlStats"]["badFrames"]
    refused = sum(undecodable(send_control_message(config, parts)) for parts in batch)
    after = control_status(config)["controlStats"]
    assert after["badFrames"] >= before + refused, after
    assert after["receiveErrors"] == 0 and after["handlerErrors"] == 0, after
    assert not designd.crashes, designd.crashes
    return refused


def session_batch(designd: FuzzedDaemon, sessions: list[tuple[str, list[bytes]]]) -> int:
    """Peers that said hello send frames through the handlers behind it: designd answers every Ping after them and
    no handler raises. Returns how many frames were answered."""
    config = designd.env.config
    answered = sum(send_control_session(config, kind, frames) for kind, frames in sessions)
    after = control_status(config)["controlStats"]
    assert after["receiveErrors"] == 0 and after["handlerErrors"] == 0, after
    assert not designd.crashes, designd.crashes
    return answered


def unauthenticated_batch(designd: FuzzedDaemon, loop: LoopThread, batch: list[str | bytes]) -> None:
    """Each message on a fresh unauthenticated socket: designd closes it only on purpose, and the legitimate plugin
    still answers."""
    closes = [loop.run(send_unauthenticated(designd.daemon.port, message)) for message in batch]
    assert set(closes) <= DELIBERATE_CLOSES, closes
    assert not designd.crashes, designd.crashes
    legit_plugin_answers(designd, loop)


def authenticated_batch(designd: FuzzedDaemon, loop: LoopThread, fuzzer: FakePlugin, batch: list[str | bytes]) -> None:
    """The batch on an authenticated plugin's socket: designd closes it only on purpose, and the legitimate plugin
    still answers."""
    closes = loop.run(send_authenticated(fuzzer, batch))
    # A command on the same socket after the batch: designd handles a socket's frames in order, so its answer
    # proves every fuzzed frame was read, and that none made a handler raise (which closes the socket with 1011).
    reply = call_tool(designd.env.config, "design_execute", {"code": "return 7", "fileKey": fuzzer.file_key})
    if reply.output.is_error:
        closes.append(loop.run(_closed_by_designd(_current(fuzzer))))
        loop.run(fuzzer.open())
    assert set(closes) <= DELIBERATE_CLOSES, closes
    assert not designd.crashes, designd.crashes
    legit_plugin_answers(designd, loop)


#: The bridge's counters of frames it refused, ignored or dropped, and of sockets it closed for authentication.
BRIDGE_REFUSALS = (
    "badFrames",
    "unauthenticatedRejects",
    "unknownTypes",
    "unknownReplies",
    "unidentifiedEvents",
    "malformedEvents",
    "oversizedFrames",
)


def bridge_refusals(designd: FuzzedDaemon) -> int:
    """How many frames (and sockets) designd's bridge has refused so far."""
    stats = control_status(designd.env.config)["bridgeStats"]
    return sum(int(stats.get(name, 0)) for name in BRIDGE_REFUSALS)


def settled(designd: FuzzedDaemon, rss_before: int) -> dict[str, Any]:
    """After a run: designd is alive with no crash logged, designctl status works, and its memory is back within
    :data:`RSS_SLACK` of ``rss_before``. Returns the status."""
    status = designctl_status(designd.env)
    assert designd.alive() and not designd.crashes, designd.crashes
    assert designd.rss() <= rss_before + RSS_SLACK, (rss_before, designd.rss())
    return status
