"""The client end of designd's stream socket, shared by the shim and designctl.

Synchronous on purpose: the shim must start in well under 100 ms and stay small, so neither it nor this module
imports asyncio or the MCP SDK.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import time
import uuid
from collections import deque
from collections.abc import Iterator
from pathlib import Path

from design_console.config import Config
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import (
    PROTOCOL_VERSION,
    AnyFrame,
    Bye,
    Error,
    Frame,
    FrameReader,
    FramingError,
    Hello,
    Welcome,
    decode,
    framed,
)
from design_console.runtime.platform.locks import FileLock
from design_console.runtime.platform.procs import alive

START_TIMEOUT = 30.0
#: How often a caller that started designd looks for its socket: designd answers a fraction of a second after its
#: start, and every tick of waiting past that is the first AI app of the day's.
START_POLL = 0.01
#: How long a designd that holds the instance lock may leave us unanswered before it counts as hung.
DEAF_AFTER = 10.0
#: A send that designd does not take within this long (it is frozen and its socket buffer is full) fails.
SEND_TIMEOUT = 5.0
READ_SIZE = 1 << 18


def _cwd() -> str:
    """This process's working directory, or "" when it was deleted under it."""
    try:
        return os.getcwd()
    except OSError:
        return ""


def _lost(what: str) -> DesignError:
    return DesignError(
        ErrorCode.DAEMON_UNAVAILABLE, f"designd {what}.", "Run `designctl status` or `designctl doctor`."
    )


class DaemonLink:
    """One connection to designd's stream socket, opened with Hello/Welcome.

    A plain Unix stream socket with length-prefixed frames: a frame crosses it in a few microseconds, where a ZeroMQ
    socket hands each one through two I/O threads. A closed connection is seen at once as the end of the stream.
    """

    def __init__(self, config: Config, peer: str, session: str = "") -> None:
        self.config = config
        self.peer = peer
        self.session = session or uuid.uuid4().hex
        self.sock: socket.socket | None = None
        self.welcome: Welcome | None = None
        self._reader = FrameReader()
        self._ready: deque[bytes] = deque()

    def connect(self, timeout: float) -> Welcome:
        """Connect and handshake; raises DesignError(ErrorCode.DAEMON_UNAVAILABLE) when nobody answers in time."""
        self.close()
        path = self.config.link_socket
        if not path.exists():
            raise DesignError(
                ErrorCode.DAEMON_UNAVAILABLE, "designd is not running.", "Start it with `designctl start`."
            )
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(SEND_TIMEOUT)
        try:
            sock.connect(str(path))
        except OSError:
            sock.close()
            raise DesignError(
                ErrorCode.DAEMON_UNAVAILABLE,
                "designd is not answering.",
                "Run `designctl status` or `designctl doctor`.",
            ) from None
        self.sock = sock
        self._reader = FrameReader()
        self._ready.clear()
        deadline = time.monotonic() + timeout
        try:
            hello = Hello(
                id="hello", peer=self.peer, version=PROTOCOL_VERSION, pid=os.getpid(), session=self.session, cwd=_cwd()
            )
            self.send(hello)
            while (frame := self.recv(deadline - time.monotonic())) is not None:
                if isinstance(frame, Welcome):
                    self.welcome = frame
                    return frame
                if isinstance(frame, Error) and frame.id == "hello":
                    self.close()
                    raise DesignError(ErrorCode.of(frame.code), frame.message)
        except DesignError as err:
            if err.code != ErrorCode.DAEMON_UNAVAILABLE:
                raise
        self.close()
        raise _lost("is not answering")

    def fileno(self) -> int:
        """The socket's descriptor, for a caller's poll()."""
        assert self.sock is not None
        return self.sock.fileno()

    def send(self, frame: Frame) -> None:
        """Send one frame; raises DesignError(DAEMON_UNAVAILABLE) when designd is gone or takes nothing."""
        assert self.sock is not None
        try:
            self.sock.sendall(framed(frame))
        except OSError:
            raise _lost("closed the connection") from None

    def read_ready(self) -> list[bytes]:
        """The frame payloads that arrived, without waiting (call when the socket polled readable).

        Raises DesignError(DAEMON_UNAVAILABLE) at the end of the stream: designd closed it or exited.
        """
        assert self.sock is not None
        payloads = list(self._ready)
        self._ready.clear()
        try:
            data = self.sock.recv(READ_SIZE, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return payloads
        except OSError:
            raise _lost("closed the connection") from None
        if not data:
            raise _lost("closed the connection")
        try:
            payloads.extend(self._reader.feed(data))
        except FramingError as exc:
            raise _lost(f"sent an unreadable stream ({exc})") from None
        return payloads

    def recv(self, timeout: float) -> AnyFrame | None:
        """The next frame, or None when none arrives within ``timeout`` seconds."""
        assert self.sock is not None
        deadline = time.monotonic() + timeout
        readable = select.poll()
        readable.register(self.sock, select.POLLIN)
        while not self._ready:
            left = deadline - time.monotonic()
            if left <= 0 or not readable.poll(left * 1000):
                return None
            self._ready.extend(self.read_ready())
        return decode(self._ready.popleft())

    def close(self, linger_ms: int = 0) -> None:
        """Close the connection. Frames already sent are on the wire: a send returns only once the socket took it."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def probe_daemon(config: Config, timeout: float) -> bool:
    """Whether a designd answers Hello on the control socket within ``timeout`` seconds."""
    link = DaemonLink(config, "ctl")
    try:
        link.connect(timeout)
        link.send(Bye(reason="probe"))
        return True
    except (DesignError, OSError, ValueError):
        return False
    finally:
        link.close()


def connect_or_start(config: Config, peer: str, *, session: str = "", start: bool = True) -> DaemonLink:
    """Connect to designd, starting it detached first when none answers.

    Callers that find no designd queue on a start lock, so twenty AI apps opened at once start one designd, not
    twenty; each then connects as soon as it answers. If the designd started here exits before answering (all
    bridge ports taken, an unsafe runtime dir), its reason from the start-up log is raised at once.
    """
    link = DaemonLink(config, peer, session)
    try:
        link.connect(0.5)
        return link
    except DesignError as err:
        if not start or err.code != ErrorCode.DAEMON_UNAVAILABLE:
            raise
    from design_console.runtime.dirs import InstanceLock, ensure_private_dir
    from design_console.runtime.launch import spawn_detached

    ensure_private_dir(config.home)
    ensure_private_dir(config.runtime_dir)
    stderr_log = config.log_dir / "designd.stderr.log"
    with _start_lock(config):
        pid: int | None = None
        offset = 0
        lock = InstanceLock(config.lock_file)
        deadline = time.monotonic() + START_TIMEOUT
        # A designd started elsewhere (a service manager, designctl) answers within seconds once it holds the lock.
        deaf_after = time.monotonic() + DEAF_AFTER
        while True:
            # Looked at on every turn, not once: a designd that is exiting holds the lock for the few milliseconds
            # it takes to die (longer on Windows), and the next one must start the moment it lets go.
            if pid is None and not lock.is_held():
                ensure_private_dir(config.log_dir)
                offset = stderr_log.stat().st_size if stderr_log.exists() else 0
                pid = spawn_detached(str(stderr_log))
            try:
                link.connect(1.0)
                return link
            except DesignError as err:
                if err.code != ErrorCode.DAEMON_UNAVAILABLE:
                    raise
                if pid is not None and not alive(pid):
                    raise DesignError(
                        ErrorCode.DAEMON_UNAVAILABLE,
                        f"designd could not start: {_startup_failure(stderr_log, offset)}",
                        f"Run `designctl doctor` for more; the whole log is {stderr_log}.",
                    ) from None
                if pid is None and time.monotonic() > deaf_after and lock.is_held():
                    holder = lock.holder().get("pid")
                    raise DesignError(
                        ErrorCode.DAEMON_UNAVAILABLE,
                        f"designd (pid {holder}) is running but does not answer on its control socket.",
                        "Restart it with `designctl restart`; `designctl logs` shows what it last did.",
                    ) from None
                if time.monotonic() > deadline:
                    raise DesignError(
                        ErrorCode.DAEMON_UNAVAILABLE,
                        "designd did not start.",
                        f"See {stderr_log} and run `designctl doctor`.",
                    ) from None
                time.sleep(START_POLL)


@contextlib.contextmanager
def _start_lock(config: Config) -> Iterator[None]:
    """Hold the start lock: one caller at a time looks for designd and starts it; the others wait their turn."""
    lock = FileLock(config.runtime_dir / "start.lock")
    lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _startup_failure(log: Path, offset: int) -> str:
    """What designd wrote to its start-up log since ``offset``: the last lines, which hold its reason."""
    try:
        with log.open("rb") as handle:
            handle.seek(offset)
            text = handle.read().decode(errors="replace")
    except OSError:
        return "it exited without a word."
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[-6:])[-1500:] or "it exited without a word."
