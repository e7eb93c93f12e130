"""What importing token files would change in the design tool: the diff of a token set read from files ("code")
against the one read from the design tool's variables ("design"), as plain data for the import tool to apply.

Kinds of change:

- ``create-collection`` / ``create-mode``: a collection or mode the design tool lacks (always applied);
- ``create``: a token the design tool lacks (always applied);
- ``update``: literal values that differ, per mode (before → after);
- ``alias``: per mode, a value that becomes, stops being, or changes which token it aliases;
- ``rename``: a design token no longer in the files whose type and every value equal those of exactly one new
  token in the files, and that new token matches no other missing one (the heuristic: same values, new name, and
  no ambiguity either way); its values that differ after the rename are reported by an ``update``/``alias``;
- ``delete``: a design token not in the files; applied only with ``replace``, otherwise only listed.

Updates, alias changes and renames are conflicts (the design tool and the files disagree); ``on_conflict``
decides their action: ``code-wins`` → ``apply``, ``figma-wins`` → ``keep-design`` (the design tool's value stays
and the files are the stale side), ``skip`` → ``skip``, ``ask`` → ``ask`` (the caller asks the user).
A type change (e.g. a number token that became a colour) cannot be applied to a variable in place: it is
always ``skip`` with a reason.

``collection_mapping`` renames code collections to design ones and ``mode_mapping`` code modes to design modes
before comparing (aliases follow the mapping too).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from design_console.tokens.model import RESOLVED_TYPE, Alias, Collection, Token, TokenSet, TokenType, Value
from design_console.tokens.values import Color

OnConflict = Literal["ask", "figma-wins", "code-wins", "skip"]
ChangeKind = Literal["create-collection", "create-mode", "create", "update", "alias", "rename", "delete"]
Action = Literal["apply", "ask", "keep-design", "skip", "list"]

_CONFLICT_ACTION: dict[OnConflict, Action] = {
    "code-wins": "apply",
    "figma-wins": "keep-design",
    "skip": "skip",
    "ask": "ask",
}


class DiffOptions(msgspec.Struct, kw_only=True, frozen=True):
    """How to compare: name mappings, the conflict policy, and whether deletes are applied."""

    collection_mapping: dict[str, str] = {}
    mode_mapping: dict[str, str] = {}
    on_conflict: OnConflict = "ask"
    replace: bool = False


class ValueChange(msgspec.Struct, frozen=True):
    """One mode's value before (in the design tool; None when absent) and after (in the files)."""

    mode: str
    before: Value | None
    after: Value | None


class Change(msgspec.Struct, frozen=True, kw_only=True):
    """One change, in design-tool names (collection, token, modes)."""

    kind: ChangeKind
    collection: str
    action: Action
    name: str = ""
    type: TokenType | None = None
    from_name: str = ""
    values: list[ValueChange] = []
    modes: list[str] = []
    description: str | None = None
    reason: str = ""


class Diff(msgspec.Struct, frozen=True):
    """Every change, creates first and deletes last; ``counts`` per kind."""

    changes: list[Change]
    counts: dict[str, int]


def same(a: Value | None, b: Value | None) -> bool:
    """Values equal as the design tool stores them: colours to half a 1/255 step, numbers to 1e-6."""
    if isinstance(a, Color) and isinstance(b, Color):
        return all(abs(x - y) <= 0.5 / 255 for x, y in ((a.r, b.r), (a.g, b.g), (a.b, b.b), (a.a, b.a)))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
    return a == b


def _mapped(code: TokenSet, opts: DiffOptions) -> TokenSet:
    """``code`` in design-tool names."""
    colls = opts.collection_mapping
    modes = opts.mode_mapping

    def value(v: Value) -> Value:
        return Alias(v.name, colls.get(v.collection, v.collection)) if isinstance(v, Alias) else v

    out = TokenSet()
    for coll in code.collections:
        out.collections.append(
            Collection(
                colls.get(coll.name, coll.name),
                [modes.get(m, m) for m in coll.modes],
                [
                    Token(t.name, t.type, {modes.get(m, m): value(v) for m, v in t.values.items()}, t.description, t.id)
                    for t in coll.tokens
                ],
            )
        )
    return out


def _conflict(kind: ChangeKind, opts: DiffOptions) -> Action:
    return _CONFLICT_ACTION[opts.on_conflict] if kind in ("update", "alias", "rename") else "apply"


def _renames(new: list[Token], gone: list[Token]) -> dict[str, str]:
    """New name → old name: first the pairs whose variable id is the same (the export writes ids) and type agrees,
    then, among the rest, the pairs the rename heuristic accepts."""
    by_id = {g.id: g for g in gone if g.id}
    paired: dict[str, str] = {}
    for n in new:
        old = by_id.pop(n.id, None) if n.id else None
        if old is not None and RESOLVED_TYPE[old.type] == RESOLVED_TYPE[n.type]:
            paired[n.name] = old.name
    taken = set(paired.values())
    new = [n for n in new if n.name not in paired]
    gone = [g for g in gone if g.name not in taken]

    def matches(a: Token, b: Token) -> bool:
        common = a.values.keys() & b.values.keys()
        return (
            RESOLVED_TYPE[a.type] == RESOLVED_TYPE[b.type]
            and bool(common)
            and all(same(a.values[m], b.values[m]) for m in common)
        )

    candidates = {n.name: [g.name for g in gone if matches(n, g)] for n in new}
    claimed: dict[str, int] = {}
    for olds in candidates.values():
        for old_name in olds:
            claimed[old_name] = claimed.get(old_name, 0) + 1
    guessed = {name: olds[0] for name, olds in candidates.items() if len(olds) == 1 and claimed[olds[0]] == 1}
    return paired | guessed


def diff(code: TokenSet, design: TokenSet, opts: DiffOptions | None = None) -> Diff:
    """The changes that would make ``design`` hold what ``code`` holds."""
    opts = opts or DiffOptions()
    code = _mapped(code, opts)
    changes: list[Change] = []
    deletes: list[Change] = []
    renames: dict[str, dict[str, str]] = {}
    for coll in code.collections:
        known = design.collection(coll.name) or Collection(coll.name, [])
        have, wanted = known.by_name(), coll.by_name()
        renames[coll.name] = _renames(
            [t for t in coll.tokens if t.name not in have], [t for t in known.tokens if t.name not in wanted]
        )
    # A design alias follows its target's rename (it refers by id), so compare it by the target's new name.
    new_names = {(c, old): new for c, pairs in renames.items() for new, old in pairs.items()}
    for coll in code.collections:
        found = design.collection(coll.name)
        if found is None:
            changes.append(Change(kind="create-collection", collection=coll.name, action="apply", modes=coll.modes))
        target = found or Collection(coll.name, [])
        missing = [m for m in coll.modes if m not in target.modes]
        if missing and target.modes:
            changes.append(Change(kind="create-mode", collection=coll.name, action="apply", modes=missing))
        have = target.by_name()
        wanted = coll.by_name()
        gone = [t for t in target.tokens if t.name not in wanted]
        renamed = renames[coll.name]
        for token in coll.tokens:
            old_name = renamed.get(token.name, token.name if token.name in have else "")
            if not old_name:
                values = [ValueChange(m, None, v) for m, v in token.values.items()]
                changes.append(
                    Change(
                        kind="create",
                        collection=coll.name,
                        action="apply",
                        name=token.name,
                        type=token.type,
                        values=values,
                        description=token.description or None,
                    )
                )
                continue
            before = have[old_name]
            if old_name != token.name:
                changes.append(
                    Change(
                        kind="rename",
                        collection=coll.name,
                        action=_conflict("rename", opts),
                        name=token.name,
                        from_name=old_name,
                        type=token.type,
                    )
                )
            changes += _value_changes(coll.name, _follow(before, new_names), token, opts)
        for token in gone:
            if token.name in renamed.values():
                continue
            deletes.append(
                Change(
                    kind="delete",
                    collection=coll.name,
                    action="apply" if opts.replace else "list",
                    name=token.name,
                    type=token.type,
                )
            )
    if opts.replace:
        named = {c.name for c in code.collections}
        for coll in design.collections:
            if coll.name not in named:
                deletes += [
                    Change(kind="delete", collection=coll.name, action="apply", name=t.name, type=t.type)
                    for t in coll.tokens
                ]
    out = changes + deletes
    counts: dict[str, int] = {}
    for change in out:
        counts[change.kind] = counts.get(change.kind, 0) + 1
    return Diff(out, counts)


def _follow(token: Token, new_names: dict[tuple[str, str], str]) -> Token:
    """``token`` with its aliases naming renamed targets by their new names."""
    values = {
        m: Alias(new_names.get((v.collection, v.name), v.name), v.collection) if isinstance(v, Alias) else v
        for m, v in token.values.items()
    }
    return Token(token.name, token.type, values, token.description, token.id)


def _value_changes(collection: str, before: Token, after: Token, opts: DiffOptions) -> list[Change]:
    """The update and alias changes of one token present on both sides."""

    def change(kind: ChangeKind, action: Action, **detail: Any) -> Change:
        return Change(kind=kind, collection=collection, action=action, name=after.name, type=after.type, **detail)

    if RESOLVED_TYPE[before.type] != RESOLVED_TYPE[after.type]:
        reason = f"type changes from {before.type} to {after.type}; delete and recreate the variable"
        return [change("update", "skip", reason=reason)]
    literal: list[ValueChange] = []
    aliased: list[ValueChange] = []
    for mode, value in after.values.items():
        old = before.values.get(mode)
        if same(old, value):
            continue
        (aliased if isinstance(old, Alias) or isinstance(value, Alias) else literal).append(
            ValueChange(mode, old, value)
        )
    out = []
    description = after.description if after.description and after.description != before.description else None
    if literal or description is not None:
        out.append(change("update", _conflict("update", opts), values=literal, description=description))
    if aliased:
        out.append(change("alias", _conflict("alias", opts), values=aliased))
    return out
