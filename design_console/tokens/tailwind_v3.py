"""A Tailwind CSS v3 config module (``module.exports = {theme: {extend: {colors, spacing, boxShadow}}}``): colour
tokens under ``colors``, dimension tokens under ``spacing``, shadow tokens under ``boxShadow`` (as CSS text), nested
by name part (behind ``prefix`` when given).

Losses: everything a Tailwind v3 theme has no place for. Only the first mode of each collection (a config has no
modes); aliases resolved; collections merged (reading gives one collection, ``tokens``, mode ``default``); number,
string and boolean tokens left out; descriptions; names are taken back as written in the config.
"""

from __future__ import annotations

import json
import re
from typing import Any

from design_console.tokens.common import ExportOptions, ParseOptions, literal_text, nest, read_literal, walk
from design_console.tokens.model import Collection, Token, TokenSet, TokenType, resolve_all

EXTENSION = "js"
#: Values are literals: aliases are resolved before the export is split into files.
RESOLVES = True

_GROUPS: dict[TokenType, str] = {"color": "colors", "dimension": "spacing", "shadow": "boxShadow"}
_BODY = re.compile(r"module\.exports\s*=\s*(\{.*\})\s*;?\s*$", re.DOTALL)


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The Tailwind v3 config text of ``tokens``."""
    groups: dict[str, list[tuple[str, Any]]] = {}
    for coll, token in resolve_all(tokens).tokens():
        group = _GROUPS.get(token.type)
        if group is None or not coll.modes or coll.modes[0] not in token.values:
            continue
        name = f"{opts.prefix}/{token.name}" if opts.prefix else token.name
        groups.setdefault(group, []).append((name, literal_text(token.type, token.values[coll.modes[0]], opts)))
    body = json.dumps(
        {"theme": {"extend": {g: nest(pairs) for g, pairs in groups.items()}}}, indent=2, ensure_ascii=False
    )
    return f"/** @type {{import('tailwindcss').Config}} */\nmodule.exports = {body};\n"


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The colour, spacing and shadow tokens of a config module written by :func:`write` (JSON-shaped object)."""
    m = _BODY.search(text)
    if m is None:
        raise ValueError("no `module.exports = {…};` in the config")
    extend = (json.loads(m.group(1)).get("theme") or {}).get("extend") or {}
    coll = Collection(opts.default_collection, ["default"])
    for kind, group in _GROUPS.items():
        for name, raw in walk(extend.get(group) or {}, lambda x: not isinstance(x, dict)):
            read_back = read_literal(raw, opts, kind)
            if read_back is not None:
                bare = name.removeprefix(f"{opts.prefix}/") if opts.prefix else name
                coll.tokens.append(Token(bare, read_back[0], {"default": read_back[1]}))
    return TokenSet([coll])
