"""One store read at a time per key: the calls that want the same thing meanwhile wait for that read.

What an instance keeps in memory ages out while a busy user's requests keep coming; without this, every request in
flight at that moment would read the store at once, each queueing behind the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Flights(Generic[T]):
    """Reads under way by key, shared by every caller that asks for the same key meanwhile."""

    def __init__(self) -> None:
        self._under_way: dict[str, asyncio.Future[T]] = {}

    async def run(self, key: str, read: Callable[[], Awaitable[T]]) -> T:
        """The result of ``read()``, or of the read of ``key`` already under way. A caller cancelled while waiting
        does not cancel the read the others wait for."""
        flight = self._under_way.get(key)
        if flight is None:
            flight = self._under_way[key] = asyncio.ensure_future(read())
            flight.add_done_callback(lambda done: self._landed(key, done))
        return await asyncio.shield(flight)

    def forget(self, key: str) -> None:
        """What ``key`` names changed: a read under way may predate it, so the next caller starts one of its own."""
        self._under_way.pop(key, None)

    def _landed(self, key: str, done: asyncio.Future[T]) -> None:
        if self._under_way.get(key) is done:
            del self._under_way[key]
        if not done.cancelled():
            done.exception()  # retrieved, so an error nobody waits for any more is not logged as never retrieved
