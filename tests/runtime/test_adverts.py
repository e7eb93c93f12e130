"""Port adverts (design_console.runtime.adverts): private files, liveness of their pids, stale ones removed."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from procs import wait_for

from design_console.runtime.adverts import (
    PREFIX as ADVERT_PREFIX,
)
from design_console.runtime.adverts import (
    Advert,
    advert_path,
    is_live,
    list_adverts,
    process_start_time,
    read_advert,
    remove_stale,
    write_advert,
)

IS_ROOT = sys.platform != "win32" and os.getuid() == 0
OTHER_UID = 65534


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# --- adverts --------------------------------------------------------------------------------------------------


def _advert(pid: int, start: float, port: int = 40000, runtime_dir: str = "/run/x") -> Advert:
    return Advert(
        pid=pid,
        process_start_time=start,
        port=port,
        host="localhost",
        version="0.1.0",
        started_at=1,
        last_seen=2,
        runtime_dir=runtime_dir,
    )


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(10)
    return proc.pid


def test_advert_round_trip_and_mode(tmp_path: Path) -> None:
    me = _advert(os.getpid(), process_start_time(os.getpid()), port=41234)
    path = advert_path(tmp_path, 41234)
    assert path.name == f"{ADVERT_PREFIX}41234.json"
    write_advert(path, me)
    assert _mode(path) == 0o600
    assert read_advert(path) == me
    raw = json.loads(path.read_text())
    assert set(raw) == {"pid", "processStartTime", "port", "host", "version", "startedAt", "lastSeen", "runtimeDir"}
    path.write_text('{"pid": "nope"}')
    assert read_advert(path) is None
    assert read_advert(tmp_path / "missing.json") is None


def test_is_live_for_this_process() -> None:
    assert is_live(_advert(os.getpid(), process_start_time(os.getpid())))


def test_is_live_false_for_a_dead_pid() -> None:
    pid = _dead_pid()
    assert process_start_time(pid) == 0.0
    assert not is_live(_advert(pid, time.time()))


def test_is_live_false_for_a_reused_pid() -> None:
    started = process_start_time(os.getpid())
    assert not is_live(_advert(os.getpid(), started - 5.0))
    assert not is_live(_advert(os.getpid(), started + 5.0))


def test_is_live_false_for_a_zombie() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        started = process_start_time(proc.pid)
        wait_for(lambda: psutil.Process(proc.pid).status() == psutil.STATUS_ZOMBIE, 10, "the child to become a zombie")
        assert not is_live(_advert(proc.pid, started))
    finally:
        proc.wait(10)


def test_list_and_remove_stale_adverts(tmp_path: Path) -> None:
    live = advert_path(tmp_path, 40001)
    write_advert(live, _advert(os.getpid(), process_start_time(os.getpid()), port=40001))
    dead = advert_path(tmp_path, 40002)
    write_advert(dead, _advert(_dead_pid(), time.time(), port=40002))
    reused = advert_path(tmp_path, 40003)
    write_advert(reused, _advert(os.getpid(), process_start_time(os.getpid()) - 100, port=40003))
    garbage = advert_path(tmp_path, 40004)
    garbage.write_text("not json")
    unrelated = tmp_path / "other-40005.json"
    unrelated.write_text("not json")
    foreign = advert_path(tmp_path, 40006)
    write_advert(foreign, _advert(_dead_pid(), time.time(), port=40006))
    if IS_ROOT:
        os.chown(foreign, OTHER_UID, OTHER_UID)

    listed = dict(list_adverts(tmp_path))
    assert unrelated not in listed
    assert listed[garbage] is None and listed[live] is not None and listed[live].port == 40001
    assert (foreign in listed) is not IS_ROOT
    assert [p.name for p, _ in list_adverts(tmp_path)] == sorted(p.name for p in listed)

    removed = set(remove_stale(tmp_path))
    expected = {dead, reused, garbage} | (set() if IS_ROOT else {foreign})
    assert removed == expected
    assert live.exists() and unrelated.exists()
    assert foreign.exists() is IS_ROOT, "another user's advert is never touched"
    assert not any(p.exists() for p in (dead, reused, garbage))
    assert list_adverts(tmp_path / "missing") == []


def test_an_advert_that_cannot_be_read_for_now_is_not_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows refuses to open a file while its writer renames over it: such an advert is left for the next pass."""
    busy = advert_path(tmp_path, 40010)
    write_advert(busy, _advert(_dead_pid(), time.time(), port=40010))
    real_read = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self == busy:
            raise PermissionError(32, "The process cannot access the file because it is being used by another process")
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert remove_stale(tmp_path) == [] and busy.exists()
    monkeypatch.undo()
    assert remove_stale(tmp_path) == [busy] and not busy.exists()
