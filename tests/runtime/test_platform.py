"""The platform layer (design_console.runtime.platform): locks, processes, private files, limits and login items,
on real files and processes where this OS can run them, as pure functions where it cannot."""

from __future__ import annotations

import logging
import os
import plistlib
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import psutil
import pytest
from procs import wait_for

from design_console.config import load_config
from design_console.runtime.adverts import (
    Advert,
    AdvertFile,
    advert_folders,
    is_live,
    list_adverts,
    now_ms,
    process_start_time,
    user_folder,
)
from design_console.runtime.dirs import InstanceLock
from design_console.runtime.launch import DAEMON_MODULE
from design_console.runtime.platform import login, private, procs, system
from design_console.runtime.platform.locks import FileLock, lock_is_free, wait_lock_free
from design_console.runtime.platform.private import make_private_dir, private_dir_problem

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX facility")
#: A path as users have them: spaces and letters beyond ASCII.
AWKWARD = "Design Files/Zoë Müller 設計"
TASK_NS = {"t": "http://schemas.microsoft.com/windows/2004/02/mit/task"}


# --- locks ----------------------------------------------------------------------------------------------------


def test_a_lock_is_exclusive_and_free_once_released(tmp_path: Path) -> None:
    folder = tmp_path / AWKWARD
    folder.mkdir(parents=True)
    path = folder / "designd.lock"
    first, second = FileLock(path), FileLock(path)
    assert first.try_acquire()
    assert not second.try_acquire() and not lock_is_free(path)
    started = time.monotonic()
    assert not second.acquire(timeout=0.2)
    assert time.monotonic() - started >= 0.2
    first.release()
    assert lock_is_free(path) and second.acquire(timeout=1.0)
    second.release()


def test_a_waiter_gets_the_lock_when_a_holder_process_dies(tmp_path: Path) -> None:
    path = tmp_path / "designd.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom pathlib import Path\n"
         "from design_console.runtime.platform.locks import FileLock\n"
         "assert FileLock(Path(sys.argv[1])).try_acquire()\nprint('held', flush=True)\ntime.sleep(60)", str(path)],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        assert not wait_lock_free(path, 0.1)
        holder.kill()
        holder.wait(10)
        started = time.monotonic()
        assert wait_lock_free(path, 5.0)
        assert time.monotonic() - started < 1.0
    finally:
        holder.kill()
        holder.wait(10)


def test_the_holders_details_stay_readable_while_the_lock_is_held(tmp_path: Path) -> None:
    lock = InstanceLock(tmp_path / "designd.lock")
    assert lock.acquire({"pid": 123, "port": 9223, "version": "a long version string"})
    lock.update({"pid": 123})
    assert InstanceLock(lock.path).holder() == {"pid": 123}
    assert InstanceLock(lock.path).is_held()
    lock.release()
    assert not InstanceLock(lock.path).is_held()


# --- processes ------------------------------------------------------------------------------------------------


def test_alive_knows_the_dead_the_zombies_and_the_reused() -> None:
    me = os.getpid()
    assert procs.alive(me) and procs.alive(me, procs.start_time(me))
    assert not procs.alive(me, procs.start_time(me) - 100), "a pid whose start time differs was reused"
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    wait_for(lambda: not procs.alive(child.pid), 10, "the child to be a zombie or gone")
    assert psutil.pid_exists(child.pid) or sys.platform == "win32", "the unreaped child is a zombie, not gone"
    child.wait(10)
    assert not procs.alive(child.pid)


def test_own_processes_are_this_users() -> None:
    mine = {p.info["pid"] for p in procs.own_processes(["pid"])}
    assert os.getpid() in mine
    assert procs.is_mine(psutil.Process())


def test_spawn_detached_starts_a_process_that_is_nobodys_child(tmp_path: Path) -> None:
    folder = tmp_path / AWKWARD
    folder.mkdir(parents=True)
    log = folder / "start log.txt"
    script = "import sys, time; print('started', file=sys.stderr, flush=True); time.sleep(60)"
    pid = procs.spawn_detached([sys.executable, "-c", script], dict(os.environ), str(log))
    try:
        wait_for(lambda: log.exists() and "started" in log.read_text(), 20, "the detached process to write its log")
        proc = psutil.Process(pid)
        assert proc.ppid() != os.getpid(), "designd must not be the caller's child (it would be its zombie)"
        if sys.platform != "win32":
            assert os.getsid(pid) != os.getsid(0), "a new session: the caller's terminal signals never reach it"
    finally:
        psutil.Process(pid).kill()
        wait_for(lambda: not procs.alive(pid), 10, "the detached process to end")


async def test_kill_tree_ends_a_child_and_what_it_started() -> None:
    import asyncio

    script = "import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    script += "print('ready', flush=True)\ntime.sleep(60)"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, **procs.group_kwargs()
    )
    try:
        assert proc.stdout is not None and (await proc.stdout.readline()).strip() == b"ready"
        wait_for(lambda: psutil.Process(proc.pid).children(), 10, "the grandchild")
        family = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
        procs.kill_tree(proc.pid)
        await asyncio.wait_for(proc.wait(), 10)
        _, left = psutil.wait_procs(family, timeout=10)
        assert not [p for p in left if procs.alive(p.pid)]
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


# --- private folders and files --------------------------------------------------------------------------------


@POSIX
def test_a_private_dir_open_to_others_is_named_with_its_fix(tmp_path: Path) -> None:
    folder = tmp_path / AWKWARD
    make_private_dir(folder)
    assert private_dir_problem(folder) is None
    folder.chmod(0o755)
    problem = private_dir_problem(folder)
    assert problem is not None and "755" in problem[0] and f"chmod 700 {folder}" in problem[1]


@POSIX
def test_a_private_dir_owned_by_another_account_is_refused_by_owner_not_by_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on Windows, where a stat names no owner and the folder's owner SID is asked for by its path."""
    folder = tmp_path / AWKWARD
    make_private_dir(folder)
    monkeypatch.setattr(private, "current_user", lambda: "S-1-5-21-7-8-9-1001")
    monkeypatch.setattr(private, "path_owner", lambda path: "S-1-5-21-7-8-9-1002")
    problem = private_dir_problem(folder)
    assert problem is not None and "S-1-5-21-7-8-9-1002" in problem[0] and "S-1-5-21-7-8-9-1001" in problem[0]
    assert "DESIGN_RUNTIME_DIR" in problem[1]
    # The user, SYSTEM and Administrators may own it; an owner the OS cannot name (a FAT volume) guards nothing.
    for owner in ("S-1-5-21-7-8-9-1001", "S-1-5-18", "S-1-5-32-544", None):
        monkeypatch.setattr(private, "path_owner", lambda path, owner=owner: owner)
        assert private_dir_problem(folder) is None, owner


# --- limits ---------------------------------------------------------------------------------------------------


@POSIX
@pytest.mark.parametrize(
    ("limits", "refused_above", "expected"),
    [
        ((256, 4096), None, (256, 4096)),
        # macOS with an unlimited hard limit: 65536 is above kern.maxfilesperproc, OPEN_MAX is taken.
        ((256, -1), 10240, (256, 10240)),
        # A hard limit the OS will not grant either: the second try is min(OPEN_MAX, hard).
        ((256, 50000), 20000, (256, 10240)),
        ((100000, 100000), None, None),
    ],
)
def test_the_open_file_limit_is_raised_as_far_as_the_os_lets(
    monkeypatch: pytest.MonkeyPatch, limits: tuple[int, int], refused_above: int | None, expected: object
) -> None:
    import resource

    soft, hard = limits
    hard = resource.RLIM_INFINITY if hard == -1 else hard
    asked: list[int] = []

    def setrlimit(which: int, value: tuple[int, int]) -> None:
        asked.append(value[0])
        if refused_above is not None and value[0] > refused_above:
            raise ValueError("not allowed to raise maximum limit")

    monkeypatch.setattr(resource, "getrlimit", lambda which: (soft, hard))
    monkeypatch.setattr(resource, "setrlimit", setrlimit)
    assert system.raise_open_file_limit() == expected
    if refused_above is not None:
        assert len(asked) == 2


# --- adverts --------------------------------------------------------------------------------------------------


def _advert(port: int, runtime_dir: Path) -> Advert:
    pid = os.getpid()
    return Advert(
        pid=pid,
        process_start_time=process_start_time(pid),
        port=port,
        host="localhost",
        version="0",
        started_at=now_ms(),
        last_seen=now_ms(),
        runtime_dir=str(runtime_dir),
    )


def test_adverts_go_to_the_users_private_folder_of_the_temp_dir(tmp_path: Path) -> None:
    config = load_config({"HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp"),
                          "DESIGN_RUNTIME_DIR": str(tmp_path / "run")})  # fmt: skip
    (tmp_path / "tmp").mkdir()
    make_private_dir(config.runtime_dir)
    advert = AdvertFile(config, 41000)
    assert advert.path.parent == user_folder(config) and advert.write(_advert(41000, config.runtime_dir))
    assert private_dir_problem(advert.path.parent) is None
    found = list_adverts(*advert_folders(config))
    assert [(p, a is not None and is_live(a)) for p, a in found] == [(advert.path, True)]
    advert.remove()
    assert list_adverts(*advert_folders(config)) == []


@POSIX
def test_a_users_folder_made_unsafe_by_someone_else_sends_the_advert_to_the_runtime_dir(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = load_config({"HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp"),
                          "DESIGN_RUNTIME_DIR": str(tmp_path / "run")})  # fmt: skip
    squatted = user_folder(config)
    squatted.mkdir(parents=True)
    squatted.chmod(0o777)
    make_private_dir(config.runtime_dir)
    with caplog.at_level(logging.WARNING, "design_console.adverts"):
        advert = AdvertFile(config, 41001)
    assert advert.path.parent == config.runtime_dir
    assert "instead of" in caplog.text and "open to other users" in caplog.text
    assert advert.write(_advert(41001, config.runtime_dir))
    assert [p for p, _ in list_adverts(*advert_folders(config))] == [advert.path]


def test_an_advert_that_cannot_be_written_is_a_warning_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    config = load_config({"HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp"),
                          "DESIGN_RUNTIME_DIR": str(tmp_path / "run")})  # fmt: skip
    (tmp_path / "tmp").mkdir()
    advert = AdvertFile(config, 41002)
    folder = advert.path.parent
    folder.rmdir()
    folder.write_text("not a folder")
    with caplog.at_level(logging.WARNING, "design_console.adverts"):
        assert not advert.write(_advert(41002, config.runtime_dir))
        assert not advert.write(_advert(41002, config.runtime_dir))
    warnings = [r for r in caplog.records if "could not write the port advert" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING


# --- start at login -------------------------------------------------------------------------------------------


def test_the_launchd_agent_runs_designd_at_login_and_after_failures(tmp_path: Path) -> None:
    designd = f"/Users/zoë/{AWKWARD}/.venv/bin/designd"
    plan = login.launchd_plan(designd, tmp_path / "home", tmp_path / "logs", 501)
    plist = plistlib.loads(plan.content)
    assert plist["Label"] == login.SERVICE_LABEL
    assert plist["ProgramArguments"] == [designd, "--foreground"]
    assert plist["RunAtLoad"] is True and plist["KeepAlive"] == {"SuccessfulExit": False}
    assert plist["StandardErrorPath"] == str(tmp_path / "logs" / "designd.stderr.log")
    assert plist["SoftResourceLimits"] == {"NumberOfFiles": 10240}
    assert plan.path == tmp_path / "home" / "Library" / "LaunchAgents" / f"{login.SERVICE_LABEL}.plist"
    assert plan.enable[-1] == ("launchctl", "bootstrap", "gui/501", str(plan.path))
    assert plan.disable == (("launchctl", "bootout", f"gui/501/{login.SERVICE_LABEL}"),)
    assert plan.query == ("launchctl", "print", f"gui/501/{login.SERVICE_LABEL}") and plan.fallback is None
    assert not any("load" in cmd for cmd in (*plan.enable, *plan.disable)), "load/unload -w are legacy"


def test_the_scheduled_task_starts_designd_at_this_users_logon_without_admin(tmp_path: Path) -> None:
    python = tmp_path / AWKWARD / ".venv" / "Scripts" / "python.exe"
    python.parent.mkdir(parents=True)
    python.with_name("pythonw.exe").write_bytes(b"")
    plan = login.task_plan(python, tmp_path / "home", "DESKTOP-1\\Zoë Müller")
    assert plan.content.startswith(b"\xff\xfe"), "schtasks reads the XML as UTF-16 with a byte order mark"
    task = ET.fromstring(plan.content.decode("utf-16").split("?>", 1)[1])
    text = {path: task.findtext(path, namespaces=TASK_NS) for path in (
        "t:Triggers/t:LogonTrigger/t:UserId", "t:Principals/t:Principal/t:UserId",
        "t:Principals/t:Principal/t:LogonType", "t:Principals/t:Principal/t:RunLevel",
        "t:Settings/t:ExecutionTimeLimit", "t:Settings/t:DisallowStartIfOnBatteries",
        "t:Settings/t:StopIfGoingOnBatteries", "t:Settings/t:MultipleInstancesPolicy",
        "t:Settings/t:RestartOnFailure/t:Count", "t:Actions/t:Exec/t:Command", "t:Actions/t:Exec/t:Arguments",
    )}  # fmt: skip
    assert text == {
        "t:Triggers/t:LogonTrigger/t:UserId": "DESKTOP-1\\Zoë Müller",
        "t:Principals/t:Principal/t:UserId": "DESKTOP-1\\Zoë Müller",
        "t:Principals/t:Principal/t:LogonType": "InteractiveToken",
        "t:Principals/t:Principal/t:RunLevel": "LeastPrivilege",
        "t:Settings/t:ExecutionTimeLimit": "PT0S",
        "t:Settings/t:DisallowStartIfOnBatteries": "false",
        "t:Settings/t:StopIfGoingOnBatteries": "false",
        "t:Settings/t:MultipleInstancesPolicy": "IgnoreNew",
        "t:Settings/t:RestartOnFailure/t:Count": "3",
        "t:Actions/t:Exec/t:Command": f'"{python.with_name("pythonw.exe")}"',
        "t:Actions/t:Exec/t:Arguments": f"-P -m {DAEMON_MODULE} --foreground",
    }
    assert plan.path == tmp_path / "home" / "designd-task.xml"
    assert plan.enable == (("schtasks", "/Create", "/TN", login.TASK_NAME, "/XML", str(plan.path), "/F"),)
    assert plan.disable == (("schtasks", "/Delete", "/TN", login.TASK_NAME, "/F"),)
    assert plan.query == ("schtasks", "/Query", "/TN", login.TASK_NAME)
    # The Run key value runs what the task runs, quoted for the spaces in the path.
    assert plan.fallback == login.RunKeyEntry(
        login.TASK_NAME, f'"{python.with_name("pythonw.exe")}" -P -m {DAEMON_MODULE} --foreground'
    )


@pytest.mark.skipif(sys.platform == "win32", reason="Windows' select takes sockets only: its stdin goes to a thread")
def test_pipes_and_sockets_are_polled_directly_files_are_not(tmp_path: Path) -> None:
    from design_console.runtime.platform.stdio import stdin_pollable

    read_end, write_end = os.pipe()
    left, right = socket.socketpair()
    plain = tmp_path / "requests.jsonl"
    plain.write_bytes(b"{}\n")
    with plain.open("rb") as file:
        try:
            assert stdin_pollable(read_end) and stdin_pollable(left.fileno())
            assert not stdin_pollable(file.fileno())
            os.close(write_end)
            os.close(read_end)
            assert not stdin_pollable(read_end), "a closed descriptor is not polled"
        finally:
            left.close()
            right.close()


@pytest.mark.skipif(sys.platform == "win32", reason="Windows' select takes sockets only: its stdin goes to a thread")
def test_a_hang_up_is_seen_without_reading_even_with_data_left() -> None:
    from design_console.runtime.platform.stdio import hung_up, readable

    read_end, write_end = os.pipe()
    try:
        assert not readable(read_end) and not hung_up(read_end)
        os.write(write_end, b'{"id": 1}\n')
        assert readable(read_end) and not hung_up(read_end)
        os.close(write_end)
        assert hung_up(read_end), "the writer is gone though a line is still unread"
        assert os.read(read_end, 100) == b'{"id": 1}\n'
        assert readable(read_end) and os.read(read_end, 100) == b""
    finally:
        os.close(read_end)
    left, right = socket.socketpair()
    try:
        assert not hung_up(left.fileno())
        right.close()
        assert hung_up(left.fileno()), "a socket pair's peer closing is a hang-up too (libuv's stdio)"
    finally:
        left.close()
