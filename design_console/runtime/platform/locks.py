"""An exclusive, advisory-for-our-purposes lock on one file, dropped by the OS when its holder dies.

POSIX uses ``flock`` on the whole file. Windows locks are mandatory (a locked range cannot even be read), so the lock
there covers one byte far past any data: the holder's JSON at the start of the file stays readable. Windows frees a
dead holder's range "depending on available system resources", so callers that wait poll with a deadline.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

#: The byte Windows locks: past the end of any holder JSON, so the data stays readable to everyone.
LOCKED_OFFSET = 1 << 30
#: How often a waiter tries again.
POLL = 0.01

if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, LOCKED_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, LOCKED_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass

    def _wait_lock(fd: int) -> None:
        while not _try_lock(fd):
            time.sleep(POLL)

    _OPEN_FLAGS = os.O_RDWR | os.O_CREAT | os.O_BINARY | os.O_NOINHERIT
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

    def _wait_lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    _OPEN_FLAGS = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC


class FileLock:
    """One process's hold on the lock of ``path`` (created 0600 when missing)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def try_acquire(self) -> bool:
        """Take the lock if it is free, without waiting."""
        if self.fd is not None:
            return True
        fd = os.open(self.path, _OPEN_FLAGS, 0o600)
        if not _try_lock(fd):
            os.close(fd)
            return False
        self.fd = fd
        return True

    def acquire(self, timeout: float | None = None) -> bool:
        """Wait for the lock: forever when ``timeout`` is None, else up to ``timeout`` seconds (polled)."""
        if timeout is None:
            if self.fd is None:
                fd = os.open(self.path, _OPEN_FLAGS, 0o600)
                try:
                    _wait_lock(fd)
                except BaseException:
                    os.close(fd)
                    raise
                self.fd = fd
            return True
        deadline = time.monotonic() + timeout
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL)
        return True

    def write(self, data: bytes) -> None:
        """Replace the file's data (outside the locked byte) with ``data``; only the holder may."""
        if self.fd is None:
            return
        os.lseek(self.fd, 0, os.SEEK_SET)
        os.write(self.fd, data)
        os.ftruncate(self.fd, len(data))

    def release(self) -> None:
        """Unlock explicitly (Windows may take its time to notice a closed handle) and close."""
        if self.fd is not None:
            _unlock(self.fd)
            os.close(self.fd)
            self.fd = None


def lock_is_free(path: Path) -> bool:
    """Whether nobody holds the lock of ``path`` right now (probed by taking and dropping it)."""
    if not path.exists():
        return True
    probe = FileLock(path)
    try:
        if not probe.try_acquire():
            return False
    except FileNotFoundError:
        return True
    probe.release()
    return True


def wait_lock_free(path: Path, timeout: float) -> bool:
    """Whether the lock of ``path`` is (or becomes) free within ``timeout`` seconds: a dying holder takes a few ms
    to let go, more on Windows."""
    deadline = time.monotonic() + timeout
    while not lock_is_free(path):
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL)
    return True
