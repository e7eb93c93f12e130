"""Workers on demand: none runs before a call needs it, a call starts it, idleness stops it, a call restarts it."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import psutil
import pytest
from procs import BIN, DaemonProcess, TestEnv, isolated, make_env, processes_of, running_daemon, start_worker, wait_for
from procs import worker_status as status

from design_console.daemon.supervisor import KINDS

IDLE_SECONDS = 3


@pytest.fixture
def idle_env() -> Iterator[TestEnv]:
    yield from isolated(make_env(DESIGN_WORKER_IDLE_SECONDS=str(IDLE_SECONDS)))


@pytest.fixture
def idle_daemon(idle_env: TestEnv) -> Iterator[DaemonProcess]:
    yield from running_daemon(idle_env)


def test_a_worker_starts_on_its_first_call_and_stops_when_idle(idle_daemon: DaemonProcess) -> None:
    env = idle_daemon.env
    for kind in KINDS:
        assert status(env, kind)["state"] == "not started" and status(env, kind)["pid"] is None
    assert [p.pid for p in processes_of(env)] == [idle_daemon.pid], "designd started a worker no call needed"

    first = start_worker(env, "api")
    assert first["pid"] in {p.pid for p in psutil.Process(idle_daemon.pid).children()}
    assert status(env, "media")["state"] == "not started" and status(env, "tokens")["state"] == "not started"

    wait_for(lambda: status(env, "api")["state"] == "idle-stopped", IDLE_SECONDS + 15, "the idle api worker to stop")
    assert status(env, "api")["pid"] is None and not psutil.pid_exists(first["pid"])
    assert [p.pid for p in processes_of(env)] == [idle_daemon.pid]

    again = start_worker(env, "api")
    assert again["pid"] != first["pid"] and again["restarts"] == 0, "an idle stop is not a crash"


def test_the_call_that_starts_a_worker_gets_its_answer(idle_daemon: DaemonProcess) -> None:
    """The first call waits for the worker instead of failing: it gets the worker's own answer (here: no token)."""
    done = subprocess.run(
        [str(BIN / "designctl"), "call", "design_get_file_data", "fileUrl=NoSuchFile0000000000001"],
        env=idle_daemon.env.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "DESIGN_ACCESS_TOKEN" in done.stdout + done.stderr, done.stdout + done.stderr
    assert status(idle_daemon.env, "api")["state"] == "running"


def test_designd_stops_a_running_worker_with_itself(idle_daemon: DaemonProcess) -> None:
    env = idle_daemon.env
    worker = start_worker(env, "media")
    assert idle_daemon.stop() == 0
    wait_for(lambda: not psutil.pid_exists(worker["pid"]), 10, "the media worker to exit with designd")
    assert processes_of(env) == []
