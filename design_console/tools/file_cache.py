"""What a tool built for a file (its manifest, its design-system report), kept a while by file key, so that the calls
of one conversation do not each pay for the build."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
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
        """Keep ``value`` for ``ttl`` seconds from now."""
        self._entries[key] = (self._clock(), value)

    def lock(self, key: str) -> asyncio.Lock:
        """The lock that keeps two calls from building the same file's value at once."""
        return self._locks.setdefault(key, asyncio.Lock())

    def clear(self) -> None:
        """Forget every value."""
        self._entries.clear()
        self._locks.clear()
