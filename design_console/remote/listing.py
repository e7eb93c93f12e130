"""Which tools the hosted service lists to a user: those whose needs (declared on each tool, see
:attr:`tools.base.ToolSpec.needs`) this user has now, and the ``notifications/tools/list_changed`` that tells the
user's open sessions when that changes.

Every signed-in user has the design API; the plugin's tools join once the user's paired plugin is connected, the
headless browser's once the server runs one. Nothing that needs files on the user's machine or designd's own state is
ever listed here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from design_console.remote.flights import Flights
from design_console.remote.store import Store, Subscription
from design_console.tools.base import Need, ToolSpec
from design_console.tools.wire.mcp import tool_definitions

log = logging.getLogger("design_console.remote.listing")

#: What the hosted service can ever give a user; a tool that needs anything else is not part of its catalog.
REMOTE_NEEDS: frozenset[Need] = frozenset({"api", "bridge", "browser"})
#: The store channel on which an instance tells every instance that a user's pairing changed.
CHANNEL = "pairing"
#: The open sessions remembered per user (the oldest beyond this is forgotten and hears of no further change).
SESSIONS_PER_USER = 32
#: How long one session's notification may take before that session is given up on.
NOTIFY_SECONDS = 2.0
#: The users whose pairing state an instance keeps in memory (the least recently asked beyond this is forgotten).
STATES_KEPT = 10_000


@dataclass(frozen=True, slots=True)
class UserState:
    """What a user of the hosted service has now, as far as the tools care."""

    #: The user's paired plugin is connected (to any instance).
    paired: bool = False
    #: This server runs a headless browser.
    browser: bool = False

    @property
    def available(self) -> frozenset[Need]:
        """The needs this state meets."""
        have: set[Need] = {"api"}
        if self.paired:
            have.add("bridge")
        if self.browser:
            have.add("browser")
        return frozenset(have)


#: Every state a user can be in (few enough to build each listing once).
STATES = tuple(UserState(paired, browser) for paired in (False, True) for browser in (False, True))


def listed_tools(tools: Mapping[str, ToolSpec], state: UserState) -> list[ToolSpec]:
    """The tools of ``tools`` that can work for a user in ``state``, in catalog order."""
    have = state.available
    return [spec for spec in tools.values() if spec.needs <= have]


def listings(tools: Mapping[str, ToolSpec]) -> dict[UserState, types.ListToolsResult]:
    """The ``tools/list`` answer for every user state, built once per catalog: each tool's definition is made once
    and shared by the listings of every state it is listed in (making them per state took most of a start)."""
    made = dict(zip(tools, tool_definitions(tools.values()), strict=True))
    return {
        state: types.ListToolsResult(tools=[made[spec.name] for spec in listed_tools(tools, state)]) for state in STATES
    }


class UserStates:
    """Each user's :class:`UserState` from memory: whether the paired plugin is connected is read from the store
    (the source of truth) on a miss or once ``max_age`` seconds old, and forgotten at once when any instance says the
    pairing changed (:class:`ListChanges` calls :meth:`forget`); the browser is asked each time (it is in-process)."""

    def __init__(
        self,
        paired: Callable[[str], Awaitable[bool]],
        browser: Callable[[], bool],
        max_age: float,
        size: int = STATES_KEPT,
    ) -> None:
        self._paired = paired
        self._browser = browser
        self._max_age = max_age
        self._size = size
        self._known: OrderedDict[str, tuple[bool, float]] = OrderedDict()
        self._reads: Flights[bool] = Flights()
        #: Counts forgets: a store read that a forget overtook is not kept (it may predate the change).
        self._forgets = 0

    async def __call__(self, subject: str) -> UserState:
        """What ``subject`` has now."""
        return UserState(paired=await self.paired(subject), browser=self._browser())

    async def paired(self, subject: str) -> bool:
        """Whether ``subject``'s paired plugin is connected, to any instance."""
        now = time.monotonic()
        known = self._known.get(subject)
        if known is not None and known[1] > now:
            self._known.move_to_end(subject)
            return known[0]
        return await self._reads.run(subject, lambda: self._read(subject, now))

    async def _read(self, subject: str, now: float) -> bool:
        forgets = self._forgets
        paired = await self._paired(subject)
        if forgets == self._forgets and self._max_age > 0:
            self._known[subject] = (paired, now + self._max_age)
            self._known.move_to_end(subject)
            while len(self._known) > self._size:
                self._known.popitem(last=False)
        return paired

    def forget(self, subject: str) -> None:
        """``subject``'s pairing changed: the next question goes to the store."""
        self._forgets += 1
        self._known.pop(subject, None)
        self._reads.forget(subject)


class UserListings:
    """The lean ``/mcp`` path's listing source: a user's listing depends on their :class:`UserState` alone, so one
    encoded answer serves every user in the same state."""

    def __init__(self, tools: Mapping[str, ToolSpec], state_of: Callable[[str], Awaitable[UserState]]) -> None:
        self._tools = tools
        self._state_of = state_of

    async def key(self, subject: str) -> Hashable:
        """The user's state now."""
        return await self._state_of(subject)

    def tools(self, key: Hashable) -> Iterable[ToolSpec]:
        """The tools listed to a user in state ``key``."""
        assert isinstance(key, UserState)
        return listed_tools(self._tools, key)


class ListChanges:
    """The open MCP sessions of each user, and the ``notifications/tools/list_changed`` they hear when the user's
    paired plugin connects or leaves. The change goes through the store's pub/sub, so with Redis a session hears of it
    whichever instance holds the plugin's socket."""

    def __init__(self, store: Store, forget: Callable[[str], None] | None = None) -> None:
        self._store = store
        #: Told of every change first, so that the sessions notified list from the store's state.
        self._forget = forget
        self._sessions: dict[str, OrderedDict[str, Any]] = {}
        self._subscription: Subscription | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def remember(self, subject: str, key: str, session: Any) -> None:
        """Note ``session`` (anything with ``send_tool_list_changed()``, e.g. the SDK's) as one of the open sessions
        of ``subject``; ``key`` names its connection (its transport session id)."""
        if not key:
            return
        sessions = self._sessions.setdefault(subject, OrderedDict())
        sessions[key] = session
        sessions.move_to_end(key)
        while len(sessions) > SESSIONS_PER_USER:
            sessions.popitem(last=False)

    def forget(self, subject: str, key: str) -> None:
        """Forget the session ``key`` of ``subject`` (its connection ended)."""
        sessions = self._sessions.get(subject)
        if sessions is not None:
            sessions.pop(key, None)
            if not sessions:
                self._sessions.pop(subject, None)

    async def changed(self, subject: str) -> None:
        """The tools ``subject`` can use changed (the pairing started or ended): tell the user's sessions, on every
        instance."""
        try:
            await self._store.publish(CHANNEL, subject.encode())
        except Exception:
            log.exception("publishing a pairing change failed; only this instance's sessions hear of it")
            if self._forget is not None:
                self._forget(subject)
            await self.notify(subject)

    async def notify(self, subject: str) -> None:
        """Send ``notifications/tools/list_changed`` to this instance's open sessions of ``subject``; a session that
        cannot take it is closed and forgotten."""
        sessions = self._sessions.get(subject)
        if not sessions:
            return
        for key, session in list(sessions.items()):
            try:
                async with asyncio.timeout(NOTIFY_SECONDS):
                    await session.send_tool_list_changed()
            except Exception:
                sessions.pop(key, None)
        if not sessions:
            self._sessions.pop(subject, None)

    async def start(self) -> None:
        """Hear the changes any instance publishes, this one's included."""
        self._subscription = await self._store.subscribe(CHANNEL, self._on_message)

    async def close(self) -> None:
        """Stop listening."""
        if self._subscription is not None:
            await self._subscription.close()
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _on_message(self, message: bytes) -> None:
        subject = message.decode()
        if self._forget is not None:
            self._forget(subject)
        task = asyncio.ensure_future(self.notify(subject))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def session_key(request: Any) -> str:
    """The transport session a request belongs to: Streamable HTTP's ``Mcp-Session-Id``, or SSE's ``session_id``."""
    if request is None:
        return ""
    return str(request.headers.get("mcp-session-id") or request.query_params.get("session_id") or "")
