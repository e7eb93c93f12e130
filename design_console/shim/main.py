"""``design-console-mcp``: the stdio process an AI app spawns. A pipe to designd, nothing more.

It forwards each JSON-RPC line from stdin to designd and each reply to stdout, and writes nothing else to stdout.
It exits within a second of stdin closing or of its parent dying. If designd goes away, requests in flight get a
JSON-RPC error that says so, designd is started again, the client's ``initialize`` and ``notifications/initialized``
are replayed to it (the duplicate reply is swallowed), and the session carries on.

The main loop blocks in one ``zmq.Poller`` over the link to designd (a ZeroMQ DEALER and its monitor, see
``runtime/control_client.py``) and stdin. Where stdin is a pipe or socket that poll takes (POSIX), it is polled and
read directly, with no thread on the way of a request. Elsewhere (Windows polls sockets only; a file or a terminal
as stdin) a thread reads stdin into a socket pair that the loop polls instead. A watcher thread notices the
parent's death (by pid and start time, which a reused pid cannot fake) and, for a polled stdin, its hang-up; the
reading thread notices the end of its stdin. Either ends the process within a second even while the main loop is
busy (re)connecting. No asyncio, no MCP SDK: the shim starts fast and stays small.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

import msgspec
import zmq

from design_console.config import load_config
from design_console.errors import DesignError, format_error
from design_console.protocol import PEER_SHIM, Bye, Ping, Rpc
from design_console.runtime.control_client import DaemonLink, connect_or_start
from design_console.runtime.platform.stdio import hung_up, readable, stdin_pollable
from design_console.runtime.platform.system import parent_pid
from design_console.runtime.usage import STDIO_SERVER, answer_help_or_version

if TYPE_CHECKING:
    import socket

    import psutil  # loaded by the parent watcher only, after start-up

TICK_MS = 100
#: How often the parent watcher looks at the parent.
WATCH_EVERY = 0.1
#: How long the parent watcher waits before it loads psutil: not while the shim starts (the end of stdin, which a
#: dying parent usually brings, is noticed from the first moment anyway).
WATCH_AFTER = 0.5
#: The most the shim reads from stdin at once.
READ_SIZE = 1 << 16
PING_EVERY = 2.0
#: designd answers every ping; this long without any frame means it is frozen or gone.
SILENCE_LIMIT = 3 * PING_EVERY
#: How long the main loop gets to exit cleanly once stdin ended or the parent died, before the process is ended.
EXIT_GRACE = 0.8
REPLAY_PREFIX = "design-console-replay-"
#: JSON-RPC "server error" range; the client sees a failed request it may retry.
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


def _exit_soon() -> None:
    """Last resort when the main loop is busy reconnecting: the process must not outlive its client."""
    time.sleep(EXIT_GRACE)
    sys.stdout.flush()
    os._exit(0)


def _parent_alive(parent: psutil.Process) -> bool:
    """Whether ``parent`` still runs: the same pid with the same start time, and no zombie."""
    import psutil

    try:
        return parent.is_running() and parent.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class Inbox:
    """What the shim's threads hand its main loop: a descriptor the loop polls, and the end the threads write.

    A polled stdin is read by the loop itself, so the threads only ever say that the client is gone: a pipe, whose
    writing end they close, says so. A fed stdin (Windows, whose poll takes sockets only; a file or a terminal) is
    read by a thread that writes it into a socket pair, the only kind of descriptor every system polls.
    """

    def __init__(self, *, fed: bool) -> None:
        self._sock: socket.socket | None = None
        self._feed: socket.socket | None = None
        self._end_fd = -1
        if fed:
            import socket  # only here: a piped stdin, the usual case, starts without it

            self._sock, self._feed = socket.socketpair()
            self._sock.setblocking(False)
            self.fd = self._sock.fileno()
        else:
            self.fd, self._end_fd = os.pipe()

    def feed(self, chunk: bytes) -> None:
        """Hand a chunk of stdin to the loop (a fed inbox only)."""
        assert self._feed is not None
        self._feed.sendall(chunk)

    def read(self) -> bytes | None:
        """What was fed since the last read, b"" once the threads ended it, None when nothing waits."""
        assert self._sock is not None
        try:
            return self._sock.recv(READ_SIZE)
        except BlockingIOError:
            return None

    def end(self) -> None:
        """Tell the loop the client is gone: the inbox's descriptor reads as ended from now on."""
        with contextlib.suppress(OSError):
            if self._feed is not None:
                import socket  # loaded already: a fed inbox is a socket pair

                self._feed.shutdown(socket.SHUT_WR)
            else:
                os.close(self._end_fd)


class Shim:
    """The pipe between one AI app and designd."""

    def __init__(self) -> None:
        self.config = load_config()
        self.stdin = sys.stdin.fileno()
        self.stdout = sys.stdout.fileno()
        self.pending = bytearray()  # the start of a line whose end has not arrived yet
        self.direct = stdin_pollable(self.stdin)
        self.inbox = Inbox(fed=not self.direct)
        self.inbox_fd = self.inbox.fd
        self.lines_fd = self.stdin if self.direct else self.inbox_fd
        self.link: DaemonLink | None = None
        self.poller = zmq.Poller()
        self.inflight: dict[str, int | str | None] = {}
        self.init_request: bytes | None = None
        self.initialized_note: bytes | None = None
        self.replay_ids: set[str] = set()
        self.parent = parent_pid()
        self.replays = 0
        self.last_heard = time.monotonic()
        self.last_ping = time.monotonic()
        self.done = False
        self._ending = threading.Lock()

    # --- the stdin and watcher threads ------------------------------------------------------------------------

    def _read_stdin(self) -> None:
        """Feed stdin to the main loop (where it cannot poll stdin); at its end (or a read error), end the shim."""
        try:
            while chunk := os.read(self.stdin, READ_SIZE):
                self.inbox.feed(chunk)
        except OSError:
            pass
        self._end()

    def _our_parent(self) -> psutil.Process | None:
        """The process that started us, or None when it is already gone."""
        import psutil

        try:
            parent = psutil.Process(self.parent)
            # A process started after us under the parent's pid is not our parent: it died meanwhile.
            return parent if parent.create_time() <= psutil.Process().create_time() else None
        except psutil.Error:
            return None

    def _watch(self) -> None:
        """End the shim when the process that started it is gone (its pipe to our stdin may live on elsewhere), or
        when a polled stdin hangs up, which the main loop does not see while it is busy connecting."""
        look_after = time.monotonic() + WATCH_AFTER
        parent: psutil.Process | None = None
        while not (self.direct and hung_up(self.stdin)):
            if parent is None and time.monotonic() >= look_after:
                parent = self._our_parent()
                if parent is None:
                    break
            if parent is not None and not _parent_alive(parent):
                break
            time.sleep(WATCH_EVERY)
        self._end()

    def _end(self) -> None:
        """Tell the main loop the client is gone (the end of the fed stream), and end the process if it lingers."""
        if not self._ending.acquire(blocking=False):
            return
        self.inbox.end()
        _exit_soon()

    # --- the main loop ---------------------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """One JSON-RPC line to the client."""
        view = memoryview(data + b"\n")
        while view:
            view = view[os.write(self.stdout, view) :]

    def run(self) -> None:
        if not self.direct:
            threading.Thread(target=self._read_stdin, name="stdin", daemon=True).start()
        threading.Thread(target=self._watch, name="watch", daemon=True).start()
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
            # The process ends right after: terminating the context waits (up to the link's linger) for the Bye.
            self.link.ctx.term()

    def _connect(self, *, first: bool) -> None:
        """Connect (starting designd when needed), replay the session on a new designd, and watch the link."""
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
        assert self.link.sock is not None and self.link.monitor is not None
        self.poller = zmq.Poller()
        for sock in (self.link.sock, self.link.monitor):
            self.poller.register(sock, zmq.POLLIN)
        self.poller.register(self.lines_fd, zmq.POLLIN)
        if self.direct:
            self.poller.register(self.inbox_fd, zmq.POLLIN)
        self.last_heard = self.last_ping = time.monotonic()
        if not first:
            self._replay()

    def _tick(self) -> None:
        assert self.link is not None
        ready = dict(self.poller.poll(TICK_MS))
        try:
            if self.lines_fd in ready:  # zmq.Poller names a plain descriptor by its number
                self._from_client(polled=True)
            if self.direct and self.inbox_fd in ready:  # a thread saw the client go (its parent died, stdin hung up)
                self.done = True
            if (self.link.sock in ready or self.link.monitor in ready) and not self.done:
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

    def _read_chunk(self, polled: bool) -> bytes | None:
        """What the client sent since the last read, b"" at its end, or None when nothing is there yet.

        ``polled``: the main poller just found stdin readable, so a read cannot block.
        """
        if not self.direct:
            return self.inbox.read()
        if not polled and not readable(self.stdin):
            return None
        try:
            return os.read(self.stdin, READ_SIZE)
        except BlockingIOError:  # another holder of the pipe set it non-blocking and read first
            return None
        except OSError:
            return b""

    def _read_lines(self, polled: bool) -> list[bytes]:
        """The complete lines the client sent so far, without waiting; at its end, the last unfinished one too."""
        chunk = self._read_chunk(polled)
        if chunk is None:
            return []
        if not chunk:
            self.done = True
            rest, self.pending = bytes(self.pending), bytearray()
            return [rest] if rest.strip() else []
        self.pending += chunk
        *lines, rest = bytes(self.pending).split(b"\n")
        self.pending = bytearray(rest)
        return [stripped for line in lines if (stripped := line.strip())]

    def _from_client(self, fail_with: str = "", *, polled: bool = False) -> None:
        """Take the lines the client sent; forward each, or with ``fail_with`` answer each request with that error.

        Failing at once is for the time designd cannot be started: the client must not wait on requests that no
        one will answer.
        """
        lost: DesignError | None = None
        for line in self._read_lines(polled):
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
    answer_help_or_version("design-console-mcp", STDIO_SERVER, sys.argv[1:], only=True)
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
