"""Cache of design API responses, so that repeated reads do not spend the user's rate limit.

Two kinds of entry:

* **pinned**: responses that cannot change (a file at a pinned ``version``, rendered image URLs within their
  lifetime). Kept on disk under ``config.cache_dir`` and shared by every process of the user.
* **short**: everything else, in memory, tagged with the version of the file it came from. An entry is served only
  while that version is still the file's current one (the client rechecks it with a cheap request once the known
  version is older than :data:`VERSION_TTL`), and never after :data:`SHORT_TTL`.
"""

from __future__ import annotations

import hashlib
import os
import struct
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

#: How long a file's known version is trusted before it is checked again.
VERSION_TTL = 30.0
#: How long an entry whose file version is unknown (or that belongs to no file) is served.
UNVERSIONED_TTL = 30.0
#: The longest any short entry lives.
SHORT_TTL = 600.0
SHORT_MAX_BYTES = 384 * 1024 * 1024
PINNED_MAX_BYTES = 512 * 1024 * 1024

_HEADER = struct.Struct(">d")


def cache_key(method: str, path: str, query: dict[str, str]) -> str:
    """A stable key of one request (method, path and sorted query)."""
    parts = [method.upper(), path, *(f"{k}={query[k]}" for k in sorted(query))]
    return "\n".join(parts)


@dataclass(slots=True)
class _Short:
    data: bytes
    file_key: str
    version: str | None
    stored_at: float


@dataclass(slots=True)
class _Version:
    version: str
    checked_at: float


class ApiCache:
    """Pinned (disk) and short-lived (memory) response cache with hit/miss counters."""

    def __init__(self, root: Path) -> None:
        self._root = root / "pinned"
        self._short: OrderedDict[str, _Short] = OrderedDict()
        self._short_bytes = 0
        self._versions: dict[str, _Version] = {}
        self.hits = 0
        self.misses = 0
        self.bytes_saved = 0

    # Pinned entries -----------------------------------------------------------------------------------------------

    def _pinned_path(self, key: str) -> Path:
        return self._root / (hashlib.sha256(key.encode()).hexdigest() + ".bin")

    def get_pinned(self, key: str) -> bytes | None:
        """The stored body of a pinned request, or None when absent or past its lifetime."""
        path = self._pinned_path(key)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        if len(raw) < _HEADER.size:
            path.unlink(missing_ok=True)
            return None
        (expires_at,) = _HEADER.unpack_from(raw)
        if expires_at and expires_at < time.time():
            path.unlink(missing_ok=True)
            return None
        return self._hit(raw[_HEADER.size :])

    def put_pinned(self, key: str, data: bytes, *, lifetime: float | None = None) -> None:
        """Store a body that cannot change; ``lifetime`` (seconds) bounds it when the upstream URL expires."""
        self._root.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self._pinned_path(key)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        expires_at = time.time() + lifetime if lifetime else 0.0
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(_HEADER.pack(expires_at))
            out.write(data)
        os.replace(tmp, path)
        self._prune_pinned()

    def _prune_pinned(self) -> None:
        entries = []
        for entry in self._root.glob("*.bin"):
            try:
                stat = entry.stat()
            except OSError:
                continue
            entries.append((stat.st_mtime, stat.st_size, entry))
        total = sum(size for _, size, _ in entries)
        for _, size, entry in sorted(entries):
            if total <= PINNED_MAX_BYTES:
                break
            entry.unlink(missing_ok=True)
            total -= size

    # Short entries ------------------------------------------------------------------------------------------------

    def known_version(self, file_key: str) -> str | None:
        """The file's version as last seen, while it is recent enough to trust without asking again."""
        known = self._versions.get(file_key)
        if known is None or time.monotonic() - known.checked_at > VERSION_TTL:
            return None
        return known.version

    def note_version(self, file_key: str, version: str) -> None:
        """Record the file's current version; entries of any other version of that file are dropped."""
        self._versions[file_key] = _Version(version, time.monotonic())
        stale = [k for k, e in self._short.items() if e.file_key == file_key and e.version not in (None, version)]
        for key in stale:
            self._drop(key)

    def has_short(self, key: str) -> bool:
        """Whether a short entry exists for ``key`` (fresh or not): worth checking the file's version for."""
        return key in self._short

    def get_short(self, key: str, version: str | None) -> bytes | None:
        """The body of a short entry that is still valid for the file's current ``version`` (None: unknown)."""
        entry = self._short.get(key)
        if entry is None:
            return None
        age = time.monotonic() - entry.stored_at
        if age > SHORT_TTL:
            self._drop(key)
            return None
        if entry.version is not None and version is not None:
            fresh = entry.version == version
        else:
            fresh = age <= UNVERSIONED_TTL
        if not fresh:
            return None
        self._short.move_to_end(key)
        return self._hit(entry.data)

    def put_short(self, key: str, data: bytes, *, file_key: str, version: str | None) -> None:
        """Store a body that may change, tagged with the version of the file it belongs to."""
        if len(data) > SHORT_MAX_BYTES:
            return
        self._drop(key)
        self._short[key] = _Short(data, file_key, version, time.monotonic())
        self._short_bytes += len(data)
        while self._short_bytes > SHORT_MAX_BYTES and self._short:
            self._drop(next(iter(self._short)))

    def _drop(self, key: str) -> None:
        entry = self._short.pop(key, None)
        if entry is not None:
            self._short_bytes -= len(entry.data)

    def miss(self) -> None:
        """Count a request the cache could not answer."""
        self.misses += 1

    def _hit(self, data: bytes) -> bytes:
        self.hits += 1
        self.bytes_saved += len(data)
        return data
