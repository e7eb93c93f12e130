"""Design Tokens Community Group JSON, in two dialects, and the JSON layout it shares with Style Dictionary v3.

- ``legacy``: ``$value``/``$type``/``$description``; colours as text in the chosen colour format (hex by default),
  dimensions as ``"16px"``/``"1rem"``; aliases ``{collection.group.name}``.
- ``2025`` (the 2025.10 stable format): colours as ``{colorSpace: "srgb", components, alpha, hex}``, dimensions as
  ``{value, unit}`` with ``px`` or ``rem`` (``pt``/``dp`` are written as ``px``: the format allows only those two).

Each collection is a top-level group whose ``$extensions["com.design-console"].modes`` lists its modes (the first
is the default). A token's ``$value`` holds its first mode; the other modes ride in the token's
``$extensions["com.design-console"].modes``. ``string`` and ``boolean`` are not DTCG types: legacy writes them as
``$type`` anyway (Style Dictionary passes them through); 2025 leaves ``$type`` off and keeps the type in the
extension. A token read from the design tool carries its variable id in ``$extensions["com.design-console"].id``, so
that importing the file back tells a renamed token from a new one. Losses: none for our own files, except that names
must not contain ``.`` (the alias syntax) and a token name cannot also be a group of others. A file written elsewhere
(no extension) is read as one collection (``tokens``) with one mode (``default``); ``$type`` inherited from groups is
honoured. A ``shadow`` is read as a shadow token (its ``$value`` one layer object or a list of them, each with
``color``, ``offsetX``, ``offsetY``, ``blur``, ``spread`` and ``inset``); one whose parts are not literals (a
reference inside) is listed in ``skipped``. A token of a type the model has not (another composite such as
typography, a cubic Bézier, a duration), a size in a unit other than px or rem or a value of no variable type is not
read but listed in its collection's ``skipped`` with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from design_console.tokens import common
from design_console.tokens.common import (
    TOKENS_STUDIO_TYPES,
    ExportOptions,
    ParseOptions,
    literal_text,
    nest,
    read_reference,
    read_shadow,
    read_value,
    reference_text,
    shadow_json,
)
from design_console.tokens.model import (
    NO_VARIABLE,
    Alias,
    Collection,
    Token,
    TokenSet,
    TokenType,
    Value,
    link_aliases,
)
from design_console.tokens.values import Color, Shadow, ShadowLayer, hex_text, parse_color

EXTENSION = "json"
_EXT = common.EXTENSION

_TYPES: dict[str, TokenType] = {
    "color": "color",
    "dimension": "dimension",
    "number": "number",
    "string": "string",
    "boolean": "boolean",
    "text": "string",
    "shadow": "shadow",
    **TOKENS_STUDIO_TYPES,
}

#: The members of a DTCG shadow layer holding its sizes, in :attr:`ShadowLayer.sizes` order.
_SHADOW_SIZES = ("offsetX", "offsetY", "blur", "spread")


#: DTCG types no variable holds, and why (a variable holds one number, colour, string or boolean).
_NOT_CARRIED: dict[str, str] = {
    "border": "a border is a composite value",
    "typography": "a typography token is a composite value (a text style in a design tool)",
    "transition": "a transition is a composite value",
    "gradient": "a gradient is a composite value",
    "strokeStyle": "a stroke style is a composite value",
    "cubicBezier": "a cubic Bézier curve is four numbers",
    "duration": "variables have no time unit",
}


@dataclass(frozen=True, slots=True)
class Keys:
    """The member names of a token object."""

    value: str
    type: str
    description: str


DTCG_KEYS = Keys("$value", "$type", "$description")
SD3_KEYS = Keys("value", "type", "comment")


def _shadow_value(shadow: Shadow, part: Callable[[TokenType, Value], Any]) -> Any:
    """A shadow's DTCG ``$value``; ``part`` writes a colour or a size (``part(kind, value)``) in the dialect's
    shape."""

    def layer_json(layer: ShadowLayer) -> dict[str, Any]:
        entry = {"color": part("color", layer.color)}
        for key, size in zip(_SHADOW_SIZES, layer.sizes, strict=True):
            entry[key] = part("dimension", float(size))
        if layer.inset:
            entry["inset"] = True
        return entry

    return shadow_json(shadow, layer_json)


def _value_2025(kind: TokenType, value: Value, opts: ExportOptions) -> Any:
    if isinstance(value, Shadow):
        return _shadow_value(value, lambda k, v: _value_2025(k, v, opts))
    if isinstance(value, Color):
        return {
            "colorSpace": "srgb",
            "components": [round(value.r, 6), round(value.g, 6), round(value.b, 6)],
            "alpha": round(value.a, 6),
            "hex": hex_text(value, alpha=False),
        }
    if kind == "dimension" and isinstance(value, float):
        rem = opts.size_unit == "rem"
        number = value / opts.rem_base if rem else value
        return {"value": int(number) if number.is_integer() else round(number, 6), "unit": "rem" if rem else "px"}
    return literal_text(kind, value, opts)


def write_tree(tokens: TokenSet, opts: ExportOptions, keys: Keys, dialect: str = "legacy") -> dict[str, Any]:
    """The JSON object of ``tokens`` in the DTCG layout with ``keys``."""

    def encode(token: Token, value: Value) -> Any:
        if isinstance(value, Alias):
            return reference_text(value)
        if dialect == "2025":
            return _value_2025(token.type, value, opts)
        if isinstance(value, Shadow):
            return _shadow_value(value, lambda k, v: literal_text(k, v, opts))
        return literal_text(token.type, value, opts)

    root: dict[str, Any] = {}
    for coll in tokens.collections:
        pairs = []
        for token in coll.tokens:
            present = [m for m in coll.modes if m in token.values]
            if not present:
                continue
            entry: dict[str, Any] = {}
            if dialect != "2025" or token.type not in ("string", "boolean"):
                entry[keys.type] = token.type
            entry[keys.value] = encode(token, token.values[present[0]])
            if token.description:
                entry[keys.description] = token.description
            ext: dict[str, Any] = {}
            if present[0] != coll.modes[0]:
                ext["mode"] = present[0]
            if len(present) > 1:
                ext["modes"] = {m: encode(token, token.values[m]) for m in present[1:]}
            if dialect == "2025" and token.type in ("string", "boolean"):
                ext["type"] = token.type
            if token.id:
                ext["id"] = token.id
            if ext:
                entry["$extensions"] = {_EXT: ext}
            pairs.append((token.name, entry))
        group = nest(pairs)
        group["$extensions"] = {_EXT: {"modes": coll.modes}}
        root[coll.name] = group
    return root


def _unreadable(raw_values: dict[str, Any]) -> str:
    """Why no value of a token could be read."""
    units = {str(v.get("unit")) for v in raw_values.values() if isinstance(v, dict) and "unit" in v}
    if units:
        return f"unit {', '.join(sorted(units))}: variables hold px (rem is read as px)"
    return "the value is no number, colour, string or boolean, nor an alias"


def _read_value(raw: Any, kind: TokenType | None, opts: ParseOptions) -> tuple[TokenType | None, Value] | None:
    if kind == "shadow" and isinstance(raw, dict | list):
        shadow = read_shadow(
            raw, _SHADOW_SIZES, lambda part, k: _read_value(part, k, opts), lambda layer: layer.get("inset") is True
        )
        return ("shadow", shadow) if shadow is not None else None
    if isinstance(raw, dict) and "components" in raw:
        hex_value = raw.get("hex")
        comps = raw.get("components") or []
        alpha = float(raw.get("alpha", 1.0))
        if (
            raw.get("colorSpace", "srgb") == "srgb"
            and len(comps) == 3
            and all(isinstance(c, int | float) for c in comps)
        ):
            return "color", Color(float(comps[0]), float(comps[1]), float(comps[2]), alpha)
        colour = parse_color(hex_value) if isinstance(hex_value, str) else None
        return ("color", Color(colour.r, colour.g, colour.b, alpha)) if colour else None
    if isinstance(raw, dict) and "unit" in raw:
        # DTCG dimensions are px or rem; any other unit (em, ms, %) is no size in px.
        if raw["unit"] not in ("px", "rem") or not isinstance(raw.get("value"), int | float):
            return None
        number = float(raw["value"])
        return "dimension", number * opts.rem_base if raw["unit"] == "rem" else number
    return read_value(raw, opts, kind, with_collection=False)


def read_tree(data: Any, opts: ParseOptions, keys: Keys) -> TokenSet:
    """The token set of a DTCG-layout JSON object."""
    if not isinstance(data, dict):
        raise ValueError("a token file must hold a JSON object")
    ours = {
        name: group["$extensions"][_EXT]["modes"]
        for name, group in data.items()
        if isinstance(group, dict) and isinstance(group.get("$extensions", {}).get(_EXT, {}).get("modes"), list)
    }
    groups = [(name, data[name], list(modes)) for name, modes in ours.items()]
    if not groups:
        groups = [(opts.default_collection, data, ["default"])]
    out = TokenSet()
    for coll_name, group, modes in groups:
        coll = Collection(coll_name, [str(m) for m in modes] or ["default"])
        _walk(group, (), None, coll, keys, opts, frozenset(ours))
        out.collections.append(coll)
    link_aliases(out)
    return out


def _walk(
    node: dict[str, Any],
    path: tuple[str, ...],
    inherited: str | None,
    coll: Collection,
    keys: Keys,
    opts: ParseOptions,
    collections: frozenset[str],
) -> None:
    """Reads the tokens under ``node`` into ``coll``; a reference whose first part is one of ``collections`` names
    that collection (the part is taken whole: a collection name may hold "/", as "base/color" does)."""
    group_type = node.get(keys.type, inherited) if keys.value.startswith("$") else inherited
    for key, child in node.items():
        if key.startswith("$") or not isinstance(child, dict):
            continue
        if keys.value not in child:
            _walk(child, (*path, key), group_type, coll, keys, opts, collections)
            continue
        ext = (child.get("$extensions") or {}).get(_EXT) or {}
        declared = ext.get("type") or child.get(keys.type) or group_type
        name = "/".join((*path, key))
        if str(declared) in _NOT_CARRIED:
            coll.skipped[name] = f"{declared}: {_NOT_CARRIED[str(declared)]}"
            continue
        kind = _TYPES.get(str(declared)) if declared else None
        raw_values = {str(ext.get("mode") or coll.modes[0]): child[keys.value], **(ext.get("modes") or {})}
        token = Token(
            name,
            kind or "string",
            {},
            str(child.get(keys.description) or ""),
            str(ext.get("id") or ""),
        )
        for mode, raw in raw_values.items():
            ref = read_reference(raw)
            read_back = (
                (None, ref) if ref is not None and ref.collection in collections else _read_value(raw, kind, opts)
            )
            if read_back is None:
                continue
            shown, value = read_back
            if kind is None and shown is not None:
                kind = token.type = shown
            token.values[mode] = value
            if mode not in coll.modes:
                coll.modes.append(mode)
        if token.values:
            coll.tokens.append(token)
        else:
            coll.skipped[name] = NO_VARIABLE[kind] if kind in NO_VARIABLE else _unreadable(raw_values)


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The DTCG JSON text of ``tokens`` in ``opts.dtcg_dialect``."""
    return json.dumps(write_tree(tokens, opts, DTCG_KEYS, opts.dtcg_dialect), indent=2, ensure_ascii=False) + "\n"


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a DTCG JSON file (either dialect)."""
    return read_tree(json.loads(text), opts, DTCG_KEYS)
