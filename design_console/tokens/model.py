"""The neutral token model every format reads into and writes from, and its bridge to the design tool's variables.

A :class:`TokenSet` holds collections; a collection has modes (the first is its default) and tokens; a token has a
name (slash path, unique in its collection), a type, a description and one value per mode. A value is a literal
(:class:`~design_console.tokens.values.Color`, a number, a string, a boolean, a
:class:`~design_console.tokens.values.Shadow`) or an :class:`Alias` of another token by name. Dimensions are numbers
in px. A shadow is a token of code only: no variable of the design tool holds one (:data:`NO_VARIABLE`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any, Literal

import msgspec

from design_console.tokens.names import UNITLESS
from design_console.tokens.values import Color, Shadow

TokenType = Literal["color", "dimension", "number", "string", "boolean", "shadow"]

#: The design tool's variable type of each token type a variable can hold (dimension and number are both FLOAT
#: there); the others are in :data:`NO_VARIABLE`.
RESOLVED_TYPE: dict[TokenType, str] = {
    "color": "COLOR",
    "dimension": "FLOAT",
    "number": "FLOAT",
    "string": "STRING",
    "boolean": "BOOLEAN",
}
#: Token types no variable holds, and why (a variable holds one number, colour, string or boolean).
NO_VARIABLE: dict[TokenType, str] = {
    "shadow": "shadow: a shadow is a composite value (an effect style in a design tool)",
}


class Alias(msgspec.Struct, frozen=True, tag="alias"):
    """A value that is another token's: by name, in ``collection`` (empty until linked: some formats name no
    collection in a reference)."""

    name: str
    collection: str = ""


Value = Color | Shadow | Alias | bool | float | str


class Token(msgspec.Struct):
    """One token: name (slash path), type, description, value per mode name, and the design tool's variable id when
    it came from there (directly, or through a file the export wrote): what tells a rename from a new token."""

    name: str
    type: TokenType
    values: dict[str, Value] = {}
    description: str = ""
    id: str = ""


class Collection(msgspec.Struct):
    """A named group of tokens sharing modes; ``modes[0]`` is the default mode. ``skipped``: tokens a file holds
    that no variable can (a shadow, a duration…), by name, with the reason; reported, never written."""

    name: str
    modes: list[str]
    tokens: list[Token] = []
    skipped: dict[str, str] = {}

    def by_name(self) -> dict[str, Token]:
        """Its tokens by name."""
        return {t.name: t for t in self.tokens}


class TokenSet(msgspec.Struct):
    """Collections of tokens: what a set of token files or a design file's variables hold."""

    collections: list[Collection] = []

    def collection(self, name: str) -> Collection | None:
        """The collection called ``name``, if any."""
        return next((c for c in self.collections if c.name == name), None)

    def tokens(self) -> Iterator[tuple[Collection, Token]]:
        """Every token with its collection."""
        for coll in self.collections:
            for token in coll.tokens:
                yield coll, token


def infer_float_type(name: str) -> TokenType:
    """``number`` for a FLOAT whose name says it is unitless (opacity, weight…), else ``dimension``."""
    return "number" if UNITLESS.search(name) else "dimension"


def literal_type(value: Value) -> TokenType:
    """The type a literal value shows (a float is a plain number; callers that know better say dimension)."""
    if isinstance(value, Color):
        return "color"
    if isinstance(value, Shadow):
        return "shadow"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"


Index = dict[tuple[str, str], tuple[Collection, Token]]


def index(tokens: TokenSet) -> Index:
    """Every token and its collection by ``(collection name, token name)``."""
    return {(c.name, t.name): (c, t) for c, t in tokens.tokens()}


def resolve(where: Index, value: Value, mode: str) -> Value | None:
    """The literal behind ``value`` in ``mode`` (a target without that mode gives its default), None for a broken or
    circular chain."""
    seen: set[tuple[str, str]] = set()
    while isinstance(value, Alias):
        key = (value.collection, value.name)
        if key in seen or key not in where:
            return None
        seen.add(key)
        coll, target = where[key]
        step = target.values.get(mode)
        if step is None and coll.modes:
            step = target.values.get(coll.modes[0])
        if step is None:
            return None
        value = step
    return value


def resolve_all(tokens: TokenSet) -> TokenSet:
    """A copy where every alias is replaced by the literal behind it (broken chains are dropped)."""
    out = TokenSet()
    where = index(tokens)
    for coll in tokens.collections:
        new = Collection(coll.name, list(coll.modes))
        for token in coll.tokens:
            values = {m: resolve(where, v, m) for m, v in token.values.items()}
            new.tokens.append(
                Token(
                    token.name,
                    token.type,
                    {m: v for m, v in values.items() if v is not None},
                    token.description,
                    token.id,
                )
            )
        out.collections.append(new)
    return out


def link_aliases(tokens: TokenSet) -> None:
    """Give every alias that names no collection the collection holding its target: its own if the name is there,
    else the first collection that has it (formats that lose collections cannot tell two namesakes apart)."""
    holders: dict[str, list[str]] = {}
    for coll, token in tokens.tokens():
        holders.setdefault(token.name, []).append(coll.name)
    for coll, token in tokens.tokens():
        for mode, value in token.values.items():
            if not isinstance(value, Alias) or value.collection:
                continue
            if value.name in holders:
                where = holders[value.name]
                token.values[mode] = Alias(value.name, coll.name if coll.name in where else where[0])
            else:
                # A reference with its collection in front, read where that collection was not known yet.
                head, _, rest = value.name.partition("/")
                if head in holders.get(rest, []):
                    token.values[mode] = Alias(rest, head)


def merge(parts: list[TokenSet]) -> TokenSet:
    """One token set from several (files split by collection or mode): collections, modes, tokens and values are
    united in the order met."""
    out = TokenSet()
    for part in parts:
        for coll in part.collections:
            into = out.collection(coll.name)
            if into is None:
                into = Collection(coll.name, [])
                out.collections.append(into)
            into.modes += [m for m in coll.modes if m not in into.modes]
            have = into.by_name()
            for token in coll.tokens:
                if token.name in have:
                    into_token = have[token.name]
                    if all(isinstance(v, Alias) for v in into_token.values.values()) and not all(
                        isinstance(v, Alias) for v in token.values.values()
                    ):
                        # The type shown by a literal beats the placeholder of a file that held only aliases.
                        into_token.type = token.type
                    into_token.values.update(token.values)
                    into_token.id = into_token.id or token.id
                    have[token.name].description = have[token.name].description or token.description
                else:
                    copy = Token(token.name, token.type, dict(token.values), token.description, token.id)
                    into.tokens.append(copy)
                    have[token.name] = copy
            into.skipped = {**into.skipped, **coll.skipped}
    for coll in out.collections:
        # A token another file gives a value is no longer skipped.
        coll.skipped = {n: r for n, r in coll.skipped.items() if n not in coll.by_name()}
    link_aliases(out)
    return out


def skip_no_variable(tokens: TokenSet) -> None:
    """Moves every token of a type no variable holds (:data:`NO_VARIABLE`) to its collection's ``skipped``, with the
    reason: what reading files for the design tool's variables keeps of them."""
    for coll in tokens.collections:
        kept = [t for t in coll.tokens if t.type not in NO_VARIABLE]
        coll.skipped = {**coll.skipped, **{t.name: NO_VARIABLE[t.type] for t in coll.tokens if t.type in NO_VARIABLE}}
        coll.tokens = kept


def select_modes(tokens: TokenSet, modes: list[str] | None) -> TokenSet:
    """A copy keeping only the modes named (all when None); a collection with none of them keeps its default."""
    if modes is None:
        return tokens
    out = TokenSet()
    for coll in tokens.collections:
        keep = [m for m in coll.modes if m in modes] or coll.modes[:1]
        out.collections.append(
            Collection(
                coll.name,
                keep,
                [
                    Token(t.name, t.type, {m: t.values[m] for m in keep if m in t.values}, t.description, t.id)
                    for t in coll.tokens
                ],
            )
        )
    return out


# The design tool's variables ----------------------------------------------------------------------------------------


def _from_raw(raw: Any, names: dict[str, tuple[str, str]]) -> Value | None:
    if isinstance(raw, dict) and raw.get("type") == "VARIABLE_ALIAS":
        target = names.get(str(raw.get("id", "")))
        return Alias(target[1], target[0]) if target else None
    if isinstance(raw, dict) and {"r", "g", "b"} <= raw.keys():
        return Color(float(raw["r"]), float(raw["g"]), float(raw["b"]), float(raw.get("a", 1.0)))
    if isinstance(raw, bool | str):
        return raw
    if isinstance(raw, int | float):
        return float(raw)
    return None


_FROM_RESOLVED: dict[str, TokenType] = {"COLOR": "color", "STRING": "string", "BOOLEAN": "boolean"}


def from_variables(snapshot: dict[str, Any]) -> TokenSet:
    """The token set of a ``GET_VARIABLES_DATA`` snapshot: mode names for mode ids, aliases by name (an alias to a
    variable not in the snapshot is dropped). FLOAT becomes ``dimension`` unless the name says it is unitless."""
    colls = snapshot.get("variableCollections") or []
    variables = snapshot.get("variables") or []
    coll_names = {c["id"]: c.get("name", c["id"]) for c in colls}
    names = {
        v["id"]: (coll_names.get(v.get("variableCollectionId", ""), ""), v.get("name", v["id"])) for v in variables
    }
    out = TokenSet()
    mode_names: dict[str, dict[str, str]] = {}
    for c in colls:
        modes = {m["modeId"]: m.get("name", m["modeId"]) for m in c.get("modes", [])}
        default = c.get("defaultModeId")
        order = [default, *(m for m in modes if m != default)] if default in modes else list(modes)
        mode_names[c["id"]] = modes
        out.collections.append(Collection(coll_names[c["id"]], [modes[m] for m in order]))
    by_id = {c["id"]: coll for c, coll in zip(colls, out.collections, strict=True)}
    for var in variables:
        coll = by_id.get(var.get("variableCollectionId", ""))
        if coll is None:
            continue
        resolved = var.get("resolvedType", "STRING")
        kind = _FROM_RESOLVED.get(resolved) or infer_float_type(var.get("name", ""))
        modes = mode_names[var["variableCollectionId"]]
        values: dict[str, Value] = {}
        for mode_id, raw in (var.get("valuesByMode") or {}).items():
            value = _from_raw(raw, names)
            if value is not None and mode_id in modes:
                values[modes[mode_id]] = value
        ordered = {m: values[m] for m in coll.modes if m in values}
        coll.tokens.append(
            Token(var.get("name", var["id"]), kind, ordered, var.get("description", "") or "", str(var["id"]))
        )
    return out


def to_variables(tokens: TokenSet) -> dict[str, Any]:
    """The ``GET_VARIABLES_DATA`` shape of a token set, with made-up ids (``VariableCollectionId:n``,
    ``VariableID:n``, ``n:m`` for modes); an alias to a token not in the set is left out."""
    counter = itertools.count(1)
    colls: list[dict[str, Any]] = []
    ids: dict[tuple[str, str], str] = {}
    for coll in tokens.collections:
        for token in coll.tokens:
            ids[(coll.name, token.name)] = token.id or f"VariableID:{next(counter)}"
    variables: list[dict[str, Any]] = []
    for ci, coll in enumerate(tokens.collections, start=1):
        mode_ids = {m: f"{ci}:{mi}" for mi, m in enumerate(coll.modes)}
        coll_id = f"VariableCollectionId:{ci}"
        colls.append(
            {
                "id": coll_id,
                "name": coll.name,
                "modes": [{"modeId": mode_ids[m], "name": m} for m in coll.modes],
                "defaultModeId": mode_ids[coll.modes[0]] if coll.modes else "",
            }
        )
        for token in coll.tokens:
            by_mode: dict[str, Any] = {}
            for mode, value in token.values.items():
                if mode not in mode_ids:
                    continue
                if isinstance(value, Alias):
                    target = ids.get((value.collection, value.name))
                    if target:
                        by_mode[mode_ids[mode]] = {"type": "VARIABLE_ALIAS", "id": target}
                elif isinstance(value, Color):
                    by_mode[mode_ids[mode]] = {"r": value.r, "g": value.g, "b": value.b, "a": value.a}
                else:
                    by_mode[mode_ids[mode]] = value
            variables.append(
                {
                    "id": ids[(coll.name, token.name)],
                    "name": token.name,
                    "resolvedType": RESOLVED_TYPE[token.type],
                    "description": token.description,
                    "valuesByMode": by_mode,
                    "variableCollectionId": coll_id,
                }
            )
    return {"variables": variables, "variableCollections": colls}


def type_aliases(tokens: TokenSet) -> None:
    """Give every token whose values are all aliases the type of the token its first alias leads to (formats that
    show types only by a literal's syntax cannot tell it otherwise)."""
    where = index(tokens)
    for _, token in tokens.tokens():
        values = list(token.values.values())
        if not values or not all(isinstance(v, Alias) for v in values):
            continue
        seen: set[tuple[str, str]] = set()
        value: Value | None = values[0]
        while isinstance(value, Alias) and (value.collection, value.name) in where:
            key = (value.collection, value.name)
            if key in seen:
                break
            seen.add(key)
            target = where[key][1]
            if any(not isinstance(v, Alias) for v in target.values.values()):
                token.type = target.type
                break
            value = next(iter(target.values.values()), None)
