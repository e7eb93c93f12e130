"""Code exports of design tokens: CSS custom properties, SCSS variables, a Tailwind theme, a TypeScript const, JSON.

Tokens come from variables (one value per mode, values may alias other variables) or from styles (colours,
typography, shadows). The default mode of each token goes to the base scope (``:root``, the plain SCSS variable, the
``tokens`` const); every other mode is emitted as an override (``[data-theme="dark"]``, ``$name--dark``, ``modes``).

Names (``split_name``, ``slug``, ``css_var``) are those of :mod:`design_console.tokens.names`, shared with the token
file formats.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from design_console.tokens.names import UNITLESS, css_var, slug

ExportFormat = Literal["css", "sass", "tailwind", "typescript", "json"]
Kind = Literal["color", "number", "string", "boolean", "typography", "shadow"]


@dataclass(frozen=True, slots=True)
class Ref:
    """A value that is another token (an alias), by its name path."""

    path: tuple[str, ...]


@dataclass(slots=True)
class Token:
    """One token: its name path, kind, and value in each mode (the first mode listed is the default)."""

    path: tuple[str, ...]
    kind: Kind
    values: dict[str, Any] = field(default_factory=dict)
    default_mode: str = ""

    def default(self) -> Any:
        """The value in the default mode."""
        return self.values.get(self.default_mode, next(iter(self.values.values()), None))


# Literal values ---------------------------------------------------------------------------------------------------


def _number(token: Token, value: float) -> str:
    text = f"{value:g}"
    return text if UNITLESS.search("/".join(token.path)) or value == 0 else f"{text}px"


def _shadow(shadows: list[dict[str, Any]]) -> str:
    parts = []
    for s in shadows:
        inset = "inset " if s.get("inset") else ""
        parts.append(f"{inset}{s['x']:g}px {s['y']:g}px {s['blur']:g}px {s['spread']:g}px {s['color']}")
    return ", ".join(parts) or "none"


def _font_family(family: str) -> str:
    return family if re.fullmatch(r"[A-Za-z-]+", family) else json.dumps(family)


def css_literal(token: Token, value: Any) -> str:
    """A literal value of ``token`` as CSS text."""
    if token.kind == "number" and isinstance(value, int | float):
        return _number(token, value)
    if token.kind == "boolean":
        return "1" if value else "0"
    if token.kind == "string":
        return json.dumps(str(value))
    if token.kind == "shadow":
        return _shadow(value)
    return str(value)


def typography_css(value: dict[str, Any]) -> list[tuple[str, str]]:
    """``(property, css value)`` pairs of a typography token's value."""
    out = []
    if "fontFamily" in value:
        out.append(("font-family", _font_family(value["fontFamily"])))
    if "fontWeight" in value:
        out.append(("font-weight", f"{value['fontWeight']:g}"))
    if "fontSize" in value:
        out.append(("font-size", f"{value['fontSize']:g}px"))
    if "lineHeight" in value:
        out.append(("line-height", f"{value['lineHeight']:g}px"))
    if "letterSpacing" in value:
        out.append(("letter-spacing", f"{value['letterSpacing']:g}px"))
    return out


def resolve(
    value: Any, by_path: dict[tuple[str, ...], Token], mode: str, seen: frozenset[tuple[str, ...]] = frozenset()
) -> Any:
    """The literal behind ``value``, following aliases (in ``mode`` when the target has it, else its default)."""
    while isinstance(value, Ref):
        target = by_path.get(value.path)
        if target is None or value.path in seen:
            return None
        seen = seen | {value.path}
        value = target.values.get(mode, target.default())
    return value


# Formats ----------------------------------------------------------------------------------------------------------


def _mode_slug(mode: str) -> str:
    return slug((mode,))


def _overrides(tokens: list[Token]) -> dict[str, list[Token]]:
    """Mode → the tokens that have a value of their own in that (non-default) mode."""
    out: dict[str, list[Token]] = {}
    for token in tokens:
        for mode in token.values:
            if mode != token.default_mode:
                out.setdefault(mode, []).append(token)
    return out


def to_css(tokens: list[Token]) -> str:
    """CSS custom properties: defaults on ``:root``, other modes under ``[data-theme="<mode>"]``."""

    def lines(mode: str | None, chosen: list[Token]) -> list[str]:
        out = []
        for token in chosen:
            value = token.values.get(mode) if mode else token.default()
            if isinstance(value, Ref):
                out.append(f"  {css_var(token.path)}: var({css_var(value.path)});")
            elif token.kind == "typography" and isinstance(value, dict):
                out += [f"  {css_var(token.path)}-{suffix}: {text};" for suffix, text in typography_css(value)]
            elif value is not None:
                out.append(f"  {css_var(token.path)}: {css_literal(token, value)};")
        return out

    blocks = [":root {", *lines(None, tokens), "}"]
    for mode, chosen in _overrides(tokens).items():
        blocks += ["", f'[data-theme="{_mode_slug(mode)}"] {{', *lines(mode, chosen), "}"]
    return "\n".join(blocks) + "\n"


def to_sass(tokens: list[Token]) -> str:
    """SCSS variables: ``$name`` for the default mode, ``$name--<mode>`` for the others."""

    def line(name: str, token: Token, value: Any) -> list[str]:
        if isinstance(value, Ref):
            return [f"${name}: ${slug(value.path)};"]
        if token.kind == "typography" and isinstance(value, dict):
            return [f"${name}-{suffix}: {text};" for suffix, text in typography_css(value)]
        return [f"${name}: {css_literal(token, value)};"] if value is not None else []

    out: list[str] = []
    for token in tokens:
        out += line(slug(token.path), token, token.default())
    for mode, chosen in _overrides(tokens).items():
        out += ["", f"// {mode}"]
        for token in chosen:
            out += line(f"{slug(token.path)}--{_mode_slug(mode)}", token, token.values[mode])
    return "\n".join(out) + "\n"


def _nested(pairs: list[tuple[tuple[str, ...], Any]]) -> dict[str, Any]:
    """A nested object from ``(path, value)`` pairs; a path that is also a group keeps its value under ``DEFAULT``."""
    root: dict[str, Any] = {}
    for path, value in pairs:
        node = root
        for part in path[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = {} if child is None else {"DEFAULT": child}
                node[part] = child
            node = child
        leaf = path[-1] if path else "DEFAULT"
        if isinstance(node.get(leaf), dict):
            node[leaf]["DEFAULT"] = value
        else:
            node[leaf] = value
    return root


_TAILWIND_GROUPS = (
    ("spacing", re.compile(r"^(spacing|space|gap|padding|margin|size)s?$", re.IGNORECASE)),
    ("borderRadius", re.compile(r"^(radius|radii|rounded|corner|border-?radius)$", re.IGNORECASE)),
    ("opacity", re.compile(r"^opacity$", re.IGNORECASE)),
)


def _tailwind_key(token: Token) -> tuple[str, tuple[str, ...]] | None:
    head, rest = token.path[0].lower(), token.path[1:] or token.path
    if token.kind == "color":
        return "colors", (token.path[1:] if head in ("color", "colors", "colour", "colours") and rest else token.path)
    if token.kind == "shadow":
        return "boxShadow", (rest if head in ("shadow", "shadows", "elevation") else token.path)
    if token.kind == "typography":
        return "fontSize", (rest if head in ("text", "type", "typography", "font") else token.path)
    if token.kind == "string" and "family" in "/".join(token.path).lower():
        return "fontFamily", token.path[-1:]
    if token.kind == "number":
        for group, pattern in _TAILWIND_GROUPS:
            if pattern.match(token.path[0]):
                return group, rest
    return None


def to_tailwind(tokens: list[Token], by_path: dict[tuple[str, ...], Token]) -> str:
    """A Tailwind config extending the theme. Tokens with more than one mode (or aliases to them) point at the CSS
    custom properties of the css export, so that switching ``data-theme`` switches them; others are inlined."""
    groups: dict[str, list[tuple[tuple[str, ...], Any]]] = {}
    skipped = 0
    for token in tokens:
        place = _tailwind_key(token)
        if place is None:
            skipped += 1
            continue
        group, path = place
        literal = resolve(token.default(), by_path, token.default_mode)
        if len(token.values) > 1 or isinstance(token.default(), Ref):
            value: Any = f"var({css_var(token.path)})"
        elif token.kind == "typography" and isinstance(literal, dict):
            parts = dict(typography_css(literal))
            extra = {k: parts[k] for k in ("line-height", "letter-spacing", "font-weight") if k in parts}
            camel = {re.sub(r"-(\w)", lambda m: m.group(1).upper(), k): v for k, v in extra.items()}
            value = [parts.get("font-size", "1rem"), camel]
        elif token.kind == "string":
            value = [str(literal)]
        else:
            value = css_literal(token, literal) if literal is not None else None
        if value is not None:
            groups.setdefault(group, []).append((path, value))
    theme = {group: _nested(pairs) for group, pairs in groups.items()}
    body = json.dumps({"theme": {"extend": theme}}, indent=2)
    note = f"// {skipped} tokens have no Tailwind theme key and are only in the other exports.\n" if skipped else ""
    return f"/** @type {{import('tailwindcss').Config}} */\n{note}module.exports = {body};\n"


def to_typescript(tokens: list[Token], by_path: dict[tuple[str, ...], Token]) -> str:
    """``export const tokens`` (default modes, aliases resolved) and ``export const modes`` (per-mode overrides)."""
    base = _nested([(token.path, resolve(token.default(), by_path, token.default_mode)) for token in tokens])
    modes = {
        mode: _nested([(token.path, resolve(token.values[mode], by_path, mode)) for token in chosen])
        for mode, chosen in _overrides(tokens).items()
    }
    out = f"export const tokens = {json.dumps(base, indent=2)} as const;\n"
    if modes:
        out += f"\nexport const modes = {json.dumps(modes, indent=2)} as const;\n"
    out += "\nexport type Tokens = typeof tokens;\n"
    return out


def to_json(tokens: list[Token]) -> str:
    """Nested JSON in the design-token format: ``$type``, ``$value`` (aliases as ``{a.b.c}``), other modes under
    ``$extensions.modes``."""

    def encode(value: Any) -> Any:
        return "{" + ".".join(value.path) + "}" if isinstance(value, Ref) else value

    pairs = []
    for token in tokens:
        entry: dict[str, Any] = {"$type": token.kind, "$value": encode(token.default())}
        others = {mode: encode(v) for mode, v in token.values.items() if mode != token.default_mode}
        if others:
            entry["$extensions"] = {"modes": others}
        pairs.append((token.path, entry))
    return json.dumps(_nested(pairs), indent=2) + "\n"


def export(tokens: list[Token], formats: list[ExportFormat]) -> dict[str, str]:
    """The text of each format asked for."""
    by_path = {token.path: token for token in tokens}
    out: dict[str, str] = {}
    for fmt in dict.fromkeys(formats):
        if fmt == "css":
            out[fmt] = to_css(tokens)
        elif fmt == "sass":
            out[fmt] = to_sass(tokens)
        elif fmt == "tailwind":
            out[fmt] = to_tailwind(tokens, by_path)
        elif fmt == "typescript":
            out[fmt] = to_typescript(tokens, by_path)
        else:
            out[fmt] = to_json(tokens)
    return out


def fit_exports(exports: dict[str, str], budget: int) -> tuple[dict[str, str], list[str]]:
    """The exports cut (at a line end) so that together they take at most ``budget`` characters as JSON text; and
    which were cut. Short exports are kept whole; what they leave is shared by the longer ones."""

    def cost(code: str) -> int:
        return len(json.dumps(code))

    out: dict[str, str] = {}
    cut: list[str] = []
    remaining = max(0, budget)
    ordered = sorted(exports, key=lambda fmt: cost(exports[fmt]))
    for index, fmt in enumerate(ordered):
        code = exports[fmt]
        share = remaining // (len(ordered) - index)
        if cost(code) > share:
            marker = "/* … cut to fit maxTokens */\n"
            end = len(code)
            while end > 0 and cost(code[:end]) + len(marker) > share:
                end = code.rfind("\n", 0, end - 1 - max(0, cost(code[:end]) - share) // 2) + 1
            code = code[:end] + marker
            cut.append(fmt)
        out[fmt] = code
        remaining -= cost(code)
    return {fmt: out[fmt] for fmt in exports}, [fmt for fmt in exports if fmt in cut]
