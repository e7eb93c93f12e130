"""Shaping of design API responses: verbosity, depth, a size budget, and opaque cursors to fetch the next part.

Large files are walked lazily: a node is decoded as ``dict[str, msgspec.Raw]`` (values stay slices of the one
response body), so only the nodes that go into this part of the answer are ever turned into Python objects.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.tokens.values import design_color, hex_text

#: Roughly four characters a token; results are kept well under a model's 25,000-token tool-result limit.
CHARS_PER_TOKEN = 4
DEFAULT_RESULT_TOKENS = 8_000
MAX_RESULT_TOKENS = 20_000

Verbosity = Literal["summary", "standard", "full", "plugin"]


class Page(Protocol):
    """What a paged read asks for (the tools' ``PagedArgs``): a size budget and where to go on."""

    @property
    def maxTokens(self) -> int | None: ...

    @property
    def cursor(self) -> str | None: ...


#: Room kept for the envelope around the items (file metadata, cursor, counts).
ENVELOPE_CHARS = 1_500
#: What fit_items already keeps back for the envelope, of which the result built so far is a part.
ENVELOPE_ROOM = ENVELOPE_CHARS // 2
MIN_RESULT_TOKENS = 500
MAX_TEXT_CHARS = 200
#: Values of each variant axis shown when a component set's axes alone would take half the budget.
AXIS_VALUES_SHOWN = 20

_fields = msgspec.json.Decoder(dict[str, msgspec.Raw])
_raw_list = msgspec.json.Decoder(list[msgspec.Raw])
_any = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()
_cursor_codec = msgspec.msgpack.Encoder()
_cursor_decoder = msgspec.msgpack.Decoder(dict[str, Any])

#: A node's auto-layout and box keys: what a standard-verbosity node and a design-system spec both keep of it.
LAYOUT_KEYS = (
    "layoutMode",
    "itemSpacing",
    "paddingLeft",
    "paddingRight",
    "paddingTop",
    "paddingBottom",
    "primaryAxisAlignItems",
    "counterAxisAlignItems",
    "cornerRadius",
    "strokeWeight",
)
_STANDARD_KEYS = ("visible", "opacity", "componentId", *LAYOUT_KEYS, "styles")


def to_json(value: Any) -> str:
    """Compact JSON text of any msgspec-encodable value."""
    return _encoder.encode(value).decode()


def budget_chars(max_tokens: int | None) -> int:
    """The size budget, in characters, of a result asked for with ``maxTokens`` (default: the project default)."""
    tokens = DEFAULT_RESULT_TOKENS if max_tokens is None else max(MIN_RESULT_TOKENS, min(MAX_RESULT_TOKENS, max_tokens))
    return tokens * CHARS_PER_TOKEN


def size_of(value: Any) -> int:
    """Characters ``value`` takes as compact JSON."""
    return len(_encoder.encode(value))


# Cursors ----------------------------------------------------------------------------------------------------------


def cut(value: Any, max_chars: int) -> Any:
    """``value`` itself when its JSON fits in ``max_chars``, else the start of that JSON text with a note."""
    text = msgspec.json.encode(value).decode()
    if len(text) <= max_chars:
        return value
    return f"{text[:max_chars]}… [{len(text) - max_chars} more characters]"


def request_digest(*parts: Any) -> str:
    """A short digest of the arguments that shape a result; a cursor is only valid for the same ones."""
    return hashlib.sha256(_encoder.encode(parts)).hexdigest()[:16]


def encode_cursor(scope: str, digest: str, position: Any, version: str | None = None, file: str | None = None) -> str:
    """An opaque cursor pointing at ``position`` of the result of request ``digest`` of tool ``scope``, made from
    ``version`` of ``file`` when they are given."""
    payload = {"s": scope, "d": digest, "p": position, "v": version or ""}
    if file:
        payload["f"] = file
    return base64.urlsafe_b64encode(_cursor_codec.encode(payload)).decode().rstrip("=")


def decode_cursor(cursor: str, scope: str, digest: str, version: str | None = None, file: str | None = None) -> Any:
    """The position a cursor points at; a cursor of another file, of another request or of an older file version is
    refused, each with what to do instead."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        payload = _cursor_decoder.decode(raw)
        position = payload["p"]
        same = payload.get("s") == scope and payload.get("d") == digest
    except (ValueError, msgspec.DecodeError, KeyError, TypeError):
        raise DesignError(ErrorCode.BAD_ARGUMENT, "The cursor is not one this tool handed out.", _CURSOR_HINT) from None
    if file and payload.get("f") and payload["f"] != file:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"The cursor was handed out for another file ({payload['f']}), not {file}.",
            "Call again without cursor to read this file from the start, or target the cursor's file with fileKey.",
        )
    if not same:
        raise DesignError(ErrorCode.BAD_ARGUMENT, "The cursor belongs to a call with other arguments.", _CURSOR_HINT)
    if version is not None and payload.get("v") and payload["v"] != version:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            "The file changed since this cursor was handed out.",
            "Call again without cursor to read the current version from the start.",
        )
    return position


def paged(result: dict[str, Any], next_cursor: str | None) -> dict[str, Any]:
    """``result`` in the one paging shape of every read: ``nextCursor`` is there exactly when there is more, and the
    tool takes it back as ``cursor``."""
    if next_cursor:
        result["nextCursor"] = next_cursor
    return result


_CURSOR_HINT = "Repeat the call with the same arguments plus the cursor of its last answer, or drop the cursor."


# Lists ------------------------------------------------------------------------------------------------------------


def fit_items(items: Sequence[Any], start: int, budget: int, limit: int | None = None) -> tuple[list[Any], int | None]:
    """Items from ``start`` that fit in ``budget`` characters (at most ``limit``); and where the next part starts."""
    out: list[Any] = []
    used = ENVELOPE_CHARS
    index = start
    end = len(items) if limit is None else min(len(items), start + limit)
    while index < end:
        cost = size_of(items[index]) + 1
        if out and used + cost > budget:
            break
        out.append(items[index])
        used += cost
        index += 1
    return out, (index if index < len(items) else None)


def page_items(
    items: Sequence[Any],
    *,
    scope: str,
    request: Any,
    source: Any,
    cursor: str | None,
    budget: int,
) -> tuple[list[Any], str | None]:
    """One budget-sized part of a list a tool built from ``source`` (a plugin reply) for ``request`` (the file and
    the arguments that shape the list), from where ``cursor`` points; and the cursor to the next part. A cursor of
    another request, or handed out before ``source`` changed, is refused."""
    digest = request_digest(request)
    version = request_digest(source)
    start = decode_cursor(cursor, scope, digest, version) if cursor else 0
    chosen, next_index = fit_items(items, start, budget)
    return chosen, encode_cursor(scope, digest, next_index, version) if next_index is not None else None


def paged_list(
    head: dict[str, Any], key: str, items: Sequence[Any], page: Page, *, scope: str, request: Any, source: Any
) -> dict[str, Any]:
    """``head`` plus, under ``key``, the part of ``items`` that fits beside it in the budget of the ``page``
    arguments (``maxTokens``, from where their ``cursor`` points; see :func:`page_items`), in the one paging shape."""
    budget = budget_chars(page.maxTokens) - size_of(head)
    chosen, next_cursor = page_items(
        items, scope=scope, request=request, source=source, cursor=page.cursor, budget=budget
    )
    return paged({**head, key: chosen}, next_cursor)


def clip_text(value: Any) -> Any:
    """A text cut to :data:`MAX_TEXT_CHARS` (with an ellipsis); anything else as it is."""
    if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
        return value[:MAX_TEXT_CHARS] + "…"
    return value


def name_matcher(pattern: str | None) -> re.Pattern[str] | None:
    """A case-insensitive matcher of a user pattern: a regular expression, or literal text when it is not one."""
    if not pattern:
        return None
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error:
        return re.compile(re.escape(pattern), re.IGNORECASE)


# Values -----------------------------------------------------------------------------------------------------------


def short_paints(paints: list[dict[str, Any]]) -> list[Any]:
    """Fills or strokes in a compact form: hex for solid colours, the type (and variable) for the rest."""
    out: list[Any] = []
    for paint in paints:
        if paint.get("visible") is False:
            continue
        bound = (paint.get("boundVariables") or {}).get("color")
        if paint.get("type") == "SOLID" and "color" in paint:
            colour = hex_text(design_color(paint["color"], paint.get("opacity", 1)))
            out.append({"color": colour, "variable": bound.get("id")} if isinstance(bound, dict) else colour)
        else:
            out.append({"type": paint.get("type")})
    return out


def _box(box: Any) -> Any:
    if not isinstance(box, dict):
        return box
    return {k: round(v, 1) for k, v in box.items() if isinstance(v, int | float)}


def shape_node(fields: dict[str, msgspec.Raw], verbosity: Verbosity) -> dict[str, Any]:
    """One node (its fields still raw) in the requested verbosity, without its children."""
    record: dict[str, Any] = {"id": _any.decode(fields["id"]) if "id" in fields else ""}
    for key in ("name", "type"):
        if key in fields:
            record[key] = _any.decode(fields[key])
    if verbosity == "summary":
        return record
    if verbosity == "plugin":
        for key in ("pluginData", "sharedPluginData"):
            if key in fields:
                record[key] = _any.decode(fields[key])
        return record
    if verbosity == "full":
        for key, raw in fields.items():
            if key not in record:
                record[key] = _any.decode(raw)
        return record
    if "absoluteBoundingBox" in fields:
        record["box"] = _box(_any.decode(fields["absoluteBoundingBox"]))
    for key in _STANDARD_KEYS:
        if key in fields:
            value = _any.decode(fields[key])
            if (key == "visible" and value is True) or (key == "opacity" and value == 1):
                continue
            record[key] = value
    for key in ("fills", "strokes"):
        if key in fields:
            paints = short_paints(_any.decode(fields[key]))
            if paints:
                record[key] = paints
    if "characters" in fields:
        characters = _any.decode(fields["characters"])
        record["characters"] = characters[:MAX_TEXT_CHARS] + ("…" if len(characters) > MAX_TEXT_CHARS else "")
    if "boundVariables" in fields:
        record["boundVariables"] = sorted(_any.decode(fields["boundVariables"]))
    if "componentPropertyDefinitions" in fields:
        record["properties"] = _any.decode(fields["componentPropertyDefinitions"])
    return record


# Trees ------------------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class TreePart:
    """One part of a walked tree: its records in pre-order and where the next part starts (None: finished)."""

    nodes: list[dict[str, Any]]
    next_path: list[int] | None


def open_node(raw: msgspec.Raw | bytes) -> tuple[dict[str, msgspec.Raw], list[msgspec.Raw]]:
    """A node's fields (values still raw) and its children (still raw)."""
    fields = _fields.decode(raw)
    children = fields.pop("children", None)
    return fields, (_raw_list.decode(children) if children is not None else [])


def walk_tree(
    roots: Sequence[msgspec.Raw],
    *,
    start: Sequence[int] = (),
    max_depth: int,
    verbosity: Verbosity,
    budget: int,
    annotate: Any = None,
) -> TreePart:
    """Walk ``roots`` in pre-order from path ``start`` (child indices from the root list), down to ``max_depth``
    (roots are depth 0), until ``budget`` characters are used; ``annotate(record)`` may add fields to each record."""
    used = ENVELOPE_CHARS
    nodes: list[dict[str, Any]] = []
    # Each frame: the sibling list, the index of the next sibling to visit, its depth and its parent's id.
    stack: list[tuple[Sequence[msgspec.Raw], int, int, str | None]] = []
    siblings: Sequence[msgspec.Raw] = roots
    parent: str | None = None
    path = list(start) or [0]
    for depth, index in enumerate(path):
        if depth == len(path) - 1:
            stack.append((siblings, index, depth, parent))
            break
        if index >= len(siblings):
            raise DesignError(ErrorCode.BAD_ARGUMENT, "The cursor points past the end of the tree.", _CURSOR_HINT)
        stack.append((siblings, index + 1, depth, parent))
        fields, children = open_node(siblings[index])
        parent = _any.decode(fields["id"]) if "id" in fields else None
        siblings = children
    while stack:
        siblings, index, depth, parent = stack.pop()
        if index >= len(siblings):
            continue
        fields, children = open_node(siblings[index])
        record = shape_node(fields, verbosity)
        record["depth"] = depth
        if parent is not None:
            record["parent"] = parent
        if children:
            record["childCount"] = len(children)
        if annotate is not None:
            annotate(record)
        cost = size_of(record) + 1
        if nodes and used + cost > budget:
            stack.append((siblings, index, depth, parent))
            return TreePart(nodes, _path_of(stack))
        if cost > budget - ENVELOPE_CHARS:
            record = {k: record[k] for k in ("id", "name", "type", "depth", "parent", "childCount") if k in record}
            record["omitted"] = "too large for maxTokens: raise maxTokens or lower verbosity"
            cost = size_of(record) + 1
        nodes.append(record)
        used += cost
        stack.append((siblings, index + 1, depth, parent))
        if children and depth < max_depth:
            stack.append((children, 0, depth + 1, record["id"]))
    return TreePart(nodes, None)


def _path_of(stack: list[tuple[Sequence[msgspec.Raw], int, int, str | None]]) -> list[int]:
    return [index if i == len(stack) - 1 else index - 1 for i, (_, index, _, _) in enumerate(stack)]


class FileHead(msgspec.Struct):
    """The top of a file JSON answer; the document stays raw until it is walked."""

    name: str = ""
    version: str = ""
    lastModified: str = ""
    editorType: str = ""
    document: msgspec.Raw = msgspec.field(default_factory=lambda: msgspec.Raw(b"{}"))
    components: dict[str, msgspec.Raw] = {}
    componentSets: dict[str, msgspec.Raw] = {}
    styles: dict[str, msgspec.Raw] = {}


class NodesHead(msgspec.Struct):
    """The top of a ``/nodes`` answer; each node's subtree stays raw."""

    name: str = ""
    version: str = ""
    lastModified: str = ""
    nodes: dict[str, msgspec.Raw] = {}


def decode_head(data: bytes, kind: type[FileHead] | type[NodesHead]) -> Any:
    """Decode the top of a file or nodes answer, leaving the trees raw."""
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.DecodeError as exc:
        raise DesignError(
            ErrorCode.BAD_RESPONSE, f"The design API answer could not be read ({exc}).", "Try again in a moment."
        ) from None


def raw_value(raw: msgspec.Raw) -> Any:
    """Decode one raw value."""
    return _any.decode(raw)


def outline_children(
    out: dict[str, Any], children: Sequence[Any], depth: int, outline: Callable[[Any, int], dict[str, Any]]
) -> None:
    """Put a node's ``children`` in its outline ``out``, each outlined ``depth - 1`` deep, or only their count once
    ``depth`` is spent."""
    if not children:
        return
    if depth > 0:
        out["children"] = [outline(child, depth - 1) for child in children]
    else:
        out["childCount"] = len(children)
