"""The shim's two ways of reading its client: stdin polled beside the link to designd (a pipe or a socket, on
POSIX), and a reader thread feeding a socket pair (Windows, files, terminals). Both keep lines whole and both end
the shim within a second of the client hanging up, even while it is busy connecting."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import IO, Any

import psutil
import pytest
from procs import BIN, DaemonProcess, TestEnv, wait_for

SHIM = str(BIN / "design-console-mcp")
#: The shim with stdin polling declined, as on Windows: the reader thread path on this system.
THREAD_SHIM = (
    "from design_console.runtime.platform import stdio\n"
    "stdio.stdin_pollable = lambda fd: False\n"
    "from design_console.shim.main import main\n"
    "main()\n"
)
COMMANDS = {"poll": [SHIM], "thread": [sys.executable, "-c", THREAD_SHIM]}


def _request(request_id: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


INIT = _request(
    1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
)


@pytest.fixture(params=sorted(COMMANDS))
def driver(request: pytest.FixtureRequest) -> str:
    if request.param == "poll" and sys.platform == "win32":
        pytest.skip("Windows polls sockets only: the shim reads stdin with its thread there")
    return str(request.param)


def _start(daemon: DaemonProcess, driver: str, stdin: int | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        COMMANDS[driver],
        env=daemon.env.env,
        stdin=subprocess.PIPE if stdin is None else stdin,
        stdout=subprocess.PIPE,
    )


def _send(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(data)
    proc.stdin.flush()


def _read_line(stdout: IO[bytes], timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    line = b""
    while not line.endswith(b"\n"):
        if time.monotonic() > deadline:
            raise AssertionError("no line from the shim")
        line += stdout.readline()
    return json.loads(line)


def _ends_within_a_second(proc: subprocess.Popen[bytes], hang_up: Any) -> None:
    started = time.monotonic()
    hang_up()
    proc.wait(5)
    took = time.monotonic() - started
    assert took < 1.0, f"the shim outlived its client by {took:.2f} s"
    assert proc.returncode == 0


def test_lines_cut_across_reads_or_joined_in_one_arrive_whole(daemon: DaemonProcess, driver: str) -> None:
    proc = _start(daemon, driver)
    try:
        assert proc.stdout is not None
        _send(proc, INIT[:17])
        # A pause long enough that the rest comes in a read of its own, the way a busy client's pipe delivers it.
        time.sleep(0.1)
        ping = _request(3, "ping")
        _send(proc, INIT[17:] + b"\n" + _request(2, "tools/list") + b"\n" + ping[:9])
        time.sleep(0.1)
        _send(proc, ping[9:] + b"\n")
        # designd answers requests concurrently: each answer is matched by its id, not by its place.
        replies = {reply["id"]: reply for reply in (_read_line(proc.stdout) for _ in range(3))}
        assert sorted(replies) == [1, 2, 3]
        assert replies[1]["result"]["serverInfo"]["name"] == "design-console-mcp"
        assert len(replies[2]["result"]["tools"]) > 20
        assert replies[3]["result"] == {}
        assert proc.stdin is not None
        _ends_within_a_second(proc, proc.stdin.close)
        assert proc.stdout.read() == b"", "the shim wrote something beyond the three answers"
    finally:
        proc.kill()
        proc.wait()


def test_a_socket_pair_as_stdin_is_served_and_its_close_ends_the_shim(daemon: DaemonProcess, driver: str) -> None:
    """Apps built on libuv (Node, Electron) hand their children a socket pair rather than a pipe."""
    ours, theirs = socket.socketpair()
    proc = _start(daemon, driver, stdin=theirs.fileno())
    theirs.close()
    try:
        assert proc.stdout is not None
        ours.sendall(INIT + b"\n")
        assert _read_line(proc.stdout)["result"]["serverInfo"]["name"] == "design-console-mcp"
        _ends_within_a_second(proc, ours.close)
    finally:
        ours.close()
        proc.kill()
        proc.wait()


def _connecting(pid: int, env: TestEnv, driver: str) -> bool:
    """Whether the shim ``pid`` has a connection to designd's control socket: it is past its start-up, connecting.

    Over tcp, a connection to designd's port; over ipc, a Unix socket besides the socket pair of a fed stdin (a
    polled stdin has none: its inbox is a pipe).
    """
    config = env.config
    own = 2 if driver == "thread" else 0
    try:
        proc = psutil.Process(pid)
        if config.transport == "tcp":
            port = int(config.control_endpoint_file.read_text().strip().rsplit(":", 1)[1])
            return any(c.raddr and c.raddr.port == port for c in proc.net_connections(kind="tcp"))
        return len(proc.net_connections(kind="unix")) > own
    except (psutil.Error, OSError):
        return False


def test_stdin_closed_while_connecting_ends_the_shim_within_a_second(daemon: DaemonProcess, driver: str) -> None:
    """designd is frozen, so the shim's main loop is busy connecting and reads no stdin; closing stdin still ends it."""
    os.kill(daemon.pid, signal.SIGSTOP)
    proc = _start(daemon, driver)
    try:
        _send(proc, INIT + b"\n")
        wait_for(lambda: _connecting(proc.pid, daemon.env, driver), 20, "the shim to connect to designd's socket")
        assert proc.stdin is not None
        _ends_within_a_second(proc, proc.stdin.close)
    finally:
        proc.kill()
        proc.wait()
        os.kill(daemon.pid, signal.SIGCONT)
