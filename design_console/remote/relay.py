"""Pairing the Desktop Bridge plugin with the hosted service, and the relay that then carries its commands.

``design_pair_plugin`` issues a short code for the calling user and a relay for it. The plugin opens
``/ws/pair?code=…``: the code is taken from the store in one atomic step (of any number of racing attempts, on any
instance, one wins), the user's identity is bound to the relay for 24 hours, and the plugin gets the relay's id and a
reconnect credential. From then on the socket speaks the bridge protocol of designd (SERVER_HELLO, HELLO, SERVER_PROOF,
FILE_INFO, commands), with the credential as the proof's secret; after a drop the plugin comes back with
``/ws/pair?relay=…`` and proves it holds the credential, which never crosses the wire again.

The instance that holds a plugin's socket owns its relay (an entry in the store it keeps fresh). A command from a
session on another instance travels over Redis pub/sub to the owner and its reply comes back the same way. Nothing of
the design passes through the store: replies live in memory for the length of a call, events are not kept.
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from design_console import __version__
from design_console.bridge_frames import (
    NONCE_BYTES,
    Frame,
    HelloData,
    PluginFailure,
    ProgressData,
    UnusableReply,
    decode_frame,
    decode_hello,
    plugin_proof_valid,
    reply_result,
)
from design_console.config import RemoteConfig
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import BRIDGE_PROTOCOL, Method, bridge_proof, command_timeout
from design_console.remote.crypto import TokenCipher, new_secret
from design_console.remote.limits import client_key
from design_console.remote.store import Store

log = logging.getLogger("design_console.remote.relay")

#: Six characters without look-alikes (no 0/O, 1/I/L, 5/S, 8/B, 2/Z): 24^6, about 191 million codes.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY3467"
CODE_LENGTH = 6
CODE_SECONDS = 300.0
#: How long an issued code is remembered, so that an attempt after its 5 minutes is told "expired", not "unknown".
CODE_MEMORY_SECONDS = 24 * 3600.0
BINDING_SECONDS = 24 * 3600.0
#: The owner entry of a relay lives this long unless its instance renews it (it renews every OWNER_RENEW seconds):
#: an instance that dies stops renewing, and its relays are free for the instance the plugin reconnects to.
OWNER_SECONDS = 30.0
OWNER_RENEW = 10.0
#: Pairing and reconnect attempts are counted per client address over this window.
RATE_WINDOW = 60.0
HANDSHAKE_SECONDS = 10.0
#: A call to a relay whose plugin is reconnecting waits this long for it before failing.
RECONNECT_WAIT = 8.0
RECONNECT_POLL = 0.1
#: The forwarding instance waits this much longer than the owner does, so the owner's own timeout error arrives first.
FORWARD_MARGIN = 3.0
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


class _Code(msgspec.Struct):
    subject: str
    relay: str


class _Relay(msgspec.Struct):
    subject: str
    #: The reconnect credential, sealed with DESIGN_TOKEN_KEYS when the server has them (base64 then).
    credential: str
    sealed: bool = False


class _Forward(msgspec.Struct, omit_defaults=True):
    """A message between instances: a command for the owner of ``relay``, or the progress of or reply to command
    ``cid``."""

    op: str
    cid: str
    origin: str = ""
    relay: str = ""
    method: str = ""
    params: dict[str, Any] = msgspec.field(default_factory=dict)
    file_key: str = ""
    timeout: float = 0.0
    result: dict[str, Any] | None = None
    error: tuple[str, str, str] | None = None
    progress: tuple[float, float | None, str] | None = None


_encoder = msgspec.json.Encoder()
_forward_decoder = msgspec.json.Decoder(_Forward)
_progress_decoder = msgspec.json.Decoder(ProgressData)

ProgressFn = Callable[[float, float | None, str], Awaitable[None]]


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


@dataclass(eq=False)
class _Session:
    """One plugin socket on this instance, after its handshake."""

    ws: WebSocket
    relay: str
    file_key: str = ""
    file_name: str = ""
    pending: dict[str, tuple[asyncio.Future[Frame], ProgressFn | None]] = field(default_factory=dict)
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    closed: bool = False

    async def send(self, message: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.ws.send_text(_encoder.encode(message).decode())

    @property
    def label(self) -> str:
        return f"'{self.file_name}'" if self.file_name else "the paired file"


class Relays:
    """Pairing codes, the relay sockets this instance holds, and command routing to whichever instance holds one."""

    def __init__(self, config: RemoteConfig, store: Store) -> None:
        self.config = config
        self.store = store
        self.instance = uuid.uuid4().hex
        self._sessions: dict[str, _Session] = {}
        self._waiting: dict[str, tuple[asyncio.Future[_Forward], ProgressFn | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._redis: Any = getattr(store, "redis", None)
        self._pubsub: Any = None
        self._cipher = TokenCipher(config.token_keys) if config.token_keys else None

    @property
    def connected(self) -> int:
        """Plugins connected to this instance's relay."""
        return len(self._sessions)

    # --- lifecycle ---------------------------------------------------------------------------------------------

    def _channel(self, instance: str) -> str:
        return f"design-console:relay:{instance}"

    async def start(self) -> None:
        """Listen for commands and replies from other instances (Redis only) and keep this instance's relays owned."""
        if self._redis is not None:
            self._pubsub = self._redis.pubsub()
            await self._pubsub.subscribe(self._channel(self.instance))
            self._spawn(self._listen())
        self._spawn(self._renew_owners())

    async def close(self) -> None:
        """Close every relay socket (the plugins reconnect to another instance) and stop listening."""
        for session in list(self._sessions.values()):
            with contextlib.suppress(Exception):
                await session.ws.close(1001, "server going away")
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _renew_owners(self) -> None:
        while True:
            await asyncio.sleep(OWNER_RENEW)
            for relay, session in list(self._sessions.items()):
                try:
                    owner = await self.store.get("relay-owner", relay)
                    if owner not in (None, self.instance.encode()):
                        # The plugin came back on another instance before this one noticed its old socket die.
                        await self._retire(session)
                        continue
                    await self.store.put("relay-owner", relay, self.instance.encode(), OWNER_SECONDS)
                except Exception:
                    log.exception("renewing the owner entry of a relay failed")

    async def _retire(self, session: _Session) -> None:
        if self._sessions.get(session.relay) is session:
            del self._sessions[session.relay]
        self._drop(session, "The plugin reconnected to another server instance; the command's result is unknown.")
        with contextlib.suppress(Exception):
            await session.ws.close(1000, "Replaced by a connection to another instance")

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
        record = _Relay(entry.subject, credential)
        if self._cipher is not None:
            # Sealed at rest like the platform tokens: a copy of the store does not let anyone pose as the relay.
            sealed = self._cipher.seal(credential.encode(), f"relay:{entry.relay}")
            record = _Relay(entry.subject, base64.b64encode(sealed).decode(), sealed=True)
        await self.store.put("relay", entry.relay, _encoder.encode(record), BINDING_SECONDS)
        # The binding follows the identity (the user's subject), so refreshing the bearer token keeps it.
        await self.store.put("relay-binding", entry.subject, entry.relay.encode(), BINDING_SECONDS)
        log.info("a pairing code was redeemed; relay %s is bound for 24 h", entry.relay[:8])
        return entry.relay, credential

    async def _budget_wait(self) -> int:
        """Seconds until redemptions may go on, once this minute's budget of unknown codes is spent (0: now)."""
        until = await self.store.get("pair-budget", "spent")
        return max(0, math.ceil(float(until) - time.time())) if until is not None else 0

    async def _guessed(self) -> None:
        """Count a redemption of a code never issued against the budget shared by every address and instance."""
        window = int(time.time() // RATE_WINDOW)
        spent = await self.store.count("pair-guess", str(window), RATE_WINDOW * 2)
        if spent >= self.config.pair_budget:
            until = (window + 1) * RATE_WINDOW
            await self.store.put("pair-budget", "spent", str(until).encode(), until - time.time())
            if spent == self.config.pair_budget:
                log.warning(
                    "%d unknown pairing codes were tried this minute (DESIGN_RELAY_PAIR_BUDGET): pairing waits %d s",
                    spent,
                    math.ceil(until - time.time()),
                )

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
            # A 6-character code is safe for its 5 minutes only while guesses are few: past the server-wide budget
            # every redemption waits for the next minute (a valid code then still pairs).
            wait = await self._budget_wait()
            if wait:
                await self._refuse(ws, "busy", wait)
                return
            outcome = await self._redeem(code)
            if outcome == "code_unknown":
                await self._guessed()
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
        session = _Session(ws, relay)
        old = self._sessions.get(relay)
        self._sessions[relay] = session
        if old is not None:
            self._drop(old, "The plugin reconnected while the command was running; its result is unknown.")
            with contextlib.suppress(Exception):
                await old.ws.close(1000, "Replaced by a new connection")
        await self.store.put("relay-owner", relay, self.instance.encode(), OWNER_SECONDS)
        log.info("relay %s: plugin connected", relay[:8])
        try:
            while (message := await self._receive(ws)) is not None:
                self._on_message(session, message)
        finally:
            self._drop(session, "The plugin disconnected while the command was running; its result is unknown.")
            if self._sessions.get(relay) is session:
                del self._sessions[relay]
                if await self.store.get("relay-owner", relay) == self.instance.encode():
                    await self.store.delete("relay-owner", relay)
            log.info("relay %s: plugin disconnected", relay[:8])

    def _drop(self, session: _Session, why: str) -> None:
        session.closed = True
        error = DesignError(ErrorCode.DISCONNECTED, why, "Check the file, then retry if the change is not there.")
        for future, _ in session.pending.values():
            if not future.done():
                future.set_exception(error)

    def _on_message(self, session: _Session, message: str | bytes) -> None:
        try:
            frame = decode_frame(message, {"surrogatesReplaced": 0})
        except msgspec.DecodeError:
            return
        if frame.id is not None and frame.method is None:
            waiting = session.pending.get(str(frame.id))
            if waiting is not None and not waiting[0].done():
                waiting[0].set_result(frame)
        elif frame.type == "FILE_INFO":
            with contextlib.suppress(msgspec.DecodeError):
                info = msgspec.json.decode(bytes(frame.data) or b"{}", type=dict[str, Any])
                session.file_key = str(info.get("fileKey") or "")
                session.file_name = str(info.get("fileName") or "")
        elif frame.type == "PROGRESS":
            with contextlib.suppress(msgspec.DecodeError):
                progress = _progress_decoder.decode(bytes(frame.data) or b"{}")
                waiting = session.pending.get(str(progress.id))
                if waiting is not None and waiting[1] is not None:
                    self._spawn(waiting[1](progress.progress, progress.total, progress.message[:200]))
        # Other events (console, selection, changes) are not kept: design data does not outlive the call.

    async def _local_command(
        self,
        session: _Session,
        method: str,
        params: dict[str, Any],
        file_key: str,
        timeout: float,
        progress: ProgressFn | None,
    ) -> dict[str, Any]:
        if file_key and session.file_key and file_key != session.file_key:
            raise DesignError(
                ErrorCode.UNKNOWN_FILE,
                f"The paired plugin runs in {session.label} ({session.file_key}), not in {file_key}.",
                "Leave fileKey out, or pair the plugin in that file.",
            )
        wait = timeout if timeout > 0 else command_timeout(method, params)
        cid = uuid.uuid4().hex
        future: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        session.pending[cid] = (future, progress)
        try:
            await session.send({"id": cid, "method": method, "params": params})
            async with asyncio.timeout(wait):
                reply = await future
        except TimeoutError:
            with contextlib.suppress(Exception):
                await session.send({"id": uuid.uuid4().hex, "method": Method.CANCEL, "params": {"target": cid}})
            raise DesignError(
                ErrorCode.TIMEOUT,
                f"{method} sent to {session.label} got no answer within {wait:g} s; a CANCEL was sent.",
                "The plugin may be busy. Retry, or check that its window is open.",
            ) from None
        except (WebSocketDisconnect, RuntimeError):
            raise plugin_away_error() from None
        finally:
            session.pending.pop(cid, None)
        try:
            return reply_result(reply)
        except PluginFailure as failure:
            text = f"{method} failed in {session.label}: {failure.message}"
            raise DesignError(
                ErrorCode.PLUGIN_ERROR,
                text + (f" (code {failure.code})" if failure.code else ""),
                "Fix what the message names and retry.",
            ) from None
        except UnusableReply as exc:
            raise DesignError(
                ErrorCode.BAD_REPLY, f"The plugin answered {method} with an unusable reply: {exc}."
            ) from None

    # --- commands from a user's session ------------------------------------------------------------------------

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
        raw = await self.store.get("relay-binding", subject)
        if raw is None:
            raise not_paired_error()
        relay = raw.decode()
        deadline = time.monotonic() + RECONNECT_WAIT
        while True:
            session = self._sessions.get(relay)
            if session is not None and not session.closed:
                return await self._local_command(session, method, params or {}, file_key, timeout, progress)
            owner = await self.store.get("relay-owner", relay)
            if owner is not None and owner != self.instance.encode() and self._redis is not None:
                forwarded = await self._forward(
                    owner.decode(), relay, method, params or {}, file_key, timeout, progress
                )
                if forwarded is not None:
                    return forwarded
            if time.monotonic() > deadline:
                raise plugin_away_error()
            await asyncio.sleep(RECONNECT_POLL)

    async def _forward(
        self,
        owner: str,
        relay: str,
        method: str,
        params: dict[str, Any],
        file_key: str,
        timeout: float,
        progress: ProgressFn | None,
    ) -> dict[str, Any] | None:
        """Run the command on the owning instance; None when no instance listens there (it died)."""
        cid = uuid.uuid4().hex
        future: asyncio.Future[_Forward] = asyncio.get_running_loop().create_future()
        self._waiting[cid] = (future, progress)
        message = _Forward(
            "command", cid, self.instance, relay, method, params, file_key, timeout or command_timeout(method, params)
        )
        try:
            if not await self._redis.publish(self._channel(owner), _encoder.encode(message)):
                return None
            async with asyncio.timeout(message.timeout + FORWARD_MARGIN):
                reply = await future
        except TimeoutError:
            raise DesignError(
                ErrorCode.TIMEOUT,
                f"The server instance holding the plugin's connection did not answer {method} in time.",
                "Retry; the plugin reconnects to another instance if that one is gone.",
            ) from None
        finally:
            self._waiting.pop(cid, None)
        if reply.error is not None:
            code, text, hint = reply.error
            raise DesignError(ErrorCode(code), text, hint)
        return reply.result or {}

    async def _listen(self) -> None:
        async for message in self._pubsub.listen():
            if message.get("type") != "message":
                continue
            try:
                forward = _forward_decoder.decode(message["data"])
            except msgspec.DecodeError:
                log.warning("ignored an unreadable message from another instance")
                continue
            waiting = self._waiting.get(forward.cid)
            if forward.op == "reply" and waiting is not None and not waiting[0].done():
                waiting[0].set_result(forward)
            elif forward.op == "progress" and waiting is not None and waiting[1] is not None and forward.progress:
                # Awaited here, not spawned: the caller hears the progress before the reply that follows it.
                try:
                    await waiting[1](*forward.progress)
                except Exception:
                    log.exception("passing on a forwarded command's progress failed")
            elif forward.op == "command":
                self._spawn(self._run_forwarded(forward))

    async def _run_forwarded(self, forward: _Forward) -> None:
        reply = _Forward("reply", forward.cid)
        origin = self._channel(forward.origin)
        # Progress and the reply are published in the order they happened (each publish may take another connection).
        in_order = asyncio.Lock()

        async def progress(done: float, total: float | None, message: str) -> None:
            update = _Forward("progress", forward.cid, progress=(done, total, message))
            async with in_order:
                await self._redis.publish(origin, _encoder.encode(update))

        try:
            session = self._sessions.get(forward.relay)
            if session is None or session.closed:
                raise plugin_away_error()
            reply.result = await self._local_command(
                session, forward.method, forward.params, forward.file_key, forward.timeout, progress
            )
        except DesignError as err:
            reply.error = (err.code.value, err.message, err.hint)
        except Exception:
            log.exception("a forwarded %s failed", forward.method)
            reply.error = (ErrorCode.INTERNAL.value, f"The relay failed to run {forward.method}.", "Retry.")
        async with in_order:
            await self._redis.publish(origin, _encoder.encode(reply))
