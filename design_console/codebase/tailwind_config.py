"""The literal theme values of a Tailwind v3 config (``tailwind.config.{js,cjs,mjs,ts}``), without running it.

A config is JavaScript, so it is read at the tokenizer level: comments are blanked (:func:`.source.blank`), then the
object literal under ``theme`` (and ``theme.extend``) is walked. Strings, numbers, nested objects and arrays of them
are values; functions (``({ theme }) => …``), spreads, identifiers and calls are left out, since only running the
config could tell them. Keys map to Tailwind v4's theme namespaces (``colors`` → ``color``, ``borderRadius`` →
``radius`` …) so that v3 and v4 themes give tokens of the same names; ``DEFAULT`` keys give the namespace's own
token (``borderRadius.DEFAULT`` → ``radius``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from design_console.codebase.source import Lines, blank

#: Tailwind v3 theme keys → v4 namespaces (the keys that hold design values rather than utilities' plumbing).
NAMESPACES = {
    "colors": "color",
    "spacing": "spacing",
    "borderRadius": "radius",
    "fontFamily": "font",
    "fontSize": "text",
    "fontWeight": "font-weight",
    "letterSpacing": "tracking",
    "lineHeight": "leading",
    "boxShadow": "shadow",
    "dropShadow": "drop-shadow",
    "screens": "breakpoint",
    "opacity": "opacity",
    "blur": "blur",
    "zIndex": "z",
}
CONFIG_NAME = re.compile(r"^tailwind\.config\.(js|cjs|mjs|ts|mts|cts)$")


@dataclass(slots=True)
class ThemeValue:
    """One literal theme value: its token name (``color-primary-foreground``), CSS text and line."""

    name: str
    value: str
    line: int


class _Skip:
    """A value the reader cannot know without running the config."""


_SKIP = _Skip()
_KEY = re.compile(r"\s*(?:([A-Za-z_$][\w$]*)|\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'|(\d+(?:\.\d+)?))\s*:")
_STRING = re.compile(r"\"((?:[^\"\\\n]|\\.)*)\"|'((?:[^'\\\n]|\\.)*)'|`([^`$]*)`")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class _Reader:
    def __init__(self, code: str) -> None:
        self.code = code
        self.pos = 0

    def ws(self) -> None:
        while self.pos < len(self.code) and self.code[self.pos] in " \t\r\n":
            self.pos += 1

    def skip_value(self) -> None:
        """Move past one value of any kind: to the next ``,`` or closing bracket at this depth."""
        depth = 0
        while self.pos < len(self.code):
            c = self.code[self.pos]
            if c in "\"'`":
                m = _STRING.match(self.code, self.pos)
                self.pos = m.end() if m else self.pos + 1
                continue
            if c in "{[(":
                depth += 1
            elif c in "}])":
                if depth == 0:
                    return
                depth -= 1
            elif c == "," and depth == 0:
                return
            self.pos += 1

    def value(self) -> Any:
        self.ws()
        start = self.pos
        c = self.code[self.pos : self.pos + 1]
        out: Any = _SKIP
        if c == "{":
            out = self.object()
        elif c == "[":
            out = self.array()
        elif m := _STRING.match(self.code, self.pos):
            self.pos = m.end()
            out = next(g for g in m.groups() if g is not None)
        elif m := _NUMBER.match(self.code, self.pos):
            self.pos = m.end()
            out = float(m.group(0))
        self.ws()
        if self.code[self.pos : self.pos + 1] not in (",", "}", "]", ""):
            # An expression that only starts like a literal (`'a' + b`, `{…}.x`, a call).
            self.pos = start
            self.skip_value()
            return _SKIP
        return out

    def array(self) -> list[Any] | _Skip:
        self.pos += 1
        items: list[Any] = []
        while True:
            self.ws()
            if self.code[self.pos : self.pos + 1] in ("]", ""):
                self.pos += 1
                return items if all(i is not _SKIP for i in items) else _SKIP
            items.append(self.value())
            self.ws()
            if self.code[self.pos : self.pos + 1] == ",":
                self.pos += 1

    def object(self) -> dict[str, tuple[Any, int]]:
        """Keys → (value, offset of the key)."""
        self.pos += 1
        out: dict[str, tuple[Any, int]] = {}
        while True:
            self.ws()
            if self.code[self.pos : self.pos + 1] in ("}", ""):
                self.pos += 1
                return out
            at = self.pos
            m = _KEY.match(self.code, self.pos)
            if m is None:
                self.skip_value()  # a spread, a method or a shorthand property
            else:
                self.pos = m.end()
                key = next(g for g in m.groups() if g is not None)
                out[key] = (self.value(), at)
            self.ws()
            if self.code[self.pos : self.pos + 1] == ",":
                self.pos += 1


def _css(value: Any) -> str | None:
    """A literal theme value as CSS text (a font stack joined, a font size with options: its size)."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return ", ".join(v if re.fullmatch(r"[\w-]+|\".*\"|'.*'", v) else json.dumps(v) for v in value)
    if isinstance(value, list) and value and isinstance(value[0], str):
        return value[0]
    return None


def _leaves(node: dict[str, tuple[Any, int]], path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any, int]]:
    out = []
    for key, (value, at) in node.items():
        if isinstance(value, dict):
            out += _leaves(value, (*path, key))
        elif value is not _SKIP:
            out.append(((*path, key), value, at))
    return out


def theme_values(text: str) -> list[ThemeValue]:
    """The literal values under ``theme`` and ``theme.extend`` of a config's text, ``extend`` last (it wins)."""
    code = blank(text, strings=False)
    m = re.search(r"\btheme\s*:\s*\{", code)
    if m is None:
        return []
    reader = _Reader(code)
    reader.pos = m.end() - 1
    theme = reader.object()
    groups = [theme]
    extend = theme.get("extend", (None, 0))[0]
    if isinstance(extend, dict):
        groups.append(extend)
    out: list[ThemeValue] = []
    lines = Lines(code)
    for group in groups:
        for key, namespace in NAMESPACES.items():
            node = group.get(key, (None, 0))[0]
            if not isinstance(node, dict):
                continue
            for path, value, at in _leaves(node, ()):
                css = _css(value)
                parts = [p for p in path if p != "DEFAULT"]
                if css is None:
                    continue
                name = "-".join([namespace, *parts]).replace(".", "_").replace("/", "_")
                out.append(ThemeValue(name, css, lines.of(at)))
    return out
