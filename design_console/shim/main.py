"""``design-console-mcp``: the stdio process an AI app spawns. A pipe to designd, nothing more.

It forwards each JSON-RPC line from stdin to designd and each reply to stdout, and writes nothing else to stdout.
It exits within a second of stdin closing or of its parent dying. If designd goes away, requests in flight get a
JSON-RPC error that says so, designd is started again, the client's ``initialize`` and ``notifications/initialized``
are replayed to it (the duplicate reply is swallowed), and the session carries on.

The main loop polls stdin and the link to designd (a Unix stream socket, see ``runtime/control_client.py``) itself:
a line crosses the shim without changing threads or passing through a messaging library's I/O thread. A watcher
thread ends the process when the parent dies, or when stdin is closed while the main loop is busy (re)connecting to
designd. No asyncio, no MCP SDK, no ZeroMQ: the shim starts fast and stays small.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
import time
from typing import Any

import msgspec

from design_console.config import load_config
from design_console.errors import DesignError, format_error
from design_console.protocol import PEER_SHIM, Bye, Ping, Rpc
from design_console.runtime.control_client import DaemonLink, connect_or_start
from design_console.runtime.usage import STDIO_SERVER, answer_help_or_version

TICK_MS = 100
#: How often the watcher thread looks at the parent (and, while the main loop connects, at stdin).
WATCH_EVERY = 0.05
#: The most the shim reads from stdin at once.
READ_SIZE = 1 << 16
PING_EVERY = 2.0
#: designd answers every ping; this long without any frame means it is frozen or gone.
SILENCE_LIMIT = 3 * PING_EVERY
#: How long the stdin and parent watchers give the main loop to exit cleanly before they end the process.
EXIT_GRACE = 0.8
REPLAY_PREFIX = "design-console-replay-"
#: JSON-RPC "server error" range; the client sees a failed request it may retry.
DAEMON_LOST = -32001
#: What poll() reports for a stdin whose writer is done, pending data or not: a pipe says HUP, a socket (an app built
#: on libuv hands its children socket pairs) says RDHUP where the platform has it.
WRITER_GONE = select.POLLHUP | getattr(select, "POLLRDHUP", 0)


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


def _exit_soon() -> None:
    """Last resort when the main loop is busy reconnecting: the process must not outlive its client."""
    time.sleep(EXIT_GRACE)
    sys.stdout.flush()
    os._exit(0)


class Shim:
    """The pipe between one AI app and designd."""

    def __init__(self) -> None:
        self.config = load_config()
        self.stdin = sys.stdin.fileno()
        self.stdout = sys.stdout.fileno()
        self.pending = bytearray()  # the start of a line whose end has not arrived yet
        # The watcher thread wakes the main loop through this pipe when the parent dies.
        self.wake_read, self.wake_write = os.pipe()
        self.link: DaemonLink | None = None
        self.poller = select.poll()
        self.inflight: dict[str, int | str | None] = {}
        self.init_request: bytes | None = None
        self.initialized_note: bytes | None = None
        self.replay_ids: set[str] = set()
        self.parent = os.getppid()
        self.replays = 0
        self.last_heard = time.monotonic()
        self.last_ping = time.monotonic()
        #: Set while the main loop connects to designd and so does not read stdin.
        self.connecting = threading.Event()
        self.done = False

    # --- the watcher thread ----------------------------------------------------------------------------------

    def _watch(self) -> None:
        """End the process when the parent dies, or when stdin's writer is done while the main loop is connecting."""
        watch_stdin = select.poll()
        watch_stdin.register(self.stdin, WRITER_GONE)
        while os.getppid() == self.parent:
            if self.connecting.is_set() and watch_stdin.poll(0):
                break
            time.sleep(WATCH_EVERY)
        os.write(self.wake_write, b"x")
        _exit_soon()

    # --- the main loop ---------------------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """One JSON-RPC line to the client: a single system call in the common case, and no copy of the message."""
        parts = [memoryview(data), memoryview(b"\n")]
        while parts:
            written = os.writev(self.stdout, parts)
            while parts and written >= len(parts[0]):
                written -= len(parts[0])
                parts.pop(0)
            if parts:
                parts[0] = parts[0][written:]

    def run(self) -> None:
        threading.Thread(target=self._watch, daemon=True).start()
        self._connect(first=True)
        while not self.done:
            self._tick()
        self._say_goodbye()

    def _say_goodbye(self) -> None:
        """Tell designd the client is gone, so it ends the session (and cancels its calls) at once."""
        if self.link is not None and self.link.sock is not None:
            with contextlib.suppress(DesignError):
                self.link.send(Bye(reason="client gone"))
            self.link.close()

    def _connect(self, *, first: bool) -> None:
        """Connect (starting designd when needed), replay the session on a new designd, and watch the link."""
        self.connecting.set()
        try:
            while True:
                try:
                    self.link = connect_or_start(self.config, PEER_SHIM)
                    break
                except DesignError as err:
                    self._fail_all(str(err))
                    self._from_client(fail_with=str(err))
                    if self.done:
                        return
                    time.sleep(1.0)
        finally:
            self.connecting.clear()
        self.poller = select.poll()
        for fd in (self.link.fileno(), self.stdin, self.wake_read):
            self.poller.register(fd, select.POLLIN)
        self.last_heard = self.last_ping = time.monotonic()
        if not first:
            self._replay()

    def _tick(self) -> None:
        assert self.link is not None
        ready = {fd for fd, _ in self.poller.poll(TICK_MS)}
        try:
            if self.stdin in ready:
                self._from_client(ready=True)
            if self.wake_read in ready:
                self.done = True
            if self.link.fileno() in ready:
                self._from_daemon()
            now = time.monotonic()
            if now - self.last_ping > PING_EVERY:
                self.link.send(Ping())
                self.last_ping = now
        except DesignError:
            if not self.done:
                self._lost()
            return
        if not self.done and now - self.last_heard > SILENCE_LIMIT:
            self._lost()

    def _read_lines(self, ready: bool) -> list[bytes]:
        """The complete lines stdin has now, without waiting (``ready``: poll said so); at its end, the last
        unfinished one too."""
        if not ready and not select.select([self.stdin], [], [], 0)[0]:
            return []
        chunk = os.read(self.stdin, READ_SIZE)
        if not chunk:
            self.done = True
            rest, self.pending = bytes(self.pending), bytearray()
            return [rest] if rest.strip() else []
        self.pending += chunk
        *lines, rest = bytes(self.pending).split(b"\n")
        self.pending = bytearray(rest)
        return [stripped for line in lines if (stripped := line.strip())]

    def _from_client(self, fail_with: str = "", *, ready: bool = False) -> None:
        """Take the lines the client sent; forward each, or with ``fail_with`` answer each request with that error.

        Failing at once is for the time designd cannot be started: the client must not wait on requests that no
        one will answer.
        """
        lost: DesignError | None = None
        for line in self._read_lines(ready):
            info = peek(line)
            if fail_with:
                if info.method is not None and info.id is not None:
                    self.write(error_line(info.id, fail_with))
                continue
            if info.method == "initialize" and info.id is not None:
                self.init_request = line
            elif info.method == "notifications/initialized":
                self.initialized_note = line
            if info.method is not None and info.id is not None:
                self.inflight[_key(info.id)] = info.id
            if lost is None:
                assert self.link is not None
                try:
                    self.link.send(Rpc(data=line))
                except DesignError as err:
                    # designd is gone: the rest are only noted, so each request is failed (and the session replayed).
                    lost = err
        if lost is not None:
            raise lost

    def _from_daemon(self) -> None:
        assert self.link is not None
        for raw in self.link.read_ready():
            self.last_heard = time.monotonic()
            try:
                frame = msgspec.msgpack.decode(raw, type=Rpc)
            except msgspec.DecodeError:
                continue
            info = peek(frame.data)
            key = _key(info.id)
            if info.method is None and key in self.replay_ids:
                self.replay_ids.discard(key)
                continue
            if info.method is None:
                self.inflight.pop(key, None)
            self.write(frame.data)

    def _lost(self) -> None:
        """designd went away: fail what was in flight, then reconnect to a new one."""
        self._fail_all("designd stopped while this request was running; it is being restarted. Call the tool again.")
        if self.link is not None:
            self.link.close()
        self._connect(first=False)

    def _replay(self) -> None:
        """Re-open the MCP session on a new designd exactly as the client opened it on the old one."""
        assert self.link is not None
        if self.init_request is None:
            return
        message: dict[str, Any] = msgspec.json.decode(self.init_request)
        self.replays += 1
        replay_id = f"{REPLAY_PREFIX}{self.replays}"
        message["id"] = replay_id
        self.replay_ids.add(_key(replay_id))
        # A designd that is gone again is seen at the next read, which reconnects once more.
        with contextlib.suppress(DesignError):
            self.link.send(Rpc(data=msgspec.json.encode(message)))
            if self.initialized_note is not None:
                self.link.send(Rpc(data=self.initialized_note))

    def _fail_all(self, message: str) -> None:
        for request_id in list(self.inflight.values()):
            self.write(error_line(request_id, message))
        self.inflight.clear()


def main() -> None:
    """Entry point of ``design-console-mcp``."""
    answer_help_or_version("design-console-mcp", STDIO_SERVER, sys.argv[1:])
    try:
        shim = Shim()
    except DesignError as err:
        sys.stderr.write(f"{err}\n")
        sys.exit(2)
    try:
        shim.run()
    except KeyboardInterrupt:
        pass
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
