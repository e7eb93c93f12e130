"""Hypothesis strategies for the fuzz suite and bench/fuzz_long.py: hostile inputs for designd's three input
surfaces (control frames, bridge frames, tool arguments), and the budgets that bound a CI run of them."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from design_console import protocol

#: Deep enough to overflow any recursive decoder, as the hardening issue asks.
DEEP = 100_000
#: Bigger than any legitimate single field, small enough that a batch stays quick on a 2-core CI machine.
HUGE = 2 * 1024 * 1024

#: Examples per test in CI; bench/fuzz_long.py raises it. derandomize keeps CI reproducible.
CI_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)

BOUNDARY_INTS = [0, -1, 1, 2**31 - 1, -(2**31), 2**53, 2**63 - 1, -(2**63), 2**63, 2**64, 10**30, -(10**30)]
BOUNDARY_FLOATS = [0.0, -0.0, 1e-308, 5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 0.5, -0.5]


def text() -> st.SearchStrategy[str]:
    """Short text with any code point a JSON string may carry, plus a few huge strings."""
    return st.one_of(
        st.text(max_size=40),
        st.sampled_from(["", " ", "\x00", "\ufffd", "💥" * 3, "a" * 70_000]),
    )


#: The integers MessagePack can carry at all.
MSGPACK_INTS = [i for i in BOUNDARY_INTS if -(2**63) <= i < 2**64]


def scalars(msgpack: bool = False) -> st.SearchStrategy[Any]:
    """JSON scalars with the boundary numbers that trip range checks and integer conversions (only those
    MessagePack can encode when ``msgpack``)."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**63), 2**64 - 1) if msgpack else st.integers(),
        st.sampled_from(MSGPACK_INTS if msgpack else BOUNDARY_INTS),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(BOUNDARY_FLOATS),
        text(),
    )


def json_values(max_leaves: int = 12, *, msgpack: bool = False) -> st.SearchStrategy[Any]:
    """Any JSON value: nested lists and objects of scalars."""
    return st.recursive(
        scalars(msgpack),
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
        max_leaves=max_leaves,
    )


def deep_json(depth: int = DEEP) -> bytes:
    """A JSON array nested ``depth`` levels deep."""
    return b"[" * depth + b"]" * depth


# --- control frames (MessagePack on the ZeroMQ control socket) ----------------------------------------------------

#: Every op a peer could name, from the protocol itself, plus names it does not know.
OPS = sorted(
    {cls.__struct_config__.tag for cls in protocol.AnyFrame.__args__}  # type: ignore[attr-defined]
)
#: Fields each op's struct declares, so frames can be structurally right but wrong in type or size.
OP_FIELDS = {
    cls.__struct_config__.tag: cls.__struct_fields__
    for cls in protocol.AnyFrame.__args__  # type: ignore[attr-defined]
}
#: Commands that do something lasting: a fuzzer that sent ``stop`` would only prove that stop works.
SAFE_COMMANDS = ["status", "", "restart", "STATUS", "stop\x00"]


def _frame_value() -> st.SearchStrategy[Any]:
    return st.one_of(json_values(msgpack=True), st.binary(max_size=64), st.sampled_from([b"", b"\xff" * 10]))


@st.composite
def control_frame(draw: st.DrawFn) -> bytes:
    """One MessagePack frame: a frame of a real op whose fields have random types and sizes, plus unknown fields."""
    op = draw(st.sampled_from([*OPS, "launch", "", "HELLO"]))
    fields: dict[str, Any] = {"op": op}
    for name in OP_FIELDS.get(op, ()):
        if draw(st.booleans()):
            fields[name] = draw(_frame_value())
    if op == "command":
        fields["name"] = draw(st.sampled_from(SAFE_COMMANDS))
    if op == "call" and "tool" in fields:
        fields["tool"] = draw(st.sampled_from(["design_get_status", "no_such_tool", "", "design_get_console_logs"]))
    if op == "hello":
        fields["version"] = draw(st.one_of(st.just(protocol.PROTOCOL_VERSION), st.sampled_from(MSGPACK_INTS)))
        fields["peer"] = draw(st.sampled_from(["ctl", "shim", "worker:api", "worker:nope", "", "x" * 5000]))
    extra = draw(st.dictionaries(st.text(max_size=8), _frame_value(), max_size=3))
    return msgspec.msgpack.encode({**extra, **fields})


def _msgpack_deep(depth: int) -> bytes:
    # fixarray of one element, ``depth`` times, around nil.
    return b"\x91" * depth + b"\xc0"


def _bad_utf8_frame(op: str) -> bytes:
    # {"op": op, "id": <str8 with invalid UTF-8>}
    return b"\x82\xa2op" + msgspec.msgpack.encode(op) + b"\xa2id\xa3\xff\xfe\xfd"


@st.composite
def control_message(draw: st.DrawFn) -> list[bytes]:
    """One multipart ZeroMQ message from a raw DEALER: a frame, garbage, or a frame cut or split into parts."""
    kind = draw(st.sampled_from(["frame", "frame", "random", "truncated", "utf8", "deep", "parts", "empty"]))
    if kind == "random":
        return [draw(st.binary(max_size=256))]
    if kind == "utf8":
        return [_bad_utf8_frame(draw(st.sampled_from(OPS)))]
    if kind == "deep":
        return [draw(st.sampled_from([_msgpack_deep(DEEP), b"\x81\xa1a" * DEEP + b"\xc0"]))]
    if kind == "empty":
        return [b""]
    frame = draw(control_frame())
    if kind == "truncated":
        return [frame[: draw(st.integers(0, max(0, len(frame) - 1)))]]
    if kind == "parts":
        return [frame, *draw(st.lists(st.binary(max_size=32), min_size=1, max_size=3))]
    return [frame]


#: Tools a fuzzed Call or tools/call may name: a fuzzer that ran every tool would test the tools, not designd.
SAFE_TOOLS = ["design_get_status", "design_get_console_logs", "no_such_tool", ""]
#: Kinds a fuzzing peer says it is: each reaches other handlers behind the hello (sessions, ctl calls, workers).
PEER_KINDS = ["ctl", "shim", "worker:api", "worker:media", "worker:nope"]


def _typed(annotation: Any) -> st.SearchStrategy[Any]:
    """Values of a protocol field's type, wide open within it (NaN, infinities, 64-bit edges, unknown keys)."""
    kind = repr(annotation)
    if annotation is str:
        return text()
    if annotation is int:
        return st.one_of(st.integers(-(2**63), 2**63 - 1), st.sampled_from([0, -1, 2**63 - 1, -(2**63)]))
    if annotation is float:
        return st.floats()
    if annotation is bytes:
        return st.binary(max_size=64)
    if annotation is protocol.ToolOutput:
        return st.builds(lambda t, e: {"content": [{"type": "text", "text": t}], "is_error": e}, text(), st.booleans())
    if kind.startswith("dict["):
        return st.dictionaries(st.text(max_size=8), json_values(6, msgpack=True), max_size=4)
    if kind.startswith("list[str]"):
        return st.one_of(st.none(), st.lists(text(), max_size=3))
    if kind.startswith("float |"):
        return st.one_of(st.none(), st.floats())
    return json_values(6, msgpack=True)


def rpc_data() -> st.SearchStrategy[bytes]:
    """What a shim's Rpc frame carries: JSON-RPC messages of the MCP methods with random params, or garbage."""
    message = st.fixed_dictionaries(
        {"jsonrpc": st.sampled_from(["2.0", "1.0"])},
        optional={
            "id": st.one_of(st.integers(-(2**63), 2**63 - 1), text(), st.none()),
            "method": st.sampled_from(["initialize", "tools/list", "tools/call", "ping", "resources/list", "x"]),
            "params": st.one_of(
                json_values(6),
                st.fixed_dictionaries({"name": st.sampled_from(SAFE_TOOLS), "arguments": json_values(6)}),
            ),
        },
    )
    return st.one_of(message.map(lambda m: json.dumps(m).encode()), st.binary(max_size=64))


@st.composite
def valid_frame(draw: st.DrawFn) -> bytes:
    """A frame that decodes: every op, required fields always, optional ones sometimes, each of its own type."""
    cls = draw(st.sampled_from(protocol.AnyFrame.__args__))  # type: ignore[attr-defined]
    fields: dict[str, Any] = {"op": cls.__struct_config__.tag}
    for field in msgspec.structs.fields(cls):
        if field.required or draw(st.booleans()):
            fields[field.encode_name] = draw(_typed(field.type))
    overrides = {
        "call": ("tool", st.sampled_from(SAFE_TOOLS)),
        "command": ("name", st.sampled_from(SAFE_COMMANDS)),
        "hello": ("version", st.just(protocol.PROTOCOL_VERSION)),
        "rpc": ("data", rpc_data()),
    }
    if fields["op"] in overrides:
        name, strategy = overrides[fields["op"]]
        fields[name] = draw(strategy)
    if fields["op"] == "hello":
        fields["peer"] = draw(st.sampled_from(PEER_KINDS))
    return msgspec.msgpack.encode(fields)


def control_session() -> st.SearchStrategy[tuple[str, list[bytes]]]:
    """A peer of some kind that says hello, then sends frames (mostly valid ones) through the handlers behind it."""
    return st.tuples(
        st.sampled_from(PEER_KINDS),
        st.lists(st.one_of(valid_frame(), valid_frame(), control_frame()), min_size=1, max_size=8),
    )


# --- bridge frames (JSON over the plugin's WebSocket) -------------------------------------------------------------

#: Frame types the bridge knows (events, identification, progress, HELLO) plus ones it does not.
BRIDGE_TYPES = [
    "HELLO",
    "FILE_INFO",
    "PROGRESS",
    "CONSOLE_CAPTURE",
    "SELECTION_CHANGE",
    "PAGE_CHANGE",
    "DOCUMENT_CHANGE",
    "METADATA_CHANGE",
    "VARIABLES_DATA",
    "SERVER_HELLO",
    "NOPE",
    "",
]
LONE_SURROGATES = ['"\\ud83d"', '"x\\udc00y"', '"\\ud83d\\\\ud83d"', '"\\uDBFF"']


@st.composite
def bridge_object(draw: st.DrawFn) -> Any:
    """A frame-shaped JSON object: an event of a known or unknown type with random data, or a reply to an id."""
    shape = draw(st.sampled_from(["event", "reply", "random"]))
    if shape == "event":
        frame: dict[str, Any] = {"type": draw(st.sampled_from(BRIDGE_TYPES)), "data": draw(json_values())}
        if frame["type"] == "FILE_INFO" and isinstance(frame["data"], dict):
            # Never claim the legitimate plugin's file: replacing its socket is allowed, not a fault.
            frame["data"]["fileKey"] = "fuzz-" + str(frame["data"].get("fileKey"))[:20]
    elif shape == "reply":
        frame = {"id": draw(st.one_of(text(), st.integers(), st.sampled_from(BOUNDARY_INTS), st.none()))}
        for key in draw(st.sets(st.sampled_from(["result", "error", "code"]), max_size=3)):
            frame[key] = draw(json_values())
    else:
        return draw(json_values())
    frame.update(draw(st.dictionaries(st.text(max_size=8), json_values(4), max_size=2)))
    return frame


@st.composite
def bridge_message(draw: st.DrawFn) -> str | bytes:
    """One WebSocket message: JSON text, the same as binary, cut short, garbage, surrogates, deep or huge."""
    kind = draw(
        st.sampled_from(["json", "json", "binary", "truncated", "garbage", "surrogate", "deep", "huge", "badutf8"])
    )
    if kind == "garbage":
        return draw(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
    if kind == "deep":
        inner = draw(st.sampled_from([deep_json(DEEP), b'{"a":' * DEEP + b"1" + b"}" * DEEP]))
        return b'{"type":"CONSOLE_CAPTURE","data":' + inner + b"}"
    if kind == "huge":
        kind_ = draw(st.sampled_from(["CONSOLE_CAPTURE", "FILE_INFO", "NOPE"]))
        return json.dumps({"type": kind_, "data": {"message": "m" * HUGE, "level": "log", "fileKey": "fuzz-huge"}})
    if kind == "badutf8":
        return b'{"type":"CONSOLE_CAPTURE","data":{"level":"log","message":"\xff\xfe","timestamp":1}}'
    text_ = json.dumps(draw(bridge_object()))
    if kind == "surrogate":
        escape = draw(st.sampled_from(LONE_SURROGATES))
        return '{"type":"' + draw(st.sampled_from(BRIDGE_TYPES)) + '","data":{"level":"log","message":' + escape + "}}"
    if kind == "binary":
        return text_.encode()
    if kind == "truncated":
        return text_[: draw(st.integers(0, max(0, len(text_) - 1)))]
    return text_


# --- tool arguments (JSON objects through parse_args and the published input schema) ------------------------------


def hostile_arguments(field_names: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """An arguments object: the tool's own field names and unknown ones, each with any JSON value."""
    keys = st.one_of(st.sampled_from(field_names), st.text(max_size=12)) if field_names else st.text(max_size=12)
    return st.dictionaries(keys, json_values(8), max_size=6)


def _schema_types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, list):
        return kind
    return [kind] if isinstance(kind, str) else []


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values a published input schema accepts, reaching for its edges (bounds, item limits, patterns).

    The schemas use a small part of JSON Schema (type, properties, required, enum, items, bounds, pattern); a
    keyword outside it fails here rather than being ignored."""
    known = {"type", "properties", "required", "default", "description", "enum", "items", "minItems", "maxItems"}
    known |= {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "additionalProperties", "anyOf"}
    unknown = set(schema) - known
    if unknown:
        raise ValueError(f"from_schema does not know {sorted(unknown)}")
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([from_schema(s) for s in schema["anyOf"]])
    types = _schema_types(schema)
    if not types:
        return json_values(6)
    return st.one_of([_of_type(t, schema) for t in types])


def _of_type(kind: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        exclusive = schema.get("exclusiveMinimum")
        if kind == "integer":
            low = exclusive + 1 if exclusive is not None else low
            ints = st.integers(min_value=low, max_value=high)
            edges = [v for v in (low, high) if v is not None]
            return st.one_of(ints, st.sampled_from(edges)) if edges else ints
        floats = st.floats(
            min_value=exclusive if exclusive is not None else low,
            max_value=high,
            exclude_min=exclusive is not None,
            allow_nan=False,
            allow_infinity=False,
        )
        whole = st.integers(
            min_value=int(exclusive) + 1 if exclusive is not None else (None if low is None else int(-(-low // 1))),
            max_value=None if high is None else int(high // 1),
        )
        return st.one_of(floats, whole)
    if kind == "string":
        pattern = schema.get("pattern")
        return st.from_regex(pattern) if pattern else text()
    if kind == "array":
        item = from_schema(schema.get("items", {}))
        low = schema.get("minItems", 0)
        return st.lists(item, min_size=low, max_size=max(low, min(schema.get("maxItems", 5), 5)))
    if kind == "object":
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        fixed = {name: from_schema(sub) for name, sub in properties.items() if name in required}
        optional = {name: from_schema(sub) for name, sub in properties.items() if name not in required}
        extra = schema.get("additionalProperties")
        objects = st.fixed_dictionaries(fixed, optional=optional)
        if isinstance(extra, dict):
            more = st.dictionaries(st.text(max_size=8), from_schema(extra), max_size=3)
            return st.builds(lambda known, rest: {**rest, **known}, objects, more)
        return objects
    raise ValueError(f"from_schema does not know type {kind!r}")
