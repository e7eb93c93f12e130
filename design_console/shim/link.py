"""The client end of designd's control socket, shared by the shim and designctl.

Kept free of heavy imports: a shim must start in well under 100 ms.
"""

from __future__ import annotations

import asyncio
import os
import uuid

import zmq
import zmq.asyncio

from design_console.config import Config
from design_console.errors import DesignError
from design_console.protocol import (
    PROTOCOL_VERSION,
    AnyFrame,
    Error,
    Frame,
    Hello,
    Welcome,
    decode,
    encode,
)

HEARTBEAT_MS = 1000
HEARTBEAT_TIMEOUT_MS = 3000


def _configure(sock: zmq.Socket) -> None:  # type: ignore[type-arg]
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.IMMEDIATE, 1)
    sock.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS)
    sock.setsockopt(zmq.RECONNECT_IVL, 100)


def probe_daemon(config: Config, timeout: float) -> bool:
    """Whether a designd answers Hello on the control socket within ``timeout`` seconds (blocking)."""
    if not config.control_endpoint.removeprefix("ipc://") or not os.path.exists(
        config.control_endpoint.removeprefix("ipc://")
    ):
        return False
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    _configure(sock)
    try:
        sock.connect(config.control_endpoint)
        if not sock.poll(int(timeout * 1000), zmq.POLLOUT):
            return False
        sock.send(encode(Hello(id="probe", peer="ctl", version=PROTOCOL_VERSION, pid=os.getpid())))
        if not sock.poll(int(timeout * 1000), zmq.POLLIN):
            return False
        return isinstance(decode(sock.recv()), Welcome)
    except Exception:
        return False
    finally:
        sock.close(linger=0)


class DaemonLink:
    """One DEALER connection to designd, opened with Hello/Welcome."""

    def __init__(self, config: Config, peer: str, session: str = "") -> None:
        self.config = config
        self.peer = peer
        self.session = session or uuid.uuid4().hex
        self.ctx = zmq.asyncio.Context.instance()
        self.sock: zmq.asyncio.Socket | None = None
        self.welcome: Welcome | None = None

    async def connect(self, timeout: float) -> Welcome:
        """Connect and handshake; raises DesignError("daemon_unavailable") when nobody answers in time."""
        self.close()
        sock = self.ctx.socket(zmq.DEALER)
        _configure(sock)
        sock.setsockopt(zmq.IDENTITY, f"{self.peer}-{os.getpid()}-{uuid.uuid4().hex[:8]}".encode())
        sock.connect(self.config.control_endpoint)
        self.sock = sock
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            if not await sock.poll(int(timeout * 1000), zmq.POLLOUT):
                raise TimeoutError
            await sock.send(
                encode(
                    Hello(id="hello", peer=self.peer, version=PROTOCOL_VERSION, pid=os.getpid(), session=self.session)
                )
            )
            while True:
                left = deadline - loop.time()
                if left <= 0 or not await sock.poll(int(left * 1000), zmq.POLLIN):
                    raise TimeoutError
                frame = decode(await sock.recv())
                if isinstance(frame, Welcome):
                    self.welcome = frame
                    return frame
                if isinstance(frame, Error) and frame.id == "hello":
                    raise DesignError(frame.code, frame.message)
        except TimeoutError:
            self.close()
            raise DesignError(
                "daemon_unavailable", "designd is not answering.", "Run `designctl status` or `designctl doctor`."
            ) from None

    async def send(self, frame: Frame) -> None:
        assert self.sock is not None
        await self.sock.send(encode(frame))

    async def recv(self) -> AnyFrame:
        assert self.sock is not None
        return decode(await self.sock.recv())

    def monitor(self) -> zmq.asyncio.Socket:
        """A socket that reports connection events (used to notice designd going away)."""
        assert self.sock is not None
        return self.sock.get_monitor_socket(zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED)  # type: ignore[return-value]

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.disable_monitor()
            except zmq.ZMQError:
                pass
            self.sock.close(linger=0)
            self.sock = None


async def connect_or_start(config: Config, peer: str, *, session: str = "", start: bool = True) -> DaemonLink:
    """Connect to designd, starting it detached first when none answers (its lock keeps it single)."""
    link = DaemonLink(config, peer, session)
    try:
        await link.connect(0.3)
        return link
    except DesignError as err:
        if not start or err.code != "daemon_unavailable":
            raise
    from design_console.daemon.launch import spawn_detached
    from design_console.daemon.runtime import InstanceLock, ensure_private_dir

    ensure_private_dir(config.runtime_dir)
    if not InstanceLock(config.lock_file).is_held():
        ensure_private_dir(config.home)
        ensure_private_dir(config.log_dir)
        await asyncio.to_thread(spawn_detached, str(config.log_dir / "designd.stderr.log"))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30.0
    while True:
        try:
            await link.connect(1.0)
            return link
        except DesignError as err:
            if err.code != "daemon_unavailable" or loop.time() > deadline:
                raise DesignError(
                    "daemon_unavailable",
                    "designd did not start.",
                    f"See {config.log_dir / 'designd.stderr.log'} and run `designctl doctor`.",
                ) from None
