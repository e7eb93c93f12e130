"""Port advertisement files: ``<temp dir>/design-console-mcp-<port>.json``, one per running daemon.

They let designctl, doctor and the reaper find daemons and tell a live one from a stale file. A file is stale when
its pid is gone, is a zombie, or was reused (the process start time differs from the recorded one).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import msgspec
import psutil

from design_console.runtime.files import write_private

PREFIX = "design-console-mcp-"


class Advert(msgspec.Struct, kw_only=True, rename="camel"):
    """Contents of one advertisement file."""

    pid: int
    process_start_time: float
    port: int
    host: str
    version: str
    started_at: int
    last_seen: int
    runtime_dir: str = ""


def advert_path(temp_dir: Path, port: int) -> Path:
    return temp_dir / f"{PREFIX}{port}.json"


def process_start_time(pid: int) -> float:
    """The start time psutil reports for ``pid`` (0.0 when it does not exist)."""
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return 0.0


def write_advert(path: Path, advert: Advert) -> None:
    """Write or refresh an advert atomically with mode 0600."""
    write_private(path, msgspec.json.encode(advert))


def read_advert(path: Path) -> Advert | None:
    """Parse an advert; None when unreadable or malformed."""
    try:
        return msgspec.json.decode(path.read_bytes(), type=Advert)
    except (OSError, msgspec.DecodeError):
        return None


def is_live(advert: Advert) -> bool:
    """Whether the advertised process still runs and is the same process that wrote the file."""
    try:
        proc = psutil.Process(advert.pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        return abs(proc.create_time() - advert.process_start_time) < 1.0
    except psutil.Error:
        return False


def list_adverts(temp_dir: Path) -> list[tuple[Path, Advert | None]]:
    """Every advert file of the current user in ``temp_dir`` with its parsed contents."""
    found: list[tuple[Path, Advert | None]] = []
    try:
        entries = list(temp_dir.glob(f"{PREFIX}*.json"))
    except OSError:
        return found
    uid = os.getuid()
    for path in sorted(entries):
        try:
            if path.stat().st_uid != uid:
                continue
        except OSError:
            continue
        found.append((path, read_advert(path)))
    return found


def remove_stale(temp_dir: Path) -> list[Path]:
    """Delete this user's adverts whose process is gone or reused; returns what was removed."""
    removed = []
    for path, advert in list_adverts(temp_dir):
        if advert is None or not is_live(advert):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def now_ms() -> int:
    return int(time.time() * 1000)
