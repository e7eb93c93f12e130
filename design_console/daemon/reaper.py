"""The orphan reaper: stale advertisement files and our own stray processes, on start-up and every 5 minutes.

It only ever signals a process that is provably ours, by facts no command line can fake: same user, and either a
worker's environment marker naming this installation's runtime directory and a designd (pid and start time) that is
gone, or a designd whose live advert names this runtime directory and its exact start time. It never kills by a
name or argument match.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import psutil

from design_console.runtime.adverts import list_adverts, remove_stale
from design_console.runtime.launch import (
    DAEMON_MODULE,
    WORKER_MODULE,
    WORKER_OF_VAR,
    is_daemon_cmdline,
    parse_worker_of,
)
from design_console.runtime.platform.procs import alive, own_processes

log = logging.getLogger("design_console.reaper")

INTERVAL = 300.0
TERM_GRACE = 3.0
DAEMON_MARKER = DAEMON_MODULE
WORKER_MARKER = WORKER_MODULE


@dataclass(frozen=True)
class Stray:
    """A process the reaper will stop, and why."""

    pid: int
    why: str


def _worker_of(proc: psutil.Process) -> tuple[str, int, float] | None:
    """The marker designd put in a worker's environment, or None for any other process."""
    try:
        return parse_worker_of(proc.environ().get(WORKER_OF_VAR))
    except psutil.Error:
        return None


def find_strays(advert_dir: Path, runtime_dir: Path, self_pid: int | None = None) -> list[Stray]:
    """Our processes that should not be running: orphaned workers and superseded daemons of this installation.

    ``advert_dir`` is the user's advert folder; this installation's runtime dir is searched for adverts too.
    """
    self_pid = os.getpid() if self_pid is None else self_pid
    advertised = {
        advert.pid: advert
        for _, advert in list_adverts(advert_dir, runtime_dir)
        if advert is not None and advert.runtime_dir == str(runtime_dir)
    }
    strays: list[Stray] = []
    for proc in own_processes(["pid", "cmdline", "status", "create_time"]):
        info = proc.info
        if info["pid"] == self_pid:
            continue
        if info["status"] == psutil.STATUS_ZOMBIE:
            continue
        cmdline: list[str] = info["cmdline"] or []
        marker = _worker_of(proc) if WORKER_MODULE in cmdline else None
        if marker is not None:
            runtime, parent, parent_start = marker
            if runtime == str(runtime_dir) and not alive(parent, parent_start):
                strays.append(Stray(info["pid"], f"worker whose designd (pid {parent}) is gone"))
        elif is_daemon_cmdline(cmdline) and info["pid"] in advertised:
            advert = advertised[info["pid"]]
            if abs(advert.process_start_time - info["create_time"]) < 1.0:
                strays.append(Stray(info["pid"], f"superseded designd still advertising port {advert.port}"))
    return strays


def stop_processes(strays: list[Stray], grace: float = TERM_GRACE) -> list[int]:
    """Terminate each stray, then kill those still alive after ``grace`` seconds; returns the pids stopped.

    On POSIX that is SIGTERM then SIGKILL; Windows has no gentler rung than TerminateProcess, so both are one."""
    procs = []
    for stray in strays:
        try:
            proc = psutil.Process(stray.pid)
            log.warning("stopping pid %s: %s", stray.pid, stray.why)
            proc.terminate()
            procs.append(proc)
        except psutil.Error:
            continue
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        try:
            proc.kill()
        except psutil.Error:
            continue
    psutil.wait_procs(alive, timeout=grace)
    return [p.pid for p in procs]


def sweep(advert_dir: Path, runtime_dir: Path) -> dict[str, list[str]]:
    """One reaper pass; returns what it removed and stopped, for logs and ``designctl doctor``."""
    stopped = stop_processes(find_strays(advert_dir, runtime_dir))
    removed = remove_stale(advert_dir, runtime_dir)
    if stopped or removed:
        log.info("reaper: stopped %s, removed %s", stopped, [p.name for p in removed])
    return {"stopped": [str(pid) for pid in stopped], "removed": [str(p) for p in removed]}
