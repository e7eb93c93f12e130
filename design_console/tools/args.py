"""Argument types every tool shares: one definition of each, so that every schema says the same thing.

A type whose ``Meta.extra`` names a :data:`~design_console.tools.base.NORMALIZE` function is checked and normalised
when the arguments are parsed (a file URL becomes its key, ``1-2`` becomes ``1:2``), so handlers, and the plugin
methods that :func:`~design_console.tools.base.bridge_tool` forwards to, only ever see the normal form.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from design_console.clients.file_keys import parse_file_key
from design_console.errors import DesignError
from design_console.tokens import FORMATS, format_named, values
from design_console.tools.base import NORMALIZE, Args

_NODE_ID = re.compile(r"^I?-?\d+[:-]\d+(;-?\d+[:-]\d+)*$")


def file_key_of(value: str) -> str:
    """The file key of a design file URL or bare key; raises ValueError saying what a valid one looks like."""
    try:
        return parse_file_key(value)
    except DesignError as exc:
        raise ValueError(f"{exc.message} {exc.hint.rstrip('.')}") from None


def node_id_of(value: str) -> str:
    """A node id as the design tool writes it (``1:2``), from that form, a URL's ``1-2`` or a URL with ``node-id=``;
    raises ValueError for anything else."""
    text = value.strip()
    if "node-id=" in text:
        text = text.split("node-id=", 1)[1].split("&")[0]
    if not _NODE_ID.match(text):
        raise ValueError(f"{value[:80]!r} is not a node id; node ids look like 1:2 (1-2 in URLs)")
    return text.replace("-", ":") if ":" not in text else text


def connected_file_key_of(value: str) -> str:
    """A connected file's key: a file URL gives its key; other text is taken as the key the plugin reported, which
    designd checks against the connected files."""
    text = value.strip()
    return file_key_of(text) if "/" in text else text


#: A design file by URL or key; its key after parsing.
FileRef = Annotated[str, Meta(extra={NORMALIZE: file_key_of})]
#: The file a design API read is about.
#: Described once in the server's instructions, not in each of the tools that take it.
FileUrl = FileRef
#: A file the plugin is connected in, by URL or the key the plugin reported.
ConnectedFile = Annotated[str, Meta(extra={NORMALIZE: connected_file_key_of})]
#: The connected file a designd tool targets.
FileKey = ConnectedFile
NodeId = Annotated[str, Meta(extra={NORMALIZE: node_id_of})]
#: The ``nextCursor`` of a paged read's previous answer; every paged read takes it as ``cursor``.
Cursor = str
#: The size of a read's answer; the server instructions give its range once, and a value outside it is clamped
#: (``shaping.budget_chars``) rather than refused: the model asked for "small" or "large", not for an error.
MaxTokens = int
#: A token file format, by the one name every tool uses for it (:data:`design_console.tokens.FORMATS`); a name a
#: format had before is refused with its new name.
TokenFormat = Annotated[str, Meta(extra={NORMALIZE: format_named}, extra_json_schema={"enum": list(FORMATS)})]
#: The formats a read's code exports are written in.
ExportFormats = Annotated[list[TokenFormat], Meta(min_length=1)]


# Shared fields -----------------------------------------------------------------------------------------------------
# The fields many tools take, declared once: a tool's struct inherits the one set that fits and adds its own fields.
# A struct has one line of bases (msgspec lays fields out like slots), so each combination is a class of its own.
# They carry no docstring: a struct's docstring would be listed in every schema built from it.


#: A read that answers in budget-sized parts: ``maxTokens`` sizes a part, ``cursor`` asks for the next one.
class PagedArgs(Args, kw_only=True):
    maxTokens: MaxTokens | None = None
    cursor: Cursor | None = None


#: A tool about one design file, the active one unless ``fileUrl`` names another.
class FileArgs(Args, kw_only=True):
    fileUrl: FileUrl | None = None


#: A paged read of a design file.
class FilePagedArgs(PagedArgs, kw_only=True):
    fileUrl: FileUrl | None = None


#: A tool about one node.
class NodeArgs(Args, kw_only=True):
    nodeId: NodeId


#: A paged read of one node.
class NodePagedArgs(PagedArgs, kw_only=True):
    nodeId: NodeId


#: Levels of captured console entries, as the plugin reports them.
ConsoleLevel = Literal["log", "info", "warn", "error", "debug"]
#: What a console read filters by: one level, or every level.
ConsoleLevelFilter = Literal[ConsoleLevel, "all"]


# Colours ----------------------------------------------------------------------------------------------------------


class Rgba(msgspec.Struct, frozen=True):
    """A colour as the plugin API takes it: red, green, blue and alpha, each from 0 to 1."""

    r: float
    g: float
    b: float
    a: float = 1.0


#: The forms the plugin reads (``colors.js``); token files may hold more (hsl, oklch), tool arguments may not.
_FORMS = re.compile(r"^(#[0-9a-f]{3,8}|rgba?\(.*\))$")
_COLOR_FORMS = "#rgb, #rgba, #rrggbb, #rrggbbaa, rgb(r, g, b) or rgba(r, g, b, a)"


def parse_color(text: str) -> Rgba:
    """A colour from ``#`` and 3, 4, 6 or 8 hex digits, or CSS ``rgb()``/``rgba()`` (channels 0-255 or
    percentages, alpha 0-1 or a percentage; commas, or spaces with ``/ alpha``); raises ValueError otherwise."""
    value = text.strip()
    parsed = values.parse_color(value, strict=True) if _FORMS.match(value.lower()) else None
    if parsed is None:
        raise ValueError(f"{value[:80]!r} is not a colour; use {_COLOR_FORMS}")
    return Rgba(parsed.r, parsed.g, parsed.b, parsed.a)


def _checked_color(text: str) -> str:
    parse_color(text)
    return text.strip()


#: A colour argument; :func:`parse_color` turns it into the plugin's RGBA.
Color = Annotated[str, Meta(description="#rrggbb[aa]/rgb[a]()", extra={NORMALIZE: _checked_color})]
