"""Token files into the design tool's variables: the other half of token sync (:mod:`.token_sync` exports).

The tokens worker reads the files, checks the tokens (aliases that lead nowhere, loops, type mismatches, names
that clash), diffs them against the file's variables (:mod:`design_console.tokens.diff`) and turns the changes it
may apply into one APPLY_TOKEN_CHANGES command: the plugin checks it again and applies it all or nothing, as one
undo step. Files named by path follow the user-file rules (:mod:`design_console.runtime.user_files`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import Method
from design_console.protocol import ToolOutput
from design_console.runtime.user_files import read_bytes
from design_console.tokens import FORMATS, ParseOptions, format_named, read_file, typed
from design_console.tokens.diff import Change, DiffOptions, OnConflict, diff
from design_console.tokens.model import (
    NO_VARIABLE,
    RESOLVED_TYPE,
    Alias,
    Collection,
    Token,
    TokenSet,
    Value,
    from_variables,
    index,
    merge,
    skip_no_variable,
    type_aliases,
)
from design_console.tokens.values import Color, color_text
from design_console.tools.base import NORMALIZE, Args, ok, tokens_tool
from design_console.tools.context import TokensContext
from design_console.tools.token_tools.token_sync import MAX_FILE_BYTES, given_fields, with_config


def _import_format(name: str) -> str:
    return name if name == "auto" else format_named(name)


#: ``auto`` (each file's format told from its name and content) or a format by its name in :data:`FORMATS`.
ImportFormat = Annotated[str, Meta(extra={NORMALIZE: _import_format}, extra_json_schema={"enum": ["auto", *FORMATS]})]

#: The formats that declare each token's type, so an alias-only token's type is the file's word, not a guess.
DECLARES_TYPES = frozenset({"dtcg", "style-dictionary-v3", "tokens-studio"})

#: Changes listed one by one in the answer; the rest are only counted (a 5,000-token import stays readable).
LISTED_CHANGES = 50


class TokenFile(msgspec.Struct, forbid_unknown_fields=True):
    """A token file: read from ``path`` (user-file rules), or ``content`` given inline (``path`` then only names
    it, for format detection and messages). ``collection`` and ``mode`` place the tokens of a file that names
    neither (a DTCG file written elsewhere, plain CSS; given for a file that names its own, they are refused): one
    file per theme becomes one mode of a collection, the way design systems ship light and dark. A later file of
    the same collection and mode overrides an earlier one token by token."""

    path: str
    content: str | None = None
    collection: Annotated[str, Meta(min_length=1)] | None = None
    mode: Annotated[str, Meta(min_length=1)] | None = None


class _Source(msgspec.Struct, frozen=True):
    """The text of one token file of the call and where its tokens go."""

    path: str
    text: str
    collection: str | None = None
    mode: str | None = None


class ImportTokensArgs(Args):
    # Defaults (auto, merge, ask) are applied in the handler: listing them would cost catalog bytes.
    format: ImportFormat | None = None
    payload: str | None = None
    # Objects {path, content?} (TokenFile), read in the handler: their schema would cost catalog bytes.
    files: list[dict[str, Any]] | None = None
    configPath: str | None = None
    strategy: Literal["merge", "replace", "dry-run"] | None = None
    collectionMapping: dict[str, Any] | None = None
    modeMapping: dict[str, Any] | None = None
    prefix: Annotated[str, Meta(max_length=64)] | None = None
    onConflict: OnConflict | None = None
    dryRun: bool = False


def _refuse(message: str, hint: str) -> DesignError:
    return DesignError(ErrorCode.BAD_ARGUMENT, message, hint)


def _names(mapping: dict[str, Any] | None, argument: str) -> dict[str, str]:
    """A name mapping argument, checked (its schema says only "object", to save catalog bytes)."""
    bad = [key for key, value in (mapping or {}).items() if not isinstance(value, str) or not value]
    if bad:
        raise _refuse(f"{argument}: {', '.join(bad)} must map to a name.", f'Give {argument} as {{"from": "to"}}.')
    return dict(mapping or {})


def _sources(ctx: TokensContext, args: ImportTokensArgs) -> list[_Source]:
    """Every token file of the call (``payload`` first), with its text."""
    out: list[_Source] = []
    if args.payload is not None:
        out.append(_Source("payload", args.payload))
    try:
        files = msgspec.convert(args.files or [], list[TokenFile])
    except msgspec.ValidationError as exc:
        raise _refuse(f"files: {exc}.", "Give files as [{path, content?, collection?, mode?}].") from None
    for item in files:
        if item.content is not None:
            text = item.content
        else:
            raw = read_bytes(item.path, ctx.file_scope, max_bytes=MAX_FILE_BYTES, argument="files.path")
            text = raw.decode(errors="replace")
        out.append(_Source(item.path, text, item.collection, item.mode))
    if not out:
        raise _refuse("No tokens given.", "Pass payload (the text of a token file) or files [{path, content?}].")
    return out


def _placed(tokens: TokenSet, src: _Source) -> TokenSet:
    """``tokens`` of a file that names no modes (one mode, ``default``) in ``src.mode``; refuses a ``collection``
    or ``mode`` given for a file that names its own (it would be ignored)."""
    named = [c.name for c in tokens.collections]
    if src.collection and any(name != src.collection for name in named):
        raise _refuse(
            f"{src.path} names its own collections ({', '.join(named)}): collection applies to a file that names none.",
            "Leave collection out for this file, or rename with collectionMapping.",
        )
    for coll in tokens.collections:
        if src.mode and coll.modes != ["default"]:
            raise _refuse(
                f"{src.path} names its own modes ({', '.join(coll.modes)}): mode applies to a file with one.",
                "Leave mode out for this file, or rename with modeMapping.",
            )
        if src.mode:
            coll.modes = [src.mode]
            for token in coll.tokens:
                token.values = {src.mode if m == "default" else m: v for m, v in token.values.items()}
    return tokens


def _read(sources: list[_Source], args: ImportTokensArgs) -> TokenSet:
    """The tokens of every file, merged; refuses a token two files give different types."""
    fmt: Any = args.format or "auto"
    opts = ParseOptions(prefix=args.prefix or "")

    def options(src: _Source) -> ParseOptions:
        return msgspec.structs.replace(opts, default_collection=src.collection) if src.collection else opts

    # Each file is read once: as given (declared types, checked below) and, merged into a copy, with types filled in.
    read = [(src, *read_file(src.path, src.text, fmt, options(src))) for src in sources]
    parts = [(src.path, _placed(typed(merge([raw])), src)) for src, _, raw in read]
    for _, part in parts:
        skip_no_variable(part)
    seen: dict[tuple[str, str], tuple[str, Token]] = {}
    for path, part in parts:
        for coll, token in part.tokens():
            literal = any(not isinstance(v, Alias) for v in token.values.values())
            key = (coll.name, token.name)
            if key in seen and literal and RESOLVED_TYPE[seen[key][1].type] != RESOLVED_TYPE[token.type]:
                raise _refuse(
                    f"Conflicting token {coll.name}/{token.name}: a {seen[key][1].type} in {seen[key][0]}, "
                    f"a {token.type} in {path}.",
                    "Give the token one type, or rename one of them.",
                )
            if literal:
                seen[key] = (path, token)
    out = merge([part for _, part in parts])
    type_aliases(out)
    _check_declared([(src.path, name, raw) for src, name, raw in read], out)
    return out


def _check_declared(files: list[tuple[str, str, TokenSet]], merged: TokenSet) -> None:
    """Refuses a token whose values are all aliases and whose declared type (formats that declare types) is not
    the type its aliases lead to; ``files`` are (path, format, tokens as the file gives them)."""
    final = index(merged)
    for path, name, raw in files:
        if name not in DECLARES_TYPES:
            continue
        for coll, token in raw.tokens():
            aliases = [v for v in token.values.values() if isinstance(v, Alias)]
            if token.type in ("string", *NO_VARIABLE) or not aliases or len(aliases) < len(token.values):
                continue
            shown = final.get((coll.name, token.name))
            if shown is not None and RESOLVED_TYPE[shown[1].type] != RESOLVED_TYPE[token.type]:
                target = aliases[0]
                raise _refuse(
                    f"Type mismatch: {coll.name}/{token.name} in {path} is declared a {token.type} and aliases "
                    f"{target.name}, a {shown[1].type}.",
                    "Point it at a token of the same type, or fix its type.",
                )


def _map_collections(code: TokenSet, mapping: dict[str, str]) -> TokenSet:
    """``code`` with collections renamed as ``collectionMapping`` says (aliases follow); collections mapped onto
    one are merged, and a token name both hold is refused."""
    if not mapping:
        return code
    out = TokenSet()
    for coll in code.collections:
        name = mapping.get(coll.name, coll.name)
        into = out.collection(name)
        if into is None:
            into = Collection(name, [])
            out.collections.append(into)
        into.modes += [m for m in coll.modes if m not in into.modes]
        into.skipped = {**into.skipped, **coll.skipped}
        have = into.by_name()
        for token in coll.tokens:
            if token.name in have:
                raise _refuse(
                    f"Conflicting names: {token.name} is in two collections that collectionMapping maps onto {name}.",
                    "Map them onto different collections, or rename one of the tokens.",
                )
            values = {
                m: Alias(v.name, mapping.get(v.collection, v.collection)) if isinstance(v, Alias) else v
                for m, v in token.values.items()
            }
            into.tokens.append(Token(token.name, token.type, values, token.description, token.id))
    return out


def _skip_aliases_of_skipped(code: TokenSet) -> None:
    """Moves a token that aliases a skipped token (in any mode) to its collection's skipped, until none is left: the
    file gave its target, but no variable can hold it."""
    while True:
        gone = {(c.name, n) for c in code.collections for n in c.skipped}
        # A reference that names no collection is not linked to a skipped token: its name finds it.
        names = {n: c for c, n in gone}
        moved = False
        for coll in code.collections:
            for token in list(coll.tokens):
                target = next(
                    (
                        v
                        for v in token.values.values()
                        if isinstance(v, Alias)
                        and ((v.collection, v.name) in gone or (not v.collection and v.name in names))
                    ),
                    None,
                )
                if target is not None:
                    coll.tokens.remove(token)
                    where = target.collection or names[target.name]
                    coll.skipped[token.name] = f"aliases {where}/{target.name}, which is skipped"
                    moved = True
        if not moved:
            return


def _without_skipped(design: TokenSet, code: TokenSet) -> TokenSet:
    """``design`` less the variables the files name but skip: the files still hold them, so ``strategy: replace``
    deletes none of them, and no rename is guessed from them."""
    skipped = {(c.name, n) for c in code.collections for n in c.skipped}
    return TokenSet(
        [
            Collection(c.name, c.modes, [t for t in c.tokens if (c.name, t.name) not in skipped])
            for c in design.collections
        ]
    )


def _check(code: TokenSet, design: TokenSet) -> None:
    """Refuses aliases to no token (of the files or the design tool), aliases between types the design tool keeps
    apart, and alias loops; links aliases that name no collection to a design-tool token of that name."""
    mine = index(code)
    theirs = index(design)
    by_name: dict[str, str] = {}
    for coll, token in design.tokens():
        by_name.setdefault(token.name, coll.name)
    for coll, token in code.tokens():
        for mode, value in list(token.values.items()):
            if not isinstance(value, Alias):
                continue
            if not value.collection and value.name in by_name:
                value = token.values[mode] = Alias(value.name, by_name[value.name])
            key = (value.collection, value.name)
            target = (mine.get(key) or theirs.get(key) or (None, None))[1]
            where = f"{coll.name}/{token.name} (mode {mode})"
            if target is None:
                raise _refuse(
                    f"{where} aliases {value.name}, which is neither in the files nor in this design file.",
                    "Add the token it names, or fix the reference.",
                )
            if RESOLVED_TYPE[target.type] != RESOLVED_TYPE[token.type]:
                raise _refuse(
                    f"Type mismatch: {where} is a {token.type} and aliases {value.collection}/{value.name}, "
                    f"a {target.type}.",
                    "Point it at a token of the same type, or fix its type.",
                )
    for coll, token in code.tokens():
        for mode, first in token.values.items():
            step: Value | None = first
            chain = [f"{coll.name}/{token.name}"]
            seen = {(coll.name, token.name)}
            while isinstance(step, Alias):
                key = (step.collection, step.name)
                chain.append(f"{step.collection}/{step.name}")
                if key in seen:
                    raise _refuse(
                        f"Alias loop in mode {mode}: {' → '.join(chain)}.", "Point one of them at a plain value."
                    )
                seen.add(key)
                found = mine.get(key)
                if found is None:
                    break
                target_coll, target = found
                step = target.values.get(mode, target.values.get(target_coll.modes[0]) if target_coll.modes else None)


class _Planner:
    """Turns the changes to apply into APPLY_TOKEN_CHANGES params, naming existing things by id and new ones by
    ref."""

    def __init__(self, snapshot: dict[str, Any], changes: list[Change]) -> None:
        self.colls_by_name = {c.get("name", c["id"]): c for c in snapshot.get("variableCollections") or []}
        coll_names = {c["id"]: name for name, c in self.colls_by_name.items()}
        self.vars_by_name = {
            (coll_names.get(v.get("variableCollectionId", ""), ""), v.get("name", "")): v
            for v in snapshot.get("variables") or []
        }
        # A renamed token is the old variable under either name, whether or not the rename is applied.
        self.renamed_from = {(c.collection, c.name): c.from_name for c in changes if c.kind == "rename"}
        self.collections: dict[str, dict[str, Any]] = {}
        self.variables: dict[tuple[str, str], dict[str, Any]] = {}
        self.values: list[dict[str, Any]] = []
        self.deletes: list[str] = []
        self.by_id: dict[str, dict[str, Any]] = {}

    def coll(self, name: str) -> dict[str, Any]:
        if name not in self.collections:
            entry: dict[str, Any] = {"ref": f"c{len(self.collections)}", "name": name, "modes": []}
            if name in self.colls_by_name:
                entry["id"] = self.colls_by_name[name]["id"]
            self.collections[name] = entry
        return self.collections[name]

    def modes(self, collection: str) -> list[str]:
        """The collection's modes once the import is applied, default first."""
        have = self.colls_by_name.get(collection)
        ordered = []
        if have:
            by_id = {m["modeId"]: m["name"] for m in have.get("modes", [])}
            default = have.get("defaultModeId")
            ordered = [by_id[default]] if default in by_id else []
            ordered += [n for i, n in by_id.items() if i != default]
        return ordered + [m for m in self.coll(collection)["modes"] if m not in ordered]

    def existing(self, collection: str, name: str) -> dict[str, Any] | None:
        return self.vars_by_name.get((collection, self.renamed_from.get((collection, name), name)))

    def var(self, collection: str, name: str) -> dict[str, Any]:
        """The entry of the token the files call ``collection``/``name``: made by this import or already there."""
        key = (collection, name)
        if key not in self.variables:
            found = self.existing(collection, name)
            if found is None:
                raise _refuse(f"{collection}/{name} is not in this design file.", "Import the token it names too.")
            if found["id"] in self.by_id:
                # A reference by the old name of a variable this import renames: the same variable.
                self.variables[key] = self.by_id[found["id"]]
                return self.variables[key]
            self.variables[key] = self.by_id[found["id"]] = {
                "ref": f"v{len(self.variables)}",
                "id": found["id"],
                "collection": self.coll(collection)["ref"],
                "name": found.get("name", name),
                "type": found.get("resolvedType", "STRING"),
            }
        return self.variables[key]

    def value(self, entry: dict[str, Any], mode: str, value: Value) -> None:
        item: dict[str, Any] = {"variable": entry["ref"], "mode": mode}
        if isinstance(value, Alias):
            item["alias"] = self.var(value.collection, value.name)["ref"]
        elif isinstance(value, Color):
            item["value"] = {"r": value.r, "g": value.g, "b": value.b, "a": value.a}
        else:
            item["value"] = value
        self.values.append(item)

    def params(self, changes: list[Change]) -> dict[str, Any]:
        chosen = [c for c in changes if c.action == "apply"]
        for c in chosen:
            if c.kind in ("create-collection", "create-mode"):
                self.coll(c.collection)["modes"] += c.modes
            elif c.kind == "create":
                self.variables[(c.collection, c.name)] = {
                    "ref": f"v{len(self.variables)}",
                    "collection": self.coll(c.collection)["ref"],
                    "name": c.name,
                    "type": RESOLVED_TYPE[c.type or "string"],
                    **({"description": c.description} if c.description else {}),
                }
            elif c.kind == "rename":
                self.var(c.collection, c.name)["name"] = c.name
            elif c.kind == "delete":
                found = self.vars_by_name.get((c.collection, c.name))
                if found:
                    self.deletes.append(found["id"])
        for c in chosen:
            if c.kind in ("create", "update", "alias"):
                entry = self.var(c.collection, c.name)
                if c.kind == "update" and c.description is not None:
                    entry["description"] = c.description
                given = {v.mode: v.after for v in c.values if v.after is not None}
                if c.kind == "create" and given:
                    # Like SETUP_DESIGN_TOKENS: a mode the file gives no value takes the default mode's value.
                    first = given.get(self.modes(c.collection)[0], next(iter(given.values())))
                    given = {m: given.get(m, first) for m in self.modes(c.collection)} | given
                for mode, value in given.items():
                    self.value(entry, mode, value)
        return {
            "collections": list(self.collections.values()),
            "variables": list({id(entry): entry for entry in self.variables.values()}.values()),
            "values": self.values,
            "deletes": self.deletes,
        }


def _text(value: Value | None) -> Any:
    if isinstance(value, Alias):
        return f"{{{value.collection}/{value.name}}}"
    if isinstance(value, Color):
        return color_text(value, "hex8" if value.a < 1 else "hex")
    return value


def _listed(change: Change) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": change.kind, "collection": change.collection, "action": change.action}
    if change.name:
        out["name"] = change.name
    if change.from_name:
        out["from"] = change.from_name
    if change.modes:
        out["modes"] = change.modes
    if change.values and change.kind != "create":
        out["values"] = {v.mode: [_text(v.before), _text(v.after)] for v in change.values}
    if change.reason:
        out["reason"] = change.reason
    return out


def _skipped(code: TokenSet) -> dict[str, Any]:
    """The tokens of the files that no variable can hold: how many, by reason, and the first ones by name."""
    found = [(f"{c.name}/{name}", why) for c in code.collections for name, why in c.skipped.items()]
    if not found:
        return {}
    by_reason: dict[str, int] = {}
    for _, why in found:
        key = "aliases a skipped token" if why.startswith("aliases ") else why
        by_reason[key] = by_reason.get(key, 0) + 1
    return {"skipped": {"count": len(found), "byReason": by_reason, "tokens": dict(found[:LISTED_CHANGES])}}


def _report(changes: list[Change]) -> dict[str, Any]:
    """Counts per kind and action, and the first changes that are not plain creates, one by one."""
    counts: dict[str, dict[str, int]] = {}
    for c in changes:
        by_action = counts.setdefault(c.kind, {})
        by_action[c.action] = by_action.get(c.action, 0) + 1
    notable = [c for c in changes if c.kind not in ("create", "create-collection", "create-mode")]
    shown = [c for c in changes if c.kind in ("create-collection", "create-mode")] + notable
    out: dict[str, Any] = {"counts": counts, "changes": [_listed(c) for c in shown[:LISTED_CHANGES]]}
    if len(shown) > LISTED_CHANGES:
        out["notListed"] = len(shown) - LISTED_CHANGES
    return out


@tokens_tool(
    "design_import_tokens",
    "Token files ({path, content?, collection?, mode?}) or payload into variables: diff, then one undo step.",
    toolset="tokens",
    destructive=True,
    needs_bridge=True,
    file_args=("files", "configPath"),
)
async def design_import_tokens(ctx: TokensContext, args: ImportTokensArgs) -> ToolOutput:
    """Read and check the token files, diff them against the variables, and apply the changes in one command."""
    args = with_config(ctx, args, given_fields(args))
    code = _map_collections(_read(_sources(ctx, args), args), _names(args.collectionMapping, "collectionMapping"))
    file_key = ctx.active_file_key or ""
    snapshot = await ctx.bridge(Method.GET_VARIABLES_DATA, file_key=file_key)
    design = from_variables(snapshot)
    _skip_aliases_of_skipped(code)
    skipped = _skipped(code)
    # A collection whose every token is skipped is not made (an empty collection would be all it became).
    have = {c.name for c in design.collections}
    code.collections = [c for c in code.collections if c.tokens or not c.skipped or c.name in have]
    _check(code, design)
    found = diff(
        code,
        _without_skipped(design, code),
        DiffOptions(
            mode_mapping=_names(args.modeMapping, "modeMapping"),
            on_conflict=args.onConflict or "ask",
            replace=args.strategy == "replace",
        ),
    )
    report = {**_report(found.changes), **skipped}
    if args.dryRun or args.strategy == "dry-run":
        return ok({"applied": False, "dryRun": True, **report})
    if any(c.action == "ask" for c in found.changes):
        return ok(
            {
                "applied": False,
                **report,
                "hint": "The files and the design file disagree (action ask): nothing was written. Ask the user, then "
                "call again with onConflict code-wins, figma-wins or skip.",
            }
        )
    params = _Planner(snapshot, found.changes).params(found.changes)
    if not params["variables"] and not params["deletes"] and not any(c["modes"] for c in params["collections"]):
        return ok({"applied": False, "unchanged": True, **report})
    result = await ctx.bridge(Method.APPLY_TOKEN_CHANGES, params, file_key=file_key)
    return ok({"applied": True, "collections": result.get("collections", {}), "done": result.get("counts"), **report})
