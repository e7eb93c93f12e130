"""The writer and reader shared by the stylesheet formats (CSS custom properties, Tailwind v4 ``@theme``, SCSS,
LESS): one section per collection and mode, marked by ``collection:`` and ``mode:`` comments so that a file reads
back into the same collections and modes; a description rides as a comment after its declaration.

A reader without those comments (a stylesheet written by hand) puts everything in one collection and takes modes
from selectors (``:root``/``@theme`` → ``default``, ``[data-theme="dark"]`` → ``dark``) or, in SCSS and LESS, from
``--mode`` suffixes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from design_console.tokens.common import ExportOptions, ParseOptions, css_literal, read_css_literal, strip_prefix
from design_console.tokens.model import Alias, Collection, Token, TokenSet, Value
from design_console.tokens.names import from_slug, slug, split_name


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one stylesheet language writes a variable, a reference, a comment and a mode's scope."""

    sigil: str  # "--", "$" or "@"
    line_comment: bool  # ``//`` comments (SCSS, LESS) rather than ``/* */``
    scoped: bool  # CSS: modes are selector blocks; SCSS/LESS: modes are name suffixes
    first_scope: str = ":root"
    #: The name part put in front of a shadow token's variable unless its name starts so (Tailwind's ``--shadow-*``
    #: namespace, whose variables become ``shadow-*`` utilities).
    shadow_namespace: str = ""


CSS = Dialect("--", False, True)
TAILWIND = Dialect("--", False, True, "@theme", "shadow")
SCSS = Dialect("$", True, False)
LESS = Dialect("@", True, False)


def _clean(text: str) -> str:
    """Comment text on one line that cannot close the comment early."""
    return " ".join(text.replace("*/", "* /").split())


def _comment(d: Dialect, text: str) -> str:
    return f"// {_clean(text)}" if d.line_comment else f"/* {_clean(text)} */"


def _ident(name: str, prefix: str) -> str:
    base = slug(split_name(name))
    return f"{prefix}-{base}" if prefix else base


def _order(coll: Collection) -> list[Token]:
    """Tokens with every alias target in the same collection before the tokens that use it (SCSS needs a variable
    declared before use); otherwise the collection's order."""
    by_name = coll.by_name()
    done: set[str] = set()
    out: list[Token] = []

    def visit(token: Token, path: set[str]) -> None:
        if token.name in done or token.name in path:
            return
        for value in token.values.values():
            if isinstance(value, Alias) and value.collection == coll.name and value.name in by_name:
                visit(by_name[value.name], path | {token.name})
        done.add(token.name)
        out.append(token)

    for token in coll.tokens:
        visit(token, set())
    return out


def _collection_order(tokens: TokenSet) -> list[Collection]:
    """Collections that others alias first."""
    by_name = {c.name: c for c in tokens.collections}
    done: list[str] = []

    def visit(coll: Collection, path: set[str]) -> None:
        if coll.name in done or coll.name in path:
            return
        for token in coll.tokens:
            for value in token.values.values():
                if isinstance(value, Alias) and value.collection in by_name and value.collection != coll.name:
                    visit(by_name[value.collection], path | {coll.name})
        done.append(coll.name)

    for coll in tokens.collections:
        visit(coll, set())
    return [by_name[n] for n in done]


def write(d: Dialect, tokens: TokenSet, opts: ExportOptions) -> str:
    """The stylesheet text of ``tokens``."""
    modes_of = {c.name: c.modes for c in tokens.collections}
    shadows = {(c.name, t.name) for c, t in tokens.tokens() if t.type == "shadow"}
    declared: dict[tuple[str, str], tuple[str, str]] = {}
    lines: list[str] = []

    def name_in(mode: str, modes: list[str], ident: str) -> str:
        if d.scoped or not modes or mode == modes[0] or mode not in modes:
            return d.sigil + ident
        return f"{d.sigil}{ident}--{slug((mode,))}"

    def ident_of(coll_name: str, name: str) -> str:
        ident = _ident(name, opts.prefix)
        space = d.shadow_namespace
        if space and (coll_name, name) in shadows and not ident.startswith(f"{space}-"):
            return f"{space}-{ident}"
        return ident

    def text(value: Value, mode: str, token: Token) -> str:
        if isinstance(value, Alias):
            ident = name_in(mode, modes_of.get(value.collection, []), ident_of(value.collection, value.name))
            return f"var({ident})" if d.sigil == "--" else ident
        return css_literal(token.type, value, opts)

    for coll in _collection_order(tokens) if not d.scoped else tokens.collections:
        ordered = coll.tokens if d.scoped else _order(coll)
        lines.append(_comment(d, f"collection: {coll.name}"))
        for index, mode in enumerate(coll.modes):
            lines.append(_comment(d, f"mode: {mode}"))
            if d.scoped:
                scope = d.first_scope if index == 0 else f'[data-theme="{slug((mode,))}"]'
                lines.append(scope + " {")
            indent = "  " if d.scoped else ""
            for token in ordered:
                value = token.values.get(mode)
                if value is None:
                    continue
                ident = name_in(mode, coll.modes, ident_of(coll.name, token.name))
                # Scoped stylesheets share one selector per mode across collections; SCSS/LESS one namespace.
                key = (slug((mode,)) if d.scoped and index else "", ident)
                if key in declared and declared[key] != (coll.name, token.name):
                    other = declared[key]
                    raise ValueError(
                        f"{other[0]}/{other[1]} and {coll.name}/{token.name} both become {ident}"
                        " (split by collection, or rename one)"
                    )
                declared[key] = (coll.name, token.name)
                note = f" {_comment(d, token.description)}" if token.description.strip() else ""
                lines.append(f"{indent}{ident}: {text(value, mode, token)};{note}")
            if d.scoped:
                lines.append("}")
        lines.append("")
    return "\n".join(lines)


#: A declaration's value: up to ``;``, where a quoted string may hold ``;``, braces and escaped quotes.
_VALUE = r'(?:"(?:[^"\\]|\\.)*"|[^;{}"])+?'


def _reader_pattern(d: Dialect) -> re.Pattern[str]:
    sigil = re.escape(d.sigil)
    comment = r"//[ \t]*(?P<lc>[^\n]*)" if d.line_comment else r"/\*\s*(?P<bc>.*?)\s*\*/"
    return re.compile(
        rf"{comment}"
        rf"|(?P<decl>{sigil}(?P<name>[A-Za-z0-9_-]+))\s*:\s*(?P<value>{_VALUE})\s*;"
        rf"(?P<note>[ \t]*(?://[ \t]*(?P<nlc>[^\n]*)|/\*\s*(?P<nbc>.*?)\s*\*/))?"
        r"|(?P<scope>(?:@theme(?:\s+inline)?|:root|\[data-theme=[\"']?(?P<theme>[^\"'\]]+)[\"']?\]))\s*\{",
        re.DOTALL,
    )


_PATTERNS: dict[Dialect, re.Pattern[str]] = {}


def read(d: Dialect, text: str, opts: ParseOptions) -> TokenSet:
    """The token set a stylesheet written in ``d`` holds."""
    pattern = _PATTERNS.setdefault(d, _reader_pattern(d))
    out = TokenSet()
    coll: Collection | None = None
    mode = "default"
    marked_mode = False
    tokens: dict[tuple[str, str], Token] = {}
    typed: set[tuple[str, str]] = set()
    ref = re.compile(r"var\((--[A-Za-z0-9_-]+)\)" if d.sigil == "--" else rf"{re.escape(d.sigil)}([A-Za-z0-9_-]+)")

    def current() -> Collection:
        nonlocal coll
        if coll is None:
            coll = Collection(opts.default_collection, [])
            out.collections.append(coll)
        return coll

    def base_name(ident: str) -> tuple[str, str | None]:
        """Token name and (SCSS/LESS) mode suffix of an identifier."""
        ident = ident.removeprefix("--") if d.sigil == "--" else ident
        name, _, suffix = ident.partition("--")
        return from_slug(strip_prefix(name, opts.prefix)), suffix or None

    for m in pattern.finditer(text):
        comment = m.group("lc") if d.line_comment else m.group("bc")
        if comment is not None:
            key, _, rest = comment.strip().partition(":")
            if key == "collection" and rest.strip():
                coll = out.collection(rest.strip()) or Collection(rest.strip(), [])
                if coll not in out.collections:
                    out.collections.append(coll)
            elif key == "mode" and rest.strip():
                mode, marked_mode = rest.strip(), True
                if mode not in current().modes:
                    current().modes.append(mode)
            continue
        if m.group("scope") is not None:
            if not marked_mode:
                mode = m.group("theme") or "default"
            continue
        name, suffix = base_name(m.group("name"))
        here = current()
        this_mode = mode
        if suffix and not marked_mode:
            this_mode = suffix
        if this_mode not in here.modes:
            here.modes.append(this_mode)
        raw = m.group("value").strip()
        value: Value
        kind = None
        if (r := ref.fullmatch(raw)) is not None:
            value = Alias(base_name(r.group(1))[0])
        else:
            read_back = read_css_literal(raw, opts)
            if read_back is None:
                continue
            kind, value = read_back
        token = tokens.get((here.name, name))
        if token is None:
            token = Token(name, kind or "string", {}, "")
            tokens[(here.name, name)] = token
            here.tokens.append(token)
        if kind is not None and (here.name, name) not in typed:
            token.type = kind
            typed.add((here.name, name))
        token.values[this_mode] = value
        note = m.group("nlc") or m.group("nbc")
        if note and not token.description:
            token.description = note.strip()
    return out
