"""The private runtime directory and the single-instance lock.

The control endpoint and the lock live in a directory private to the user. A second bind to the same endpoint could
silently steal it, so single instance is guaranteed by the lock file (``runtime/platform/locks.py``), never by the
bind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from design_console.errors import DesignError, ErrorCode
from design_console.runtime.platform.locks import FileLock, lock_is_free, wait_lock_free
from design_console.runtime.platform.private import make_private_dir, private_dir_problem

#: How long a designd waits for the lock before it counts as held: longer than any probe holds it.
PROBE_GRACE = 0.1


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` private to this user, or check that an existing one is ours and closed to others.

    Raises DesignError(ErrorCode.UNSAFE_RUNTIME_DIR) naming the problem and the fix.
    """
    try:
        make_private_dir(path)
    except FileExistsError:
        raise DesignError(
            ErrorCode.UNSAFE_RUNTIME_DIR, f"{path} exists and is not a directory.", f"Remove it: rm {path}"
        ) from None
    problem = private_dir_problem(path)
    if problem is not None:
        raise DesignError(ErrorCode.UNSAFE_RUNTIME_DIR, *problem)


class InstanceLock:
    """An exclusive lock held for the daemon's lifetime; the file names the holder for error messages."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = FileLock(path)

    def acquire(self, info: dict[str, Any]) -> bool:
        """Take the lock unless another process holds it; on success write ``info`` (pid, port…) into the file.

        A starter probing the lock holds it for a moment; that moment is waited out, a holder is not.
        """
        if not self._lock.acquire(timeout=PROBE_GRACE):
            return False
        self.update(info)
        return True

    def update(self, info: dict[str, Any]) -> None:
        """Rewrite the holder's details (the port is only known after the bridge binds)."""
        self._lock.write(json.dumps(info).encode())

    def holder(self) -> dict[str, Any]:
        """What the current holder wrote, or {} when unreadable."""
        try:
            held = json.loads(self.path.read_text() or "{}")
            return held if isinstance(held, dict) else {}
        except (OSError, ValueError):
            return {}

    def is_held(self) -> bool:
        """Whether some process holds the lock right now (probed without keeping it)."""
        return self._lock.fd is not None or not lock_is_free(self.path)

    def wait_free(self, timeout: float) -> bool:
        """Whether the lock is free or is let go within ``timeout`` seconds (a designd that is exiting)."""
        return self._lock.fd is None and wait_lock_free(self.path, timeout)

    def release(self) -> None:
        self._lock.release()
