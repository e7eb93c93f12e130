"""Laid-out boxes and computed styles (what :data:`.page_walk.PAGE_WALK` returns) as one node spec for the plugin.

An element becomes a frame when something of it shows (a background, a border, a shadow, an image, clipping with a
radius, an opacity below 1); any other element leaves no layer and its content moves up to the nearest frame, at the
same place on the page. A frame that is a flex row or column gets auto layout only when its children sit exactly
where auto layout would put them (one gap, one alignment on each axis), so the design looks like the page either
way; every other child is placed absolutely. Runs of text become text layers at the page's text box, with the
page's font stack for the plugin to choose from. Colours, gaps, paddings and radii equal to a local variable's value
are bound to it.

The spec is plain data (dicts and lists, JSON-ready): each node has ``type`` (``FRAME``, ``TEXT`` or ``SVG``),
``name``, ``x``/``y`` relative to its parent, ``width``/``height`` and the fields the plugin's CREATE_NODE_TREE reads.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from design_console.tokens.names import css_var, split_name

#: Positions and sizes are kept to a hundredth of a pixel; the plugin takes them as they are.
PRECISION = 2
#: How far (px) a child may sit from where auto layout would put it for the frame to get auto layout.
LAYOUT_TOLERANCE = 1.0
#: The longest layer name taken from a text.
NAME_CHARS = 40

_COLOR = re.compile(r"rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)")
_LENGTH = re.compile(r"-?[\d.]+(?:px)?")
_GENERIC_FONTS = {"serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "ui-sans-serif", "ui-serif"}

Color = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class LocalVariable:
    """A local variable's value in its collection's default mode: a colour (r, g, b, a in 0..1) or a number."""

    id: str
    name: str
    value: Color | float
    #: The variable's scopes in the design tool; ``ALL_SCOPES`` fits any field.
    scopes: tuple[str, ...] = ("ALL_SCOPES",)


@dataclass(slots=True)
class Conversion:
    """The node spec of a page, the images it refers to (base64, by index) and what could not be carried."""

    root: dict[str, Any]
    images: list[str]
    node_count: int
    warnings: list[str]
    #: Variable name → {"id", "cssVar", "uses"} for every variable bound somewhere in the spec.
    bound: dict[str, dict[str, Any]] = field(default_factory=dict)


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


def _px(text: str | None, basis: float = 0.0) -> float:
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
    return float(found.group().removesuffix("px")) if found else 0.0


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas that are not inside parentheses."""
    parts: list[str] = []
    depth = start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def font_families(stack: str) -> list[str]:
    """The named families of a CSS font stack, in order (generic families, which name no font, left out)."""
    names = [name.strip().strip("\"'") for name in _split_top(stack)]
    return [name for name in names if name and name.lower() not in _GENERIC_FONTS]


class _Variables:
    """Finds the local variable a value equals, preferring one scoped to the field it would be bound on."""

    def __init__(self, variables: Iterable[LocalVariable]) -> None:
        self._colors: dict[tuple[int, ...], list[LocalVariable]] = {}
        self._numbers: dict[float, list[LocalVariable]] = {}
        for var in sorted(variables, key=lambda v: v.name):
            if isinstance(var.value, tuple):
                self._colors.setdefault(_color_key(var.value), []).append(var)
            else:
                self._numbers.setdefault(round(float(var.value), PRECISION), []).append(var)
        self.bound: dict[str, dict[str, Any]] = {}

    def color(self, color: Color, scope: str) -> str | None:
        return self._pick(self._colors.get(_color_key(color), []), scope)

    def number(self, value: float, scope: str) -> str | None:
        return self._pick(self._numbers.get(round(value, PRECISION), []), scope) if value else None

    def _pick(self, candidates: list[LocalVariable], scope: str) -> str | None:
        fitting = [v for v in candidates if scope in v.scopes] or [v for v in candidates if "ALL_SCOPES" in v.scopes]
        if not fitting:
            return None
        var = fitting[0]
        entry = self.bound.setdefault(var.name, {"id": var.id, "cssVar": css_var(split_name(var.name)), "uses": 0})
        entry["uses"] += 1
        return var.id


def _color_key(color: Color) -> tuple[int, ...]:
    return tuple(round(c * 255) for c in color)


def _round(value: float) -> float:
    return round(value, PRECISION)


class _Converter:
    def __init__(self, page: dict[str, Any], variables: _Variables) -> None:
        self.page = page
        self.vars = variables
        self.images: list[str] = []
        self._image_index: dict[str, int] = {}
        self.warnings: list[str] = list(page.get("warnings") or [])
        self._noted: set[str] = set()
        self.count = 0

    def warn(self, text: str) -> None:
        if text not in self._noted:
            self._noted.add(text)
            self.warnings.append(text)

    def image(self, data: str) -> int:
        if data not in self._image_index:
            self._image_index[data] = len(self.images)
            self.images.append(data)
        return self._image_index[data]

    def solid(self, color: Color, scope: str) -> dict[str, Any]:
        paint: dict[str, Any] = {"type": "SOLID", "color": {"r": color[0], "g": color[1], "b": color[2]}}
        if color[3] < 1:
            paint["opacity"] = round(color[3], 4)
        variable = self.vars.color(color, scope)
        if variable:
            paint["variableId"] = variable
        return paint

    # ---- elements ---------------------------------------------------------------------------------------------

    def frame_for(self, e: dict[str, Any]) -> dict[str, Any] | None:
        """The frame of an element, or None when nothing of it shows."""
        if e.get("hidden") or e["w"] <= 0 or e["h"] <= 0:
            return None
        if e.get("svg"):
            return {"type": "SVG", "name": e["name"], "svg": e["svg"]}
        node: dict[str, Any] = {"type": "FRAME", "name": e["name"]}
        fills: list[dict[str, Any]] = []
        bg = parse_color(e.get("bg"))
        if bg and bg[3] > 0:
            fills.append(self.solid(bg, "FRAME_FILL"))
        elif e.get("bg") and bg is None:
            self.warn(f"background colour {e['bg']} is not an sRGB colour: left out")
        if e.get("bgImageData"):
            scale = "FIT" if e.get("bgSize") == "contain" else "FILL"
            fills.append({"type": "IMAGE", "image": self.image(e["bgImageData"]), "scaleMode": scale})
        elif e.get("bgImage", "none") != "none" and "gradient" in e.get("bgImage", ""):
            self.warn(f"CSS gradients are not carried ({e['name']}): left out")
        if e.get("image"):
            fills.append({"type": "IMAGE", "image": self.image(e["image"]), "scaleMode": _fit(e.get("fit"))})
        elif e["tag"] == "img":
            self.warn(f"image of {e['name']} could not be read: left out")
        shown = bool(fills)
        if self._strokes(e, node):
            shown = True
        effects = self._effects(e.get("shadow") or "none")
        if effects:
            node["effects"] = effects
            shown = True
        radii = [_round(_px(r, min(e["w"], e["h"]))) for r in e.get("radius") or []]
        if any(radii):
            if len(set(radii)) == 1:
                node["cornerRadius"] = radii[0]
                variable = self.vars.number(radii[0], "CORNER_RADIUS")
                if variable:
                    node.setdefault("bound", {})["cornerRadius"] = variable
            else:
                node["cornerRadii"] = radii
        if e.get("opacity", 1) < 1:
            node["opacity"] = round(e["opacity"], 4)
            shown = True
        if e.get("display") in ("flex", "inline-flex"):
            # A flex box is a group of its own even when nothing of it shows, so that its parent's row or column
            # keeps one layer per item and can get auto layout.
            shown = True
        if e.get("overflow") == "clip" and (any(radii) or shown):
            node["clipsContent"] = True
        if not shown:
            return None
        node["fills"] = fills
        return node

    def _strokes(self, e: dict[str, Any], node: dict[str, Any]) -> bool:
        sides = [b for b in e.get("border") or [] if b["w"] > 0 and b["s"] not in ("none", "hidden")]
        colors = [parse_color(b["c"]) for b in sides]
        visible = [(b, c) for b, c in zip(sides, colors, strict=True) if c and c[3] > 0]
        if not visible:
            return False
        first, color = visible[0]
        assert color is not None
        if len({b["c"] for b, _ in visible}) > 1:
            self.warn(f"borders of different colours on {e['name']}: drawn in one colour")
        node["strokes"] = [self.solid(color, "STROKE_COLOR")]
        weights = [b["w"] if b["s"] not in ("none", "hidden") else 0 for b in e["border"]]
        if len(visible) == 4 and len(set(weights)) == 1:
            node["strokeWeight"] = weights[0]
        else:
            node["strokeWeights"] = weights
        if first["s"] in ("dashed", "dotted"):
            node["dashPattern"] = [first["w"] * (3 if first["s"] == "dashed" else 1), first["w"]]
        return True

    def _effects(self, text: str) -> list[dict[str, Any]]:
        if text == "none":
            return []
        effects = []
        for part in _split_top(text):
            color = parse_color(part) or (0.0, 0.0, 0.0, 1.0)
            rest = _COLOR.sub("", part)
            lengths = [_px(x) for x in rest.split() if x != "inset"]
            lengths += [0.0] * (4 - len(lengths))
            effects.append(
                {
                    "type": "INNER_SHADOW" if "inset" in rest.split() else "DROP_SHADOW",
                    "color": {"r": color[0], "g": color[1], "b": color[2], "a": color[3]},
                    "offset": {"x": lengths[0], "y": lengths[1]},
                    "radius": lengths[2],
                    "spread": lengths[3],
                }
            )
        return effects

    # ---- text -------------------------------------------------------------------------------------------------

    def text(self, t: dict[str, Any]) -> dict[str, Any]:
        s = t["style"]
        color = parse_color(s["color"]) or (0.0, 0.0, 0.0, 1.0)
        weight = int(float(s.get("fontWeight") or 400))
        line = t["lineBox"] if s["lineHeight"] == "normal" else _px(s["lineHeight"])
        spacing = 0.0 if s["letterSpacing"] == "normal" else _px(s["letterSpacing"])
        node: dict[str, Any] = {
            "type": "TEXT",
            "name": t["text"][:NAME_CHARS],
            "characters": t["text"],
            "families": font_families(s["fontFamily"]),
            "fontWeight": weight,
            "italic": s["fontStyle"] in ("italic", "oblique"),
            "fontSize": s["fontSize"],
            "lineHeight": _round(line),
            "fills": [self.solid(color, "TEXT_FILL")],
            "textAlign": _ALIGN.get(s["textAlign"], "LEFT"),
            "autoResize": "HEIGHT" if t["lines"] > 1 else "WIDTH_AND_HEIGHT",
        }
        if spacing:
            node["letterSpacing"] = _round(spacing)
        case = _CASE.get(s["textTransform"])
        if case:
            node["textCase"] = case
        decoration = _DECORATION.get(s["textDecoration"].split()[0] if s["textDecoration"] else "none")
        if decoration:
            node["textDecoration"] = decoration
        return node

    # ---- the tree ---------------------------------------------------------------------------------------------

    def convert(self, width: float, name: str) -> dict[str, Any]:
        entries: list[dict[str, Any]] = self.page["entries"]
        height = max(float(self.page["height"]), 1.0)
        root: dict[str, Any] = {"type": "FRAME", "name": name, "x": 0, "y": 0, "width": width, "height": height}
        root["fills"] = [self.solid(self._canvas(entries), "FRAME_FILL")]
        root["clipsContent"] = True
        self.count = 1
        # For each entry: the spec node its content goes into, and where that node is on the page.
        holder: list[tuple[dict[str, Any], float, float, int]] = []
        origin = (root, 0.0, 0.0, -1)
        for i, e in enumerate(entries):
            parent, px, py, _ = holder[e["p"]] if e["p"] >= 0 else origin
            if e["k"] == "text":
                node = self.text(e)
            elif e["p"] < 0:
                holder.append(origin)
                continue
            else:
                frame = self.frame_for(e)
                if frame is None:
                    holder.append(holder[e["p"]] if e["p"] >= 0 else origin)
                    continue
                node = frame
            top, height = e["y"], e["h"]
            if e["k"] == "text":
                # A text layer is as tall as its lines: the page's box is the glyphs' area, centred in each line.
                height = node["lineHeight"] * e["lines"]
                top = e["y"] - (node["lineHeight"] - e["lineBox"]) / 2
            node.update(x=_round(e["x"] - px), y=_round(top - py), width=_round(e["w"]), height=_round(height))
            node["_entry"] = i
            parent.setdefault("children", []).append(node)
            self.count += 1
            holder.append((node, e["x"], e["y"], i) if node["type"] == "FRAME" else holder[e["p"]])
        self._auto_layout(root, {i: e for i, e in enumerate(entries) if e["k"] == "el"})
        return root

    def _item_of(self, index: int, container: int) -> int:
        """The direct child of entry ``container`` that entry ``index`` is in (or is)."""
        entries = self.page["entries"]
        while entries[index]["p"] != container:
            index = entries[index]["p"]
            if index < 0:
                return -1
        return index

    def _canvas(self, entries: list[dict[str, Any]]) -> Color:
        """The page's background: the root element's, else the body's (which CSS paints on the whole canvas)."""
        for e in entries[:2]:
            if e["k"] == "el" and e["tag"] in ("html", "body"):
                color = parse_color(e.get("bg"))
                if color and color[3] > 0:
                    e["bg"] = "rgba(0, 0, 0, 0)"
                    return color
        return (1.0, 1.0, 1.0, 1.0)

    def _auto_layout(self, node: dict[str, Any], elements: dict[int, dict[str, Any]]) -> None:
        """Give auto layout to each frame whose flex children sit where auto layout would put them; strip the
        bookkeeping keys."""
        entry = node.pop("_entry", None)
        kids = node.get("children", [])
        # Each item of the box (a direct child element or text) must have given exactly one layer.
        items = [self._item_of(k["_entry"], entry) for k in kids] if entry is not None else []
        direct = bool(kids) and -1 not in items and len(set(items)) == len(items)
        for child in kids:
            self._auto_layout(child, elements)
        e = elements.get(entry) if entry is not None else None
        if e is None or node["type"] != "FRAME" or not direct:
            return
        if e["display"] not in ("flex", "inline-flex") or e["flexWrap"] != "nowrap":
            return
        if e["flexDirection"] not in ("row", "column"):
            return
        layout = _fit_layout(e, kids, node["width"], node["height"])
        if layout is None:
            return
        for key in ("itemSpacing", "paddingTop", "paddingRight", "paddingBottom", "paddingLeft"):
            variable = self.vars.number(layout[key], "GAP")
            if variable:
                node.setdefault("bound", {})[key] = variable
        node["layout"] = layout


def _fit_layout(e: dict[str, Any], kids: list[dict[str, Any]], width: float, height: float) -> dict[str, Any] | None:
    """The auto layout that puts ``kids`` where they are, or None when none does."""
    row = e["flexDirection"] == "row"
    border = [b["w"] if b["s"] not in ("none", "hidden") else 0 for b in e["border"]]
    pad = [p + b for p, b in zip(e["padding"], border, strict=True)]  # top, right, bottom, left
    main_pos, main_size, main_len = ("x", "width", width) if row else ("y", "height", height)
    cross_pos, cross_size, cross_len = ("y", "height", height) if row else ("x", "width", width)
    start, end = (pad[3], pad[1]) if row else (pad[0], pad[2])
    cstart, cend = (pad[0], pad[2]) if row else (pad[3], pad[1])
    gaps = [b[main_pos] - (a[main_pos] + a[main_size]) for a, b in itertools.pairwise(kids)]
    if gaps and (min(gaps) < -LAYOUT_TOLERANCE or max(gaps) - min(gaps) > LAYOUT_TOLERANCE):
        return None
    gap = _round(sum(gaps) / len(gaps)) if gaps else 0.0
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


_ALIGN = {"left": "LEFT", "start": "LEFT", "center": "CENTER", "right": "RIGHT", "end": "RIGHT", "justify": "JUSTIFIED"}
_CASE = {"uppercase": "UPPER", "lowercase": "LOWER", "capitalize": "TITLE"}
_DECORATION = {"underline": "UNDERLINE", "line-through": "STRIKETHROUGH"}


def _fit(object_fit: str | None) -> str:
    return {"contain": "FIT", "none": "CROP", "scale-down": "FIT"}.get(object_fit or "", "FILL")


def convert_page(
    page: dict[str, Any], *, width: float, name: str, variables: Iterable[LocalVariable] = ()
) -> Conversion:
    """The node spec of a walked page (``page`` as PAGE_WALK returns it), its root ``width`` wide and as tall as the
    document, named ``name``; values equal to one of ``variables`` are bound to it."""
    found = _Variables(variables)
    converter = _Converter(page, found)
    root = converter.convert(width, name)
    return Conversion(root, converter.images, converter.count, converter.warnings, found.bound)
