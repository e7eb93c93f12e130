"""Turns at a scarce resource of the hosted service (its headless browsers), shared fairly between users.

At most ``slots`` calls run at once and at most ``per_user`` of one user's calls are running or waiting; at most
``queue`` calls wait. A call beyond those limits is refused at once with an estimate of when to try again, instead
of waiting behind another user's work for minutes.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from design_console.errors import DesignError, ErrorCode

Progress = Callable[[float, float | None, str], Awaitable[None]]
#: How much the newest call's duration weighs in the running average the wait estimate uses.
AVERAGE_WEIGHT = 0.2


class Admission:
    """Turns for ``slots`` parallel runs of one kind of work (``singular``/``plural`` name its units in messages)."""

    def __init__(
        self,
        singular: str,
        plural: str,
        *,
        slots: int,
        per_user: int,
        queue: int,
        typical_seconds: float,
        wait_limit: float,
    ) -> None:
        self.singular = singular
        self.plural = plural
        self.slots = slots
        self.per_user = per_user
        self.queue = queue
        self.wait_limit = wait_limit
        self._free = asyncio.Semaphore(slots)
        self._users: dict[str, int] = {}
        self._average = typical_seconds
        #: Calls waiting for a slot now.
        self.waiting = 0

    def retry_after(self) -> int:
        """Seconds until a call refused now would likely be taken: the queue ahead of it, run ``slots`` at a time."""
        return max(1, math.ceil(self._average * (self.waiting + 1) / self.slots))

    def _busy(self, why: str) -> DesignError:
        wait = self.retry_after()
        return DesignError(ErrorCode.RATE_LIMITED, f"Busy: {why}; try again in {wait} s.", f"Call again in {wait} s.")

    @contextlib.asynccontextmanager
    async def turn(self, user: str, progress: Progress | None = None) -> AsyncIterator[int]:
        """Hold a slot for ``user``'s call; yields how long it waited (ms, 0 when it did not), or raises DesignError
        (``rate_limited``) at once when the user or the queue is at its limit, (``timeout``) after ``wait_limit``."""
        if self._users.get(user, 0) >= self.per_user:
            raise self._busy(f"you already have {self.per_user} {self.plural} call(s) running or waiting")
        if self._free.locked() and self.waiting >= self.queue:
            raise self._busy(f"all {self.slots} {self.plural} are in use and {self.waiting} call(s) are waiting")
        self._users[user] = self._users.get(user, 0) + 1
        started = time.monotonic()
        try:
            queued = self._free.locked()
            if queued:
                await self._wait(progress)
            else:
                await self._free.acquire()
            running = time.monotonic()
            try:
                yield max(1, round((running - started) * 1000)) if queued else 0
            finally:
                self._free.release()
                took = time.monotonic() - running
                self._average += AVERAGE_WEIGHT * (took - self._average)
        finally:
            self._users[user] -= 1
            if not self._users[user]:
                del self._users[user]

    async def _wait(self, progress: Progress | None) -> None:
        self.waiting += 1
        try:
            if progress is not None:
                await progress(
                    0,
                    None,
                    f"All {self.slots} {self.plural} are busy; waiting for a free one ({self.waiting} call(s) "
                    f"waiting, at most {self.wait_limit:g} s).",
                )
            async with asyncio.timeout(self.wait_limit):
                await self._free.acquire()
        except TimeoutError:
            raise DesignError(
                ErrorCode.TIMEOUT,
                f"All {self.slots} {self.plural} stayed busy for {self.wait_limit:g} s.",
                "Try again in a minute.",
            ) from None
        finally:
            self.waiting -= 1
        if progress is not None:
            await progress(0, None, f"A {self.singular} is free; running.")
