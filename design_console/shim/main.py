"""``design-console-mcp``: the stdio process an AI app spawns. A pipe to designd, nothing more.

It forwards each JSON-RPC line from stdin to designd and each reply to stdout, and writes nothing else to stdout.
It exits within a second of stdin closing or of its parent dying. If designd goes away, requests in flight get a
JSON-RPC error that says so, designd is started again, the client's ``initialize`` and ``notifications/initialized``
are replayed to it (the duplicate reply is swallowed), and the session carries on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
import time
from collections import deque
from typing import Any

import msgspec
import zmq

from design_console.config import load_config
from design_console.errors import PREFIX, DesignError, format_error
from design_console.protocol import PEER_SHIM, Bye, Error, Ping, Rpc, Welcome
from design_console.shim.link import DaemonLink, connect_or_start

PARENT_POLL = 0.2
PING_EVERY = 2.0
LINK_CHECK = 0.1
REPLAY_PREFIX = "design-console-replay-"
#: JSON-RPC "server error" range; the client sees it as a failed request it may retry.
DAEMON_LOST = -32001


class Peek(msgspec.Struct):
    """The fields the shim looks at in a JSON-RPC message; everything else passes through untouched."""

    id: int | str | None = None
    method: str | None = None


_peek = msgspec.json.Decoder(Peek)


def peek(line: bytes) -> Peek:
    try:
        return _peek.decode(line)
    except msgspec.DecodeError:
        return Peek()


def _key(value: int | str | None) -> str:
    return f"{type(value).__name__}:{value}"


def error_line(request_id: int | str | None, message: str) -> bytes:
    return msgspec.json.encode(
        {"jsonrpc": "2.0", "id": request_id, "error": {"code": DAEMON_LOST, "message": format_error(message)}}
    )


class Shim:
    """The pipe between one AI app and designd."""

    def __init__(self) -> None:
        self.config = load_config()
        self.link: DaemonLink | None = None
        self.inflight: dict[str, int | str | None] = {}
        self.init_request: bytes | None = None
        self.initialized_note: bytes | None = None
        self.replay_ids: set[str] = set()
        self.backlog: deque[bytes] = deque()
        self.connected = asyncio.Event()
        self.done = asyncio.Event()
        self.parent = os.getppid()
        self.replays = 0
        self.last_heard = time.monotonic()

    def write(self, data: bytes) -> None:
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.buffer.flush()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        threading.Thread(target=self._read_stdin, args=(loop, lines), daemon=True).start()
        tasks = [
            asyncio.create_task(self._pump_stdin(lines)),
            asyncio.create_task(self._watch_parent()),
            asyncio.create_task(self._keep_connected()),
        ]
        await self.done.wait()
        if self.link is not None and self.link.sock is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.link.send(Bye(reason="stdin closed")), 0.2)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.link is not None:
            self.link.close()

    def _read_stdin(self, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[bytes | None]) -> None:
        """A thread, because stdin may be a pipe, a file or a terminal and must never block the event loop."""
        stream = sys.stdin.buffer
        while True:
            line = stream.readline()
            if not line:
                break
            loop.call_soon_threadsafe(lines.put_nowait, line.strip())
        loop.call_soon_threadsafe(lines.put_nowait, None)

    async def _pump_stdin(self, lines: asyncio.Queue[bytes | None]) -> None:
        while True:
            line = await lines.get()
            if line is None:
                self.done.set()
                return
            if not line:
                continue
            info = peek(line)
            if info.method == "initialize" and info.id is not None:
                self.init_request = line
            elif info.method == "notifications/initialized":
                self.initialized_note = line
            if info.method is not None and info.id is not None:
                self.inflight[_key(info.id)] = info.id
            if self.connected.is_set() and self.link is not None:
                await self.link.send(Rpc(data=line))
            else:
                self.backlog.append(line)

    async def _watch_parent(self) -> None:
        while True:
            if os.getppid() != self.parent:
                self.done.set()
                return
            await asyncio.sleep(PARENT_POLL)

    async def _keep_connected(self) -> None:
        """Connect, serve until designd goes away, fail what was in flight, and connect again."""
        first = True
        while True:
            try:
                self.link = await connect_or_start(self.config, PEER_SHIM)
            except DesignError as err:
                self.backlog.clear()
                self._fail_all(str(err))
                await asyncio.sleep(1.0)
                continue
            if not first:
                await self._replay()
            first = False
            self.last_heard = time.monotonic()
            self.connected.set()
            while self.backlog:
                await self.link.send(Rpc(data=self.backlog.popleft()))
            await self._serve(self.link)
            self.connected.clear()
            self.link.close()
            self._fail_all(
                "designd stopped while this request was running; it is being restarted. Call the tool again."
            )

    async def _replay(self) -> None:
        """Re-open the MCP session on a new designd exactly as the client opened it on the old one."""
        assert self.link is not None
        if self.init_request is None:
            return
        message: dict[str, Any] = msgspec.json.decode(self.init_request)
        self.replays += 1
        replay_id = f"{REPLAY_PREFIX}{self.replays}"
        message["id"] = replay_id
        self.replay_ids.add(_key(replay_id))
        await self.link.send(Rpc(data=msgspec.json.encode(message)))
        if self.initialized_note is not None:
            await self.link.send(Rpc(data=self.initialized_note))

    async def _serve(self, link: DaemonLink) -> None:
        """Forward designd's replies until the connection drops."""
        receive = asyncio.create_task(self._forward(link))
        lost = asyncio.create_task(self._watch_link(link))
        ping = asyncio.create_task(self._ping(link))
        try:
            await asyncio.wait({receive, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (receive, lost, ping):
                task.cancel()
            await asyncio.gather(receive, lost, ping, return_exceptions=True)

    async def _watch_link(self, link: DaemonLink) -> None:
        """Return when the connection to designd drops, or when designd stops answering pings.

        The monitor socket is checked with a plain non-blocking poll on a timer: its notifications are
        edge-triggered and an asyncio reader can miss one, which would leave a dead link unnoticed.
        """
        monitor = zmq.Socket.shadow(link.monitor().underlying)
        try:
            while True:
                if monitor.poll(0):
                    return
                if time.monotonic() - self.last_heard > PING_EVERY * 3:
                    return
                await asyncio.sleep(LINK_CHECK)
        finally:
            monitor.close(linger=0)

    async def _ping(self, link: DaemonLink) -> None:
        while True:
            await asyncio.sleep(PING_EVERY)
            await link.send(Ping())

    async def _forward(self, link: DaemonLink) -> None:
        while True:
            try:
                frame = await link.recv()
            except msgspec.DecodeError:
                continue
            except zmq.ZMQError:
                return
            self.last_heard = time.monotonic()
            if isinstance(frame, Rpc):
                info = peek(frame.data)
                key = _key(info.id)
                if info.method is None and key in self.replay_ids:
                    self.replay_ids.discard(key)
                    continue
                if info.method is None:
                    self.inflight.pop(key, None)
                self.write(frame.data)
            elif isinstance(frame, Error) and frame.code in ("version_mismatch",):
                sys.stderr.write(f"{PREFIX}{frame.message}\n")
            elif isinstance(frame, Welcome):
                continue

    def _fail_all(self, message: str) -> None:
        for request_id in list(self.inflight.values()):
            self.write(error_line(request_id, message))
        self.inflight.clear()


def main() -> None:
    """Entry point of ``design-console-mcp``."""
    try:
        shim = Shim()
    except DesignError as err:
        sys.stderr.write(f"{err}\n")
        sys.exit(2)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(shim.run())
    os._exit(0)


if __name__ == "__main__":
    main()
