"""Tokens Studio JSON (one file, several token sets): a set per collection and mode named ``<collection>/<mode>``;
tokens as ``{value, type, description}``; ``$themes`` (one per collection and mode, enabling its set and using the
other collections' default sets as sources) and ``$metadata.tokenSetOrder``.

Losses: an alias is ``{group.name}`` without its collection (Tokens Studio resolves references across the active
sets), so reading links it to the collection holding the name, its own first; names must not contain ``.``; a set
name without ``/`` reads as a collection with the one mode ``default``. Strings are written with type ``text``.
"""

from __future__ import annotations

import json
from typing import Any

from design_console.tokens.common import (
    ExportOptions,
    ParseOptions,
    literal_text,
    nest,
    read_value,
    reference_text,
    walk,
)
from design_console.tokens.model import Alias, Collection, Token, TokenSet, TokenType, link_aliases

EXTENSION = "json"

_OUT_TYPE: dict[TokenType, str] = {
    "color": "color",
    "dimension": "dimension",
    "number": "number",
    "string": "text",
    "boolean": "boolean",
}
_IN_TYPE: dict[str, TokenType] = {
    **{v: k for k, v in _OUT_TYPE.items()},
    "sizing": "dimension",
    "spacing": "dimension",
    "borderRadius": "dimension",
    "borderWidth": "dimension",
    "fontSizes": "dimension",
    "opacity": "number",
    "other": "string",
}


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
                value = token.values[mode]
                text = (
                    reference_text(value, with_collection=False)
                    if isinstance(value, Alias)
                    else literal_text(token.type, value, opts)
                )
                entry: dict[str, Any] = {"value": text, "type": _OUT_TYPE[token.type]}
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
            read_back = read_value(entry["value"], opts, kind, with_collection=False)
            if read_back is None:
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
