"""Computed CSS values as the browser gives them (``rgb(…)``, ``12px``, comma lists), read into numbers."""

from __future__ import annotations

import re

_COLOR = re.compile(r"rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)")
_LENGTH = re.compile(r"-?[\d.]+(?:px)?")

Color = tuple[float, float, float, float]


def parse_color(text: str | None) -> Color | None:
    """A computed CSS colour (``rgb(…)`` / ``rgba(…)``) as r, g, b, a in 0..1; None when it is not one of those."""
    if not text:
        return None
    found = _COLOR.search(text)
    if not found:
        return None
    r, g, b, a = found.groups()
    alpha = 1.0 if a is None else float(a[:-1]) / 100 if a.endswith("%") else float(a)
    return (float(r) / 255, float(g) / 255, float(b) / 255, alpha)


def strip_colors(text: str) -> str:
    """``text`` without its ``rgb(…)`` colours."""
    return _COLOR.sub("", text)


def px(text: str | None, basis: float = 0.0) -> float:
    """A computed length in px (a percentage of ``basis``); 0 for anything else."""
    if not text:
        return 0.0
    first = text.split()[0]
    if first.endswith("%"):
        try:
            return float(first[:-1]) * basis / 100
        except ValueError:
            return 0.0
    found = _LENGTH.match(first)
    try:
        return float(found.group().removesuffix("px")) if found else 0.0
    except ValueError:
        return 0.0


def split_top(text: str) -> list[str]:
    """``text`` split at the commas that are not inside parentheses or quotes."""
    parts: list[str] = []
    depth = start = 0
    quote = ""
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif quote:
            if ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]
