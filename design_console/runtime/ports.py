"""Who holds the bridge ports: what designd says when it cannot listen, and what ``designctl doctor`` reports.

A holder is *ours* (a designd of this user) by facts, never by words its command line may contain (an install path
can contain "designd" or "design-console-mcp" too): it runs as this user and it holds this installation's instance
lock, has a live port advert, or runs designd's entry point.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import psutil

from design_console.config import Config
from design_console.errors import DesignError, ErrorCode
from design_console.runtime.adverts import advert_folders, is_live, list_adverts
from design_console.runtime.dirs import InstanceLock
from design_console.runtime.launch import is_daemon_cmdline
from design_console.runtime.platform.procs import is_mine

log = logging.getLogger("design_console.ports")

#: Longest command line shown for a holder; the pid and whether it is ours are never shortened.
COMMAND_WIDTH = 120
#: With every port of the range taken, designd's bridge tries again after this long, twice as long after each
#: failure ...
LISTEN_RETRY_FIRST_SECONDS = 1.0
#: ... up to this: a port that the other program frees is taken within this long, without a restart of designd.
LISTEN_RETRY_MAX_SECONDS = 30.0


@dataclass(frozen=True)
class Holder:
    """One process listening on a bridge port, as far as this user can see it."""

    pid: int | None
    command: str = ""
    user: str = ""
    ours: bool = False
    visible: bool = True

    def describe(self) -> str:
        """``pid 123 (command), ours: a designd of this user`` or ``…, not ours (user bob)``."""
        if self.pid is None:
            return "a process this user cannot see (another user's)"
        if not self.visible:
            return f"pid {self.pid} (details not visible)"
        owner = "ours: a designd of this user" if self.ours else f"not ours (user {self.user})"
        return f"pid {self.pid} ({self.command}), {owner}"


def shorten(argv: list[str], width: int = COMMAND_WIDTH) -> str:
    """A command line on one line, at most ``width`` characters: its start and its end, the middle elided."""
    text = " ".join(" ".join(argv).split())
    if len(text) <= width:
        return text
    head = (width - 3) // 2
    return f"{text[:head]}...{text[len(text) - (width - 3 - head) :]}"


def known_daemons(config: Config) -> set[int]:
    """Pids of this user's designd processes that said so: live port adverts and this installation's lock holder."""
    pids = {advert.pid for _, advert in list_adverts(*advert_folders(config)) if advert is not None and is_live(advert)}
    lock = InstanceLock(config.lock_file)
    try:
        holder = lock.holder().get("pid") if lock.is_held() else None
    except OSError:
        holder = None
    if isinstance(holder, int):
        pids.add(holder)
    return pids


def describe_pid(pid: int | None, known: set[int]) -> Holder:
    """What this user can learn about ``pid``; ``known`` are pids that are designd by their own account."""
    if pid is None:
        return Holder(pid=None)
    try:
        proc = psutil.Process(pid)
        argv = proc.cmdline() or [proc.name()]
        user = proc.username()
        mine = is_mine(proc)
    except (psutil.Error, OSError):
        return Holder(pid=pid, visible=False)
    ours = mine and (pid in known or is_daemon_cmdline(argv))
    return Holder(pid=pid, command=shorten(argv), user=user, ours=ours)


def port_holders(config: Config) -> dict[int, list[Holder]]:
    """The listeners on each busy port of the bridge range (a port nobody listens on is absent)."""
    try:
        conns = psutil.net_connections(kind="tcp")
    except (psutil.Error, OSError) as exc:
        log.info("cannot list listening sockets: %s", exc)
        return {}
    pids: dict[int, set[int | None]] = {}
    for conn in conns:
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port in config.ports:
            pids.setdefault(conn.laddr.port, set()).add(conn.pid)
    known = known_daemons(config) if pids else set()
    described: dict[int | None, Holder] = {}
    holders: dict[int, list[Holder]] = {}
    for port in sorted(pids):
        for pid in sorted(pids[port], key=lambda p: p or 0):
            if pid not in described:
                described[pid] = describe_pid(pid, known)
            holders.setdefault(port, []).append(described[pid])
    return holders


def port_runs(ports: list[int]) -> str:
    """Ports as runs: ``9223-9225, 9230``."""
    runs: list[list[int]] = []
    for port in ports:
        if runs and port == runs[-1][-1] + 1:
            runs[-1].append(port)
        else:
            runs.append([port])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)


def ports_busy_error(config: Config) -> DesignError:
    """What designd says while every bridge port is taken: each holder with its ports; nothing is stopped."""
    ports = config.ports
    holders = port_holders(config)
    by_holder: dict[str, list[int]] = {}
    for port in ports:
        texts = [holder.describe() for holder in holders.get(port, [])] or ["a process this user cannot see"]
        for text in texts:
            by_holder.setdefault(text, []).append(port)
    lines = [f"{port_runs(held)}: {holder}" for holder, held in by_holder.items()]
    return DesignError(
        ErrorCode.PORTS_BUSY,
        f"All bridge ports {ports.start}-{ports.stop - 1} are in use, so designd cannot listen. "
        + "; ".join(lines)
        + ". Nothing was stopped.",
        "Stop stale designd processes of ours with `designctl stop` (or end them by pid) or close the other programs: "
        f"designd listens as soon as a port is free (it tries again at least every {LISTEN_RETRY_MAX_SECONDS:g} s). "
        "Or set DESIGN_WS_PORT to the first of ten free ports where designd gets its "
        "environment (the AI app's config, or the service unit), run `designctl restart`, and re-import the plugin "
        f"from {config.plugin_dir / 'manifest.json'}: designd writes the new range into that copy.",
    )
