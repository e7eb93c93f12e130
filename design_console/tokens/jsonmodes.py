"""Plain JSON of values, shared by ``json-flat``, ``json-nested`` and ``ts-module``: an object per collection, in
it an object per mode, in it the token values (colours and sizes as CSS text, aliases as ``{collection.a.b}``)."""

from __future__ import annotations

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
from design_console.tokens.model import Alias, Collection, Token, TokenSet, Value, link_aliases


def _encode(token: Token, value: Value, opts: ExportOptions) -> Any:
    return reference_text(value) if isinstance(value, Alias) else literal_text(token.type, value, opts)


def write_tree(tokens: TokenSet, opts: ExportOptions, nested: bool) -> dict[str, Any]:
    """``{collection: {mode: values}}`` with values keyed by slash name (flat) or nested by name part."""
    root: dict[str, Any] = {}
    for coll in tokens.collections:
        modes: dict[str, Any] = {}
        for mode in coll.modes:
            pairs = [(t.name, _encode(t, t.values[mode], opts)) for t in coll.tokens if mode in t.values]
            modes[mode] = nest(pairs) if nested else dict(pairs)
        root[coll.name] = modes
    return root


def read_tree(data: Any, opts: ParseOptions) -> TokenSet:
    """The tokens of a ``{collection: {mode: values}}`` object (flat or nested values). Types are inferred from the
    values: colours and sizes by their syntax, numbers, booleans, the rest strings."""
    if not isinstance(data, dict) or not all(
        isinstance(v, dict) and all(isinstance(m, dict) for m in v.values()) for v in data.values()
    ):
        raise ValueError("expected {collection: {mode: {token: value}}}")
    out = TokenSet()
    for coll_name, modes in data.items():
        coll = Collection(coll_name, list(modes))
        have: dict[str, Token] = {}
        typed: set[str] = set()
        for mode, values in modes.items():
            for name, raw in walk(values, lambda x: not isinstance(x, dict)):
                read_back = read_value(raw, opts)
                if read_back is None:
                    continue
                shown, value = read_back
                token = have.get(name)
                if token is None:
                    token = Token(name, shown or "string", {}, "")
                    have[name] = token
                    coll.tokens.append(token)
                if shown is not None and name not in typed:
                    token.type = shown
                    typed.add(name)
                token.values[mode] = value
        out.collections.append(coll)
    names = {c.name for c in out.collections}
    for _, token in out.tokens():
        for mode, value in token.values.items():
            if isinstance(value, Alias) and value.collection not in names:
                token.values[mode] = Alias(f"{value.collection}/{value.name}")
    link_aliases(out)
    return out
