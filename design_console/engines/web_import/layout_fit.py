"""The auto layout that puts a box's items exactly where the page has them, when there is one.

A box's items (its layers, in flow order, with ``x``/``y``/``width``/``height`` relative to it) get auto layout only
when the design tool, laying them out, would put each within :data:`LAYOUT_TOLERANCE` of where the page does: one
gap between items, one alignment on each axis, the box's padding and border as padding. Which direction to try
comes from the box's CSS: a flex row or column as it says (wrapping flex rows and grids as wrapped rows), a table
row as a row, any other block as a column (its children stack).
"""

from __future__ import annotations

import itertools
from typing import Any

#: How far (px) an item may sit from where auto layout would put it for the box to get auto layout.
LAYOUT_TOLERANCE = 1.0

_ROWS = {"table-row"}
_COLUMNS = {
    "block", "list-item", "flow-root", "table", "table-row-group", "table-header-group", "table-footer-group",
    "table-cell", "inline-block", "table-caption",
}  # fmt: skip


def _padding(e: dict[str, Any]) -> list[float]:
    """The box's padding plus border on each side: top, right, bottom, left."""
    border = [b["w"] if b["s"] not in ("none", "hidden") else 0 for b in e["border"]]
    return [p + b for p, b in zip(e["padding"], border, strict=True)]


def fit_auto_layout(
    e: dict[str, Any], kids: list[dict[str, Any]], width: float, height: float
) -> dict[str, Any] | None:
    """The auto layout of box entry ``e`` that puts ``kids`` where they are, or None when none does."""
    if not kids:
        return None
    display = e.get("display", "block")
    if display in ("flex", "inline-flex"):
        direction = e.get("flexDirection", "row")
        if direction not in ("row", "column"):
            return None
        if direction == "row" and e.get("flexWrap", "nowrap") != "nowrap":
            return _fit_wrapped(e, kids, width, height)
        return _fit_line(e, kids, width, height, row=direction == "row")
    if display in ("grid", "inline-grid"):
        return _fit_wrapped(e, kids, width, height)
    if display in _ROWS:
        return _fit_line(e, kids, width, height, row=True)
    if display in _COLUMNS:
        return _fit_line(e, kids, width, height, row=False)
    return None


def _fit_line(
    e: dict[str, Any], kids: list[dict[str, Any]], width: float, height: float, *, row: bool
) -> dict[str, Any] | None:
    """The auto layout that puts ``kids`` in one row (or column) where they are, or None."""
    pad = _padding(e)
    main_pos, main_size, main_len = ("x", "width", width) if row else ("y", "height", height)
    cross_pos, cross_size, cross_len = ("y", "height", height) if row else ("x", "width", width)
    start, end = (pad[3], pad[1]) if row else (pad[0], pad[2])
    cstart, cend = (pad[0], pad[2]) if row else (pad[3], pad[1])
    gaps = [b[main_pos] - (a[main_pos] + a[main_size]) for a, b in itertools.pairwise(kids)]
    if gaps and (min(gaps) < -LAYOUT_TOLERANCE or max(gaps) - min(gaps) > LAYOUT_TOLERANCE):
        return None
    gap = round(sum(gaps) / len(gaps), 2) if gaps else 0.0
    first, last = kids[0][main_pos], kids[-1][main_pos] + kids[-1][main_size]
    if abs(first - start) <= LAYOUT_TOLERANCE:
        primary = "MIN"
    elif abs(last - (main_len - end)) <= LAYOUT_TOLERANCE:
        primary = "MAX"
    elif abs((first - start) - (main_len - end - last)) <= 2 * LAYOUT_TOLERANCE:
        primary = "CENTER"
    else:
        return None
    # How far each item is from where MIN, MAX and CENTER alignment would put it on the cross axis.
    offsets = {
        "MIN": [k[cross_pos] - cstart for k in kids],
        "MAX": [cross_len - cend - (k[cross_pos] + k[cross_size]) for k in kids],
        "CENTER": [(k[cross_pos] - cstart) - (cross_len - cend - k[cross_pos] - k[cross_size]) for k in kids],
    }
    counter = next((name for name, off in offsets.items() if all(abs(o) <= LAYOUT_TOLERANCE for o in off)), None)
    if counter is None:
        return None
    return {
        "mode": "HORIZONTAL" if row else "VERTICAL",
        "itemSpacing": gap,
        "paddingTop": pad[0],
        "paddingRight": pad[1],
        "paddingBottom": pad[2],
        "paddingLeft": pad[3],
        "primaryAxisAlignItems": primary,
        "counterAxisAlignItems": counter,
    }


def _lines(kids: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Items in rows as they wrap: a new row starts where an item is not to the right of the one before it."""
    lines: list[list[dict[str, Any]]] = [[kids[0]]]
    for before, kid in itertools.pairwise(kids):
        if kid["x"] <= before["x"] + LAYOUT_TOLERANCE:
            lines.append([kid])
        else:
            lines[-1].append(kid)
    return lines


def _fit_wrapped(e: dict[str, Any], kids: list[dict[str, Any]], width: float, height: float) -> dict[str, Any] | None:
    """The auto layout of a wrapping row (or a grid): one row, one column, or rows that wrap where the design
    tool wraps them, each starting at the left, its items at the row's top."""
    lines = _lines(kids)
    if len(lines) == 1:
        return _fit_line(e, kids, width, height, row=True)
    if all(len(line) == 1 for line in lines):
        return _fit_line(e, kids, width, height, row=False)
    pad = _padding(e)
    available = width - pad[1] - pad[3]
    gaps = [b["x"] - (a["x"] + a["width"]) for line in lines for a, b in itertools.pairwise(line)]
    if not gaps or min(gaps) < -LAYOUT_TOLERANCE or max(gaps) - min(gaps) > LAYOUT_TOLERANCE:
        return None
    gap = round(sum(gaps) / len(gaps), 2)
    tops = [min(k["y"] for k in line) for line in lines]
    bottoms = [max(k["y"] + k["height"] for k in line) for line in lines]
    row_gaps = [b - a for a, b in zip(bottoms, tops[1:], strict=False)]
    if min(row_gaps) < -LAYOUT_TOLERANCE or max(row_gaps) - min(row_gaps) > LAYOUT_TOLERANCE:
        return None
    if abs(tops[0] - pad[0]) > LAYOUT_TOLERANCE:
        return None
    for line, top in zip(lines, tops, strict=True):
        if abs(line[0]["x"] - pad[3]) > LAYOUT_TOLERANCE or any(abs(k["y"] - top) > LAYOUT_TOLERANCE for k in line):
            return None
        if line[-1]["x"] + line[-1]["width"] - pad[3] > available + LAYOUT_TOLERANCE:
            return None
    # Each row breaks where the design tool breaks it: the next row's first item would not have fitted.
    for line, following in itertools.pairwise(lines):
        used = line[-1]["x"] + line[-1]["width"] - pad[3]
        if used + gap + following[0]["width"] <= available - LAYOUT_TOLERANCE:
            return None
    return {
        "mode": "HORIZONTAL",
        "itemSpacing": gap,
        "paddingTop": pad[0],
        "paddingRight": pad[1],
        "paddingBottom": pad[2],
        "paddingLeft": pad[3],
        "primaryAxisAlignItems": "MIN",
        "counterAxisAlignItems": "MIN",
        "wrap": True,
        "counterAxisSpacing": round(sum(row_gaps) / len(row_gaps), 2),
    }
