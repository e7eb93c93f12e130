"""CSS gradients (as the browser computes them) as the design tool's gradient paints.

A paint's ``gradientTransform`` maps the layer's unit square (0..1 on each side) to the gradient's own space, where
a linear gradient runs from (0, 0.5) to (1, 0.5), and a radial or angular one is centred on (0.5, 0.5) with radius
0.5. So the gradient is laid on the layer's box in CSS px first, then scaled into the unit square.
"""

from __future__ import annotations

import math
import re
from typing import Any

from design_console.engines.web_import.css_values import Color, parse_color, px, split_top

_ANGLE = re.compile(r"^(-?[\d.]+)(deg|grad|rad|turn)$")
_SIDES = {"top": (0.0, -1.0), "bottom": (0.0, 1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}
_KEYWORD_AT = {"left": "0%", "top": "0%", "center": "50%", "right": "100%", "bottom": "100%"}

Transform = list[list[float]]


class GradientError(ValueError):
    """A gradient the design tool cannot draw; the message says what of it."""


def _degrees(text: str) -> float | None:
    found = _ANGLE.match(text)
    if not found:
        return None
    value, unit = float(found.group(1)), found.group(2)
    return {"deg": value, "grad": value * 0.9, "rad": math.degrees(value), "turn": value * 360}[unit]


def _stops(parts: list[str], length: float) -> list[dict[str, Any]]:
    """Colour stops with positions 0..1 along the gradient (``length`` px long), missing ones spread evenly."""
    colors: list[Color] = []
    positions: list[float | None] = []
    for part in parts:
        color = parse_color(part)
        if color is None:
            if re.fullmatch(r"-?[\d.]+(%|px)?", part.strip()):
                continue  # a colour hint (midpoint): the design tool interpolates evenly
            raise GradientError(f"colour stop {part!r} is not an sRGB colour")
        rest = part[part.rindex(")") + 1 :].split() if ")" in part else part.split()[1:]
        at: list[float | None] = [_position(x, length) for x in rest]
        for place in at or [None]:
            colors.append(color)
            positions.append(place)
    if len(colors) < 2:
        raise GradientError("a gradient needs two colours")
    if positions[0] is None:
        positions[0] = 0.0
    if positions[-1] is None:
        positions[-1] = 1.0
    # Each stop is at least where the one before it is; unplaced ones are spread between their placed neighbours.
    i = 0
    while i < len(positions):
        if positions[i] is None:
            j = i
            while positions[j] is None:
                j += 1
            start, end = positions[i - 1], positions[j]
            assert start is not None and end is not None
            for k in range(i, j):
                positions[k] = start + (end - start) * (k - i + 1) / (j - i + 1)
            i = j
        i += 1
    placed = [p for p in positions if p is not None]
    ordered = [max(placed[: k + 1]) for k in range(len(placed))]
    return [
        {"color": {"r": c[0], "g": c[1], "b": c[2], "a": c[3]}, "position": round(min(max(p, 0.0), 1.0), 4)}
        for c, p in zip(colors, ordered, strict=True)
    ]


def _position(text: str, length: float) -> float:
    if text.endswith("%"):
        return float(text[:-1]) / 100
    return px(text) / length if length else 0.0


def _unit_transform(rows: Transform, width: float, height: float) -> Transform:
    """``rows`` (mapping CSS px of the box to gradient space) as a map from the box's unit square."""
    (a, b, c), (d, e, f) = rows
    return [
        [round(a * width, 6), round(b * height, 6), round(c, 6)],
        [round(d * width, 6), round(e * height, 6), round(f, 6)],
    ]


def _linear(args: list[str], width: float, height: float) -> tuple[Transform, list[dict[str, Any]]]:
    angle = 180.0
    first = args[0]
    if first.startswith("to "):
        dx = sum(_SIDES[s][0] for s in first.split()[1:] if s in _SIDES)
        dy = sum(_SIDES[s][1] for s in first.split()[1:] if s in _SIDES)
        # A corner: the gradient line is perpendicular to the diagonal between the other two corners.
        angle = math.degrees(math.atan2(dx * height, -dy * width)) if dx and dy else math.degrees(math.atan2(dx, -dy))
        args = args[1:]
    elif (found := _degrees(first)) is not None:
        angle = found
        args = args[1:]
    rad = math.radians(angle)
    ux, uy = math.sin(rad), -math.cos(rad)
    length = abs(width * ux) + abs(height * uy) or 1.0
    cx, cy = width / 2, height / 2
    # s runs 0..1 along the line, centred on the box; t is 0.5 on the line.
    rows = [
        [ux / length, uy / length, 0.5 - (cx * ux + cy * uy) / length],
        [-uy / length, ux / length, 0.5 - (-cx * uy + cy * ux) / length],
    ]
    return _unit_transform(rows, width, height), _stops(args, length)


def _center(words: list[str], width: float, height: float) -> tuple[float, float]:
    values = [_KEYWORD_AT.get(w, w) for w in words] or ["50%", "50%"]
    if len(values) == 1:
        values.append("50%")
    if words and words[0] in ("top", "bottom"):
        values.reverse()
    return _length(values[0], width), _length(values[1], height)


def _length(text: str, basis: float) -> float:
    return float(text[:-1]) * basis / 100 if text.endswith("%") else px(text)


def _radial(args: list[str], width: float, height: float) -> tuple[Transform, list[dict[str, Any]]]:
    shape_words: list[str] = []
    at_words: list[str] = []
    if parse_color(args[0]) is None:
        words = args[0].split()
        split = words.index("at") if "at" in words else len(words)
        shape_words, at_words = words[:split], words[split + 1 :]
        args = args[1:]
    cx, cy = _center(at_words, width, height)
    circle = "circle" in shape_words
    sides_x = (cx, width - cx)
    sides_y = (cy, height - cy)
    explicit = [w for w in shape_words if w not in ("circle", "ellipse")]
    size = explicit[0] if explicit and not explicit[0][0].isdigit() else "farthest-corner"
    lengths = [w for w in explicit if w[0].isdigit() or w[0] == "."]
    if lengths:
        rx = _length(lengths[0], width)
        ry = rx if circle or len(lengths) == 1 else _length(lengths[1], height)
    else:
        near = size.startswith("closest")
        pick = min if near else max
        dx, dy = pick(sides_x), pick(sides_y)
        if circle:
            rx = ry = math.hypot(dx, dy) if size.endswith("corner") else pick(dx, dy)
        elif size.endswith("corner"):
            rx, ry = dx * math.sqrt(2), dy * math.sqrt(2)
        else:
            rx, ry = dx, dy
    rx, ry = rx or 1.0, ry or 1.0
    rows = [[1 / (2 * rx), 0.0, 0.5 - cx / (2 * rx)], [0.0, 1 / (2 * ry), 0.5 - cy / (2 * ry)]]
    return _unit_transform(rows, width, height), _stops(args, rx)


def _conic(args: list[str], width: float, height: float) -> tuple[Transform, list[dict[str, Any]]]:
    start = 0.0
    at_words: list[str] = []
    if parse_color(args[0]) is None:
        words = args[0].split()
        if "from" in words:
            start = _degrees(words[words.index("from") + 1]) or 0.0
        if "at" in words:
            at_words = words[words.index("at") + 1 :]
        args = args[1:]
    cx, cy = _center(at_words, width, height)
    # CSS starts at the top and turns clockwise; the design tool starts along its gradient's x axis.
    rad = math.radians(start - 90)
    cos, sin = math.cos(rad), math.sin(rad)
    r = max(width, height) or 1.0
    rows = [
        [cos / (2 * r), sin / (2 * r), 0.5 - (cx * cos + cy * sin) / (2 * r)],
        [-sin / (2 * r), cos / (2 * r), 0.5 - (-cx * sin + cy * cos) / (2 * r)],
    ]
    stops = [s.replace("deg", "").strip() for s in args]
    return _unit_transform(rows, width, height), _stops([_turns_as_percent(s) for s in stops], 1.0)


def _turns_as_percent(stop: str) -> str:
    """A conic stop's angle (deg, as computed) as the percentage of a turn it is."""
    if ")" not in stop:
        return stop
    head, _, rest = stop.rpartition(")")
    places = [f"{float(x) / 3.6:g}%" if not x.endswith("%") else x for x in rest.split()]
    return head + ") " + " ".join(places)


def _standard_direction(first: str) -> str:
    """A -webkit- gradient's first argument in today's syntax: it named where the gradient starts ("top"), today's
    names where it goes ("to bottom"); its angles turned counter-clockwise from the east, today's clockwise from the
    north."""
    words = first.split()
    if words and all(w in _SIDES for w in words):
        opposite = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}
        return "to " + " ".join(opposite[w] for w in words)
    degrees = _degrees(first)
    return f"{90 - degrees:g}deg" if degrees is not None else first


def gradient_paint(css: str, width: float, height: float) -> dict[str, Any]:
    """The gradient paint of one computed CSS gradient on a ``width`` × ``height`` box. Raises GradientError."""
    name, _, body = css.partition("(")
    legacy = name.strip().startswith("-webkit-")
    kind = name.strip().removeprefix("-webkit-").removeprefix("repeating-")
    args = split_top(body.rstrip()[:-1] if body.rstrip().endswith(")") else body)
    if not args:
        raise GradientError("the gradient is empty")
    if legacy and kind == "linear-gradient":
        args = [_standard_direction(args[0]), *args[1:]]
    builders = {"linear-gradient": ("GRADIENT_LINEAR", _linear), "radial-gradient": ("GRADIENT_RADIAL", _radial)}
    builders["conic-gradient"] = ("GRADIENT_ANGULAR", _conic)
    if kind not in builders:
        raise GradientError(f"{kind} is not a gradient the design tool draws")
    paint_type, build = builders[kind]
    transform, stops = build(args, max(width, 1.0), max(height, 1.0))
    return {"type": paint_type, "gradientTransform": transform, "gradientStops": stops}
