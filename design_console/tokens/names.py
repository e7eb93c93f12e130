"""Token names: the slash path people give a design variable, and the identifiers code formats make of it."""

from __future__ import annotations

import re

_SLUG = re.compile(r"[^a-z0-9]+")

#: Numbers whose name says they carry no unit (a FLOAT in the design tool is otherwise a size in px).
UNITLESS = re.compile(r"opacity|weight|ratio|scale|z-?index|line-?height|count|order|flex|duration", re.IGNORECASE)


def split_name(name: str) -> tuple[str, ...]:
    """A token name (``color/blue/100``, ``Text/Body``) as its path."""
    return tuple(part.strip() for part in name.split("/") if part.strip())


def slug(path: tuple[str, ...]) -> str:
    """``color-blue-100``: the path as one lower-case, dash-separated identifier."""
    return "-".join(s for s in (_SLUG.sub("-", part.lower()).strip("-") for part in path) if s) or "token"


def css_var(path: tuple[str, ...]) -> str:
    """The CSS custom property of a token."""
    return f"--{slug(path)}"


def from_slug(text: str) -> str:
    """The token name a dash-separated identifier stands for: every dash is a group boundary."""
    return "/".join(part for part in text.split("-") if part)
