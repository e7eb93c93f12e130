"""Pairing the Desktop Bridge plugin with the hosted service, and the relay that then carries its commands.

``design_pair_plugin`` issues a short code for the calling user and a relay for it. The plugin opens
``/ws/pair?code=…``: the code is taken from the store in one atomic step (of any number of racing attempts, on any
instance, one wins), the user's identity is bound to the relay for 24 hours, and the plugin gets the relay's id and a
reconnect credential. From then on the socket speaks the bridge protocol of designd (SERVER_HELLO, HELLO, SERVER_PROOF,
FILE_INFO, commands), with the credential as the proof's secret; after a drop the plugin comes back with
``/ws/pair?relay=…`` and proves it holds the credential, which never crosses the wire again.

A code is short, so the codes checked that turn out never issued are bounded by a budget shared by every address and
instance; its two halves keep a flood of guesses from delaying a user's live code (:meth:`Relays._budgeted`).

The instance that holds a plugin's socket owns its relay (an entry in the store it keeps fresh). Commands go through
the one plugin-command client (:mod:`design_console.clients.plugin_link`): to the socket itself on the owner, or, from
a session on another instance, over the store's pub/sub to the owner, which runs the command with the same client and
sends back its progress and the plugin's reply frame. Nothing of the design is kept in the store: replies live in
memory for the length of a call, events are not kept. The one thing kept is which file the plugin runs in (its key and
name, as FILE_INFO says), next to the owner entry and for as long: it is the file a tool works on when the AI names
none, on every instance. Each instance remembers a user's relay and a relay's owner for a few seconds, so a call costs
no store round trip; a new pairing is announced to every instance at once.

A pairing ends for the user's sessions when its plugin leaves: by a close, by a missed ping (uvicorn pings every plugin
socket, main.py), or when its instance dies and its owner entry lapses (an instance that saw the plugin connect
notices). On shutdown an instance hands each socket over (1012) once its commands are done, and answers what cannot
finish in time with an error that says to retry.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import math
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from design_console import __version__
from design_console.bridge_frames import (
    NONCE_BYTES,
    Frame,
    HelloData,
    ProgressData,
    decode_frame,
    decode_hello,
    plugin_proof_valid,
)
from design_console.clients.plugin_link import (
    PluginLink,
    ProgressFn,
    ReplyOutcome,
    disconnected_error,
    interrupted_error,
    stalled_error,
)
from design_console.config import RemoteConfig
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import BRIDGE_PROTOCOL, bridge_proof, command_timeout
from design_console.remote.crypto import TokenCipher, new_secret
from design_console.remote.flights import Flights
from design_console.remote.limits import client_key
from design_console.remote.store import LOCK_POLL, Store, Subscription

log = logging.getLogger("design_console.remote.relay")

#: Six characters without look-alikes (no 0/O, 1/I/L, 5/S, 8/B, 2/Z): 24^6, about 191 million codes.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY3467"
CODE_LENGTH = 6
CODE_SECONDS = 300.0
#: How long an issued code is remembered, so that an attempt after its 5 minutes is told "expired", not "unknown".
CODE_MEMORY_SECONDS = 24 * 3600.0
BINDING_SECONDS = 24 * 3600.0
#: The owner entry of a relay lives DESIGN_RELAY_LEASE_SECONDS unless its instance renews it, which it does this many
#: times a lease: an instance that dies stops renewing, and its relays are free for the instance the plugin reconnects
#: to, or are announced as ended by an instance that saw them start.
RENEWALS_PER_LEASE = 3
#: Pairing and reconnect attempts are counted per client address over this window, and the budget of pairing codes
#: checked (DESIGN_RELAY_PAIR_BUDGET) is spent per clock minute.
RATE_WINDOW = 60.0
#: An address that presented a code never issued redeems, for this long after its last such failure, from the half
#: of the budget kept for addresses that failed (a flood spends it, and waits once it is spent); every other address
#: redeems from the other half. The longer, the more addresses a flood needs to spend that other half too (each takes
#: one place of it an hour at most: 600 addresses keep the default's 10 a minute spent), and the longer a user who
#: mistyped a code can be kept waiting by a flood.
FAILED_SECONDS = 3600.0
#: The redemptions of an address not known to have failed are checked one at a time, each holding the address's claim
#: in the store: a check takes milliseconds, and should its instance die mid-check the claim lapses after this long
#: (who waited longer for it redeems as from an address that failed).
CLAIM_SECONDS = 10.0
HANDSHAKE_SECONDS = 10.0
#: A call to a relay whose plugin is reconnecting waits this long for it before failing.
RECONNECT_WAIT = 8.0
RECONNECT_POLL = 0.1
#: The owner holds a forwarded command this much longer than the forwarding instance waits for it: it ends it early
#: only when the forwarding instance is gone (which would otherwise have cancelled it).
FORWARD_MARGIN = 3.0
#: How long an instance trusts what it remembers of a user's relay and of a relay's owner without asking the store.
ROUTE_SECONDS = 5.0
#: How often a shutting-down instance looks for plugin sockets with nothing left in flight, to hand them over.
DRAIN_POLL = 0.05
#: The channel every instance hears (new pairings); each also hears one of its own (commands, progress, replies).
BROADCAST = "relay:all"
#: The ``port`` of SERVER_HELLO and of every proof over the relay: the secret (one per relay) already names the relay.
RELAY_PORT = 0

#: Why a pairing socket is refused: what the plugin shows.
REFUSALS = {
    "code_expired": "This pairing code expired (codes last 5 minutes). Ask the AI for a new one.",
    "code_used": "This pairing code was already used. Ask the AI for a new one.",
    "code_unknown": "This pairing code is not known. Check it, or ask the AI for a new one.",
    "relay_expired": "This pairing ended (pairings last 24 hours). Ask the AI for a new code.",
    "rate_limited": "Too many pairing attempts from this network. Wait a minute and try again.",
    "busy": "Too many attempts with unknown pairing codes on this server; try again in {wait} s.",
    "no_code": "No pairing code was given.",
}


#: What the log says when a half of DESIGN_RELAY_PAIR_BUDGET is spent: one line each, which the repeat throttle of the
#: log (remote/serving.py, by message) would otherwise merge.
SPENT = {
    "failed": "%d unknown pairing codes were tried this minute by addresses that failed before (their half of "
    "DESIGN_RELAY_PAIR_BUDGET): their pairing waits %d s",
    "first": "%d unknown pairing codes were tried this minute by addresses that had not failed, a flood from as many "
    "addresses (their half of DESIGN_RELAY_PAIR_BUDGET): their pairing waits %d s",
}


class _Code(msgspec.Struct):
    subject: str
    relay: str


class _Relay(msgspec.Struct):
    subject: str
    #: The reconnect credential, sealed with DESIGN_TOKEN_KEYS when the server has them (base64 then).
    credential: str
    sealed: bool = False
    #: When the code was redeemed (seconds since the epoch).
    paired_at: float = 0.0


class _File(msgspec.Struct):
    """The file a relay's plugin runs in, as its FILE_INFO said."""

    key: str
    name: str = ""


class Pairing(msgspec.Struct):
    """A user's pairing as the store knows it: its relay, since when, whether its plugin is connected now, and the
    file that plugin runs in (empty until it said)."""

    relay: str
    paired_at: float
    connected: bool
    file_key: str = ""
    file_name: str = ""


class _Forward(msgspec.Struct, omit_defaults=True):
    """A message between instances about command ``cid`` of instance ``origin``: the command for the owner of
    ``relay`` (``frame`` is the command frame), its cancel, its progress, or its reply (``frame`` is the plugin's reply
    frame, or ``error`` says why there is none; ``moved`` says this instance no longer holds the relay). On the
    broadcast channel: ``rebind`` (user ``cid`` paired anew), ``owned`` and ``released`` (instance ``origin`` took or
    let go of relay ``cid``'s plugin socket), ``file`` (relay ``cid``'s plugin told the file it runs in)."""

    op: str
    cid: str
    origin: str = ""
    relay: str = ""
    file_key: str = ""
    timeout: float = 0.0
    frame: msgspec.Raw = msgspec.Raw()
    error: tuple[str, str, str] | None = None
    moved: bool = False
    progress: tuple[float, float | None, str] | None = None


class _ForwardedCommand(msgspec.Struct):
    """A command frame as another instance forwards it: always decoded, unlike :class:`Command`'s pre-encoded params."""

    id: str
    method: str
    params: dict[str, Any] = {}


_encoder = msgspec.json.Encoder()
_forward_decoder = msgspec.json.Decoder(_Forward)
_command_decoder = msgspec.json.Decoder(_ForwardedCommand)
_frame_decoder = msgspec.json.Decoder(Frame)
_progress_decoder = msgspec.json.Decoder(ProgressData)
_file_decoder = msgspec.json.Decoder(_File)


def _reply_frame(cid: str, frame: Frame) -> bytes:
    """The plugin's reply as a frame again, under the forwarding instance's id for the command."""
    reply: dict[str, Any] = {"id": cid}
    if len(frame.result):
        reply["result"] = frame.result
    if len(frame.error):
        reply["error"] = frame.error
    if frame.code is not None:
        reply["code"] = frame.code
    return _encoder.encode(reply)


class _Moved(Exception):
    """The instance a command was forwarded to does not hold the relay (any more): ask the store again."""


def new_code() -> str:
    """A fresh pairing code."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def not_paired_error() -> DesignError:
    """What a plugin tool answers when the caller has no paired plugin."""
    return DesignError(
        ErrorCode.NOT_CONNECTED,
        "No Desktop Bridge plugin is paired with your account on this server.",
        "Call design_pair_plugin and have the user type its code in the plugin's Cloud section, then retry.",
    )


def plugin_away_error() -> DesignError:
    """What a plugin tool answers when the paired plugin is not connected (closed, or reconnecting too long)."""
    return DesignError(
        ErrorCode.NOT_CONNECTED,
        "The paired Desktop Bridge plugin is not connected right now.",
        "Ask the user to open the plugin in the design file (it reconnects by itself), then retry.",
    )


def restarting_error() -> DesignError:
    """What a call gets when the instance serving it stops before the call could finish."""
    return DesignError(
        ErrorCode.DISCONNECTED,
        "The server instance serving this call is restarting, and the call could not finish before it stopped; its "
        "result is unknown.",
        "Retry the call: it is safe to retry once you checked the file (a change may have been made); the plugin "
        "reconnects to another instance by itself.",
    )


@dataclass(eq=False)
class _Session:
    """One plugin socket on this instance, after its handshake: the peer its relay's commands go to."""

    ws: WebSocket
    relay: str
    relays: Relays
    file_key: str = ""
    file_name: str = ""
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Keeps the store's record of the file in the order the plugin named files.
    file_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    closed: bool = False

    @property
    def label(self) -> str:
        return f"'{self.file_name}'" if self.file_name else "the paired file"

    async def send(self, frame: bytes, method: str) -> None:
        """Write a command frame to the plugin's socket."""
        if self.closed:
            raise plugin_away_error()
        try:
            async with self.send_lock:
                await self.ws.send_text(frame.decode())
        except (WebSocketDisconnect, RuntimeError):
            raise disconnected_error(self.label, method) from None

    async def cancel(self, frame: bytes) -> bool:
        """Write a CANCEL frame, unless the socket is gone."""
        if self.closed:
            return False
        try:
            async with self.send_lock:
                await self.ws.send_text(frame.decode())
        except (WebSocketDisconnect, RuntimeError):
            return False
        return True

    def unsent(self, method: str, wait: float) -> DesignError:
        """The socket stopped reading: close it (the plugin reconnects) and say so."""
        self.relays.drop_stalled(self)
        return stalled_error(self.label, method, wait)


@dataclass(eq=False)
class _Remote:
    """The peer of a command forwarded to ``owner``, the instance that holds the plugin's socket."""

    relays: Relays
    owner: str
    relay: str
    file_key: str
    timeout: float
    label: str = "the paired file"

    async def send(self, frame: bytes, method: str) -> None:
        """Publish the command to the owner; :class:`_Moved` when no instance listens there (it died)."""
        command = _Forward(
            "command",
            _command_decoder.decode(frame).id,
            self.relays.instance,
            self.relay,
            self.file_key,
            self.timeout,
            msgspec.Raw(frame),
        )
        if not await self.relays.store.publish(_channel(self.owner), _encoder.encode(command)):
            raise _Moved()

    async def cancel(self, frame: bytes) -> bool:
        """Ask the owner to cancel the command (it then sends the plugin a CANCEL)."""
        target = str(_command_decoder.decode(frame).params.get("target", ""))
        message = _encoder.encode(_Forward("cancel", target, self.relays.instance))
        return bool(await self.relays.store.publish(_channel(self.owner), message))

    def unsent(self, method: str, wait: float) -> DesignError:
        """The store did not take the command in time."""
        return DesignError(
            ErrorCode.TIMEOUT,
            f"The server instance holding the plugin's connection could not be reached with {method} within "
            f"{wait:g} s.",
            "Retry; the plugin reconnects to another instance if that one is gone.",
        )


def _channel(instance: str) -> str:
    return f"relay:{instance}"


class Relays:
    """Pairing codes, the relay sockets this instance holds, and command routing to whichever instance holds one."""

    def __init__(self, config: RemoteConfig, store: Store) -> None:
        self.config = config
        self.store = store
        self.instance = uuid.uuid4().hex
        self._sessions: dict[str, _Session] = {}
        #: Commands other instances forwarded here, by (origin, cid): a cancel from the origin ends its task.
        self._forwarded: dict[tuple[str, str], asyncio.Task[None]] = {}
        #: What this instance remembers of the store: a user's relay, a relay's owner, each with when to ask again.
        self._bindings: dict[str, tuple[str, float]] = {}
        self._owners: dict[str, tuple[str, float]] = {}
        #: The file each relay's plugin runs in, likewise, one store read at a time per relay; forgotten when any
        #: instance says it changed. A read that a forget overtook is not kept (``_file_forgets`` counts them).
        self._files: dict[str, tuple[str, float]] = {}
        self._file_reads: Flights[str | None] = Flights()
        self._file_forgets = 0
        #: The relays whose plugin connected to another instance, by that instance: the pairings this one announces as
        #: ended should their owner die without a word (its owner entry lapses).
        self._watched: dict[str, str] = {}
        self._lease = float(config.relay_lease_seconds)
        #: Shutting down: plugin sockets are handed over once idle; then, past the deadline, nothing waits any more.
        self._draining = False
        self._drained = False
        self._calls = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        self._subscriptions: list[Subscription] = []
        self._cipher = TokenCipher(config.token_keys) if config.token_keys else None
        self._counters: dict[str, int] = {}
        self._link = PluginLink(
            self._counters,
            id_prefix=f"{self.instance[:12]}-",
            outdated_hint="update the Desktop Bridge plugin (re-import its manifest), then pair it again.",
        )
        #: The redemptions of each address under way on this instance: they take their turn one at a time.
        self._lines: dict[str, tuple[asyncio.Lock, int]] = {}
        #: Told the subject whose paired plugin connected to or left this instance (the tools it can use changed).
        self.on_change: Callable[[str], Awaitable[None]] | None = None

    @property
    def connected(self) -> int:
        """Plugins connected to this instance's relay."""
        return len(self._sessions)

    # --- lifecycle ---------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen for commands, replies and new pairings from other instances; keep this instance's relays owned."""
        self._subscriptions = [
            await self.store.subscribe(_channel(self.instance), self._on_forward),
            await self.store.subscribe(BROADCAST, self._on_broadcast),
        ]
        self._spawn(self._renew_owners())

    async def close(self) -> None:
        """Close every relay socket (the plugins reconnect to another instance) and stop listening."""
        for session in list(self._sessions.values()):
            with contextlib.suppress(Exception):
                await session.ws.close(1001, "server going away")
        for subscription in self._subscriptions:
            await subscription.close()
        await self._link.close(
            DesignError(ErrorCode.DISCONNECTED, "This server instance is shutting down.", "Retry the call.")
        )
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def drain(self, seconds: float) -> None:
        """Shut down gracefully within ``seconds``: each plugin socket is closed with 1012 (the plugin comes back to
        another instance at once) as soon as no command is in flight on it; new commands wait for the plugin there.
        Past ``seconds`` every call still waiting gets :func:`restarting_error`, so it answers instead of being cut."""
        self._draining = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while self._sessions or self._calls or len(self._link):
            for session in list(self._sessions.values()):
                if not self._link.busy(session):
                    await self._hand_over(session)
            if loop.time() >= deadline:
                break
            await asyncio.sleep(DRAIN_POLL)
        self._drained = True
        await self._link.close(restarting_error())
        for session in list(self._sessions.values()):
            await self._hand_over(session)

    async def _hand_over(self, session: _Session) -> None:
        # The owner entry stays: the instance the plugin comes back to replaces it, or it lapses and the pairing ends.
        if self._sessions.get(session.relay) is session:
            del self._sessions[session.relay]
        self._drop(session, "moved to another server instance")
        with contextlib.suppress(Exception):
            await session.ws.close(1012, "Server restarting")

    def _spawn(self, work: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _renew_owners(self) -> None:
        while True:
            await asyncio.sleep(self._lease / RENEWALS_PER_LEASE)
            for relay, session in list(self._sessions.items()):
                try:
                    owner = await self.store.get("relay-owner", relay)
                    if owner not in (None, self.instance.encode()):
                        # The plugin came back on another instance before this one noticed its old socket die.
                        await self._retire(session)
                        continue
                    await self.store.put("relay-owner", relay, self.instance.encode(), self._lease)
                    if session.file_key:
                        await self.store.put("relay-file", relay, self._file_entry(session), self._lease)
                except Exception:
                    log.exception("renewing the owner entry of a relay failed")
            try:
                await self._end_lapsed()
            except Exception:
                log.exception("checking the relays of other instances failed")

    async def _end_lapsed(self) -> None:
        """Announce the end of the pairings whose owner stopped renewing (it died) and whose plugin did not come back
        to another instance; of the instances that notice, one announces each."""
        for relay, owner in list(self._watched.items()):
            raw = await self.store.get("relay-owner", relay)
            now = raw.decode() if raw is not None else None
            if now is not None and now != self.instance:
                self._watched[relay] = now
                continue
            del self._watched[relay]
            if now is None and await self.store.add("relay-lapsed", f"{relay}:{owner}", b"", self._lease):
                log.info("relay %s: its instance stopped renewing it; the pairing ended", relay[:8])
                await self._changed(relay)

    async def _retire(self, session: _Session) -> None:
        if self._sessions.get(session.relay) is session:
            del self._sessions[session.relay]
        self._drop(session, "reconnected to another server instance")
        with contextlib.suppress(Exception):
            await session.ws.close(1000, "Replaced by a connection to another instance")

    def drop_stalled(self, session: _Session) -> None:
        """Close a socket that stopped reading: a command written to it would hold every one behind it."""
        log.warning("relay %s: the plugin stopped reading; closing its socket", session.relay[:8])
        self._drop(session, "stopped reading")
        self._spawn(session.ws.close(1011, "The plugin stopped reading"))

    # --- pairing ---------------------------------------------------------------------------------------------

    async def pair(self, subject: str) -> str:
        """Issue a pairing code for ``subject`` (with a relay of its own); valid 5 minutes, single use."""
        relay = uuid.uuid4().hex
        entry = _encoder.encode(_Code(subject, relay))
        while True:
            code = new_code()
            if await self.store.add("pair-code", code, entry, CODE_SECONDS):
                break
        await self.store.put("pair-issued", code, str(time.time()).encode(), CODE_MEMORY_SECONDS)
        return code

    async def _redeem(self, code: str) -> tuple[str, str] | str:
        """The relay and credential for a valid unused code, else the refusal's reason."""
        raw = await self.store.take("pair-code", code)
        if raw is None:
            issued = await self.store.get("pair-issued", code)
            if issued is None:
                return "code_unknown"
            return "code_used" if time.time() < float(issued) + CODE_SECONDS else "code_expired"
        entry = msgspec.json.decode(raw, type=_Code)
        credential = new_secret()
        now = time.time()
        record = _Relay(entry.subject, credential, paired_at=now)
        if self._cipher is not None:
            # Sealed at rest like the platform tokens: a copy of the store does not let anyone pose as the relay.
            sealed = self._cipher.seal(credential.encode(), f"relay:{entry.relay}")
            record = _Relay(entry.subject, base64.b64encode(sealed).decode(), sealed=True, paired_at=now)
        await self.store.put("relay", entry.relay, _encoder.encode(record), BINDING_SECONDS)
        # The binding follows the identity (the user's subject), so refreshing the bearer token keeps it.
        await self.store.put("relay-binding", entry.subject, entry.relay.encode(), BINDING_SECONDS)
        # Every instance forgets the user's previous relay now, not when its memory of it runs out.
        await self.store.publish(BROADCAST, _encoder.encode(_Forward("rebind", entry.subject)))
        log.info("a pairing code was redeemed; relay %s is bound for 24 h", entry.relay[:8])
        return entry.relay, credential

    async def _budgeted(self, address: str, code: str) -> tuple[str, str] | str | int:
        """Redeem ``code`` for a plugin at ``address`` (a :func:`client_key`) within this minute's budget: the relay
        and credential, the refusal's reason, or the seconds to wait when the budget's half for ``address`` is spent.

        A code can pair only if it is checked, and every code checked is a chance for a guesser: so at most
        DESIGN_RELAY_PAIR_BUDGET checks a minute may fail (answer ``code_unknown``), server-wide, however many the
        addresses, as before. What changed is who waits once they are spent. The budget has two halves. Addresses
        with a failure in the last FAILED_SECONDS share one: a flood, from one address or many, spends it within its
        first minute and then waits, even with a live code, so it wins nothing by waiting. Every other address draws
        on the other half, which only the first failure of an address can spend: a user typing their live code is
        checked at once however long a flood from addresses that failed goes on, and waits only while more than half
        the budget's worth of addresses failed for the first time this minute (a flood from A new addresses can do
        that for A / (budget / 2) minutes an hour). Granting each new address a check beyond the budget instead would
        let whoever holds many addresses, which IPv6 makes cheap (a /48 holds 65,536 of the /64s :func:`client_key`
        counts), guess without bound.

        Each check takes its place in its half before the code is looked up (an atomic count, so that concurrent
        redemptions cannot overshoot), and gives it back unless it failed: a code that was issued (paired, used or
        expired) spends nothing. The redemptions of an address not known to have failed are checked one at a time
        (:meth:`_turn`), so concurrent guesses from it spend one place of the other half, not one each. The marks of
        failed addresses live in the store, shared by every instance, and lapse by themselves; at most
        DESIGN_RELAY_PAIR_BUDGET are written a minute, however large the flood.
        """
        if await self._failed(address):
            return await self._check("failed", address, code)
        async with self._turn(address) as held:
            # A redemption ahead of this one in the address's line may have failed meanwhile.
            first = held and not await self._failed(address)
            return await self._check("first" if first else "failed", address, code)

    async def _check(self, share: str, address: str, code: str) -> tuple[str, str] | str | int:
        """Take a place in ``share``'s half of this minute's budget and redeem ``code`` (see :meth:`_budgeted`)."""
        limit = self._failed_half if share == "failed" else self.config.pair_budget - self._failed_half
        window = int(time.time() // RATE_WINDOW)
        key = f"{share}@{window}"
        taken = await self.store.count("pair-checks", key, RATE_WINDOW * 2)
        if taken > limit:
            wait = max(1, math.ceil((window + 1) * RATE_WINDOW - time.time()))
            if taken == limit + 1:
                log.warning(SPENT[share], limit, wait)
            return wait
        outcome = await self._redeem(code)
        if outcome == "code_unknown":
            await self.store.put("pair-failed", address, b"", FAILED_SECONDS)
        else:
            await self.store.count("pair-checks", key, RATE_WINDOW * 2, step=-1)
        return outcome

    async def _failed(self, address: str) -> bool:
        """Whether ``address`` presented a code never issued in the last FAILED_SECONDS."""
        return await self.store.get("pair-failed", address) is not None

    @property
    def _failed_half(self) -> int:
        return self.config.pair_budget // 2

    @contextlib.asynccontextmanager
    async def _turn(self, address: str) -> AsyncIterator[bool]:
        """Hold ``address``'s turn to redeem, on every instance: its claim in the store. Its other redemptions on this
        instance wait in line behind it (only the first in line asks the store again). Yields False when the claim
        stayed taken for CLAIM_SECONDS (an instance died holding it)."""
        line, waiting = self._lines.get(address, (asyncio.Lock(), 0))
        self._lines[address] = (line, waiting + 1)
        try:
            async with line:
                deadline = time.monotonic() + CLAIM_SECONDS
                while not (held := await self.store.add("pair-claim", address, b"", CLAIM_SECONDS)):
                    if time.monotonic() > deadline:
                        break
                    await asyncio.sleep(LOCK_POLL)
                try:
                    yield held
                finally:
                    if held:
                        await self.store.delete("pair-claim", address)
        finally:
            line, waiting = self._lines[address]
            if waiting > 1:
                self._lines[address] = (line, waiting - 1)
            else:
                del self._lines[address]

    async def _refuse(self, ws: WebSocket, reason: str, wait: int = 0) -> None:
        data: dict[str, Any] = {"reason": reason, "message": REFUSALS[reason].format(wait=wait)}
        if wait:
            data["retryAfter"] = wait
        with contextlib.suppress(Exception):
            await ws.send_text(_encoder.encode({"type": "PAIR_REFUSED", "data": data}).decode())
            await ws.close(4403, reason)

    async def endpoint(self, ws: WebSocket) -> None:
        """``/ws/pair``: redeem a code (``?code=``) or come back to a relay (``?relay=``), then serve the plugin."""
        await ws.accept()
        address = client_key(ws.client.host if ws.client else "")
        code = ws.query_params.get("code", "").strip().upper()
        relay = ws.query_params.get("relay", "").strip()
        if not code and not relay:
            await self._refuse(ws, "no_code")
            return
        if await self.store.count("pair-rate", address, RATE_WINDOW) > self.config.pair_attempts:
            await self._refuse(ws, "rate_limited")
            return
        paired: dict[str, Any] | None = None
        if code:
            # A 6-character code is safe for its 5 minutes only while guesses are few: past the server-wide budget a
            # redemption waits for the next minute (the code is not spent, so a valid one then still pairs).
            outcome = await self._budgeted(address, code)
            if isinstance(outcome, int):
                await self._refuse(ws, "busy", outcome)
                return
            if isinstance(outcome, str):
                await self._refuse(ws, outcome)
                return
            relay, credential = outcome
            paired = {"type": "PAIRED", "data": {"relay": relay, "credential": credential}}
        else:
            known = await self._credential(relay)
            if known is None:
                await self._refuse(ws, "relay_expired")
                return
            credential = known
        # A plugin that leaves half way (even right after pairing: it comes back with the credential) is no error.
        with contextlib.suppress(WebSocketDisconnect):
            if paired is not None:
                await ws.send_text(_encoder.encode(paired).decode())
            await self._serve(ws, relay, credential)

    async def _credential(self, relay: str) -> str | None:
        """The reconnect credential of a live relay, or None (expired, or sealed with a key this server lost)."""
        raw = await self.store.get("relay", relay)
        if raw is None:
            return None
        record = msgspec.json.decode(raw, type=_Relay)
        if not record.sealed:
            return record.credential
        if self._cipher is None:
            return None
        try:
            return self._cipher.open(base64.b64decode(record.credential), f"relay:{relay}").decode()
        except DesignError:
            return None

    # --- one plugin socket -------------------------------------------------------------------------------------

    async def _receive(self, ws: WebSocket) -> str | bytes | None:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return None
        text: str | None = message.get("text")
        return text if text is not None else message.get("bytes", b"")

    async def _handshake(self, ws: WebSocket, relay: str, credential: str) -> bool:
        """SERVER_HELLO, the plugin's HELLO with a proof keyed by the credential, and the relay's SERVER_PROOF."""
        nonce = secrets.token_hex(NONCE_BYTES)
        hello = {
            "type": "SERVER_HELLO",
            "data": {
                "port": RELAY_PORT,
                "nonce": nonce,
                "serverVersion": __version__,
                "protocol": BRIDGE_PROTOCOL,
                "authRequired": True,
                "relay": relay,
            },
        }
        await ws.send_text(_encoder.encode(hello).decode())
        try:
            async with asyncio.timeout(HANDSHAKE_SECONDS):
                message = await self._receive(ws)
        except TimeoutError:
            message = None
        data = HelloData()
        if message is not None:
            with contextlib.suppress(msgspec.DecodeError):
                frame = decode_frame(message, {"surrogatesReplaced": 0})
                if frame.type == "HELLO":
                    data = decode_hello(bytes(frame.data) or b"{}")
        if not plugin_proof_valid(credential, RELAY_PORT, nonce, data):
            with contextlib.suppress(Exception):
                await ws.close(4401, "authentication required")
            return False
        proof = bridge_proof(credential, "server", RELAY_PORT, data.nonce, nonce)
        await ws.send_text(_encoder.encode({"type": "SERVER_PROOF", "data": {"proof": proof}}).decode())
        return True

    async def _serve(self, ws: WebSocket, relay: str, credential: str) -> None:
        if not await self._handshake(ws, relay, credential):
            return
        session = _Session(ws, relay, self)
        old = self._sessions.get(relay)
        self._sessions[relay] = session
        if old is not None:
            self._drop(old, "reconnected")
            with contextlib.suppress(Exception):
                await old.ws.close(1000, "Replaced by a new connection")
        await self.store.put("relay-owner", relay, self.instance.encode(), self._lease)
        log.info("relay %s: plugin connected", relay[:8])
        await self.store.publish(BROADCAST, _encoder.encode(_Forward("owned", relay, self.instance)))
        await self._changed(relay)
        try:
            while (message := await self._receive(ws)) is not None:
                self._on_message(session, message)
        finally:
            self._drop(session, "disconnected")
            if self._sessions.get(relay) is session:
                del self._sessions[relay]
                if await self.store.get("relay-owner", relay) == self.instance.encode():
                    # Under the file lock: a record of the file under way cannot outlive the plugin.
                    async with session.file_lock:
                        await self.store.delete("relay-file", relay)
                    await self.store.delete("relay-owner", relay)
                    await self.store.publish(BROADCAST, _encoder.encode(_Forward("released", relay, self.instance)))
                    await self._changed(relay)
            log.info("relay %s: plugin disconnected", relay[:8])

    async def _changed(self, relay: str) -> None:
        raw = await self.store.get("relay", relay)
        if self.on_change is not None and raw is not None:
            await self.on_change(msgspec.json.decode(raw, type=_Relay).subject)

    async def pairing(self, subject: str) -> Pairing | None:
        """The pairing of ``subject`` (None: none, or it expired), read from the store."""
        relay = await self.store.get("relay-binding", subject)
        raw = await self.store.get("relay", relay.decode()) if relay is not None else None
        if relay is None or raw is None:
            return None
        owner = await self.store.get("relay-owner", relay.decode())
        pairing = Pairing(relay.decode(), msgspec.json.decode(raw, type=_Relay).paired_at, owner is not None)
        if owner is not None:
            plugin_file = await self.store.get("relay-file", relay.decode())
            if plugin_file is not None:
                with contextlib.suppress(msgspec.DecodeError):
                    told = _file_decoder.decode(plugin_file)
                    pairing.file_key, pairing.file_name = told.key, told.name
        return pairing

    async def active_file(self, subject: str) -> str | None:
        """The key of the file ``subject``'s paired plugin runs in, while it is connected: the file a tool works on
        when the call names none. From memory while no instance says it changed (at most ROUTE_SECONDS old)."""
        relay = await self._relay_of(subject)
        if relay is None:
            return None
        now = time.monotonic()
        known = self._files.get(relay)
        if known is not None and known[1] > now:
            return known[0]
        return await self._file_reads.run(relay, lambda: self._read_file(relay, now))

    async def _read_file(self, relay: str, now: float) -> str | None:
        forgets = self._file_forgets
        raw = await self.store.get("relay-file", relay)
        key: str | None = None
        if raw is not None:
            with contextlib.suppress(msgspec.DecodeError):
                key = _file_decoder.decode(raw).key or None
        if key is None:
            self._files.pop(relay, None)
        elif forgets == self._file_forgets:
            self._files[relay] = (key, now + ROUTE_SECONDS)
        return key

    def _forget_file(self, relay: str) -> None:
        self._file_forgets += 1
        self._files.pop(relay, None)
        self._file_reads.forget(relay)

    @staticmethod
    def _file_entry(session: _Session) -> bytes:
        return _encoder.encode(_File(session.file_key, session.file_name))

    async def _record_file(self, session: _Session) -> None:
        """Keep the file ``session``'s plugin named where every instance reads it, and tell them to read it again."""
        async with session.file_lock:
            if session.closed or self._sessions.get(session.relay) is not session:
                return
            try:
                if session.file_key:
                    await self.store.put("relay-file", session.relay, self._file_entry(session), self._lease)
                else:
                    await self.store.delete("relay-file", session.relay)
                await self.store.publish(BROADCAST, _encoder.encode(_Forward("file", session.relay, self.instance)))
            except Exception:
                log.exception("relay %s: recording the plugin's file failed", session.relay[:8])

    def _drop(self, session: _Session, why: str) -> None:
        session.closed = True
        self._link.fail_peer(session, interrupted_error(session.label, why))

    def _on_message(self, session: _Session, message: str | bytes) -> None:
        try:
            frame = decode_frame(message, self._counters)
        except msgspec.DecodeError:
            return
        if frame.id is not None and frame.method is None:
            if self._link.resolve(session, frame) is ReplyOutcome.UNKNOWN:
                log.debug("relay %s: ignored a reply to unknown id %r", session.relay[:8], frame.id)
        elif frame.type == "FILE_INFO":
            with contextlib.suppress(msgspec.DecodeError):
                info = msgspec.json.decode(bytes(frame.data) or b"{}", type=dict[str, Any])
                told = (str(info.get("fileKey") or ""), str(info.get("fileName") or ""))
                if told != (session.file_key, session.file_name):
                    session.file_key, session.file_name = told
                    self._spawn(self._record_file(session))
        elif frame.type == "PROGRESS":
            with contextlib.suppress(msgspec.DecodeError):
                progress = _progress_decoder.decode(bytes(frame.data) or b"{}")
                self._link.progress(session, str(progress.id), progress.progress, progress.total, progress.message)
        # Other events (console, selection, changes) are not kept: design data does not outlive the call.

    @staticmethod
    def _check_file(session: _Session, file_key: str) -> None:
        if file_key and session.file_key and file_key != session.file_key:
            raise DesignError(
                ErrorCode.UNKNOWN_FILE,
                f"The paired plugin runs in {session.label} ({session.file_key}), not in {file_key}.",
                "Leave fileKey out, or pair the plugin in that file.",
            )

    # --- commands from a user's session ------------------------------------------------------------------------

    async def _relay_of(self, subject: str) -> str | None:
        """The relay bound to ``subject``."""
        return await self._route(self._bindings, "relay-binding", subject)

    async def _owner_of(self, relay: str) -> str | None:
        """The instance holding ``relay``'s socket."""
        return await self._route(self._owners, "relay-owner", relay)

    async def _route(self, memory: dict[str, tuple[str, float]], kind: str, key: str) -> str | None:
        """The store's entry ``kind``/``key``, from ``memory`` when it was read from the store within ROUTE_SECONDS."""
        now = time.monotonic()
        known = memory.get(key)
        if known is not None and known[1] > now:
            return known[0]
        raw = await self.store.get(kind, key)
        if raw is None:
            memory.pop(key, None)
            return None
        memory[key] = (raw.decode(), now + ROUTE_SECONDS)
        return raw.decode()

    async def command(
        self,
        subject: str,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        file_key: str = "",
        timeout: float = 0.0,
        progress: ProgressFn | None = None,
    ) -> dict[str, Any]:
        """Send one command to the plugin paired with ``subject``, wherever its socket is; returns its result."""
        relay = await self._relay_of(subject)
        if relay is None:
            raise not_paired_error()
        deadline = time.monotonic() + RECONNECT_WAIT
        # Counted, so that a shutdown waits for the calls looking for their plugin too.
        self._calls += 1
        try:
            while True:
                if self._drained:
                    raise restarting_error()
                session = self._sessions.get(relay)
                if session is not None and not session.closed and not self._draining:
                    self._check_file(session, file_key)
                    return await self._link.call(session, method, params, timeout=timeout, progress=progress)
                owner = await self._owner_of(relay)
                if owner is not None and owner != self.instance:
                    wait = timeout if timeout > 0 else command_timeout(method, params)
                    peer = _Remote(self, owner, relay, file_key, wait)
                    try:
                        return await self._link.call(peer, method, params, timeout=wait, progress=progress)
                    except _Moved:
                        pass
                # Not here, and the instance remembered as its owner no longer holds it: read the store afresh.
                self._owners.pop(relay, None)
                if time.monotonic() > deadline:
                    raise plugin_away_error()
                await asyncio.sleep(RECONNECT_POLL)
        finally:
            self._calls -= 1

    def _on_broadcast(self, message: bytes) -> None:
        with contextlib.suppress(msgspec.DecodeError):
            forward = _forward_decoder.decode(message)
            if forward.op == "rebind":
                self._bindings.pop(forward.cid, None)
            elif forward.op == "file":
                self._forget_file(forward.cid)
            elif forward.op == "owned" and forward.origin != self.instance:
                self._forget_file(forward.cid)
                self._watched[forward.cid] = forward.origin
            elif forward.op in ("owned", "released"):
                self._forget_file(forward.cid)
                self._watched.pop(forward.cid, None)

    def _on_forward(self, message: bytes) -> None:
        try:
            forward = _forward_decoder.decode(message)
        except msgspec.DecodeError:
            log.warning("ignored an unreadable message from another instance")
            return
        if forward.op == "command":
            key = (forward.origin, forward.cid)
            self._forwarded[key] = self._spawn(self._run_forwarded(forward))
        elif forward.op == "cancel":
            task = self._forwarded.get((forward.origin, forward.cid))
            if task is not None:
                task.cancel()
        elif forward.op == "progress" and forward.progress is not None:
            self._link.progress(self._link.peer_of(forward.cid), forward.cid, *forward.progress)
        elif forward.op == "reply":
            if forward.moved:
                self._link.fail(forward.cid, _Moved())
            elif forward.error is not None:
                code, text, hint = forward.error
                self._link.fail(forward.cid, DesignError(ErrorCode(code), text, hint))
            else:
                with contextlib.suppress(msgspec.DecodeError):
                    self._link.resolve(self._link.peer_of(forward.cid), _frame_decoder.decode(forward.frame))

    async def _run_forwarded(self, forward: _Forward) -> None:
        """Run a command another instance forwarded here and send back its progress, then the plugin's reply."""
        origin = _channel(forward.origin)
        reply = _Forward("reply", forward.cid)

        async def progress(done: float, total: float | None, message: str) -> None:
            update = _Forward("progress", forward.cid, progress=(done, total, message))
            await self.store.publish(origin, _encoder.encode(update))

        try:
            session = self._sessions.get(forward.relay)
            if session is None or session.closed or self._draining:
                reply.moved = True
            else:
                self._check_file(session, forward.file_key)
                command = _command_decoder.decode(forward.frame)
                frame = await self._link.exchange(
                    session,
                    command.method,
                    command.params,
                    timeout=forward.timeout + FORWARD_MARGIN,
                    progress=progress,
                )
                reply.frame = msgspec.Raw(_reply_frame(forward.cid, frame))
        except asyncio.CancelledError:
            # The origin gave up (its deadline, or its caller): the link sent the plugin a CANCEL; nobody waits.
            self._forwarded.pop((forward.origin, forward.cid), None)
            raise
        except DesignError as err:
            reply.error = (err.code.value, err.message, err.hint)
        except Exception:
            log.exception("a forwarded command failed")
            reply.error = (ErrorCode.INTERNAL.value, "The relay failed to run the command.", "Retry.")
        finally:
            self._forwarded.pop((forward.origin, forward.cid), None)
        await self.store.publish(origin, _encoder.encode(reply))
