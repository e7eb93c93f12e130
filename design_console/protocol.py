"""Every message between our processes (shim, designctl, workers ⇄ designd), as msgspec structs on MessagePack.

Frames are tagged by ``op``. Requests carry an ``id``; zero or more :class:`Progress` frames may precede the final
:class:`Result`, :class:`ToolResult` or :class:`Error` with the same id. Unsolicited frames have ``id=""``.
Each peer opens with :class:`Hello` and the daemon answers :class:`Welcome`; a peer speaking another
:data:`PROTOCOL_VERSION` is refused with ``Error(code="version_mismatch")``.

Bytes (images) travel as msgpack ``bin``; JSON-RPC messages from AI apps travel untouched inside :class:`Rpc`.
"""

from typing import Any

import msgspec

PROTOCOL_VERSION = 1

#: A worker sends a Ping this often, so designd can tell a frozen worker from a quiet one.
WORKER_HEARTBEAT_SECONDS = 2.0

#: Peer kinds named in :attr:`Hello.peer`; workers are ``worker:<kind>``.
PEER_SHIM = "shim"
PEER_CTL = "ctl"
WORKER_PREFIX = "worker:"


class Frame(msgspec.Struct, tag_field="op", omit_defaults=True, kw_only=True):
    """Base of every frame; ``id`` correlates a request with its replies."""

    id: str = ""


class Hello(Frame, tag="hello"):
    """First frame of every peer."""

    peer: str
    version: int
    pid: int
    session: str = ""
    #: The peer's working directory: relative file paths in its tool calls resolve against it.
    cwd: str = ""
    #: The AI app's DESIGN_ACCESS_TOKEN: design API calls of this peer's session use it (designd's own when empty).
    #: Kept in designd's memory for the session only, never written to a file or a log.
    access_token: str = ""


class Welcome(Frame, tag="welcome"):
    """The daemon's answer to a valid Hello."""

    version: int
    server_version: str
    pid: int


class Rpc(Frame, tag="rpc"):
    """One JSON-RPC message (UTF-8 JSON bytes) between an AI app and the daemon's MCP session for it."""

    data: bytes


class Ping(Frame, tag="ping"):
    """Liveness probe; answered with Pong carrying the same id."""


class Pong(Frame, tag="pong"):
    """Answer to Ping."""


class Bye(Frame, tag="bye"):
    """A peer leaves (shim on stdin EOF, worker on shutdown); the daemon drops its state at once."""

    reason: str = ""


class Call(Frame, tag="call"):
    """Run one tool of the catalog: designctl → daemon, or daemon → worker."""

    tool: str
    arguments: dict[str, Any] = {}
    active_file_key: str = ""
    #: For tools that touch the user's files: the AI app's working directory and its MCP roots (None: none offered).
    cwd: str = ""
    roots: list[str] | None = None
    #: The calling session's design API token ("": designd's own, DESIGN_ACCESS_TOKEN of its environment).
    access_token: str = ""


class Cancel(Frame, tag="cancel"):
    """designd → worker: stop the Call with this id, whose AI app went away or cancelled it. Nothing answers it."""


class Command(Frame, tag="command"):
    """A control command from designctl (``status`` or ``stop``); answered with Result or Error."""

    name: str
    args: dict[str, Any] = {}


class BridgeCall(Frame, tag="bridge"):
    """A worker asks the daemon, which owns the bridge, to send one command to the plugin."""

    method: str
    params: dict[str, Any] = {}
    file_key: str = ""
    timeout: float = 0.0
    #: The params already encoded as JSON, sent instead of ``params``: designd puts them into the command as they
    #: are, so a big command (a token import's change set) is never decoded into objects in designd.
    params_json: bytes = b""


class StateQuery(Frame, tag="state"):
    """A worker asks the daemon for state the plugin pushed (``what="metadata_changes"``); answered with Result."""

    what: str
    file_key: str = ""


class Progress(Frame, tag="progress"):
    """Progress of a long request; only forwarded to the AI app when it asked for progress."""

    progress: float
    total: float | None = None
    message: str = ""


class Result(Frame, tag="result"):
    """Successful answer carrying plain data."""

    data: Any = None


class TextBlock(msgspec.Struct, tag="text", tag_field="type"):
    """A text block of a tool result."""

    text: str


class ImageBlock(msgspec.Struct, tag="image", tag_field="type"):
    """An image block of a tool result; raw bytes until the last hop base64-encodes them."""

    data: bytes
    mime_type: str


class ToolOutput(msgspec.Struct, omit_defaults=True, kw_only=True):
    """What a tool handler returns, in whichever process it ran."""

    content: list[TextBlock | ImageBlock] = []
    is_error: bool = False


class ToolResult(Frame, tag="tool_result"):
    """Answer to Call."""

    output: ToolOutput


class Error(Frame, tag="error"):
    """Failed request, or a frame that could not be decoded (``code="bad_request"``)."""

    code: str
    message: str


AnyFrame = (
    Hello
    | Welcome
    | Rpc
    | Ping
    | Pong
    | Bye
    | Call
    | Cancel
    | Command
    | BridgeCall
    | StateQuery
    | Progress
    | Result
    | ToolResult
    | Error
)

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(AnyFrame)


def encode(frame: Frame) -> bytes:
    """Encode one frame to MessagePack."""
    return _encoder.encode(frame)


def decode(data: bytes) -> AnyFrame:
    """Decode one frame; raises ``msgspec.DecodeError`` (with a path for validation errors) on bad input."""
    frame: AnyFrame = _decoder.decode(data)
    return frame


#: The largest frame the control socket takes, either way (a full-page screenshot fits with room to spare).
MAX_FRAME_BYTES = 96 * 1024 * 1024
