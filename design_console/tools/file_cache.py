"""What a tool built for a file (its manifest, its design-system report, the list a paged read cuts its pages from),
kept a while by file key, so that the calls of one conversation do not each pay for the build."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


class FileCache(Generic[T]):
    """Values by file key, each kept ``ttl`` seconds after it was put; one build at a time per file."""

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self._clock = clock
        self._entries: dict[str, tuple[float, T]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def get(self, key: str) -> T | None:
        """The file's value while it is fresh; a stale one is dropped."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if self._clock() - entry[0] >= self.ttl:
            del self._entries[key]
            return None
        return entry[1]

    def put(self, key: str, value: T) -> None:
        """Keep ``value`` for ``ttl`` seconds from now; values of other files past their time go now, so what a big
        read built is not held until that file is read again."""
        now = self._clock()
        for stale in [k for k, (at, _) in self._entries.items() if now - at >= self.ttl]:
            del self._entries[stale]
        self._entries[key] = (now, value)

    def lock(self, key: str) -> asyncio.Lock:
        """The lock that keeps two calls from building the same file's value at once."""
        return self._locks.setdefault(key, asyncio.Lock())

    def clear(self) -> None:
        """Forget every value."""
        self._entries.clear()
        self._locks.clear()


@dataclass(slots=True)
class _Built(Generic[T]):
    version: str
    request: str
    value: T


class ReadCache(Generic[T]):
    """What a paged read built for one request on a file at one data version: its later pages are cut from it, so a
    walk through every page reads and builds once instead of once a page (which grew with the square of its size)."""

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._built: FileCache[_Built[T]] = FileCache(ttl, clock)

    async def get(
        self, key: str, version: str | None, request: str, build: Callable[[], Awaitable[T]], *, refresh: bool = False
    ) -> T:
        """The value built for ``request`` on file ``key`` at ``version``: kept from an earlier call while fresh and
        of the same version and request, else built now (always with ``refresh``, or when the version is unknown)."""
        if version is None:
            return await build()
        async with self._built.lock(key):
            found = None if refresh else self._built.get(key)
            if found is not None and found.version == version and found.request == request:
                return found.value
            value = await build()
            self._built.put(key, _Built(version, request, value))
            return value

    def clear(self) -> None:
        """Forget every value."""
        self._built.clear()
