"""The hot path of ``/sse`` (the HTTP+SSE transport): ``initialize``, ``ping``, ``tools/list`` and ``tools/call``
answered without the MCP SDK, as ``remote/lean.py`` does for ``/mcp``.

``GET /sse`` opens the session's event stream here; its first event, ``endpoint``, names
``/messages/?session_id=<uuid hex>``, where each POST is answered ``202 Accepted`` and the answer arrives on the
stream. Every refusal is the SDK's ``SseServerTransport``'s, word for word (a test pins them): its transport security,
``400`` for a missing or malformed session id or a body that is no JSON-RPC message, ``404`` for an unknown session or
one opened with another credential, ``413`` beyond the body limit.

A session lives as long as its stream, on the instance holding the stream, which records itself in the store as the
session's owner (kind ``sse-session``, with a lease it renews, so the sessions of an instance that dies lapse). A POST
that reaches another instance (a load balancer without sticky routing) is forwarded to the owner over the store's
pub/sub, served there exactly as a POST of its own, and answered with what the owner answered (``202`` once it took
the message); a POST for a session whose owner is gone gets ``410`` with a JSON-RPC error saying to open ``/sse``
again. A POST to the owner itself costs no store round trip.

The four messages are answered with the lean path's own pieces (the encoded listing, the tool runner with its metrics
and limits, the frames); a call's progress goes to the stream before its result; the user's pairing changes reach the
stream through :class:`~design_console.remote.listing.ListChanges`. Anything else (``resources/list``, a client's
response, a malformed body) goes to an SDK session opened for this stream the first time it is needed: the SDK's own
stream runs behind ours, is sent the session's ``initialize`` and ``notifications/initialized`` (its reply
swallowed), and what it sends is passed on to our stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit
from uuid import UUID, uuid4

import msgspec
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, AuthorizationContext, authorization_context
from mcp.server.streamable_http import REQUEST_CANCELLED
from mcp.server.transport_security import (
    RequestBodyLimitMiddleware,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from design_console.protocol import ToolOutput
from design_console.remote.lean import Listings, ToolRunner
from design_console.remote.lean_io import call_params, caller, discard_reply, read_body, replay_body, sse_event
from design_console.remote.listing import ListChanges
from design_console.remote.store import Store, Subscription
from design_console.tools.wire.frames import (
    CAPABILITIES,
    CallParams,
    Incoming,
    call_result,
    cancel_call,
    encode,
    incoming,
    initialize_result,
    progress_frame,
    result_frame,
)

log = logging.getLogger("design_console.remote.lean_sse")

#: Frames waiting for a slow client before the writer waits too (the SDK's streams hold none).
STREAM_BACKLOG = 256
#: How long the SDK session opened behind a stream may take to answer the session's ``initialize``.
ATTACH_SECONDS = 10.0

#: The store's kind for the owner of an ``/sse`` session: the instance holding its stream.
SESSION_KIND = "sse-session"
#: How long an owner entry lives unless its instance renews it, which it does this many times a lease: the sessions
#: of an instance that dies lapse within a lease.
SESSION_LEASE = 30.0
RENEWALS_PER_LEASE = 3
#: How long an instance waits for a session's owner to take a POST forwarded to it.
FORWARD_SECONDS = 10.0

#: The headers of a POST that describe its body: all a forwarded POST carries of its request's (see ``_take``).
_BODY_HEADERS = (b"content-type", b"content-length")

_LIST_CHANGED = encode({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
_INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


class _Stream:
    """One SSE session: its owner, its event stream's backlog, the calls it runs and the SDK session behind it."""

    def __init__(self, scope: Scope) -> None:
        #: The ``GET /sse`` request's scope, from which a POST forwarded by another instance is served.
        self.scope = scope
        self.user: Any = scope.get("user")
        self.owner = _principal(self.user)
        self.subject = caller(scope)[0]
        self.frames: asyncio.Queue[bytes] = asyncio.Queue(STREAM_BACKLOG)
        #: The ``initialize`` the lean path answered (the SDK session behind the stream is sent it first).
        self.opening: bytes | None = None
        self.calls: dict[int | str, asyncio.Task[ToolOutput]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.sdk_id: str | None = None
        self.attaching = asyncio.Lock()
        #: Set while the SDK's reply to the replayed ``initialize`` is awaited, to swallow it.
        self.swallow: asyncio.Future[None] | None = None
        self.ended = asyncio.Event()

    async def put(self, frame: bytes) -> None:
        await self.frames.put(sse_event(frame))

    async def send_tool_list_changed(self) -> None:
        """Tell the client its tools changed (:class:`ListChanges` calls this when the user's pairing does)."""
        if self.ended.is_set():
            raise ConnectionError("the stream is closed")
        await self.put(_LIST_CHANGED)

    def spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def end(self) -> None:
        self.ended.set()
        for call in self.calls.values():
            call.cancel()
        for task in self.tasks:
            task.cancel()


class _Owner(msgspec.Struct):
    """A session's entry in the store: the instance holding its stream."""

    instance: str


class _Forward(msgspec.Struct, omit_defaults=True):
    """A POST between instances, as ``mid``: ``post`` carries a client message of session ``session`` (its request's
    body headers, who sent it, its ``body``) from instance ``origin`` to the one holding the stream; ``answer`` carries
    back what the POST is answered (``status``, ``headers``, ``body``, and the tool a call names, for the request's
    log line)."""

    op: str
    mid: str
    origin: str = ""
    session: str = ""
    principal: AuthorizationContext | None = None
    headers: list[tuple[str, str]] = []
    body: bytes = b""
    status: int = 0
    tool: str = ""


_forward_decoder = msgspec.json.Decoder(_Forward)
_owner_decoder = msgspec.json.Decoder(_Owner)


class _App:
    """A bound method as an ASGI app object (Starlette would take a method for a request handler)."""

    def __init__(self, handler: ASGIApp) -> None:
        self.handler = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.handler(scope, receive, send)


class LeanSse:
    """``GET /sse`` (:attr:`stream`) and ``POST /messages/`` (:attr:`messages`) as ASGI apps: the hot path here,
    anything else through an SDK session behind the stream (``sdk_stream``, the SDK's ``/sse`` app, and
    ``sdk_messages``, its message endpoint)."""

    def __init__(
        self,
        endpoint: str,
        sdk_stream: ASGIApp,
        sdk_messages: ASGIApp,
        listings: Listings,
        run_tool: ToolRunner,
        security: TransportSecuritySettings,
        changes: ListChanges,
        store: Store,
        *,
        max_body: int,
        capabilities: dict[str, Any] = CAPABILITIES,
        lease: float = SESSION_LEASE,
    ) -> None:
        self.endpoint = endpoint
        self.store = store
        #: This instance's name in the store's owner entries and on its pub/sub channel.
        self.instance = uuid4().hex
        self._lease = lease
        self.sdk_stream = sdk_stream
        self.sdk_messages = sdk_messages
        self.listings = listings
        self._run_tool = run_tool
        self._security = TransportSecurityMiddleware(security)
        self._changes = changes
        self._capabilities = capabilities
        self._streams: dict[UUID, _Stream] = {}
        #: POSTs forwarded to other instances, waiting for their answer.
        self._waiting: dict[str, asyncio.Future[_Forward]] = {}
        self._subscription: Subscription | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._post = RequestBodyLimitMiddleware(self._handle_post, max_body)
        self.stream: ASGIApp = _App(self._stream)
        self.messages: ASGIApp = _App(self._messages)

    @property
    def active_sessions(self) -> int:
        """SSE sessions whose stream is open on this instance."""
        return len(self._streams)

    async def start(self) -> None:
        """Take POSTs other instances forward here, and their answers; keep this instance's sessions owned."""
        self._subscription = await self.store.subscribe(_channel(self.instance), self._on_forward)
        self._spawn(self._renew())

    async def close(self) -> None:
        """Stop taking forwarded POSTs and renewing owner entries (the streams' own ends delete those)."""
        if self._subscription is not None:
            await self._subscription.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _renew(self) -> None:
        owner = msgspec.json.encode(_Owner(self.instance))
        while True:
            await asyncio.sleep(self._lease / RENEWALS_PER_LEASE)
            try:
                for session_id in list(self._streams):
                    await self.store.put(SESSION_KIND, session_id.hex, owner, self._lease)
            except Exception:
                log.exception("renewing the owner entries of /sse sessions failed")

    # The stream -----------------------------------------------------------------------------------------------------

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``GET /sse``: the session's event stream, open until the client leaves."""
        refusal = await self._security.validate_request(Request(scope, receive), is_post=False)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        session_id = uuid4()
        # Recorded before the client learns the session's endpoint: a POST to any instance finds its owner.
        await self.store.put(SESSION_KIND, session_id.hex, msgspec.json.encode(_Owner(self.instance)), self._lease)
        held = self._streams[session_id] = _Stream(scope)
        self._changes.remember(held.subject, session_id.hex, held)
        path = scope.get("root_path", "").rstrip("/") + self.endpoint
        endpoint = f"{quote(path)}?session_id={session_id.hex}"

        async def events() -> AsyncIterator[bytes | dict[str, str]]:
            yield {"event": "endpoint", "data": endpoint}
            while True:
                yield await held.frames.get()

        try:
            await EventSourceResponse(events())(scope, receive, send)
        finally:
            del self._streams[session_id]
            self._changes.forget(held.subject, session_id.hex)
            held.end()
            try:
                await self.store.delete(SESSION_KIND, session_id.hex)
            except Exception:
                log.exception("deleting the owner entry of a closed /sse session failed (it lapses with its lease)")

    # Messages -------------------------------------------------------------------------------------------------------

    async def _messages(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``POST /messages/?session_id=…``: one client message of a session, answered on its stream."""
        if scope["method"] != "POST":
            await Response(status_code=405, headers={"Allow": "POST"})(scope, receive, send)
            return
        await self._post(scope, receive, send)

    async def _handle_post(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        refusal = await self._security.validate_request(request, is_post=True)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        raw_id = request.query_params.get("session_id")
        if raw_id is None:
            await Response("session_id is required", status_code=400)(scope, receive, send)
            return
        try:
            session_id = UUID(hex=raw_id)
        except ValueError:
            await Response("Invalid session ID", status_code=400)(scope, receive, send)
            return
        held = self._streams.get(session_id)
        principal = _principal(scope.get("user"))
        if held is None:
            await self._forward(scope, receive, send, session_id, principal)
        elif held.owner != principal:
            await _not_found(scope, send)
        else:
            await self._dispatch(scope, send, held, await read_body(receive))

    async def _dispatch(self, scope: Scope, send: Send, held: _Stream, body: bytes) -> None:
        """Serve one client message of ``held``'s session, from a POST here or one another instance forwarded."""
        try:
            message = incoming.decode(body)
        except (msgspec.DecodeError, msgspec.ValidationError):
            await self._to_sdk(scope, send, held, body)
            return
        await self._serve(scope, send, held, message, body)

    async def _serve(self, scope: Scope, send: Send, held: _Stream, message: Incoming, body: bytes) -> None:
        method, request_id = message.method, message.id
        if held.opening is None:
            if method == "initialize" and request_id is not None and held.sdk_id is None:
                held.opening = body
                await _accepted(send)
                await held.put(result_frame(request_id, encode(initialize_result(message.params, self._capabilities))))
            else:
                await self._to_sdk(scope, send, held, body)
        elif request_id is not None and method == "tools/list":
            await _accepted(send)
            await held.put(result_frame(request_id, await self.listings.result(held.subject)))
        elif request_id is not None and method == "ping":
            await _accepted(send)
            await held.put(result_frame(request_id, b"{}"))
        elif request_id is not None and method == "tools/call" and (params := call_params(message)) is not None:
            # The request's log line is written when the 202 goes: it names the tool now.
            scope.setdefault("state", {})["tool"] = params.name
            await _accepted(send)
            held.spawn(self._call(scope, held, request_id, params))
        elif method == "notifications/initialized" and request_id is None:
            await _accepted(send)  # the SDK session, if any, was sent its own when it opened
        elif method == "notifications/cancelled" and cancel_call(message.params, held.calls, held.sdk_id is not None):
            await _accepted(send)
        else:
            await self._to_sdk(scope, send, held, body)

    async def _call(self, scope: Scope, held: _Stream, request_id: int | str, params: CallParams) -> None:
        token = params.meta.progressToken if params.meta is not None else None

        async def progress(value: float, total: float | None, note: str) -> None:
            if token is not None:
                await held.put(progress_frame(token, value, total, note))

        task = asyncio.create_task(self._run_tool(Request(scope), params.name, params.arguments, progress))
        held.calls[request_id] = task
        try:
            frame = result_frame(request_id, call_result(await task))
        except asyncio.CancelledError:
            if not task.cancelled() or asyncio.current_task().cancelling():  # type: ignore[union-attr]
                raise
            error = {"code": REQUEST_CANCELLED, "message": "Request cancelled"}
            frame = encode({"jsonrpc": "2.0", "id": request_id, "error": error})
        finally:
            held.calls.pop(request_id, None)
            task.cancel()
        await held.put(frame)

    # Other instances' sessions ----------------------------------------------------------------------------------

    async def _forward(
        self, scope: Scope, receive: Receive, send: Send, session_id: UUID, principal: AuthorizationContext | None
    ) -> None:
        """A POST for a session whose stream is not here: forwarded to the instance holding it, and answered with
        what that instance answers."""
        raw = await self.store.get(SESSION_KIND, session_id.hex)
        owner = _owner_decoder.decode(raw).instance if raw is not None else None
        if owner is None or owner == self.instance:
            # Never opened, closed, or lapsed with its instance: the SDK's answer for an unknown session.
            await _not_found(scope, send)
            return
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"] if k in _BODY_HEADERS]
        body = await read_body(receive)
        mid = uuid4().hex
        post = _Forward("post", mid, self.instance, session_id.hex, principal, headers, body)
        waiting = self._waiting[mid] = asyncio.get_running_loop().create_future()
        try:
            if not await self.store.publish(_channel(owner), msgspec.json.encode(post)):
                # Nobody listens there: the instance stopped before its entry lapsed (the entry is left to lapse: on a
                # SQLite store shared by instances, whose pub/sub stays in each process, its owner may well live).
                await _gone()(scope, replay_body(b""), send)
                return
            async with asyncio.timeout(FORWARD_SECONDS):
                answer = await waiting
        except TimeoutError:
            await _unreachable()(scope, replay_body(b""), send)
            return
        finally:
            self._waiting.pop(mid, None)
        if answer.tool:
            scope.setdefault("state", {})["tool"] = answer.tool
        raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers]
        await send({"type": "http.response.start", "status": answer.status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": answer.body, "more_body": False})

    def _on_forward(self, message: bytes) -> None:
        try:
            forward = _forward_decoder.decode(message)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("ignored an unreadable /sse message from another instance")
            return
        if forward.op == "post":
            self._spawn(self._take(forward))
        elif forward.op == "answer":
            waiting = self._waiting.get(forward.mid)
            if waiting is not None and not waiting.done():
                waiting.set_result(forward)

    async def _take(self, post: _Forward) -> None:
        """Serve a POST another instance forwarded here, as one of this instance's own, and send back its answer."""
        answer = _Forward("answer", post.mid)
        chunks: list[bytes] = []
        sent = False

        async def send(message: Message) -> None:
            nonlocal sent
            if message["type"] == "http.response.start":
                answer.status = message["status"]
                answer.headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", [])]
            elif message["type"] == "http.response.body" and not sent:
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    # Answered as soon as the message is taken: a call runs on after its 202.
                    sent = True
                    answer.body = b"".join(chunks)
                    answer.tool = str(scope.get("state", {}).get("tool", ""))
                    await self.store.publish(_channel(post.origin), msgspec.json.encode(answer))

        held = None
        with contextlib.suppress(ValueError):
            held = self._streams.get(UUID(hex=post.session))
        # A refusal needs no request of its own; a message taken is served with one made from the stream's.
        scope: Scope = {"type": "http", "state": {}}
        try:
            if held is None or held.ended.is_set():
                await _gone()(scope, replay_body(b""), send)
            elif held.owner != post.principal:
                await _not_found(scope, send)
            else:
                # This instance accepted the stream's Host and Origin, the other one the POST's own: the SDK, behind
                # its own checks, sees those.
                headers = [(k, v) for k, v in held.scope["headers"] if k not in _BODY_HEADERS]
                headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in post.headers]
                query = urlencode({"session_id": post.session}).encode()
                scope = {**held.scope, "method": "POST", "headers": headers, "query_string": query, "state": {}}
                await self._dispatch(scope, send, held, post.body)
        except Exception:
            log.exception("serving a POST forwarded from another instance failed")
            if not sent:
                await JSONResponse(_error("The server failed to take the message; retry."), 500)(
                    scope, replay_body(b""), send
                )

    # The SDK --------------------------------------------------------------------------------------------------------

    async def _to_sdk(self, scope: Scope, send: Send, held: _Stream, body: bytes) -> None:
        """Hand a message to the SDK session behind ``held`` (opened for it if need be)."""
        sdk_id = await self._attach(scope, held)
        if sdk_id is None:
            await Response("Could not find session", status_code=404)(scope, replay_body(b""), send)
            return
        await self.sdk_messages(_for_sdk(scope, held, sdk_id), replay_body(body), send)

    async def _attach(self, scope: Scope, held: _Stream) -> str | None:
        async with held.attaching:
            if held.sdk_id is not None or held.ended.is_set():
                return held.sdk_id
            opened: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
            # A state of its own: the SDK's stream outlives the POST whose log line the POST's state feeds.
            stream = {"method": "GET", "path": "/sse", "query_string": b"", "user": held.user, "state": {}}
            stream_scope = {**scope, **stream}
            held.spawn(self._run_sdk(stream_scope, held, opened))
            sdk_id = await opened
            if sdk_id is None:
                return None
            if held.opening is not None:
                held.swallow = asyncio.get_running_loop().create_future()
                await self.sdk_messages(_for_sdk(scope, held, sdk_id), replay_body(held.opening), discard_reply)
                async with asyncio.timeout(ATTACH_SECONDS):
                    await held.swallow
                await self.sdk_messages(_for_sdk(scope, held, sdk_id), replay_body(_INITIALIZED), discard_reply)
            held.sdk_id = sdk_id
            return sdk_id

    async def _run_sdk(self, scope: Scope, held: _Stream, opened: asyncio.Future[str | None]) -> None:
        """The SDK's stream for ``held``, until ours ends: its ``endpoint`` event names its session, its messages go
        to our stream."""
        pending = b""

        async def receive() -> Message:
            await held.ended.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            nonlocal pending
            if message["type"] != "http.response.body":
                return
            pending += message.get("body", b"")
            while b"\r\n\r\n" in pending:
                event, pending = pending.split(b"\r\n\r\n", 1)
                await self._from_sdk(held, event, opened)

        try:
            await self.sdk_stream(scope, receive, send)
        finally:
            if not opened.done():
                opened.set_result(None)

    @staticmethod
    async def _from_sdk(held: _Stream, event: bytes, opened: asyncio.Future[str | None]) -> None:
        kind, data = b"", b""
        for line in event.split(b"\r\n"):
            if line.startswith(b"event: "):
                kind = line[len(b"event: ") :]
            elif line.startswith(b"data: "):
                data = line[len(b"data: ") :]
        if kind == b"endpoint" and not opened.done():
            opened.set_result(parse_qs(urlsplit(data.decode()).query).get("session_id", [""])[0] or None)
        elif kind == b"message":
            if held.swallow is not None and not held.swallow.done():
                held.swallow.set_result(None)  # the reply to the replayed initialize
                return
            await held.frames.put(b"event: message\r\ndata: " + data + b"\r\n\r\n")


def _for_sdk(scope: Scope, held: _Stream, sdk_id: str) -> Scope:
    """``scope`` as a POST of the SDK session ``sdk_id``, made with the credential that opened the stream."""
    return {**scope, "query_string": urlencode({"session_id": sdk_id}).encode(), "user": held.user}


async def _accepted(send: Send) -> None:
    await send({"type": "http.response.start", "status": 202, "headers": [(b"content-length", b"8")]})
    await send({"type": "http.response.body", "body": b"Accepted", "more_body": False})


def _principal(user: Any) -> AuthorizationContext | None:
    """Who a request's credential names, as the SDK compares it with the credential that opened a session."""
    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


def _channel(instance: str) -> str:
    return f"sse:{instance}"


async def _not_found(scope: Scope, send: Send) -> None:
    await Response("Could not find session", status_code=404)(scope, replay_body(b""), send)


def _error(message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}


def _gone() -> Response:
    """The answer for a session whose stream ended, or whose instance stopped, since the client last used it."""
    return JSONResponse(
        _error("Session ended: its event stream closed or the server holding it stopped. Open /sse again."), 410
    )


def _unreachable() -> Response:
    """The answer for a POST the instance holding its session's stream did not take in time."""
    return JSONResponse(
        _error(
            f"The server instance holding this session's event stream did not take the message within "
            f"{FORWARD_SECONDS:g} s. Retry; open /sse again if it keeps failing."
        ),
        504,
    )
