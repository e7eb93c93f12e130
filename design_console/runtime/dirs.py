"""The private runtime directory and the single-instance lock.

The control socket and the lock live in a 0700 directory owned by the user. A second bind to the same ipc path
would silently steal the endpoint, so single instance is guaranteed by ``flock`` on the lock file, never by the bind.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
from pathlib import Path
from typing import Any

from design_console.errors import DesignError, ErrorCode


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` with mode 0700, or check that an existing one is ours and closed to others.

    Raises DesignError(ErrorCode.UNSAFE_RUNTIME_DIR) naming the problem and the fix.
    """
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        raise DesignError(
            ErrorCode.UNSAFE_RUNTIME_DIR, f"{path} exists and is not a directory.", f"Remove it: rm {path}"
        ) from None
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise DesignError(
            ErrorCode.UNSAFE_RUNTIME_DIR, f"{path} is not a directory.", f"Remove it and start again: rm {path}"
        )
    if info.st_uid != os.getuid():
        raise DesignError(
            ErrorCode.UNSAFE_RUNTIME_DIR,
            f"{path} belongs to uid {info.st_uid}, not to you (uid {os.getuid()}).",
            "Set DESIGN_RUNTIME_DIR to a directory of your own.",
        )
    if info.st_mode & 0o077:
        raise DesignError(
            ErrorCode.UNSAFE_RUNTIME_DIR,
            f"{path} is open to other users (mode {stat.S_IMODE(info.st_mode):o}).",
            f"Fix it with: chmod 700 {path}",
        )


class InstanceLock:
    """An exclusive ``flock`` held for the daemon's lifetime; the file names the holder for error messages."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, info: dict[str, Any]) -> bool:
        """Take the lock without waiting; on success write ``info`` (pid, port…) into the file."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        self.update(info)
        return True

    def update(self, info: dict[str, Any]) -> None:
        """Rewrite the holder's details (the port is only known after the bridge binds)."""
        if self._fd is None:
            return
        data = json.dumps(info).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def holder(self) -> dict[str, Any]:
        """What the current holder wrote, or {} when unreadable."""
        try:
            held = json.loads(self.path.read_text() or "{}")
            return held if isinstance(held, dict) else {}
        except (OSError, ValueError):
            return {}

    def is_held(self) -> bool:
        """Whether some process holds the lock right now (probed without keeping it)."""
        if self._fd is not None:
            return True
        try:
            fd = os.open(self.path, os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
