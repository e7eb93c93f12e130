"""The hot path of ``/mcp``: ``initialize``, ``ping``, ``tools/list`` and ``tools/call`` answered without the MCP SDK.

The SDK's Streamable HTTP transport spends milliseconds of CPU on every message (its pydantic models, memory
streams, a task group per request, a server task per session), many times what answering the message costs. So the
hosted service answers the messages of a session's steady state here, with msgspec frames shared with designd's own
front (``tools/wire/frames.py``), as the SDK would (a test pins each answer to the SDK's):

- a session lives in the store (kind ``mcp-session``: its owner, protocol version and opening ``initialize``), so
  any instance can serve it; each instance keeps the sessions it serves in memory and asks the store again after
  DESIGN_REMOTE_CACHE_SECONDS, which is how long a session ended on another instance lives on here;
- the ``tools/list`` answer is encoded once per listing key (:class:`ListingSource`: what a user's listing depends
  on), not per request;
- bearer tokens are checked through :class:`TokenCache` in front of the store;
- a request is answered with one JSON body (which the spec lets the server choose when the client accepts both
  types), except a ``tools/call`` with a progress token, whose progress notes come first on an event stream. The
  SDK's client reads a JSON answer whole and so keeps its connection; it leaves an event-stream answer before the
  end of its body, and its HTTP library then drops the connection.

Anything else (a modern-era request, ``resources/list``, the GET stream of server notifications, a malformed body)
goes to the SDK. A session opened here gets an SDK session the first time it needs one: the SDK is sent the
session's ``initialize`` and ``notifications/initialized`` (its replies swallowed), and its session id is mapped to
ours both ways, so the client never sees two ids.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Hashable, Iterable
from typing import Any, Protocol

import msgspec
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http import REQUEST_CANCELLED, check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from design_console.protocol import ToolOutput
from design_console.remote.flights import Flights
from design_console.remote.lean_io import call_params, caller, discard_reply, read_body, replay_body, sse_event
from design_console.remote.store import Store
from design_console.tools.base import ToolSpec
from design_console.tools.wire.frames import (
    CAPABILITIES,
    HANDSHAKE_VERSIONS,
    CallParams,
    Incoming,
    call_result,
    cancel_call,
    encode,
    incoming,
    initialize_result,
    negotiated_version,
    progress_frame,
    result_frame,
)
from design_console.tools.wire.listing import tool_entries

SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"
#: The store's kind for MCP sessions.
SESSION_KIND = "mcp-session"
#: A session nobody used for this long is forgotten (the SDK's default idle timeout).
SESSION_IDLE = 30 * 60.0
#: Sessions (and bearer tokens) an instance keeps in memory; beyond it the least recently used goes (the store keeps
#: it).
MAX_HELD = 10_000
#: Listings kept encoded, one per listing key.
MAX_LISTINGS = 64

_SSE_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"connection", b"keep-alive"),
]
_JSON_HEADERS = [(b"content-type", b"application/json")]


class TokenVerifier(Protocol):
    """The SDK's token verifier (``OAuthServer.verify_token``)."""

    async def verify_token(self, token: str) -> AccessToken | None: ...


class TokenCache:
    """A bearer token check in front of the store: a valid token is trusted for ``ttl`` seconds (never past its
    expiry). :meth:`clear` forgets every token at once: the service calls it after each revocation and token
    exchange on this instance, so those take effect here at once and on other instances within ``ttl``."""

    def __init__(self, verifier: TokenVerifier, ttl: float, size: int = MAX_HELD) -> None:
        self._verifier = verifier
        self._ttl = ttl
        self._size = size
        self._held: OrderedDict[str, tuple[float, AccessToken]] = OrderedDict()
        self._asking: Flights[AccessToken | None] = Flights()

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's grant, from memory when checked less than ``ttl`` seconds ago; None for an invalid one."""
        now = time.monotonic()
        held = self._held.get(token)
        if held is not None and held[0] > now and (held[1].expires_at is None or held[1].expires_at > time.time()):
            return held[1]
        # The requests that find the token stale at once share one look-up: a burst costs the store one read.
        found = await self._asking.run(token, lambda: self._verifier.verify_token(token))
        if found is None:
            self._held.pop(token, None)
            return None
        if self._ttl > 0:
            self._held[token] = (now + self._ttl, found)
            self._held.move_to_end(token)
            while len(self._held) > self._size:
                self._held.popitem(last=False)
        return found

    def clear(self) -> None:
        """Forget every token checked so far."""
        self._held.clear()


class ListingSource(Protocol):
    """What a user's ``tools/list`` depends on: :meth:`key` names it (a hashable value, such as whether the user has
    a paired plugin) and :meth:`tools` gives the tools listed under that key; one encoded answer is kept per key."""

    async def key(self, subject: str) -> Hashable: ...

    def tools(self, key: Hashable) -> Iterable[ToolSpec]: ...


class Listings:
    """The encoded ``tools/list`` results, built once per listing key."""

    def __init__(self, source: ListingSource) -> None:
        self.source = source
        self._encoded: OrderedDict[Hashable, bytes] = OrderedDict()

    async def result(self, subject: str) -> bytes:
        """The ``tools/list`` result for ``subject``."""
        key = await self.source.key(subject)
        encoded = self._encoded.get(key)
        if encoded is None:
            encoded = self._encoded[key] = encode({"tools": tool_entries(self.source.tools(key))})
            while len(self._encoded) > MAX_LISTINGS:
                self._encoded.popitem(last=False)
        return encoded


class SessionRecord(msgspec.Struct, kw_only=True):
    """A session as the store keeps it."""

    subject: str
    client_id: str
    version: str
    #: The ``initialize`` request that opened it, replayed into an SDK session should one be needed.
    opening: bytes


class _Held:
    """A session as one instance holds it."""

    __slots__ = ("attaching", "calls", "checked", "record", "sdk_id")

    def __init__(self, record: SessionRecord, checked: float) -> None:
        self.record = record
        self.checked = checked
        self.sdk_id: str | None = None
        self.attaching = asyncio.Lock()
        self.calls: dict[int | str, asyncio.Task[ToolOutput]] = {}


_record = msgspec.json.Decoder(SessionRecord)

#: Runs one tool for a request (``remote/tools.run_tool`` with the caller's context): never raises DesignError.
ToolRunner = Callable[
    [Request, str, dict[str, Any] | None, Callable[[float, float | None, str], Awaitable[None]]],
    Coroutine[Any, Any, ToolOutput],
]


class LeanMcp:
    """``/mcp`` as an ASGI app: the hot path here, anything else to ``sdk`` (the SDK's Streamable HTTP app)."""

    def __init__(
        self,
        sdk: ASGIApp,
        store: Store,
        listings: Listings,
        run_tool: ToolRunner,
        security: TransportSecuritySettings,
        *,
        cache_seconds: float,
        json_response: bool = False,
        capabilities: dict[str, Any] = CAPABILITIES,
    ) -> None:
        self.sdk = sdk
        self.store = store
        self.listings = listings
        self._run_tool = run_tool
        self._security = TransportSecurityMiddleware(security)
        self._cache_seconds = cache_seconds
        self._json = json_response
        self._capabilities = capabilities
        self._held: OrderedDict[str, _Held] = OrderedDict()
        self._asking: Flights[_Held | None] = Flights()

    @property
    def active_sessions(self) -> int:
        """Sessions this instance holds in memory."""
        return len(self._held)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        version = headers.get(VERSION_HEADER.encode())
        if scope["type"] != "http" or (version is not None and version.decode("latin-1") not in HANDSHAKE_VERSIONS):
            await self.sdk(scope, receive, send)  # a modern-era request: the SDK's own entry
            return
        raw_id = headers.get(SESSION_HEADER.encode())
        session_id = raw_id.decode("latin-1") if raw_id is not None else None
        method = scope["method"]
        if method != "POST":
            held = await self._session(session_id, scope) if session_id is not None else None
            if held is not None and method == "DELETE":
                await self._forget(session_id or "", held)
            await self._to_sdk(scope, receive, send, session_id, held)
            return
        refusal = await self._security.validate_request(Request(scope), is_post=True)
        has_json, has_sse = check_accept_headers(Request(scope))
        if refusal is not None or not (has_json and (has_sse or self._json)):
            await self.sdk(scope, receive, send)  # the SDK says what is wrong, in its words
            return
        body = await read_body(receive)
        try:
            message = incoming.decode(body)
        except (msgspec.DecodeError, msgspec.ValidationError):
            await self.sdk(scope, replay_body(body, receive), send)
            return
        if session_id is None:
            if message.method == "initialize" and message.id is not None:
                await self._open(scope, send, message, body)
            else:
                await self.sdk(scope, replay_body(body, receive), send)
            return
        held = await self._session(session_id, scope)
        if held is None:
            await self._answer(send, 404, _JSON_HEADERS, _not_found())
            return
        await self._serve(scope, receive, send, session_id, held, message, body)

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, session_id: str, held: _Held, message: Incoming, body: bytes
    ) -> None:
        method, request_id = message.method, message.id
        session = [(SESSION_HEADER.encode(), session_id.encode())]
        if request_id is not None and method == "tools/list":
            listing = await self.listings.result(held.record.subject)
            await self._reply(send, session, result_frame(request_id, listing))
        elif request_id is not None and method == "ping":
            await self._reply(send, session, result_frame(request_id, b"{}"))
        elif request_id is not None and method == "tools/call" and (params := call_params(message)) is not None:
            await self._call(scope, send, session, held, request_id, params)
        elif method == "notifications/initialized" and request_id is None and held.sdk_id is None:
            await self._answer(send, 202, _JSON_HEADERS + session, b"")
        elif method == "notifications/cancelled" and self._cancel(held, message.params):
            await self._answer(send, 202, _JSON_HEADERS + session, b"")
        else:
            await self._to_sdk(scope, replay_body(body, receive), send, session_id, held)

    # Sessions -------------------------------------------------------------------------------------------------------

    async def _open(self, scope: Scope, send: Send, message: Incoming, body: bytes) -> None:
        subject, client_id = caller(scope)
        version = negotiated_version(message.params.get("protocolVersion"))
        record = SessionRecord(subject=subject, client_id=client_id, version=version, opening=body)
        session_id = secrets.token_hex(16)
        await self.store.put(SESSION_KIND, session_id, msgspec.json.encode(record), SESSION_IDLE)
        self._hold(session_id, _Held(record, time.monotonic()))
        result = encode(initialize_result(message.params, self._capabilities))
        assert message.id is not None
        await self._reply(send, [(SESSION_HEADER.encode(), session_id.encode())], result_frame(message.id, result))

    def _hold(self, session_id: str, held: _Held) -> None:
        self._held[session_id] = held
        while len(self._held) > MAX_HELD:
            self._held.popitem(last=False)

    async def _session(self, session_id: str, scope: Scope) -> _Held | None:
        """The session, when it exists and the request comes from its owner (anything else is answered as an
        unknown session, as the SDK does)."""
        held = self._held.get(session_id)
        if held is None or time.monotonic() - held.checked > self._cache_seconds:
            held = await self._asking.run(session_id, lambda: self._look_up(session_id))
            if held is None:
                return None
        self._held.move_to_end(session_id)
        if (held.record.subject, held.record.client_id) != caller(scope):
            return None
        return held

    async def _look_up(self, session_id: str) -> _Held | None:
        """Ask the store for a session (once for all the requests that need it at the same moment)."""
        now = time.monotonic()
        raw = await self.store.get(SESSION_KIND, session_id)
        held = self._held.get(session_id)
        if raw is None:
            if held is not None:
                self._drop(session_id, held)
            return None
        if held is None:
            held = _Held(_record.decode(raw), now)
            self._hold(session_id, held)
        else:
            held.checked = now
        # Use keeps the session: its idle clock restarts at most once per cache period.
        await self.store.put(SESSION_KIND, session_id, raw, SESSION_IDLE)
        return held

    def _drop(self, session_id: str, held: _Held) -> None:
        self._held.pop(session_id, None)
        for task in held.calls.values():
            task.cancel()

    async def _forget(self, session_id: str, held: _Held) -> None:
        self._drop(session_id, held)
        await self.store.delete(SESSION_KIND, session_id)

    # Tool calls -----------------------------------------------------------------------------------------------------

    async def _call(
        self,
        scope: Scope,
        send: Send,
        session: list[tuple[bytes, bytes]],
        held: _Held,
        request_id: int | str,
        params: CallParams,
    ) -> None:
        token = params.meta.progressToken if params.meta is not None else None
        # Only the event-stream answer has a place for progress before the result.
        streamed = token is not None and not self._json
        started = False

        async def start() -> None:
            nonlocal started
            if not started:
                started = True
                await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS + session})

        async def progress(value: float, total: float | None, note: str) -> None:
            if not streamed:
                return
            await start()
            assert token is not None
            await send(
                {
                    "type": "http.response.body",
                    "body": sse_event(progress_frame(token, value, total, note)),
                    "more_body": True,
                }
            )

        task = asyncio.create_task(self._run_tool(Request(scope), params.name, params.arguments, progress))
        held.calls[request_id] = task
        try:
            frame = result_frame(request_id, call_result(await task))
        except asyncio.CancelledError:
            if not task.cancelled() or asyncio.current_task().cancelling():  # type: ignore[union-attr]
                raise
            frame = encode(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": REQUEST_CANCELLED, "message": "Request cancelled"},
                }
            )
        finally:
            held.calls.pop(request_id, None)
            task.cancel()
        if not started:
            # No progress went out first: the whole answer in one body of known length (one event of the stream when
            # the client asked for progress).
            await self._reply(send, session, frame, event=streamed)
            return
        await send({"type": "http.response.body", "body": sse_event(frame), "more_body": False})

    @staticmethod
    def _cancel(held: _Held, params: dict[str, Any]) -> bool:
        """Cancel a call running here; False when it is not one of ours."""
        return cancel_call(params, held.calls, held.sdk_id is not None)

    # Replies --------------------------------------------------------------------------------------------------------

    async def _reply(
        self, send: Send, session: list[tuple[bytes, bytes]], frame: bytes, *, event: bool = False
    ) -> None:
        if event:
            await self._answer(send, 200, _SSE_HEADERS + session, sse_event(frame))
        else:
            await self._answer(send, 200, _JSON_HEADERS + session, frame)

    @staticmethod
    async def _answer(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        length = [(b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers + length})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    # The SDK --------------------------------------------------------------------------------------------------------

    async def _to_sdk(
        self, scope: Scope, receive: Receive, send: Send, session_id: str | None, held: _Held | None
    ) -> None:
        """Hand a request to the SDK, with the session's id mapped to the SDK session's (opened for it if need be)."""
        if held is None or session_id is None:
            await self.sdk(scope, receive, send)
            return
        sdk_id = await self._attach(scope, held)
        if sdk_id is None:
            await self._answer(send, 404, _JSON_HEADERS, _not_found())
            return
        ours, theirs = session_id.encode(), sdk_id.encode()

        async def send_ours(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [
                        (k, ours if k == SESSION_HEADER.encode() else v) for k, v in message.get("headers", [])
                    ],
                }
                if message["status"] == 404:
                    held.sdk_id = None  # the SDK session ended (idle): the next request opens another
            await send(message)

        await self.sdk(_with_headers(scope, {SESSION_HEADER: theirs}), receive, send_ours)

    async def _attach(self, scope: Scope, held: _Held) -> str | None:
        """The id of the SDK session behind ``held``, opening one with the session's own ``initialize``."""
        async with held.attaching:
            if held.sdk_id is not None:
                return held.sdk_id
            opened: list[str] = []

            async def capture(message: Message) -> None:
                if message["type"] == "http.response.start" and message["status"] < 400:
                    opened.extend(v.decode() for k, v in message.get("headers", []) if k == SESSION_HEADER.encode())

            post = {"content-type": b"application/json", "accept": b"application/json, text/event-stream"}
            opening = _with_headers({**scope, "method": "POST"}, {**post, SESSION_HEADER: None, VERSION_HEADER: None})
            await self.sdk(opening, replay_body(held.record.opening), capture)
            if not opened:
                return None
            version = held.record.version.encode()
            initialized = _with_headers(opening, {SESSION_HEADER: opened[0].encode(), VERSION_HEADER: version})
            notified = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
            await self.sdk(initialized, replay_body(notified), discard_reply)
            # A listing through the SDK session makes the server remember it as one of the user's sessions, so a
            # change of the user's tools reaches the client on that session's stream.
            await self.sdk(initialized, replay_body(b'{"jsonrpc":"2.0","id":0,"method":"tools/list"}'), discard_reply)
            held.sdk_id = opened[0]
            return held.sdk_id


def _with_headers(scope: Scope, changes: dict[str, bytes | None]) -> Scope:
    """``scope`` with each named header set (or removed, for None)."""
    names = {name.encode() for name in changes}
    headers = [(k, v) for k, v in scope["headers"] if k not in names]
    headers += [(name.encode(), value) for name, value in changes.items() if value is not None]
    return {**scope, "headers": headers}


def _not_found() -> bytes:
    return encode({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Session not found"}})
