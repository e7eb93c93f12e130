"""The frames of the bridge protocol and its handshake proof check, shared by designd's bridge and the Remote Mode
relay, which speak the same protocol to the plugin (docs/bridge-protocol.md)."""

from __future__ import annotations

import hmac
import re
from typing import Any

import msgspec

from design_console.plugin_contract import bridge_proof

#: The largest frame either side accepts (screenshots and image fills are large).
MAX_FRAME_BYTES = 64 * 1024 * 1024
#: A server's handshake nonce: 32 random bytes (hex) per socket.
NONCE_BYTES = 32
#: The plugin's nonce must carry at least 128 bits (32 hex digits); a longer one than 128 characters is refused.
PLUGIN_NONCE_CHARS = range(32, 129)


class Frame(msgspec.Struct):
    """Any message from the plugin: an event (``type`` + ``data``) or a reply (``id`` + ``result``/``error``)."""

    type: str | None = None
    id: str | int | None = None
    method: str | None = None
    result: msgspec.Raw = msgspec.Raw()
    error: msgspec.Raw = msgspec.Raw()
    code: str | None = None
    data: msgspec.Raw = msgspec.Raw()


class HelloData(msgspec.Struct):
    pluginVersion: str | None = None
    protocol: int | None = None
    nonce: str = ""
    proof: str = ""
    #: Only a protocol-2 plugin sends the token itself; it is refused without being compared or logged.
    token: str = ""


class ProgressData(msgspec.Struct):
    """What a PROGRESS frame (ours) says about a command in flight."""

    id: str | int
    progress: float
    total: float | None = None
    message: str = ""


_frame_decoder = msgspec.json.Decoder(Frame)
#: A JSON escape that matters to surrogates: a valid pair (kept), a lone surrogate (replaced), or an escaped
#: backslash (kept, and consumed so that a literal "\\ud83d" is never read as an escape).
_SURROGATE_ESCAPES = re.compile(
    rb"(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})|\\u[dD][89a-fA-F][0-9a-fA-F]{2}|(\\\\)"
)


def _replace_lone_surrogates(data: bytes) -> bytes:
    return _SURROGATE_ESCAPES.sub(lambda m: m.group(1) or m.group(2) or rb"\ufffd", data)


def decode_frame(message: str | bytes, counters: dict[str, int]) -> Frame:
    """Decode a plugin frame. JavaScript strings may hold half an emoji (a user's own slice can cut one), which
    JSON.stringify sends as a lone surrogate escape; it becomes U+FFFD instead of costing the whole frame.

    Every way a frame can be unreadable raises ``msgspec.DecodeError``: a binary frame that is not UTF-8 (websockets
    checks only text frames, and the bytes would otherwise reach the event decoders inside a raw field) and JSON
    nested deeper than the decoder recurses (``RecursionError``) included."""
    if isinstance(message, str):
        data = message.encode()
    else:
        data = message
        try:
            data.decode()
        except UnicodeDecodeError as exc:
            raise msgspec.DecodeError(f"a binary frame that is not UTF-8: {exc}") from None
    try:
        return _frame_decoder.decode(data)
    except RecursionError:
        raise msgspec.DecodeError("JSON nested too deeply") from None
    except msgspec.DecodeError:
        if b"\\u" not in data:
            raise
        repaired = _replace_lone_surrogates(data)
        if repaired == data:
            raise
    try:
        frame = _frame_decoder.decode(repaired)
    except RecursionError:
        # The lone surrogate stopped the first decode before it reached the depth.
        raise msgspec.DecodeError("JSON nested too deeply") from None
    counters["surrogatesReplaced"] += 1
    return frame


_hello_decoder = msgspec.json.Decoder(HelloData)


def decode_hello(data: bytes) -> HelloData:
    """A HELLO's data; raises ``msgspec.DecodeError`` when it is not one."""
    return _hello_decoder.decode(data)


def plugin_proof_valid(secret: str, port: int, server_nonce: str, hello: HelloData) -> bool:
    """Whether a HELLO proves its sender holds ``secret`` (the bridge token, or a relay's reconnect credential) for
    this socket's nonce and ``port``; compared in constant time."""
    if not secret or not hello.proof or len(hello.nonce) not in PLUGIN_NONCE_CHARS:
        return False
    expected = bridge_proof(secret, "plugin", port, server_nonce, hello.nonce)
    return hmac.compare_digest(expected.encode(), hello.proof.encode(errors="replace"))


class PluginFailure(Exception):
    """A reply that reports a failure: the plugin's ``message`` and machine-readable ``code``, if any."""

    def __init__(self, message: str, code: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class UnusableReply(Exception):
    """A reply that is neither a result object nor an error (the text says what it is instead)."""


_encoder = msgspec.json.Encoder()


def reply_result(reply: Frame) -> dict[str, Any]:
    """A command's result object from its reply; raises :class:`PluginFailure` or :class:`UnusableReply`."""
    try:
        error = msgspec.json.decode(reply.error) if len(reply.error) else None
        result = msgspec.json.decode(reply.result) if len(reply.result) else None
    except msgspec.DecodeError as exc:
        raise UnusableReply(str(exc)) from None
    if error is not None:
        raise PluginFailure(error if isinstance(error, str) else _encoder.encode(error).decode(), reply.code)
    if not isinstance(result, dict):
        raise UnusableReply("no result" if result is None else f"a {type(result).__name__} instead of an object")
    if result.get("success") is False:
        message = result.get("error") or result.get("message") or "the plugin reported a failure without a reason"
        code = result.get("code")
        raise PluginFailure(
            message if isinstance(message, str) else _encoder.encode(message).decode(),
            code if isinstance(code, str) else None,
        )
    return result
