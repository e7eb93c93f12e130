"""Workers on demand: none runs before a call needs it, a call starts it, idleness stops it, a call restarts it."""

from __future__ import annotations

import subprocess
import time
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


def test_a_worker_that_dies_before_its_hello_fails_the_waiting_call_at_once(idle_daemon: DaemonProcess) -> None:
    """The call waiting for a start hears at once that it failed (not after the 15 s start timeout); the next works."""
    env = idle_daemon.env
    call = subprocess.Popen(
        [str(BIN / "designctl"), "call", "design_get_file_data", "fileUrl=NoSuchFile0000000000001"],
        env=env.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        found: list[psutil.Process] = []

        def worker_started() -> bool:
            found[:] = [p for p in processes_of(env) if "--kind" in p.cmdline()]
            return bool(found)

        wait_for(worker_started, 30, "the api worker process")
        found[0].kill()  # at once: it says hello only once it has imported the catalog, a few hundred ms from now
        started = time.monotonic()
        out, _ = call.communicate(timeout=30)
        if "DESIGN_ACCESS_TOKEN" in out:
            pytest.skip("the worker said hello before the test could stop it")
        assert "The api worker could not start" in out, out
        assert time.monotonic() - started < 10
    finally:
        if call.poll() is None:
            call.kill()
            call.wait()
    again = start_worker(env, "api")
    assert again["restarts"] == 1
