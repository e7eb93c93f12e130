"""The orphan reaper against real processes whose command lines look like our workers and daemons.

find_strays looks at every process of the user, so each test only acts on the strays it started itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from procs import WORKER_CALL, DaemonProcess, processes_of, start_worker, wait_for

from design_console.daemon.reaper import DAEMON_MARKER, WORKER_MARKER, Stray, find_strays, stop_processes, sweep
from design_console.runtime.adverts import Advert, advert_path, now_ms, process_start_time, write_advert
from design_console.runtime.launch import WORKER_OF_VAR, worker_of

# Says "term" on SIGTERM (or ignores it when deaf), so a test can tell which signal ended it.
SLEEPER = (
    "import signal, sys, time\n"
    "def term(*_):\n"
    "    print('term', flush=True)\n"
    "    sys.exit(0)\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN if sys.argv[1] == 'deaf' else term)\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)

Spawn = Callable[..., subprocess.Popen[bytes]]


@pytest.fixture
def spawn() -> Iterator[Spawn]:
    """Start a sleeping python process with the given words on its command line; all are killed at the end."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*words: str, deaf: bool = False, **popen: object) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, "-c", SLEEPER, "deaf" if deaf else "plain", *words],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            **popen,  # type: ignore[arg-type]
        )
        started.append(proc)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"ready"
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A temp dir for adverts and a runtime dir, both private to the test."""
    temp, run = tmp_path / "tmp", tmp_path / "run"
    temp.mkdir()
    run.mkdir(mode=0o700)
    return temp, run


def _ended_by_sigterm(proc: subprocess.Popen[bytes]) -> bool:
    """Whether a stopped sleeper ran its SIGTERM handler (stop_processes reaps our children itself)."""
    wait_for(lambda: not psutil.pid_exists(proc.pid), 5, f"pid {proc.pid} to be gone")
    assert proc.stdout is not None
    return proc.stdout.read().strip() == b"term"


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(10)
    return proc.pid


def _worker_words(parent: int | str) -> tuple[str, ...]:
    return (WORKER_MARKER, "--kind", "api", "--parent", str(parent))


def _worker_env(run: Path, parent: int, parent_start: float) -> dict[str, str]:
    """The environment designd gives its workers: the marker that ties a worker to its installation and designd."""
    return {**os.environ, WORKER_OF_VAR: worker_of(run, parent, parent_start)}


def _advertise(temp: Path, pid: int, runtime_dir: Path, port: int = 45000, start: float | None = None) -> Path:
    path = advert_path(temp, port)
    write_advert(
        path,
        Advert(
            pid=pid,
            process_start_time=process_start_time(pid) if start is None else start,
            port=port,
            host="localhost",
            version="0.1.0",
            started_at=now_ms(),
            last_seen=now_ms(),
            runtime_dir=str(runtime_dir),
        ),
    )
    return path


def _strays_among(dirs: tuple[Path, Path], *procs: subprocess.Popen[bytes], **kw: int) -> dict[int, Stray]:
    mine = {p.pid for p in procs}
    return {s.pid: s for s in find_strays(*dirs, **kw) if s.pid in mine}  # type: ignore[arg-type]


def test_orphaned_worker_is_found_and_terminated(spawn: Spawn, dirs: tuple[Path, Path]) -> None:
    dead = _dead_pid()
    orphan = spawn(*_worker_words(dead), env=_worker_env(dirs[1], dead, time.time()))
    strays = _strays_among(dirs, orphan)
    assert list(strays) == [orphan.pid]
    assert f"designd (pid {dead}) is gone" in strays[orphan.pid].why
    assert stop_processes(list(strays.values()), grace=5.0) == [orphan.pid]
    assert _ended_by_sigterm(orphan)


def test_orphan_that_ignores_sigterm_is_killed(spawn: Spawn, dirs: tuple[Path, Path]) -> None:
    dead = _dead_pid()
    orphan = spawn(*_worker_words(dead), deaf=True, env=_worker_env(dirs[1], dead, time.time()))
    strays = _strays_among(dirs, orphan)
    assert list(strays) == [orphan.pid]
    started = time.monotonic()
    assert stop_processes(list(strays.values()), grace=0.5) == [orphan.pid]
    assert time.monotonic() - started >= 0.5, "SIGKILL came before the grace period"
    assert not _ended_by_sigterm(orphan)


# A stand-in designd that starts a worker-like child of its own, as designd does, and prints the child's pid.
PARENT = (
    "import json, os, psutil, subprocess, sys, time\n"
    "marker = json.dumps([sys.argv[2], os.getpid(), psutil.Process().create_time()])\n"
    "child = subprocess.Popen([sys.executable, '-c', sys.argv[1], 'plain', *sys.argv[4:], str(os.getpid())],"
    f" stdout=subprocess.PIPE, env={{**os.environ, '{WORKER_OF_VAR}': marker}})\n"
    "child.stdout.readline()\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(60)\n"
)


def test_worker_of_a_live_designd_is_left_alone(dirs: tuple[Path, Path]) -> None:
    designd = subprocess.Popen(
        [
            sys.executable,
            "-c",
            PARENT,
            SLEEPER,
            str(dirs[1]),
            DAEMON_MARKER,
            WORKER_MARKER,
            "--kind",
            "api",
            "--parent",
        ],
        stdout=subprocess.PIPE,
    )
    assert designd.stdout is not None
    worker = psutil.Process(int(designd.stdout.readline()))
    try:
        found = {s.pid for s in find_strays(*dirs)}
        assert worker.pid not in found and designd.pid not in found
        designd.kill()
        designd.wait(5)
        wait_for(lambda: worker.ppid() != designd.pid, 5, "the worker to be re-parented")
        assert worker.pid in {s.pid for s in find_strays(*dirs)}, "once its designd is gone the worker is an orphan"
    finally:
        designd.kill()
        designd.wait(5)
        worker.kill()


def test_worker_whose_designd_pid_was_reused_is_an_orphan(spawn: Spawn, dirs: tuple[Path, Path]) -> None:
    """The pid lives, but as another process (it started later than the designd the worker belongs to)."""
    worker = spawn(*_worker_words(os.getpid()), env=_worker_env(dirs[1], os.getpid(), time.time() - 3600))
    assert list(_strays_among(dirs, worker)) == [worker.pid]


def test_superseded_designd_of_this_installation_is_stopped(spawn: Spawn, dirs: tuple[Path, Path]) -> None:
    temp, run = dirs
    old = spawn(DAEMON_MARKER, "--foreground")
    _advertise(temp, old.pid, run, port=45001)
    strays = _strays_among(dirs, old)
    assert list(strays) == [old.pid] and "port 45001" in strays[old.pid].why
    assert _strays_among(dirs, old, self_pid=old.pid) == {}, "a designd never reaps itself"
    assert stop_processes(list(strays.values())) == [old.pid]
    assert _ended_by_sigterm(old)


def test_designd_of_another_runtime_dir_is_left_alone(spawn: Spawn, dirs: tuple[Path, Path], tmp_path: Path) -> None:
    temp, _ = dirs
    other = spawn(DAEMON_MARKER, "--foreground")
    _advertise(temp, other.pid, tmp_path / "someone-elses-run")
    assert _strays_among(dirs, other) == {}


def test_designd_whose_advert_is_for_an_older_process_is_left_alone(spawn: Spawn, dirs: tuple[Path, Path]) -> None:
    temp, run = dirs
    reused = spawn(DAEMON_MARKER, "--foreground")
    _advertise(temp, reused.pid, run, start=process_start_time(reused.pid) - 60)
    assert _strays_among(dirs, reused) == {}


def test_lookalikes_without_evidence_are_left_alone(spawn: Spawn, dirs: tuple[Path, Path]) -> None:
    temp, run = dirs
    unadvertised = spawn(DAEMON_MARKER, "--foreground")
    no_parent = spawn(WORKER_MARKER, "--kind", "api")
    bad_parent = spawn(*_worker_words("abc"))
    dangling_flag = spawn(WORKER_MARKER, "--kind", "api", "--parent")
    # The exact arguments of an orphaned worker (a `watch pgrep …` has them), but no marker in its environment.
    typed_words = spawn(*_worker_words(_dead_pid()))
    # A real orphan's marker, but of another installation.
    elsewhere = spawn(*_worker_words(_dead_pid()), env=_worker_env(temp / "other-run", _dead_pid(), time.time()))
    garbled = spawn(*_worker_words(_dead_pid()), env={**os.environ, WORKER_OF_VAR: "not json"})
    named_like_us = subprocess.Popen(
        ["bash", "-c", "exec -a designd sleep 60", "design-console-mcp", "--parent", str(_dead_pid())]
    )
    try:
        wait_for(lambda: psutil.Process(named_like_us.pid).name() == "sleep", 5, "the lookalike to exec")
        _advertise(temp, named_like_us.pid, run, port=45002)
        found = {s.pid for s in find_strays(temp, run)}
        procs = (unadvertised, no_parent, bad_parent, dangling_flag, typed_words, elsewhere, garbled, named_like_us)
        assert found.isdisjoint(p.pid for p in procs)
    finally:
        named_like_us.kill()
        named_like_us.wait(5)


@pytest.mark.skipif(os.getuid() != 0, reason="starting a process as another user needs root")
def test_orphan_of_another_user_is_left_alone(dirs: tuple[Path, Path]) -> None:
    words = _worker_words(_dead_pid())
    other = subprocess.Popen(
        ["bash", "-c", "sleep 60; :", *words], user=65534, group=65534, cwd="/", start_new_session=True
    )
    try:
        wait_for(lambda: WORKER_MARKER in " ".join(psutil.Process(other.pid).cmdline()), 5, "the other user's process")
        assert other.pid not in {s.pid for s in find_strays(*dirs)}
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.wait(5)


def test_stop_processes_skips_a_vanished_pid() -> None:
    assert stop_processes([Stray(_dead_pid(), "already gone")], grace=0.1) == []


def test_sweep_stops_the_superseded_designd_and_removes_stale_adverts(
    spawn: Spawn, dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    temp, run = dirs
    old = spawn(DAEMON_MARKER, "--foreground")
    old_advert = _advertise(temp, old.pid, run, port=45010)
    dead_advert = _advertise(temp, _dead_pid(), run, port=45011, start=time.time())
    garbage = advert_path(temp, 45012)
    garbage.write_text("{")
    live_elsewhere = _advertise(temp, os.getpid(), tmp_path / "other-run", port=45013)

    # sweep() stops every stray of this user; only run it when the strays are the ones this test made.
    def only_mine() -> bool:
        return {s.pid for s in find_strays(temp, run)} == {old.pid}

    try:
        wait_for(only_mine, 5, "other orphaned workers of this user to exit by themselves")
    except AssertionError:
        pytest.skip("another orphaned worker of this user is running; sweep() would stop it")

    report = sweep(temp, run)
    assert report["stopped"] == [str(old.pid)]
    assert sorted(report["removed"]) == sorted(str(p) for p in (old_advert, dead_advert, garbage))
    assert _ended_by_sigterm(old)
    assert live_elsewhere.exists() and not old_advert.exists()


def test_workers_of_a_designd_started_from_its_script_are_not_strays(daemon: DaemonProcess) -> None:
    config = daemon.env.config

    def workers() -> set[int]:
        return {p.pid for p in processes_of(daemon.env) if WORKER_MARKER in " ".join(p.cmdline())}

    for kind in WORKER_CALL:
        start_worker(daemon.env, kind)
    wait_for(lambda: len(workers()) == len(WORKER_CALL), 15, "designd's workers")
    before = workers()
    strays = {s.pid for s in find_strays(config.temp_dir, config.runtime_dir, self_pid=daemon.pid)}
    alive = before & workers()
    assert alive, "the workers restarted while the test looked at them"
    assert strays.isdisjoint(alive), "live workers of a running designd were taken for orphans"
