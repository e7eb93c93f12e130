"""Builders of page-walk entries written by hand, for the web import engine's tests."""

from __future__ import annotations

from typing import Any

NO_BORDER = [{"w": 0, "c": "rgb(0, 0, 0)", "s": "none"}] * 4


def el(p: int, tag: str, x: float, y: float, w: float, h: float, **style: Any) -> dict[str, Any]:
    """One element entry of a page walk: a static block with no paint, and ``style`` over it."""
    base: dict[str, Any] = {
        "k": "el",
        "p": p,
        "tag": tag,
        "name": tag,
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "display": "block",
        "position": "static",
        "visibility": "visible",
        "opacity": 1,
        "overflow": "visible",
        "bg": "rgba(0, 0, 0, 0)",
        "border": NO_BORDER,
        "radius": ["0px"] * 4,
        "shadow": "none",
        "padding": [0, 0, 0, 0],
        "flexDirection": "row",
        "flexWrap": "nowrap",
    }
    base.update(style)
    return base


def text(p: int, chars: str, x: float, y: float, w: float, *, line: str = "20px", box: float = 16) -> dict[str, Any]:
    """One text entry of a page walk: a single line in :func:`style`."""
    return {
        "k": "text",
        "p": p,
        "text": chars,
        "lines": 1,
        "lineBox": box,
        "x": x,
        "y": y,
        "w": w,
        "h": box,
        "style": style(line=line),
    }


def style(*, line: str = "20px", **changes: Any) -> dict[str, Any]:
    """A text's computed style as the page walk reads it, with ``changes`` over it."""
    base = {
        "fontFamily": '"Inter", Arial, sans-serif',
        "fontSize": 14,
        "fontWeight": "600",
        "fontStyle": "normal",
        "lineHeight": line,
        "letterSpacing": "normal",
        "textAlign": "start",
        "textTransform": "none",
        "textDecoration": "none",
        "color": "rgb(17, 24, 39)",
        "whiteSpace": "normal",
    }
    return {**base, **changes}


def page(*entries: dict[str, Any], height: float = 600) -> dict[str, Any]:
    """A walked page 800 px wide holding ``entries``."""
    return {"width": 800, "height": height, "entries": list(entries), "truncated": False, "warnings": []}
