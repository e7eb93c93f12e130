"""What the two lean transports (``remote/lean.py`` for ``/mcp``, ``remote/lean_sse.py`` for ``/sse``) share: reading
a request's body and handing it on again, the caller's identity, a call's params, and the event-stream frame."""

from __future__ import annotations

import asyncio

import msgspec
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.types import Message, Receive, Scope

from design_console.tools.wire.frames import CallParams, Incoming


def caller(scope: Scope) -> tuple[str, str]:
    """The signed-in user and client a request comes from (empty without OAuth)."""
    user = scope.get("user")
    if isinstance(user, AuthenticatedUser):
        return user.access_token.subject or "", user.access_token.client_id
    return "", ""


def replay_body(body: bytes, then: Receive | None = None) -> Receive:
    """A request's ``receive`` once its body was read: the body again, then ``then`` (the client's own, to see it
    disconnect), or for a request made up here a wait that ends only with the reply."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            if then is not None:
                return await then()
            await asyncio.Event().wait()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def read_body(receive: Receive) -> bytes:
    """The whole body of a request (what arrived of it, should the client leave half way)."""
    body = b""
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        body += message.get("body", b"")
        more = message.get("more_body", False)
    return body


async def discard_reply(message: Message) -> None:
    """A ``send`` for a request made up here whose reply nobody reads."""
    return None


def call_params(message: Incoming) -> CallParams | None:
    """The params of a ``tools/call``; None when malformed (the SDK answers those with its error)."""
    try:
        return msgspec.convert(message.params, CallParams)
    except msgspec.ValidationError:
        return None


def sse_event(frame: bytes) -> bytes:
    """A JSON-RPC frame as one ``message`` event of an event stream."""
    return b"event: message\r\ndata: " + frame + b"\r\n\r\n"
