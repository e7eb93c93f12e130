"""Real designd processes for tests: a private HOME, runtime dir and port range each, and a clean stop."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import zmq
from helpers import free_port_range

from design_console.config import Config, load_config
from design_console.runtime.control_client import probe_daemon
from design_console.runtime.transport import client_socket, find_endpoint

BIN = Path(sys.executable).parent
START_TIMEOUT = 30.0
#: Put on PYTHONPATH when the run's DESIGN_TEST_LOOP is "windows": designd and its workers then run on a loop with
#: the limits of Windows' default one (see its sitecustomize).
WINDOWS_LOOP = Path(__file__).parent / "fakes" / "windows_loop"


@dataclass
class TestEnv:
    __test__ = False

    """Environment of one isolated installation: HOME, runtime dir, temp dir and bridge ports of its own."""

    root: Path
    env: dict[str, str]
    port_start: int

    @property
    def config(self) -> Config:
        return load_config(self.env)

    @property
    def token(self) -> str:
        return self.config.token_file.read_text().strip()

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def make_env(**extra: str) -> TestEnv:
    """A fresh installation. The root is short because ipc:// paths must stay under ~107 bytes.

    DESIGN_IPC passes through from the test run's environment: the suite runs once on each transport. With
    DESIGN_TEST_LOOP=windows, designd and its workers run on a loop like Windows' default one.
    """
    loop = os.environ.get("DESIGN_TEST_LOOP", "")
    if loop not in ("", "windows"):
        raise ValueError(f"DESIGN_TEST_LOOP={loop!r}: leave it unset, or set it to 'windows'")
    root = Path(tempfile.mkdtemp(prefix="dc-", dir="/tmp"))
    port_start = free_port_range(10)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DESIGN_", "XDG_RUNTIME", "NOTIFY_SOCKET"))}
    if os.environ.get("DESIGN_IPC"):
        env["DESIGN_IPC"] = os.environ["DESIGN_IPC"]
    env.update(
        HOME=str(root / "home"),
        DESIGN_RUNTIME_DIR=str(root / "run"),
        TMPDIR=str(root / "tmp"),
        DESIGN_WS_PORT=str(port_start),
        LOG_LEVEL="debug",
        PYTHONUNBUFFERED="1",
    )
    if loop:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(WINDOWS_LOOP), env.get("PYTHONPATH")]))
    env.update(extra)
    (root / "home").mkdir(mode=0o700)
    (root / "tmp").mkdir(mode=0o700)
    return TestEnv(root=root, env=env, port_start=port_start)


def control_peer(config: Config, name: str = "test") -> zmq.Socket[bytes]:
    """A bare DEALER connected to designd's control socket the way its peers connect (over tcp: with the user's key)."""
    endpoint = find_endpoint(config)
    assert endpoint is not None, "designd has no control socket"
    sock = client_socket(zmq.Context.instance(), config, name)
    sock.connect(endpoint)
    return sock


def processes_of(env: TestEnv) -> list[psutil.Process]:
    """Every live process whose environment is this installation's (daemon, workers, shims)."""
    found = []
    for proc in psutil.process_iter(["pid", "status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        try:
            if proc.environ().get("DESIGN_RUNTIME_DIR") == env.env["DESIGN_RUNTIME_DIR"]:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def kill_all(procs: list[psutil.Process]) -> None:
    for proc in procs:
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=5)


def gone(proc: psutil.Process) -> bool:
    """A process that exited; a zombie counts as gone (it is only waiting for init to reap it)."""
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


@dataclass
class DaemonProcess:
    """A designd started with ``--foreground`` in a test installation."""

    env: TestEnv
    proc: subprocess.Popen[bytes] | None = None
    extra_env: dict[str, str] = field(default_factory=dict)

    def start(self) -> DaemonProcess:
        self.proc = subprocess.Popen(
            [str(BIN / "designd"), "--foreground"],
            env={**self.env.env, **self.extra_env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        config = self.env.config
        deadline = time.monotonic() + START_TIMEOUT
        while not probe_daemon(config, 0.2):
            if self.proc.poll() is not None:
                raise AssertionError(f"designd exited with {self.proc.returncode}: {self.proc.stderr.read().decode()}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise AssertionError("designd did not answer on its control socket")
            time.sleep(0.05)
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def port(self) -> int:
        from design_console.runtime.dirs import InstanceLock

        wait_for(lambda: "port" in InstanceLock(self.env.config.lock_file).holder(), 10, "designd's port")
        return int(InstanceLock(self.env.config.lock_file).holder()["port"])

    def stop(self) -> int | None:
        """SIGTERM and wait; SIGKILL if it hangs. Returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(5)


def isolated(env: TestEnv) -> Iterator[TestEnv]:
    """Hand out ``env``; afterwards kill and report any process of it still running, and delete its files."""
    try:
        yield env
    finally:
        leftovers = processes_of(env)
        kill_all(leftovers)
        env.cleanup()
        assert not leftovers, f"processes left behind: {[p.pid for p in leftovers]}"


def running_daemon(env: TestEnv) -> Iterator[DaemonProcess]:
    """Start designd for a test and make sure it, its workers and any shim are gone afterwards."""
    daemon = DaemonProcess(env).start()
    try:
        yield daemon
    finally:
        daemon.stop()
        if daemon.proc is not None and daemon.proc.stderr is not None:
            daemon.proc.stderr.close()


#: A call per worker kind that reaches its worker without a plugin or a design API token (it may fail there).
WORKER_CALL = {"api": ["design_get_file_data", "fileUrl=NoSuchFile0000000000001"], "media": ["design_take_screenshot"]}


def status(env: TestEnv) -> dict[str, Any]:
    """What ``designctl status --json`` says."""
    out = subprocess.run(
        [str(BIN / "designctl"), "status", "--json"], env=env.env, capture_output=True, timeout=30, check=True
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def worker_status(env: TestEnv, kind: str) -> dict[str, Any]:
    """The ``designctl status`` entry of one worker."""
    return next(w for w in status(env)["workers"] if w["kind"] == kind)


def workers_running(env: TestEnv) -> bool:
    """No worker is starting, restarting or stopping: each runs, or waits for the first call that needs it."""
    return all(w["state"] in ("running", "not started") for w in status(env)["workers"])


def start_worker(env: TestEnv, kind: str = "api") -> dict[str, Any]:
    """Start a worker the way an AI app does, with a call that needs it; returns its status once it runs."""
    subprocess.run(
        [str(BIN / "designctl"), "call", *WORKER_CALL[kind]], env=env.env, capture_output=True, timeout=60, check=False
    )
    wait_for(lambda: worker_status(env, kind)["state"] == "running", START_TIMEOUT, f"the {kind} worker to run")
    return worker_status(env, kind)
