"""The one link between designd and its peers (shims, designctl, workers): ZeroMQ sockets carrying msgspec frames.

``DESIGN_IPC=ipc``: an ``ipc://`` socket in the private runtime dir (0700): only the user can reach it.
``DESIGN_IPC=tcp``: ``tcp://127.0.0.1`` on a port the OS picks, written to the runtime dir for peers to find. Every
connection runs ZeroMQ's CURVE handshake: a peer must know designd's public key (a squatter on a dead designd's port
cannot pose as it) and prove the user's client key, which designd's ZAP handler checks before any frame gets through.
Both key pairs live in the private home, made once by designd.
"""

from __future__ import annotations

import contextlib
import os
import struct
import uuid
from pathlib import Path
from typing import NamedTuple

import zmq

from design_console.config import Config
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import MAX_FRAME_BYTES
from design_console.runtime.files import write_private
from design_console.runtime.platform.system import MAX_SOCKET_PATH

#: ZMTP heartbeats: a peer whose process froze is cut off within the timeout (one that died is seen at once).
HEARTBEAT_IVL_MS = 1000
HEARTBEAT_TIMEOUT_MS = 3000
#: The ZAP domain designd's CURVE socket asks its handler about.
ZAP_DOMAIN = "design-console"
#: Where libzmq sends ZAP requests, inside the context of the socket being authenticated.
ZAP_ENDPOINT = "inproc://zeromq.zap.01"
#: Monitor events of a handshake designd refused (wrong keys, no CURVE, not ZeroMQ at all).
REFUSED = zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_AUTH
#: Monitor events that end a peer's link: the connection failed, dropped, or its handshake was refused.
LINK_ENDED = zmq.EVENT_CONNECT_RETRIED | zmq.EVENT_CLOSED | zmq.EVENT_DISCONNECTED | REFUSED


#: pyzmq's option and flag enums as plain ints: every call and test with an enum member builds a new enum object,
#: which on a call's way through costs more than the system call it names.
EVENTS = int(zmq.EVENTS)
POLLIN = int(zmq.POLLIN)
NOBLOCK = int(zmq.NOBLOCK)


def readable(sock: zmq.Socket[bytes]) -> bool:
    """Whether a message waits on ``sock`` (reading ``EVENTS`` also re-arms its edge-triggered descriptor)."""
    events = sock.getsockopt(EVENTS)
    return isinstance(events, int) and bool(events & POLLIN)


def monitor_event(sock: zmq.Socket[bytes]) -> tuple[int, int]:
    """The next event of a socket monitor (call when it is readable): its kind and value (for a connection's
    events, the connection's descriptor). Read here rather than with ``zmq.utils.monitor``, which loads asyncio."""
    parts = sock.recv_multipart()
    kind, value = struct.unpack("=HI", parts[0][:6])
    return int(kind), int(value)


class KeyPair(NamedTuple):
    """A CURVE key pair in Z85 text (40 characters each)."""

    public: bytes
    secret: bytes


def _read_pair(path: os.PathLike[str]) -> KeyPair | None:
    try:
        with open(path, "rb") as handle:
            parts = handle.read(200).split()
    except OSError:
        return None
    if len(parts) != 2 or any(len(part) != 40 for part in parts):
        return None
    return KeyPair(parts[0], parts[1])


def ensure_keys(config: Config) -> tuple[KeyPair, KeyPair]:
    """designd's key pair and the user's client key pair, each made once (0600, written atomically) and kept.

    Only designd calls this, holding its instance lock, so no two processes make different keys at once.
    """
    pairs: list[KeyPair] = []
    for path in (config.server_key_file, config.client_key_file):
        pair = _read_pair(path)
        if pair is None:
            public, secret = zmq.curve_keypair()
            pair = KeyPair(public, secret)
            write_private(path, pair.public + b"\n" + pair.secret + b"\n")
        pairs.append(pair)
    return pairs[0], pairs[1]


def find_endpoint(config: Config) -> str | None:
    """Where designd's control socket is, or None when no designd has bound one."""
    if config.transport == "ipc":
        path = config.control_socket
        return f"ipc://{path}" if path.exists() else None
    try:
        endpoint = config.control_endpoint_file.read_text().strip()
    except OSError:
        return None
    return endpoint if endpoint.startswith("tcp://127.0.0.1:") else None


def check_socket_path(path: Path, limit: int = MAX_SOCKET_PATH) -> None:
    """Refuse an ``ipc://`` path the OS cannot bind (longer than ``limit`` bytes): libzmq fails on it with a bare
    'Invalid argument'."""
    size = len(os.fsencode(path))
    if size > limit:
        raise DesignError(
            ErrorCode.BAD_CONFIG,
            f"The control socket path {path} is {size} bytes; this system takes at most {limit}.",
            "Set DESIGN_RUNTIME_DIR to a shorter folder of your own (for example ~/.dcm-run), or DESIGN_IPC=tcp.",
        )


def bind_server(sock: zmq.Socket[bytes], config: Config, keys: KeyPair | None) -> str:
    """Bind designd's control socket (``keys``: its CURVE pair, tcp only) and publish where it is; returns that."""
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_FRAME_BYTES)
    sock.setsockopt(zmq.HEARTBEAT_IVL, 2 * HEARTBEAT_IVL_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 2 * HEARTBEAT_TIMEOUT_MS)
    if config.transport == "ipc":
        path = config.control_socket
        check_socket_path(path)
        path.unlink(missing_ok=True)
        endpoint = f"ipc://{path}"
        old = os.umask(0o177)  # the socket file 0600, though the folder (0700) already keeps others out
        try:
            sock.bind(endpoint)
        finally:
            os.umask(old)
        return endpoint
    assert keys is not None
    sock.setsockopt(zmq.CURVE_SERVER, 1)
    sock.setsockopt(zmq.CURVE_PUBLICKEY, keys.public)
    sock.setsockopt(zmq.CURVE_SECRETKEY, keys.secret)
    sock.setsockopt(zmq.ZAP_DOMAIN, ZAP_DOMAIN.encode())
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    endpoint = f"tcp://127.0.0.1:{port}"
    write_private(config.control_endpoint_file, endpoint.encode() + b"\n")
    return endpoint


def withdraw_endpoint(config: Config) -> None:
    """Remove what :func:`bind_server` left for peers to find (designd stopping)."""
    for path in (config.control_socket, config.control_endpoint_file):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def client_socket(ctx: zmq.Context[zmq.Socket[bytes]], config: Config, name: str) -> zmq.Socket[bytes]:
    """A DEALER set up to reach designd (connect it once its monitor is attached); over tcp it proves the user's key.

    Raises DesignError(DAEMON_UNAVAILABLE) when the keys designd made are missing.
    """
    sock: zmq.Socket[bytes] = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.IDENTITY, f"{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}".encode())
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_FRAME_BYTES)
    sock.setsockopt(zmq.HEARTBEAT_IVL, HEARTBEAT_IVL_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, HEARTBEAT_TIMEOUT_MS)
    if config.transport == "tcp":
        server = _read_pair(config.server_key_file)
        client = _read_pair(config.client_key_file)
        if server is None or client is None:
            sock.close(linger=0)
            raise DesignError(
                ErrorCode.DAEMON_UNAVAILABLE,
                f"designd's control keys ({config.server_key_file}, {config.client_key_file}) are missing.",
                "Restart designd with `designctl restart`: it makes them.",
            )
        sock.setsockopt(zmq.CURVE_SERVERKEY, server.public)
        sock.setsockopt(zmq.CURVE_PUBLICKEY, client.public)
        sock.setsockopt(zmq.CURVE_SECRETKEY, client.secret)
    return sock
