"""One client for commands to the Desktop Bridge plugin, whatever carries them.

designd's bridge (a plugin socket on this machine) and Remote Mode's relay (a plugin socket on this instance, or one
on another instance reached through the store's pub/sub) both send a command, match its reply by id, hold it to the
method's deadline from the plugin contract, cancel it when that passes or the caller gives up, and pass its progress
on in order. :class:`PluginLink` does all of that once; a host only says, as a :class:`Peer`, how a frame reaches the
plugin. Every host's errors for these situations come from here, so they read the same everywhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, TypedDict, Unpack

import msgspec

from design_console.bridge_frames import Frame, PluginFailure, UnusableReply, reply_result
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import Method, command_timeout

log = logging.getLogger("design_console.plugin_link")

ProgressFn = Callable[[float, float | None, str], Awaitable[None]]


class SendOptions(TypedDict, total=False):
    """How :meth:`PluginLink.call` sends a command, passed on to :meth:`PluginLink.exchange` whole."""

    timeout: float
    progress: ProgressFn | None
    cid: str
    params_json: bytes


#: How many ids of abandoned commands and of CANCELs are remembered, to tell a late reply from one to an id never sent.
REMEMBERED_IDS = 4096
#: The longest progress message passed on.
PROGRESS_CHARS = 200


class Command(msgspec.Struct):
    """A command frame as it goes to the plugin; params may come encoded already (:class:`msgspec.Raw`)."""

    id: str
    method: str
    params: dict[str, Any] | msgspec.Raw


_encoder = msgspec.json.Encoder()


class Peer(Protocol):
    """Whatever carries frames to one plugin: a socket of this process, or another instance holding the socket."""

    @property
    def label(self) -> str:
        """How errors name the plugin's file, e.g. ``'Landing page' (abc123)``."""
        ...

    async def send(self, frame: bytes, method: str) -> None:
        """Deliver one encoded command frame of ``method`` (waiting for the plugin to come back if the peer allows it).

        Raises DesignError when the frame cannot go out; :class:`PluginLink` passes it on as is."""
        ...

    async def cancel(self, frame: bytes) -> bool:
        """Deliver a CANCEL frame now if the peer can; False when it cannot (the plugin is gone)."""
        ...

    def unsent(self, method: str, wait: float) -> DesignError:
        """The deadline passed before :meth:`send` finished: drop what stopped reading and say why."""
        ...


class ReplyOutcome(Enum):
    """What became of a reply handed to :meth:`PluginLink.resolve`."""

    ACCEPTED = "accepted"
    CANCEL_ACK = "cancel_ack"
    LATE = "late"
    UNKNOWN = "unknown"
    WRONG_PEER = "wrong_peer"


@dataclass(eq=False)
class _Pending:
    method: str
    peer: Peer
    future: asyncio.Future[Frame]
    progress: ProgressFn | None
    #: The last progress call handed on: each waits for the one before, and the reply waits for the last.
    progress_task: asyncio.Task[None] | None = None


def stalled_error(label: str, method: str, wait: float) -> DesignError:
    """A plugin that stopped reading held a command past its deadline; its connection was dropped."""
    return DesignError(
        ErrorCode.TIMEOUT,
        f"The plugin in {label} stopped reading, so {method} could not be sent within {wait:g} s; "
        "its connection was dropped.",
        "Resume or reopen the Desktop Bridge plugin (a plugin window paused in its developer tools stops reading), "
        "then retry.",
    )


def disconnected_error(label: str, method: str) -> DesignError:
    """The plugin's connection ended before ``method`` went out."""
    return DesignError(
        ErrorCode.DISCONNECTED,
        f"The plugin in {label} disconnected before {method} could be sent.",
        "Check with design_get_status, then retry.",
    )


def interrupted_error(label: str, why: str) -> DesignError:
    """The plugin's connection ended (``why``: "disconnected", "reconnected"…) while a command was running."""
    return DesignError(
        ErrorCode.DISCONNECTED,
        f"The plugin in {label} {why} while the command was running; its result is unknown.",
        "Check the file, then retry if the change is not there.",
    )


class PluginLink:
    """Commands in flight to plugins: ids, deadlines, cancels, progress and the reading of replies."""

    def __init__(self, counters: dict[str, int], *, id_prefix: str, outdated_hint: str) -> None:
        """``counters`` gains commandsSent, commandsTimedOut, lateRepliesDropped, unknownReplies and wrongFileReplies;
        ``outdated_hint`` is how this host's user gets a newer plugin (for a plugin that lacks a method)."""
        for name in ("commandsSent", "commandsTimedOut", "lateRepliesDropped", "unknownReplies", "wrongFileReplies"):
            counters.setdefault(name, 0)
        self._counters = counters
        self._prefix = id_prefix
        self._ids = itertools.count(1)
        self._outdated_hint = outdated_hint
        self._pending: dict[str, _Pending] = {}
        self._abandoned: dict[str, None] = {}
        self._cancels: dict[str, None] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def __len__(self) -> int:
        return len(self._pending)

    def busy(self, peer: Peer) -> bool:
        """True when a command to ``peer`` is in flight."""
        return any(p.peer is peer for p in self._pending.values())

    def new_id(self) -> str:
        """A command id no other command of this link had."""
        return f"{self._prefix}{next(self._ids)}"

    async def call(
        self, peer: Peer, method: str, params: dict[str, Any] | None = None, **options: Unpack[SendOptions]
    ) -> dict[str, Any]:
        """Send ``method`` to ``peer`` and return its result object (see :meth:`exchange`)."""
        reply = await self.exchange(peer, method, params, **options)
        return self.interpret(peer.label, method, reply)

    async def exchange(
        self,
        peer: Peer,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float = 0.0,
        progress: ProgressFn | None = None,
        cid: str = "",
        params_json: bytes = b"",
    ) -> Frame:
        """Send ``method`` to ``peer`` and return the plugin's reply frame, its progress all passed on first.

        ``params_json``, when given, is the params encoded already and goes out as it is, never decoded here.
        ``timeout`` 0 uses the method's own from the plugin contract; it covers the send too. On timeout a CANCEL
        goes to the plugin and DesignError ``timeout`` is raised; a caller that gives up (its task is cancelled) also
        cancels the command in the plugin.
        """
        wait = timeout if timeout > 0 else command_timeout(method, params)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        cid = cid or self.new_id()
        pending = _Pending(method, peer, loop.create_future(), progress)
        self._pending[cid] = pending
        sent = False
        try:
            payload = msgspec.Raw(params_json) if params_json else params or {}
            frame = _encoder.encode(Command(cid, method, payload))
            try:
                async with asyncio.timeout_at(deadline):
                    await peer.send(frame, method)
                    sent = True
                    self._counters["commandsSent"] += 1
                    reply = await pending.future
            except TimeoutError:
                if not sent:
                    raise peer.unsent(method, wait) from None
                self._remember(self._abandoned, cid)
                self._counters["commandsTimedOut"] += 1
                cancelled = await self._cancel(peer, cid)
                raise DesignError(
                    ErrorCode.TIMEOUT,
                    f"{method} sent to {peer.label} got no answer within {wait:g} s"
                    + ("; a CANCEL was sent." if cancelled else " and the plugin is no longer connected."),
                    "The plugin may be busy or running in another file. Next step: call design_get_status.",
                ) from None
            except asyncio.CancelledError:
                if sent:
                    self._remember(self._abandoned, cid)
                    self._spawn(self._cancel(peer, cid))
                raise
            if pending.progress_task is not None:
                with contextlib.suppress(Exception):
                    await pending.progress_task
            return reply
        finally:
            self._pending.pop(cid, None)

    async def _cancel(self, peer: Peer, target: str) -> bool:
        cid = self.new_id()
        self._remember(self._cancels, cid)
        try:
            return await peer.cancel(_encoder.encode(Command(cid, Method.CANCEL, {"target": target})))
        except Exception:
            log.exception("sending a CANCEL failed")
            return False

    def resolve(self, peer: Peer | None, reply: Frame) -> ReplyOutcome:
        """Hand a reply that came from ``peer`` (None: from no known peer) to the command waiting for it."""
        cid = str(reply.id)
        if cid in self._cancels:
            del self._cancels[cid]
            return ReplyOutcome.CANCEL_ACK
        pending = self._pending.get(cid)
        if pending is None:
            if cid in self._abandoned:
                self._counters["lateRepliesDropped"] += 1
                return ReplyOutcome.LATE
            self._counters["unknownReplies"] += 1
            return ReplyOutcome.UNKNOWN
        if peer is not pending.peer:
            self._counters["wrongFileReplies"] += 1
            return ReplyOutcome.WRONG_PEER
        if not pending.future.done():
            pending.future.set_result(reply)
        return ReplyOutcome.ACCEPTED

    def peer_of(self, cid: str) -> Peer | None:
        """The peer command ``cid`` went to, while it is in flight."""
        pending = self._pending.get(cid)
        return pending.peer if pending is not None else None

    def fail(self, cid: str, error: Exception) -> None:
        """End command ``cid`` with ``error`` (the other side of a forwarded command reported it)."""
        pending = self._pending.get(cid)
        if pending is not None and not pending.future.done():
            pending.future.set_exception(error)

    def fail_peer(self, peer: Peer, error: DesignError) -> None:
        """End every command in flight to ``peer`` with ``error`` (its plugin left or was replaced)."""
        for pending in list(self._pending.values()):
            if pending.peer is peer and not pending.future.done():
                pending.future.set_exception(error)

    def progress(self, peer: Peer | None, cid: str, done: float, total: float | None, message: str) -> None:
        """Pass on the progress the plugin reported for command ``cid``; anything else's progress is dropped."""
        pending = self._pending.get(cid)
        if pending is None or pending.progress is None or pending.peer is not peer or pending.future.done():
            return
        pending.progress_task = asyncio.ensure_future(
            self._report(pending.progress, pending.progress_task, done, total, message[:PROGRESS_CHARS])
        )

    @staticmethod
    async def _report(
        report: ProgressFn, before: asyncio.Task[None] | None, done: float, total: float | None, message: str
    ) -> None:
        if before is not None:
            with contextlib.suppress(Exception):
                await before
        try:
            await report(done, total, message)
        except Exception:
            log.exception("passing on a command's progress failed")

    def interpret(self, label: str, method: str, reply: Frame) -> dict[str, Any]:
        """The result object of ``reply``, or the DesignError it amounts to."""
        try:
            return reply_result(reply)
        except PluginFailure as failure:
            code = f" (code {failure.code})" if failure.code else ""
            text = f"{method} failed in {label}: {failure.message}{code}"
            if failure.message.startswith("Unknown method"):
                hint = f"This plugin is older than the server and lacks {method}: {self._outdated_hint}"
            else:
                hint = "Fix what the message names and retry; design_get_console_logs shows the plugin's console."
            raise DesignError(ErrorCode.PLUGIN_ERROR, text, hint) from None
        except UnusableReply as exc:
            raise DesignError(
                ErrorCode.BAD_REPLY,
                f"The plugin in {label} answered {method} with an unusable reply: {exc}.",
                "Update the plugin (re-import its manifest) and retry; run `designctl doctor` if it persists.",
            ) from None

    def _remember(self, table: dict[str, None], cid: str) -> None:
        table[cid] = None
        if len(table) > REMEMBERED_IDS:
            del table[next(iter(table))]

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self, error: DesignError) -> None:
        """Fail every command in flight with ``error`` and finish the CANCELs still being sent."""
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_exception(error)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
