"""The client end of designd's control socket, shared by the shim and designctl.

Synchronous on purpose: the shim must start in well under 100 ms and stay small, so neither it nor this module
imports asyncio or the MCP SDK.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import zmq

from design_console.config import Config
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import (
    PROTOCOL_VERSION,
    AnyFrame,
    Bye,
    Error,
    Frame,
    Hello,
    Welcome,
    decode,
    encode,
)

HEARTBEAT_MS = 1000
HEARTBEAT_TIMEOUT_MS = 3000
START_TIMEOUT = 30.0
#: How often a caller that started designd looks for its control socket: designd answers about 0.3 s after its start,
#: and every tick of waiting past that is the first AI app of the day's.
START_POLL = 0.01
#: How long a designd that holds the instance lock may leave us unanswered before it counts as hung.
DEAF_AFTER = 10.0


def _configure(sock: zmq.Socket) -> None:  # type: ignore[type-arg]
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.IMMEDIATE, 1)
    sock.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS)
    sock.setsockopt(zmq.RECONNECT_IVL, 100)


def _cwd() -> str:
    """This process's working directory, or "" when it was deleted under it."""
    try:
        return os.getcwd()
    except OSError:
        return ""


def _socket_path(config: Config) -> str:
    return config.control_endpoint.removeprefix("ipc://")


class DaemonLink:
    """One DEALER connection to designd, opened with Hello/Welcome."""

    def __init__(self, config: Config, peer: str, session: str = "") -> None:
        self.config = config
        self.peer = peer
        self.session = session or uuid.uuid4().hex
        self.ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        self.sock: zmq.Socket | None = None  # type: ignore[type-arg]
        self.welcome: Welcome | None = None

    def connect(self, timeout: float) -> Welcome:
        """Connect and handshake; raises DesignError(ErrorCode.DAEMON_UNAVAILABLE) when nobody answers in time."""
        self.close()
        if not os.path.exists(_socket_path(self.config)):
            raise DesignError(
                ErrorCode.DAEMON_UNAVAILABLE, "designd is not running.", "Start it with `designctl start`."
            )
        sock = self.ctx.socket(zmq.DEALER)
        _configure(sock)
        sock.setsockopt(zmq.IDENTITY, f"{self.peer}-{os.getpid()}-{uuid.uuid4().hex[:8]}".encode())
        sock.connect(self.config.control_endpoint)
        self.sock = sock
        deadline = time.monotonic() + timeout
        if sock.poll(int(timeout * 1000), zmq.POLLOUT):
            sock.send(
                encode(
                    Hello(
                        id="hello",
                        peer=self.peer,
                        version=PROTOCOL_VERSION,
                        pid=os.getpid(),
                        session=self.session,
                        cwd=_cwd(),
                    )
                )
            )
            while (left := deadline - time.monotonic()) > 0 and sock.poll(int(left * 1000), zmq.POLLIN):
                frame = decode(sock.recv())
                if isinstance(frame, Welcome):
                    self.welcome = frame
                    return frame
                if isinstance(frame, Error) and frame.id == "hello":
                    self.close()
                    raise DesignError(ErrorCode.of(frame.code), frame.message)
        self.close()
        raise DesignError(
            ErrorCode.DAEMON_UNAVAILABLE, "designd is not answering.", "Run `designctl status` or `designctl doctor`."
        )

    def send(self, frame: Frame) -> None:
        assert self.sock is not None
        self.sock.send(encode(frame))

    def recv(self, timeout: float) -> AnyFrame | None:
        """The next frame, or None when none arrives within ``timeout`` seconds."""
        assert self.sock is not None
        if not self.sock.poll(int(timeout * 1000), zmq.POLLIN):
            return None
        return decode(self.sock.recv())

    def monitor(self) -> zmq.Socket:  # type: ignore[type-arg]
        """A socket that becomes readable when the connection to designd drops."""
        assert self.sock is not None
        return self.sock.get_monitor_socket(zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED)

    def close(self, linger_ms: int = 0) -> None:
        """Close the connection; ``linger_ms`` lets frames already sent (a Bye) still reach designd."""
        if self.sock is not None:
            try:
                self.sock.disable_monitor()
            except zmq.ZMQError:
                pass
            self.sock.close(linger=linger_ms)
            self.sock = None


def probe_daemon(config: Config, timeout: float) -> bool:
    """Whether a designd answers Hello on the control socket within ``timeout`` seconds."""
    link = DaemonLink(config, "ctl")
    try:
        link.connect(timeout)
        link.send(Bye(reason="probe"))
        return True
    except (DesignError, zmq.ZMQError, ValueError):
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
        lock = InstanceLock(config.lock_file)
        if not lock.is_held():
            ensure_private_dir(config.log_dir)
            offset = stderr_log.stat().st_size if stderr_log.exists() else 0
            pid = spawn_detached(str(stderr_log))
        deadline = time.monotonic() + START_TIMEOUT
        # A designd started elsewhere (a service manager, designctl) answers within seconds once it holds the lock.
        deaf_after = time.monotonic() + DEAF_AFTER
        while True:
            try:
                link.connect(1.0)
                return link
            except DesignError as err:
                if err.code != ErrorCode.DAEMON_UNAVAILABLE:
                    raise
                if pid is not None and not _alive(pid):
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
    fd = os.open(config.runtime_dir / "start.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
