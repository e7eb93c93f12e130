"""Port advertisement files: ``design-console-mcp-<port>.json``, one per running daemon.

They let designctl, doctor and the reaper find every daemon of this user (one per installation) and tell a live one
from a stale file. A file is stale when its pid is gone, is a zombie, or was reused (the process start time differs
from the recorded one).

They live in this user's own folder of the temp dir, ``<temp dir>/design-console-mcp-<uid>`` (0700, checked to be
ours; on Windows ``%USERPROFILE%\\.design-console-mcp\\adverts``, out of reach of MSIX redirection), never at a
guessable name in the shared temp dir itself, where another user could create the names first and make every rename
fail. When that folder is unusable (another user made it), a designd advertises in its private runtime dir instead
and says so in its log: an advert that cannot be written is a warning, never a failed start.
Readers look in both places.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import msgspec

from design_console.config import Config
from design_console.runtime.files import write_private
from design_console.runtime.platform.private import advert_folder, make_private_dir, owned_by_me, private_dir_problem
from design_console.runtime.platform.procs import alive, start_time

log = logging.getLogger("design_console.adverts")

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


def advert_path(folder: Path, port: int) -> Path:
    return folder / f"{PREFIX}{port}.json"


def process_start_time(pid: int) -> float:
    """The start time psutil reports for ``pid`` (0.0 when it does not exist)."""
    return start_time(pid)


def user_folder(config: Config) -> Path:
    """This user's advert folder, the place every installation of the user looks first."""
    return advert_folder(config.temp_dir, config.user_home)


def advert_folders(config: Config) -> tuple[Path, Path]:
    """Where adverts of this user may be: the user's folder of the temp dir, then this installation's runtime dir."""
    return user_folder(config), config.runtime_dir


def _usable(folder: Path) -> str | None:
    """Why ``folder`` cannot hold our adverts, or None when it is (or has just been made) ours and private."""
    try:
        make_private_dir(folder)
        problem = private_dir_problem(folder)
    except OSError as exc:
        return str(exc)
    return None if problem is None else problem[0]


def folder_problem(config: Config) -> str | None:
    """Why this user's advert folder of the temp dir is unusable (someone else made it), or None; never creates it."""
    folder = user_folder(config)
    try:
        problem = private_dir_problem(folder)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return str(exc)
    return None if problem is None else problem[0]


class AdvertFile:
    """The advert of one running designd: written where it can be, refreshed, removed at exit; never fatal."""

    def __init__(self, config: Config, port: int) -> None:
        shared, own = advert_folders(config)
        problem = _usable(shared)
        if problem is not None:
            log.warning("port advert goes to the runtime dir %s instead of %s: %s", own, shared, problem)
        self.path = advert_path(own if problem is not None else shared, port)
        self._warned = False

    def write(self, advert: Advert) -> bool:
        """Write or refresh the advert; a failure is logged once as a warning and reported as False."""
        try:
            write_advert(self.path, advert)
        except OSError as exc:
            if not self._warned:
                log.warning("could not write the port advert %s: %s; designctl may not list designd", self.path, exc)
                self._warned = True
            return False
        self._warned = False
        return True

    def remove(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not remove the port advert %s: %s", self.path, exc)


def write_advert(path: Path, advert: Advert) -> None:
    """Write or refresh an advert atomically with mode 0600."""
    write_private(path, msgspec.json.encode(advert))


def read_advert(path: Path) -> Advert | None:
    """Parse an advert; None when unreadable or malformed."""
    try:
        return _decode(path.read_bytes())
    except OSError:
        return None


def _decode(data: bytes) -> Advert | None:
    try:
        return msgspec.json.decode(data, type=Advert)
    except msgspec.DecodeError:
        return None


def is_live(advert: Advert) -> bool:
    """Whether the advertised process still runs and is the same process that wrote the file."""
    return alive(advert.pid, advert.process_start_time)


def list_adverts(*folders: Path) -> list[tuple[Path, Advert | None]]:
    """Every advert file of the current user in ``folders`` with its parsed contents (a folder or file of another
    user is passed over)."""
    found: list[tuple[Path, Advert | None]] = []
    for folder in dict.fromkeys(folders):
        try:
            if not owned_by_me(folder.lstat()):
                continue
            entries = list(folder.glob(f"{PREFIX}*.json"))
        except OSError:
            continue
        for path in sorted(entries):
            try:
                if not owned_by_me(path.lstat()):
                    continue
                data = path.read_bytes()
            except OSError:
                # Gone, or held open by its writer for a moment (Windows): not judged, so never removed, this pass.
                continue
            found.append((path, _decode(data)))
    return found


def remove_stale(*folders: Path) -> list[Path]:
    """Delete this user's adverts whose process is gone or reused; returns what was removed."""
    removed = []
    for path, advert in list_adverts(*folders):
        if advert is None or not is_live(advert):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def now_ms() -> int:
    return int(time.time() * 1000)
