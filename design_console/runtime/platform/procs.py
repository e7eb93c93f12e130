"""Processes: starting designd detached, telling our processes from others', and ending a process tree.

Liveness and identity come from psutil on every OS, never from ``os.kill(pid, 0)`` (on Windows signal 0 is
CTRL_C_EVENT and any other number kills). A zombie counts as dead; a pid counts as the same process only while its
start time matches the recorded one.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import psutil

#: A recorded start time and the one psutil reports may differ by rounding; a reused pid differs by far more.
START_TIME_SLACK = 1.0


def alive(pid: int, start_time: float | None = None) -> bool:
    """Whether ``pid`` runs (a zombie does not) and, given ``start_time``, is still the process that started then."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        return start_time is None or abs(proc.create_time() - start_time) < START_TIME_SLACK
    except psutil.Error:
        return False


def start_time(pid: int) -> float:
    """The start time psutil reports for ``pid`` (0.0 when it does not exist)."""
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return 0.0


if sys.platform == "win32":
    _NO_WINDOW = subprocess.CREATE_NO_WINDOW | subprocess.CREATE_NEW_PROCESS_GROUP
    #: ERROR_ACCESS_DENIED: the caller's job forbids leaving it.
    _ACCESS_DENIED = 5

    @functools.cache
    def _me() -> str:
        return psutil.Process().username()

    def is_mine(proc: psutil.Process) -> bool:
        """Whether ``proc`` runs as this user (raises psutil.Error when it cannot be read)."""
        return proc.username() == _me()

    def own_processes(attrs: Sequence[str]) -> Iterator[psutil.Process]:
        """This user's processes with ``attrs`` prefetched into ``proc.info``."""
        me = _me()
        for proc in psutil.process_iter([*attrs, "username"]):
            if proc.info["username"] == me:
                yield proc

    def spawn_detached(argv: Sequence[str], env: Mapping[str, str], stderr_log: str) -> int:
        """Start ``argv`` with no console window, outside the caller's process group and, when its job lets it,
        outside the caller's job (an AI app's job kills its children with it). Returns the pid started."""
        flags = _NO_WINDOW | subprocess.CREATE_BREAKAWAY_FROM_JOB
        with open(stderr_log, "ab") as log:
            try:
                proc = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=dict(env),
                    creationflags=flags, close_fds=True,
                )  # fmt: skip
            except OSError as exc:
                if getattr(exc, "winerror", None) != _ACCESS_DENIED:
                    raise
                proc = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=dict(env),
                    creationflags=_NO_WINDOW, close_fds=True,
                )  # fmt: skip
        return proc.pid

    def group_kwargs() -> dict[str, Any]:
        """Arguments for ``create_subprocess_exec`` that start a child as the head of its own process tree."""
        return {"creationflags": _NO_WINDOW}

    def child_kwargs() -> dict[str, Any]:
        """Arguments for ``create_subprocess_exec`` of a console child (a worker) that must open no window."""
        return {"creationflags": subprocess.CREATE_NO_WINDOW}

    def kill_tree(pid: int) -> None:
        """End ``pid`` and every process it started, at once."""
        try:
            root = psutil.Process(pid)
            procs = [*root.children(recursive=True), root]
        except psutil.Error:
            return
        for proc in procs:
            try:
                proc.kill()
            except psutil.Error:
                continue

    def is_superuser() -> bool:
        """Root is a POSIX notion; an elevated Windows process keeps its user's name."""
        return False

    def in_job() -> bool | None:
        """Whether this process runs inside a job object (its children die with the job's owner unless they leave)."""
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        kernel32.GetCurrentProcess.restype = wintypes.HANDLE
        kernel32.IsProcessInJob.argtypes = [wintypes.HANDLE, wintypes.HANDLE, ctypes.POINTER(wintypes.BOOL)]
        kernel32.IsProcessInJob.restype = wintypes.BOOL
        result = wintypes.BOOL()
        if not kernel32.IsProcessInJob(kernel32.GetCurrentProcess(), None, ctypes.byref(result)):
            return None
        return bool(result.value)

else:
    import signal

    #: The short-lived intermediate: a POSIX shell (it starts in a millisecond, a Python would take tens) that
    #: starts the program in the background, prints its pid and exits. ``$1`` is the start-up log, the rest argv.
    _INTERMEDIATE = 'log="$1"; shift; "$@" </dev/null >/dev/null 2>>"$log" & echo $!'

    def is_mine(proc: psutil.Process) -> bool:
        """Whether ``proc`` runs as this user (raises psutil.Error when it cannot be read)."""
        return proc.uids().real == os.getuid()

    def own_processes(attrs: Sequence[str]) -> Iterator[psutil.Process]:
        """This user's processes with ``attrs`` prefetched into ``proc.info``."""
        uid = os.getuid()
        for proc in psutil.process_iter([*attrs, "uids"]):
            uids = proc.info["uids"]
            if uids is not None and uids.real == uid:
                yield proc

    def spawn_detached(argv: Sequence[str], env: Mapping[str, str], stderr_log: str) -> int:
        """Start ``argv`` in the background through a shell in a new session, which exits at once: the program is
        nobody's child (re-parented to init or the user's subreaper) and no terminal or process-group signal of
        the caller reaches it. Returns its pid."""
        out = subprocess.run(
            ["/bin/sh", "-c", _INTERMEDIATE, "sh", stderr_log, *argv],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=True,
            env=dict(env),
            timeout=30,
            start_new_session=True,
        )
        return int(out.stdout.strip())

    def group_kwargs() -> dict[str, Any]:
        """Arguments for ``create_subprocess_exec`` that start a child as the head of its own process group."""
        return {"start_new_session": True}

    def child_kwargs() -> dict[str, Any]:
        """Nothing to add for a child on POSIX."""
        return {}

    def kill_tree(pid: int) -> None:
        """End ``pid`` and every process it started (its session's group), at once."""
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return

    def in_job() -> bool | None:
        """Job objects are Windows'; None elsewhere."""
        return None

    def is_superuser() -> bool:
        """Whether this process runs as root."""
        return os.geteuid() == 0
