"""Tokens Studio JSON (one file, several token sets): a set per collection and mode named ``<collection>/<mode>``;
tokens as ``{value, type, description}``; ``$themes`` (one per collection and mode, enabling its set and using the
other collections' default sets as sources) and ``$metadata.tokenSetOrder``.

Losses: an alias is ``{group.name}`` without its collection (Tokens Studio resolves references across the active
sets), so reading links it to the collection holding the name, its own first; names must not contain ``.``; a set
name without ``/`` reads as a collection with the one mode ``default``. Strings are written with type ``text``;
shadows with type ``boxShadow``, as one layer ``{x, y, blur, spread, color, type}`` (``dropShadow`` or
``innerShadow``) or a list of them; one whose parts are not literals (a reference inside) is listed in ``skipped``.
"""

from __future__ import annotations

import json
from typing import Any

from design_console.tokens.common import (
    TOKENS_STUDIO_TYPES,
    ExportOptions,
    ParseOptions,
    literal_text,
    nest,
    read_literal,
    read_shadow,
    read_value,
    reference_text,
    shadow_json,
    walk,
)
from design_console.tokens.model import NO_VARIABLE, Alias, Collection, Token, TokenSet, TokenType, Value, link_aliases
from design_console.tokens.values import Shadow

EXTENSION = "json"

_OUT_TYPE: dict[TokenType, str] = {
    "color": "color",
    "dimension": "dimension",
    "number": "number",
    "string": "text",
    "boolean": "boolean",
    "shadow": "boxShadow",
}
#: The members of a Tokens Studio shadow layer holding its sizes, in :attr:`ShadowLayer.sizes` order.
_SHADOW_SIZES = ("x", "y", "blur", "spread")
_IN_TYPE: dict[str, TokenType] = {**{v: k for k, v in _OUT_TYPE.items()}, **TOKENS_STUDIO_TYPES, "other": "string"}


def _encode(kind: TokenType, value: Value, opts: ExportOptions) -> Any:
    if isinstance(value, Alias):
        return reference_text(value, with_collection=False)
    if not isinstance(value, Shadow):
        return literal_text(kind, value, opts)
    return shadow_json(
        value,
        lambda layer: {
            **{
                key: literal_text("dimension", size, opts) for key, size in zip(_SHADOW_SIZES, layer.sizes, strict=True)
            },
            "color": literal_text("color", layer.color, opts),
            "type": "innerShadow" if layer.inset else "dropShadow",
        },
    )


def _read_shadow(raw: Any, opts: ParseOptions) -> Shadow | None:
    """The shadow of a ``boxShadow`` value, None unless every part is a literal."""
    return read_shadow(
        raw,
        _SHADOW_SIZES,
        lambda part, kind: read_literal(part, opts, kind),
        lambda layer: layer.get("type") == "innerShadow",
    )


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The Tokens Studio JSON text of ``tokens``."""
    root: dict[str, Any] = {}
    order: list[str] = []
    for coll in tokens.collections:
        for mode in coll.modes:
            pairs = []
            for token in coll.tokens:
                if mode not in token.values:
                    continue
                entry: dict[str, Any] = {
                    "value": _encode(token.type, token.values[mode], opts),
                    "type": _OUT_TYPE[token.type],
                }
                if token.description:
                    entry["description"] = token.description
                pairs.append((token.name, entry))
            name = f"{coll.name}/{mode}"
            root[name] = nest(pairs)
            order.append(name)
    defaults = {f"{c.name}/{c.modes[0]}": c for c in tokens.collections if c.modes}
    themes = []
    for coll in tokens.collections:
        for mode in coll.modes:
            own = f"{coll.name}/{mode}"
            sets = {name: "source" for name, other in defaults.items() if other is not coll}
            sets[own] = "enabled"
            themes.append({"id": own, "name": mode, "group": coll.name, "selectedTokenSets": sets})
    root["$themes"] = themes
    root["$metadata"] = {"tokenSetOrder": order}
    return json.dumps(root, indent=2, ensure_ascii=False) + "\n"


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a Tokens Studio JSON file."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a Tokens Studio file must hold a JSON object")
    order = (data.get("$metadata") or {}).get("tokenSetOrder") or [k for k in data if not k.startswith("$")]
    out = TokenSet()
    for set_name in order:
        group = data.get(set_name)
        if not isinstance(group, dict):
            continue
        coll_name, _, mode = set_name.rpartition("/")
        coll_name, mode = (coll_name, mode) if coll_name else (set_name, "default")
        coll = out.collection(coll_name)
        if coll is None:
            coll = Collection(coll_name, [])
            out.collections.append(coll)
        if mode not in coll.modes:
            coll.modes.append(mode)
        have = coll.by_name()
        for name, entry in walk(group, lambda x: isinstance(x, dict) and "value" in x):
            kind = _IN_TYPE.get(str(entry.get("type")))
            raw = entry["value"]
            if kind == "shadow" and isinstance(raw, dict | list):
                shadow = _read_shadow(raw, opts)
                read_back: tuple[TokenType | None, Value] | None = ("shadow", shadow) if shadow else None
            else:
                read_back = read_value(raw, opts, kind, with_collection=False)
            if read_back is None:
                if kind == "shadow":
                    coll.skipped[name] = NO_VARIABLE["shadow"]
                continue
            shown, value = read_back
            token = have.get(name)
            if token is None:
                token = Token(name, kind or shown or "string", {}, "")
                coll.tokens.append(token)
                have[name] = token
            token.description = token.description or str(entry.get("description") or "")
            token.values[mode] = value
    link_aliases(out)
    return out
