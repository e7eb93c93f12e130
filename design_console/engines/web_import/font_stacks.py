"""A CSS font stack as the design tool can use it: named families in order, and the generic class it falls to.

The design tool has no "system-ui": in its place come the fonts the operating systems use for their interface, with
Inter, the design tool's own interface font, last; so a ``system-ui, …`` stack is never drawn in a family that merely
comes later in it (Roboto, Arial). The generic class (serif, sans-serif, monospace…) is the first generic family of
the stack, else the class its ``ui-…``/system keywords belong to, else sans-serif: the plugin falls back within it.
"""

from __future__ import annotations

import functools

from design_console.engines.web_import.css_values import split_top

#: What the interface-font keywords stand for in the design tool, most specific first.
SYSTEM_UI = ("SF Pro Text", "SF Pro", "Segoe UI", "Inter")
#: Keywords that name a class of fonts, not a font, and the generic class each belongs to.
GENERIC = {
    "serif": "serif",
    "sans-serif": "sans-serif",
    "monospace": "monospace",
    "cursive": "cursive",
    "fantasy": "fantasy",
    "system-ui": "sans-serif",
    "ui-sans-serif": "sans-serif",
    "ui-serif": "serif",
    "ui-monospace": "monospace",
    "ui-rounded": "sans-serif",
    "-apple-system": "sans-serif",
    "blinkmacsystemfont": "sans-serif",
    "math": "serif",
    "emoji": "sans-serif",
    "fangsong": "serif",
}
_SYSTEM_KEYWORDS = {"system-ui", "ui-sans-serif", "-apple-system", "blinkmacsystemfont"}
_EXPLICIT = {"serif", "sans-serif", "monospace", "cursive", "fantasy"}


def font_families(stack: str) -> list[str]:
    """The named families of a CSS font stack, in order, the system-font keywords replaced by what they stand for in
    the design tool (generic families, which name no font, left out)."""
    return list(_families(stack))


# A page has a few stacks and thousands of texts: each stack is read once.
@functools.lru_cache(maxsize=256)
def _families(stack: str) -> tuple[str, ...]:
    names: list[str] = []
    for raw in split_top(stack):
        name = raw.strip().strip("\"'")
        key = name.lower()
        found = SYSTEM_UI if key in _SYSTEM_KEYWORDS else () if key in GENERIC or not name else (name,)
        names.extend(n for n in found if n not in names)
    return tuple(names)


@functools.lru_cache(maxsize=256)
def generic_class(stack: str) -> str:
    """The generic class a stack falls back to: its first explicit generic family, else the class of its first
    keyword, else sans-serif."""
    keys = [raw.strip().strip("\"'").lower() for raw in split_top(stack)]
    explicit = next((k for k in keys if k in _EXPLICIT), None)
    return explicit or next((GENERIC[k] for k in keys if k in GENERIC), "sans-serif")
