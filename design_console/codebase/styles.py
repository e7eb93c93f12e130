"""Values a codebase's stylesheets define: CSS custom properties by theme (``:root``, ``.dark``,
``[data-theme=…]``), Tailwind v4 ``@theme`` blocks and v3 configs (:mod:`.tailwind_config`), SCSS ``$variables``,
and literal colours and sizes that declarations repeat; each with the file and line it comes from and how often the
code refers to it.

Parsed with tinycss2 (CSS syntax level 3). SCSS is read with the same tokenizer after its ``//`` comments are
blanked: a top-level ``$name: value;`` is a variable; values with SCSS maths, maps or functions other than colour
functions are counted as skipped (they have no single value without running Sass).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

import tinycss2  # type: ignore[import-untyped]
from tinycss2 import ast

from design_console.codebase.tailwind_config import CONFIG_NAME, theme_values
from design_console.codebase.walk import SourceFile

Source = Literal["css", "tailwind", "scss", "literal"]

#: The mode of values under a root selector.
DEFAULT_MODE = "default"
#: Selectors that scope a theme: the root itself, or a theme class / data attribute on it.
_ROOT = re.compile(r"^(?::root|html|:host|body)$")
_THEME_ATTR = re.compile(r"^(?::root|html|body)?\[data-[\w-]*theme\s*=\s*[\"']?([\w-]+)[\"']?\]$")
_THEME_CLASS = re.compile(r"^(?::root|html|body)?\.((?:theme-)?(?:dark|light|dim|contrast|high-contrast)(?:-theme)?)$")
#: Functions whose value is still one literal colour.
_COLOR_FUNCS = {"rgb", "rgba", "hsl", "hsla", "oklch", "oklab", "lab", "lch", "hwb", "color"}
#: Declarations whose literal sizes are spacing, radius or type scale values worth turning into tokens.
_SIZE_PROPS = re.compile(r"^(margin|padding|gap|row-gap|column-gap|border-radius|font-size|letter-spacing|inset)")
_SIZE = re.compile(r"^-?(?:\d+\.?\d*|\.\d+)(px|rem)$")
#: At most this many places are kept per value (the count says how many there are).
MAX_PLACES = 5


@dataclass(slots=True)
class Place:
    """Where a value is written."""

    file: str
    line: int

    def text(self) -> str:
        """``file:line``."""
        return f"{self.file}:{self.line}"


@dataclass(slots=True)
class Mined:
    """One named value of a stylesheet, per mode, with its places; or a repeated literal."""

    source: Source
    name: str
    #: Mode → value text (an alias is ``var(--x)`` in CSS, ``$x`` in SCSS).
    values: dict[str, str] = field(default_factory=dict)
    places: list[Place] = field(default_factory=list)
    #: References to it elsewhere in the code (literals: how often the value is written).
    frequency: int = 0
    #: For literals: ``color`` or ``dimension``.
    kind: str = ""


@dataclass(slots=True)
class Mining:
    """Everything mined from the stylesheets of a scan."""

    values: list[Mined] = field(default_factory=list)
    #: Custom properties set inside component selectors (not a theme), by count.
    scoped: int = 0
    #: Variables whose value needs Sass or calc() to be known.
    skipped: int = 0
    fonts: list[str] = field(default_factory=list)
    #: Files that failed to parse: ``file:line: message``.
    errors: list[str] = field(default_factory=list)


def _serialize(nodes: list[Any]) -> str:
    return " ".join(tinycss2.serialize(nodes).split())


def _theme_mode(selector: str) -> str | None:
    """The mode a selector list scopes (None: not a theme selector)."""
    modes = []
    for part in selector.split(","):
        part = part.strip()
        if _ROOT.match(part):
            modes.append(DEFAULT_MODE)
        elif m := _THEME_ATTR.match(part) or _THEME_CLASS.match(part):
            word = m.group(1).removeprefix("theme-").removesuffix("-theme")
            modes.append(DEFAULT_MODE if word == "light" else word)
        else:
            return None
    return modes[0] if modes else None


def _is_simple(nodes: list[Any], sigil: str) -> bool:
    """Whether a value is one literal or one reference (no maths, maps, interpolation or other functions)."""
    meaningful = [n for n in nodes if n.type not in ("whitespace", "comment")]
    if not meaningful:
        return False
    for n in meaningful:
        if n.type == "function":
            if n.lower_name == "var" and sigil == "--":
                continue
            if n.lower_name not in _COLOR_FUNCS or any(
                getattr(a, "type", "") == "literal" and a.value == "$" for a in n.arguments
            ):
                return False
        elif n.type in ("() block", "[] block", "{} block"):
            return False
        elif n.type == "literal" and n.value in ("*", "+", "/", "%", "$", "#", "{", "}"):
            if n.value == "$" and sigil == "$" and len(meaningful) == 2:
                continue
            if n.value == "/" and sigil == "--":
                continue
            return False
    return True


class _Miner:
    def __init__(self) -> None:
        self.out = Mining()
        self.named: dict[tuple[str, str], Mined] = {}
        self.literals: dict[tuple[str, str], Mined] = {}

    def define(self, source: Source, name: str, mode: str, value: str, place: Place) -> None:
        key = (source, name)
        item = self.named.get(key)
        if item is None:
            item = self.named[key] = Mined(source, name)
            self.out.values.append(item)
        if source == "scss":
            # Libraries declare `$x: … !default`, which only sets what is not set yet: the first value stands.
            item.values.setdefault(mode, value)
        else:
            item.values[mode] = value  # the cascade: a later declaration wins
        if len(item.places) < MAX_PLACES:
            item.places.append(place)

    def literal(self, kind: str, text: str, place: Place) -> None:
        key = (kind, text.lower())
        item = self.literals.get(key)
        if item is None:
            item = self.literals[key] = Mined("literal", text.lower(), {DEFAULT_MODE: text.lower()}, kind=kind)
        item.frequency += 1
        if len(item.places) < MAX_PLACES:
            item.places.append(place)

    def declarations(self, f: SourceFile, content: list[Any], mode: str | None, source: Source) -> None:
        for decl in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True):
            if decl.type == "qualified-rule":
                self.rule(f, decl)
            elif decl.type == "at-rule":
                self.at_rule(f, decl)
            elif decl.type == "declaration":
                self.declaration(f, decl, mode, source)

    def declaration(self, f: SourceFile, decl: ast.Declaration, mode: str | None, source: Source) -> None:
        place = Place(f.path, decl.source_line)
        if decl.name.startswith("--"):
            if mode is None:
                self.out.scoped += 1
            elif _is_simple(decl.value, "--"):
                self.define(source, decl.name[2:], mode, _serialize(decl.value), place)
            else:
                self.out.skipped += 1
            return
        for token in decl.value:
            if token.type == "hash" and re.fullmatch(r"[0-9a-fA-F]{3,8}", token.value):
                self.literal("color", "#" + token.value, Place(f.path, token.source_line))
            elif token.type == "function" and token.lower_name in _COLOR_FUNCS and _is_simple([token], "--"):
                if "var(" not in tinycss2.serialize(token.arguments):
                    self.literal("color", _serialize([token]), Place(f.path, token.source_line))
            elif token.type == "dimension" and _SIZE_PROPS.match(decl.lower_name):
                text = tinycss2.serialize([token])
                if _SIZE.match(text) and token.value != 0:
                    self.literal("dimension", text, Place(f.path, token.source_line))

    def rule(self, f: SourceFile, rule: ast.QualifiedRule) -> None:
        self.declarations(f, rule.content, _theme_mode(_serialize(rule.prelude)), "css")

    def at_rule(self, f: SourceFile, rule: ast.AtRule) -> None:
        name = rule.lower_at_keyword
        prelude = _serialize(rule.prelude)
        if name == "theme" and rule.content is not None:
            self.declarations(f, rule.content, DEFAULT_MODE, "tailwind")
        elif name == "import":
            m = re.search(r"(https?://[^\"')\s]+)", prelude)
            if m and "font" in m.group(1):
                self.out.fonts.append(m.group(1))
        elif name == "font-face" and rule.content is not None:
            for decl in tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True):
                if decl.type == "declaration" and decl.lower_name == "font-family":
                    family = _serialize(decl.value).strip("\"'")
                    if family not in self.out.fonts:
                        self.out.fonts.append(family)
        elif rule.content is not None and name in ("media", "layer", "supports", "container"):
            dark = "prefers-color-scheme" in prelude and "dark" in prelude
            for child in tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True):
                if child.type == "qualified-rule":
                    mode = _theme_mode(_serialize(child.prelude))
                    if dark and mode == DEFAULT_MODE:
                        mode = "dark"
                    self.declarations(f, child.content, mode, "css")
                elif child.type == "at-rule":
                    self.at_rule(f, child)

    def css(self, f: SourceFile) -> None:
        for rule in tinycss2.parse_stylesheet(f.text, skip_comments=True, skip_whitespace=True):
            if rule.type == "qualified-rule":
                self.rule(f, rule)
            elif rule.type == "at-rule":
                self.at_rule(f, rule)
            elif rule.type == "error":
                self.out.errors.append(f"{f.path}:{rule.source_line}: {rule.message}")

    def scss(self, f: SourceFile) -> None:
        nodes = tinycss2.parse_component_value_list(blank_line_comments(f.text), skip_comments=True)
        i = 0
        while i < len(nodes):
            node = nodes[i]
            if node.type == "literal" and node.value == "$" and i + 1 < len(nodes) and nodes[i + 1].type == "ident":
                name = nodes[i + 1].value
                j = i + 2
                while j < len(nodes) and nodes[j].type == "whitespace":
                    j += 1
                if j < len(nodes) and nodes[j].type == "literal" and nodes[j].value == ":":
                    end = j + 1
                    while end < len(nodes) and not (nodes[end].type == "literal" and nodes[end].value == ";"):
                        end += 1
                    value = _without_flags(nodes[j + 1 : end])
                    if name.startswith("_") or _serialize(value) == "null":
                        pass  # private helpers of a library and unset options are no design values
                    elif _is_simple(value, "$"):
                        self.define("scss", name, DEFAULT_MODE, _serialize(value), Place(f.path, node.source_line))
                    else:
                        self.out.skipped += 1
                    i = end + 1
                    continue
            elif node.type == "{} block":
                self.scss_block(f, node.content)
            i += 1

    def scss_block(self, f: SourceFile, content: list[Any]) -> None:
        """Literal values in the declarations of a nested SCSS block (its own ``$`` variables are local)."""
        for decl in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True):
            if decl.type == "declaration" and not decl.name.startswith("--"):
                self.declaration(f, decl, None, "css")
            elif decl.type == "qualified-rule":
                self.scss_block(f, decl.content)


def _without_flags(nodes: list[Any]) -> list[Any]:
    """A SCSS value without ``!default`` / ``!global``."""
    out = list(nodes)
    while (
        out
        and out[-1].type in ("whitespace", "ident")
        and (out[-1].type == "whitespace" or out[-1].value in ("default", "global"))
    ):
        if out[-1].type == "ident":
            if len(out) >= 2 and out[-2].type == "literal" and out[-2].value == "!":
                out = out[:-2]
                continue
            break
        out.pop()
    return out


def blank_line_comments(text: str) -> str:
    """SCSS text with ``//`` comments blanked (not inside strings, not the ``//`` of a URL), newlines kept."""
    out = []
    for line in text.split("\n"):
        if "//" not in line:
            out.append(line)
            continue
        quote = ""
        cut = len(line)
        for k, c in enumerate(line):
            if quote:
                if c == quote and line[k - 1] != "\\":
                    quote = ""
            elif c in "\"'":
                quote = c
            elif c == "/" and line[k + 1 : k + 2] == "/" and (k == 0 or line[k - 1] != ":"):
                cut = k
                break
        out.append(line[:cut])
    return "\n".join(out)


_STYLE = re.compile(r"<style\b([^>]*)>(.*?)</style>", re.DOTALL | re.IGNORECASE)


def style_blocks(f: SourceFile) -> list[SourceFile]:
    """The ``<style>`` blocks of a single-file component as stylesheets of the same path, padded with newlines so
    that their lines are the component file's (``lang="scss"`` ones read as SCSS)."""
    out = []
    for m in _STYLE.finditer(f.text):
        suffix = ".scss" if re.search(r"lang\s*=\s*[\"']?s[ac]ss", m.group(1)) else ".css"
        padded = "\n" * f.text.count("\n", 0, m.start(2)) + m.group(2)
        out.append(SourceFile(f.path, f.target, padded, suffix))
    return out


_CSS_REF = re.compile(r"var\(\s*--([\w-]+)")
#: Tailwind v4 theme namespaces → the utility prefixes that use them (``--color-primary`` → ``bg-primary`` …).
_TAILWIND_UTILITIES = {
    "color": "bg|text|border|border-[trblxy]|ring|ring-offset|outline|fill|stroke|from|via|to|divide|placeholder|"
    "accent|caret|decoration|shadow",
    "radius": "rounded|rounded-[trbl]{1,2}|rounded-[se]{1,2}",
    "font": "font",
    "text": "text",
    "shadow": "shadow",
    "spacing": "p[trblxy]?|m[trblxy]?|gap|gap-[xy]|space-[xy]",
}
#: A utility class (``hover:bg-primary/80`` counts for ``primary``: the variant ends in ``:``, which may precede).
_UTILITY = re.compile(r"(?<![\w-])(" + "|".join(_TAILWIND_UTILITIES.values()) + r")-([\w-]+)")
#: Files without one of these hold no class lists worth scanning for utilities.
_CLASS_HINTS = ("className", "class=", "class:", "cva(", "cn(", "clsx(", "tw`")
_SCSS_REF = re.compile(r"\$([\w-]+)(?!\s*:)")


def mine(files: list[SourceFile], min_frequency: int) -> Mining:
    """The values the stylesheets of ``files`` define, and literals written at least ``min_frequency`` times."""
    miner = _Miner()
    for f in files:
        if f.suffix == ".css":
            miner.css(f)
        elif f.suffix == ".scss":
            miner.scss(f)
        elif CONFIG_NAME.match(f.name):
            for theme in theme_values(f.text):
                miner.define("tailwind", theme.name, DEFAULT_MODE, theme.value, Place(f.path, theme.line))
        elif f.suffix in (".vue", ".svelte", ".astro"):
            for block in style_blocks(f):
                if block.suffix == ".scss":
                    miner.scss(block)
                else:
                    miner.css(block)
    refs: Counter[tuple[str, str]] = Counter()
    for f in files:
        for m in _CSS_REF.finditer(f.text):
            refs["--", m.group(1)] += 1
        if f.suffix == ".scss":
            for m in _SCSS_REF.finditer(f.text):
                refs["$", m.group(1)] += 1
        if f.suffix in (".tsx", ".jsx", ".vue", ".svelte", ".astro", ".html", ".ts", ".js") and any(
            hint in f.text for hint in _CLASS_HINTS
        ):
            for m in _UTILITY.finditer(f.text):
                refs["tw", m.group(2)] += 1
    for item in miner.out.values:
        sigil = "$" if item.source == "scss" else "--"
        item.frequency = refs[sigil, item.name]
        namespace, _, rest = item.name.partition("-")
        if item.source == "tailwind" and namespace in _TAILWIND_UTILITIES and rest:
            item.frequency += refs["tw", rest]
    kept = sorted(
        (m for m in miner.literals.values() if m.frequency >= min_frequency), key=lambda m: (-m.frequency, m.name)
    )
    miner.out.values += kept
    return miner.out
