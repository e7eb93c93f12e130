"""What every format shares: export and parse options, literal values as text and back, nesting of slash paths.

A shadow is written as CSS ``box-shadow`` text wherever a format writes plain values (stylesheets, flat and nested
JSON, the TS module); formats with a shadow type of their own (DTCG, Tokens Studio) write its parts."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, Literal

import msgspec

from design_console.tokens.model import Alias, TokenType, Value
from design_console.tokens.values import (
    Color,
    ColorFormat,
    Shadow,
    ShadowLayer,
    SizeUnit,
    color_text,
    parse_color,
    parse_shadow,
    parse_size,
    shadow_text,
    size_text,
)

#: The key under ``$extensions`` (and the like) where our own facts travel in JSON formats.
EXTENSION = "com.design-console"

#: Tokens Studio's type names of sizes and opacity: its own files use them, and so do the DTCG files it writes.
TOKENS_STUDIO_TYPES: dict[str, TokenType] = {
    **dict.fromkeys(("sizing", "spacing", "borderRadius", "borderWidth", "fontSizes"), "dimension"),
    "opacity": "number",
}

#: How a format reads one part of a shadow layer: ``(raw JSON value, "color" or "dimension")`` to the type it shows
#: and its value, None if unreadable.
PartReader = Callable[[Any, TokenType], tuple[TokenType | None, Value] | None]


class ExportOptions(msgspec.Struct, kw_only=True, frozen=True):
    """How to write tokens: which modes, how to split files, how to write values."""

    modes: list[str] | None = None
    split_by_mode: bool = False
    split_by_collection: bool = False
    resolve_aliases: bool = False
    dtcg_dialect: Literal["legacy", "2025"] = "legacy"
    color_format: ColorFormat = "hex"
    size_unit: SizeUnit = "px"
    rem_base: float = 16.0
    prefix: str = ""
    #: The file name (without extension) of an export that is not split.
    base_name: str = "tokens"


class ParseOptions(msgspec.Struct, kw_only=True, frozen=True):
    """How to read tokens: the rem base of ``rem`` sizes and the prefix to take off names."""

    rem_base: float = 16.0
    prefix: str = ""
    #: The collection of tokens in a format (or file) that names none.
    default_collection: str = "tokens"


def literal_text(kind: TokenType, value: Value, opts: ExportOptions) -> Any:
    """A literal as the JSON value text formats write: colours, sizes and shadows as CSS text, the rest as they
    are."""
    if isinstance(value, Color):
        return color_text(value, opts.color_format)
    if isinstance(value, Shadow):
        return shadow_text(value, opts.color_format, opts.size_unit, opts.rem_base)
    if kind == "dimension" and isinstance(value, int | float) and not isinstance(value, bool):
        return size_text(float(value), opts.size_unit, opts.rem_base)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def css_literal(kind: TokenType, value: Value, opts: ExportOptions) -> str:
    """A literal as CSS (and SCSS, LESS) text: strings quoted, booleans as ``true``/``false``."""
    text = literal_text(kind, value, opts)
    if isinstance(text, bool):
        return "true" if text else "false"
    if kind == "string" or (isinstance(text, str) and kind not in ("color", "dimension", "shadow")):
        return css_string(str(text))
    return str(text)


def css_string(text: str) -> str:
    """``text`` as a double-quoted CSS string (CSS escapes: ``\\"``, ``\\\\``, a line break as ``\\a``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    return f'"{escaped}"'


_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t]?|\\(.)", re.DOTALL)


def read_css_string(quoted: str) -> str:
    """The text of a quoted CSS string."""
    return _CSS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), quoted[1:-1])


_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def read_literal(raw: Any, opts: ParseOptions, kind: TokenType | None = None) -> tuple[TokenType, Value] | None:
    """A JSON value as a literal and the type it shows (``kind`` when the format said it); None if unreadable."""
    if isinstance(raw, bool):
        return "boolean", raw
    if isinstance(raw, int | float):
        return (kind if kind in ("number", "dimension") else "number"), float(raw)
    if not isinstance(raw, str):
        return None
    if kind == "shadow":
        # Only a format that declares the type reads shadow text as a shadow: elsewhere it stays the string it was.
        shadow = parse_shadow(raw, opts.rem_base)
        return ("shadow", shadow) if shadow is not None else None
    if kind in (None, "color") and (colour := parse_color(raw)) is not None:
        return "color", colour
    if kind in (None, "dimension", "number") and (px := parse_size(raw, opts.rem_base)) is not None:
        return "dimension", px
    if kind in ("number", "dimension") and _NUMBER.fullmatch(raw.strip()):
        return kind, float(raw)
    if kind == "boolean":
        return "boolean", raw.strip().lower() == "true"
    return "string", raw


def read_css_literal(text: str, opts: ParseOptions) -> tuple[TokenType, Value] | None:
    """CSS text as a literal: quoted → string, ``true``/``false`` → boolean, a bare number → number, colours and
    sizes by their syntax; anything else is kept as a string."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return "string", read_css_string(text)
    if text in ("true", "false"):
        return "boolean", text == "true"
    if _NUMBER.fullmatch(text):
        return "number", float(text)
    return read_literal(text, opts)


def reference_text(alias: Alias, with_collection: bool = True) -> str:
    """``{collection.a.b}``: an alias in the curly-brace syntax of JSON token formats."""
    parts = ([alias.collection] if with_collection and alias.collection else []) + alias.name.split("/")
    return "{" + ".".join(parts) + "}"


_REFERENCE = re.compile(r"\{([^{}]+)\}")


def read_reference(raw: Any, with_collection: bool = True) -> Alias | None:
    """The alias a ``{a.b.c}`` string stands for (the first part is the collection when ``with_collection``)."""
    if not isinstance(raw, str) or not (m := _REFERENCE.fullmatch(raw.strip())):
        return None
    parts = m.group(1).split(".")
    if with_collection and len(parts) > 1:
        return Alias("/".join(parts[1:]), parts[0])
    return Alias("/".join(parts))


def read_value(
    raw: Any, opts: ParseOptions, kind: TokenType | None = None, with_collection: bool = True
) -> tuple[TokenType | None, Value] | None:
    """A JSON value as an alias (with no type shown) or a literal and the type it shows; None if unreadable."""
    if (alias := read_reference(raw, with_collection)) is not None:
        return None, alias
    return read_literal(raw, opts, kind)


def shadow_json(shadow: Shadow, layer_json: Callable[[ShadowLayer], dict[str, Any]]) -> Any:
    """A shadow's value in a JSON format with a shadow type of its own: the object ``layer_json`` makes of its one
    layer, or a list of them when it has several."""
    layers = [layer_json(layer) for layer in shadow.layers]
    return layers[0] if len(layers) == 1 else layers


def read_shadow(
    raw: Any, size_keys: tuple[str, str, str, str], read_part: PartReader, is_inset: Callable[[dict[str, Any]], bool]
) -> Shadow | None:
    """The shadow of a :func:`shadow_json` value (a layer object or a list of them), None unless every part is a
    literal. ``size_keys`` name the members of the offsets, blur and spread (in :attr:`ShadowLayer.sizes` order; a
    missing one is 0); ``is_inset`` tells from a layer object whether it falls inside the box."""
    layers = []
    for layer in raw if isinstance(raw, list) else [raw]:
        if not isinstance(layer, dict):
            return None
        colour = read_part(layer.get("color"), "color")
        sizes = [read_part(layer.get(key, 0), "dimension") for key in size_keys]
        px = [s[1] for s in sizes if s is not None and isinstance(s[1], float)]
        if colour is None or not isinstance(colour[1], Color) or len(px) != 4:
            return None
        layers.append(ShadowLayer(colour[1], px[0], px[1], px[2], px[3], is_inset(layer)))
    return Shadow(tuple(layers)) if layers else None


def nest(pairs: Iterator[tuple[str, Any]] | list[tuple[str, Any]]) -> dict[str, Any]:
    """A nested object from ``(slash name, value)`` pairs. A name that is also a group of others cannot be nested: it
    is an error in the token set, reported with both names."""
    root: dict[str, Any] = {}
    for name, value in pairs:
        node = root
        path = name.split("/")
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"token {name!r} is inside another token's name; rename one of them")
        node[path[-1]] = value
    return root


def walk(node: dict[str, Any], is_leaf: Callable[[Any], bool], path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """``(slash name, leaf)`` of a nested object; keys starting with ``$`` are metadata, not groups."""
    for key, child in node.items():
        if key.startswith("$"):
            continue
        if is_leaf(child):
            yield "/".join((*path, key)), child
        elif isinstance(child, dict):
            yield from walk(child, is_leaf, (*path, key))


def strip_prefix(name: str, prefix: str) -> str:
    """``name`` without ``prefix-`` in front (unchanged when it does not start with it)."""
    return name[len(prefix) + 1 :] if prefix and name.startswith(prefix + "-") else name
