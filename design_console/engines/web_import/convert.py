"""Laid-out boxes and computed styles (what :data:`.page_walk.PAGE_WALK` returns) as one node spec for the plugin.

An element becomes a frame when something of it shows (a background, a border, a shadow, an image, clipping with a
radius, an opacity below 1, a blend mode, a filter, a transform) or when it is a flex or grid box. Any other element
stays a frame that shows nothing only where it groups two or more items that auto layout places as the page does (a
column of cards, a table row); else it leaves no layer and its content moves up to the nearest frame, at the same
place on the page. Auto layout is given only where it puts every item where it is (:mod:`.layout_fit`), so the design
looks like the page either way; the rest is placed absolutely, and absolutely positioned boxes stay out of the flow.
Layers paint in the page's order: positioned boxes over the flow, by z-index. A text (a paragraph with its inline
runs) becomes one text layer at the page's text box, its runs styled ranges, with the page's font stack and its
generic class for the plugin to choose from. Colours, gaps, paddings and radii equal to a local variable's value are
bound to it. What the design cannot show is named in the warnings, with the element's path.

The spec is plain data (dicts and lists, JSON-ready): each node has ``type`` (``FRAME``, ``TEXT`` or ``SVG``),
``name``, ``x``/``y`` relative to its parent, ``width``/``height`` and the fields the plugin's CREATE_NODE_TREE reads
(docs/bridge-protocol.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from design_console.engines.web_import.css_values import Color, parse_color, px, split_top, strip_colors
from design_console.engines.web_import.font_stacks import font_families, generic_class
from design_console.engines.web_import.gradients import GradientError, gradient_paint
from design_console.engines.web_import.layout_fit import fit_auto_layout
from design_console.engines.web_import.page_walk import expand_styles
from design_console.tokens.names import css_var, split_name

__all__ = ["Conversion", "LocalVariable", "convert_page", "entry_path", "font_families", "parse_color"]

#: Positions and sizes are kept to a hundredth of a pixel; the plugin takes them as they are.
PRECISION = 2
#: The longest layer name taken from a text.
NAME_CHARS = 40
#: A transform's scale this close to 1 is none.
SCALE_TOLERANCE = 0.01
#: CSS blur() is a standard deviation; the design tool's blur radius is about twice it.
BLUR_RADIUS_PER_PX = 2.0

_BLENDS = {
    "multiply", "screen", "overlay", "darken", "lighten", "color-dodge", "color-burn", "hard-light", "soft-light",
    "difference", "exclusion", "hue", "saturation", "color", "luminosity",
}  # fmt: skip
_SIDES = ("top", "right", "bottom", "left")
_FLEX_BOXES = {"flex", "inline-flex", "grid", "inline-grid"}
_POSITION_PARTS = re.compile(r"calc\([^)]*\)|\S+")
_FUNCTION = re.compile(r"([a-z-]+)\(((?:[^()]|\([^()]*\))*)\)")


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
        if not candidates:
            return None
        fitting = [v for v in candidates if scope in v.scopes] or [v for v in candidates if "ALL_SCOPES" in v.scopes]
        if not fitting:
            return None
        var = fitting[0]
        entry = self.bound.setdefault(var.name, {"id": var.id, "cssVar": css_var(split_name(var.name)), "uses": 0})
        entry["uses"] += 1
        return var.id


def entry_path(entries: list[dict[str, Any]], index: int) -> str:
    """An element's path from the body down (``body > main > div.card > img``), to name it in a warning."""
    names: list[str] = []
    while index >= 0:
        e = entries[index]
        if e["tag"] == "html":
            break
        names.append(e["name"])
        index = e["p"]
    return " > ".join(reversed(names)) or "html"


def _color_key(color: Color) -> tuple[int, ...]:
    return tuple(round(c * 255) for c in color)


def _round(value: float) -> float:
    return round(value, PRECISION)


class _Converter:
    def __init__(self, page: dict[str, Any], variables: _Variables, components: Mapping[str, str]) -> None:
        self.page = page
        self.components = components
        self.entries: list[dict[str, Any]] = page["entries"]
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

    def path(self, index: int) -> str:
        return entry_path(self.entries, index)

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

    def frame_for(self, i: int, e: dict[str, Any]) -> dict[str, Any] | None:
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
            self.warn(f"background colour {e['bg']} of {self.path(i)} is not an sRGB colour: left out")
        placed: list[dict[str, Any]] = []
        # CSS lists background layers top first; the design tool paints its fills bottom first.
        for layer in reversed(e.get("backgrounds") or []):
            paint_or_layer = self._background(i, e, layer)
            if paint_or_layer is None:
                continue
            if paint_or_layer.get("type") == "FRAME":
                placed.append(paint_or_layer)
            else:
                fills.append(paint_or_layer)
        if e.get("image"):
            fills.append({"type": "IMAGE", "image": self.image(e["image"]), "scaleMode": _fit(e.get("fit"))})
        shown = bool(fills or placed)
        if self._strokes(e, node, placed):
            shown = True
        effects = self._effects(e.get("shadow") or "none") + self._filters(i, e)
        if effects:
            node["effects"] = effects
            shown = True
        radii = [_round(px(r, min(e["w"], e["h"]))) for r in e.get("radius") or []]
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
        blend = e.get("blend")
        if blend in _BLENDS:
            node["blendMode"] = blend.replace("-", "_").upper()
            shown = True
        elif blend and blend != "normal":
            self.warn(f"mix-blend-mode {blend} of {self.path(i)} is not carried")
        if e.get("transform"):
            # A transformed box is a layer of its own, so that its content turns with it.
            shown = True
        if e.get("display") in _FLEX_BOXES:
            # A flex or grid box is a group of its own even when nothing of it shows, so that its parent's row or
            # column keeps one layer per item and can get auto layout.
            shown = True
        if e.get("overflow") == "clip" and (any(radii) or shown):
            node["clipsContent"] = True
        if not shown:
            return None
        node["fills"] = fills
        if placed:
            node["children"] = placed
        return node

    def _background(self, i: int, e: dict[str, Any], layer: dict[str, Any]) -> dict[str, Any] | None:
        """One CSS background layer: a paint of the frame, or a frame of its own where it is smaller than the box
        and drawn once (an icon: a select's arrow, a checkbox's tick)."""
        if layer.get("gradient"):
            if layer["gradient"].startswith("repeating-"):
                self.warn(f"repeating gradient of {self.path(i)} is drawn once")
            try:
                return gradient_paint(layer["gradient"], e["w"], e["h"])
            except GradientError as exc:
                self.warn(f"gradient of {self.path(i)} is not carried: {exc}")
                return None
        data = layer.get("image")
        if not isinstance(data, str):
            return None
        size = str(layer.get("size") or "auto")
        repeat = str(layer.get("repeat") or "repeat")
        parts = size.split()
        paint: dict[str, Any] = {"type": "IMAGE", "image": self.image(data)}
        if all(p.endswith("px") for p in parts) and repeat.startswith("no-repeat"):
            w, h = px(parts[0]), px(parts[-1])
            positions = _POSITION_PARTS.findall(str(layer.get("position") or "0% 0%"))
            x = _offset(positions[0] if positions else "0%", e["w"] - w)
            y = _offset(positions[1] if len(positions) > 1 else "50%", e["h"] - h)
            paint["scaleMode"] = "FILL"
            return {
                "type": "FRAME",
                "name": "background",
                "x": _round(x),
                "y": _round(y),
                "width": _round(w),
                "height": _round(h),
                "fills": [paint],
                "absolute": True,
            }
        paint["scaleMode"] = "FIT" if size == "contain" else "TILE" if repeat == "repeat" and size == "auto" else "FILL"
        return paint

    def _strokes(self, e: dict[str, Any], node: dict[str, Any], placed: list[dict[str, Any]]) -> bool:
        """The element's borders as the frame's strokes (one weight per side); sides of different colours as
        frames of their own along its edges, since a layer's strokes have one colour."""
        sides = [
            (side, b, color)
            for side, b in zip(_SIDES, e.get("border") or [], strict=False)
            if b["w"] > 0 and b["s"] not in ("none", "hidden") and (color := parse_color(b["c"])) and color[3] > 0
        ]
        if not sides:
            return False
        if len({b["c"] for _, b, _ in sides}) > 1:
            for side, b, color in sides:
                w, h = e["w"], e["h"]
                x = w - b["w"] if side == "right" else 0.0
                y = h - b["w"] if side == "bottom" else 0.0
                width = b["w"] if side in ("left", "right") else w
                height = b["w"] if side in ("top", "bottom") else h
                placed.append(
                    {
                        "type": "FRAME",
                        "name": f"border-{side}",
                        "x": _round(x),
                        "y": _round(y),
                        "width": _round(width),
                        "height": _round(height),
                        "fills": [self.solid(color, "STROKE_COLOR")],
                        "absolute": True,
                    }
                )
            return True
        _, first, color = sides[0]
        node["strokes"] = [self.solid(color, "STROKE_COLOR")]
        weights = [b["w"] if b["s"] not in ("none", "hidden") else 0 for b in e["border"]]
        if len(sides) == 4 and len(set(weights)) == 1:
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
        for part in split_top(text):
            color = parse_color(part) or (0.0, 0.0, 0.0, 1.0)
            rest = strip_colors(part)
            lengths = [px(x) for x in rest.split() if x != "inset"]
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

    def _filters(self, i: int, e: dict[str, Any]) -> list[dict[str, Any]]:
        """``filter: blur()`` and ``drop-shadow()`` and ``backdrop-filter: blur()`` as effects; others named."""
        effects: list[dict[str, Any]] = []
        for key, blur_type in (("filter", "LAYER_BLUR"), ("backdrop", "BACKGROUND_BLUR")):
            for name, argument in _FUNCTION.findall(str(e.get(key) or "")):
                if name == "blur":
                    effects.append({"type": blur_type, "radius": _round(px(argument) * BLUR_RADIUS_PER_PX)})
                elif name == "drop-shadow" and key == "filter":
                    effects.extend(self._effects(argument))
                else:
                    prop = "filter" if key == "filter" else "backdrop-filter"
                    self.warn(f"{prop} {name}() of {self.path(i)} is not carried")
        return effects

    def _transform(self, i: int, e: dict[str, Any], node: dict[str, Any]) -> tuple[float, float]:
        """Turns the node as the element's transform does; the page position of its top-left corner."""
        t = e["transform"]
        if "m" not in t:
            self.warn(f"3D transform {t.get('unsupported', '')} of {self.path(i)} is not carried: drawn flat")
            return e["x"], e["y"]
        a, b, c, d, tx, ty = (float(v) for v in t["m"])
        ox, oy = (float(v) for v in t["origin"])
        scale_x = math.hypot(a, b)
        scale_y = (a * d - b * c) / (scale_x or 1.0)
        if abs(a * c + b * d) > 1e-3 * max(scale_x * abs(scale_y), 1e-9):
            self.warn(f"skew of {self.path(i)} is not carried: drawn turned only")
        if abs(scale_x - 1) > SCALE_TOLERANCE or abs(scale_y - 1) > SCALE_TOLERANCE:
            self.warn(f"scale ({scale_x:.2f}, {scale_y:.2f}) of {self.path(i)} is not carried: drawn at its own size")
        angle = math.atan2(b, a)
        cos, sin = math.cos(angle), math.sin(angle)
        # The untransformed top-left, turned about the transform origin and moved as the transform moves it.
        dx, dy = e["x"] - ox, e["y"] - oy
        x = ox + cos * dx - sin * dy + tx
        y = oy + sin * dx + cos * dy + ty
        degrees = math.degrees(angle)
        if abs(degrees) > 0.01:
            # The design tool turns counter-clockwise for a positive angle; CSS turns clockwise.
            node["rotation"] = round(-degrees, 4)
        return x, y

    # ---- text -------------------------------------------------------------------------------------------------

    def text(self, t: dict[str, Any]) -> dict[str, Any]:
        s = t["style"]
        line = t["lineBox"] if s["lineHeight"] == "normal" else px(s["lineHeight"])
        node: dict[str, Any] = {
            "type": "TEXT",
            "name": "marker" if t.get("marker") else t["text"][:NAME_CHARS],
            "characters": t["text"],
            **self._font(s),
            "lineHeight": _round(line),
            "textAlign": _ALIGN.get(s["textAlign"], "LEFT"),
            "autoResize": "HEIGHT" if t["lines"] > 1 else "WIDTH_AND_HEIGHT",
        }
        ranges = []
        for run in t.get("runs") or []:
            styled: dict[str, Any] = {"start": run["start"], "end": run["end"]}
            if run.get("style"):
                own = self._font(run["style"])
                styled.update({k: v for k, v in own.items() if v != node.get(k)})
            if run.get("href"):
                styled["url"] = run["href"]
            if len(styled) > 2:
                ranges.append(styled)
        if ranges:
            node["ranges"] = ranges
        return node

    def _font(self, s: dict[str, Any]) -> dict[str, Any]:
        """The fields of a text (or of a range of it) that its computed style gives."""
        color = parse_color(s["color"]) or (0.0, 0.0, 0.0, 1.0)
        font: dict[str, Any] = {
            "families": font_families(s["fontFamily"]),
            "generic": generic_class(s["fontFamily"]),
            "fontWeight": int(float(s.get("fontWeight") or 400)),
            "italic": s["fontStyle"].startswith(("italic", "oblique")),
            "fontSize": s["fontSize"],
            "fills": [self.solid(color, "TEXT_FILL")],
        }
        spacing = 0.0 if s["letterSpacing"] == "normal" else px(s["letterSpacing"])
        if spacing:
            font["letterSpacing"] = _round(spacing)
        case = _CASE.get(s["textTransform"])
        if case:
            font["textCase"] = case
        decoration = _DECORATION.get(s["textDecoration"].split()[0] if s["textDecoration"] else "none")
        if decoration:
            font["textDecoration"] = decoration
        return font

    # ---- the tree ---------------------------------------------------------------------------------------------

    def convert(self, width: float, name: str) -> dict[str, Any]:
        entries = self.entries
        height = max(float(self.page["height"]), 1.0)
        root: dict[str, Any] = {"type": "FRAME", "name": name, "x": 0, "y": 0, "width": width, "height": height}
        root["fills"] = [self.solid(self._canvas(entries), "FRAME_FILL")]
        root["clipsContent"] = True
        # Each entry's node, and where on the page the node's own coordinates start. An element of which nothing
        # shows is a ghost for now: it stays a layer only if it gets auto layout (see _settle).
        nodes: list[tuple[dict[str, Any], float, float]] = []
        for i, e in enumerate(entries):
            if e["p"] < 0:
                nodes.append((root, 0.0, 0.0))
                continue
            parent, px_, py_ = nodes[e["p"]]
            if e["k"] == "text":
                node = self.text(e)
            else:
                node = self.frame_for(i, e) or {"type": "FRAME", "name": e["name"], "fills": [], "_ghost": True}
                component = self.components.get(str(e.get("component") or ""))
                if component and node["type"] == "FRAME":
                    # An instance of the team's component, if the file has it; these layers if it does not.
                    node.pop("_ghost", None)
                    node["component"] = component
                if e.get("position", "static") != "static":
                    node["_positioned"] = True
                    node["_z"] = e.get("z") or 0
                if e.get("position") in ("absolute", "fixed"):
                    node["absolute"] = True
            left, top, height = e["x"], e["y"], e["h"]
            if e["k"] == "text":
                # A text layer is as tall as its lines: the page's box is the glyphs' area, centred in each line.
                height = node["lineHeight"] * e["lines"]
                top = e["y"] - (node["lineHeight"] - e["lineBox"]) / 2
                if e.get("marker"):
                    node["absolute"] = True
            elif e.get("transform"):
                left, top = self._transform(i, e, node)
            node.update(x=_round(left - px_), y=_round(top - py_), width=_round(e["w"]), height=_round(height))
            node["_entry"] = i
            parent.setdefault("children", []).append(node)
            nodes.append((node, e["x"], e["y"]) if node["type"] == "FRAME" else nodes[e["p"]])
        self._settle(root)
        self.count = _count(root)
        return root

    def _settle(self, node: dict[str, Any]) -> list[dict[str, Any]]:
        """Settles a node's subtree, children first: each frame in paint order, with auto layout where its items
        sit where auto layout puts them; a ghost with auto layout becomes a frame that shows nothing, any other
        ghost leaves its children to its parent, at the same place. Returns what takes the node's place."""
        kids: list[dict[str, Any]] = []
        for child in node.get("children", []):
            kids.extend(self._settle(child))
        # Positioned boxes paint over the flow, in the order of their z-index (negative ones under it).
        kids.sort(key=_paint_order)
        if kids:
            node["children"] = kids
        else:
            node.pop("children", None)
        entry = node.get("_entry")
        ghost = node.pop("_ghost", False)
        # A ghost stays only as a group of items that auto layout places, or as an item of a flex or grid box (a
        # column of a row, whose padding places its content): any other box around one item is no help.
        flowing = sum(not k.get("absolute") for k in kids)
        grouping = not ghost or flowing >= 2 or (flowing == 1 and entry is not None and self._in_flex(entry))
        if entry is not None and node["type"] == "FRAME" and not node.get("rotation") and grouping:
            self._auto_layout(node, entry, kids)
        if ghost and "layout" not in node:
            for kid in kids:
                kid["x"] = _round(kid["x"] + node["x"])
                kid["y"] = _round(kid["y"] + node["y"])
                if not kid.get("_positioned") and node.get("_positioned"):
                    kid["_positioned"], kid["_z"] = True, node.get("_z", 0)
            return kids
        for kid in kids:
            for key in ("_entry", "_positioned", "_z"):
                kid.pop(key, None)
        return [node]

    def _auto_layout(self, node: dict[str, Any], entry: int, kids: list[dict[str, Any]]) -> None:
        """Give the frame auto layout when each of its items is one layer and they sit where auto layout would
        put them."""
        flowing = [k for k in kids if not k.get("absolute")]
        items = [self._item_of(k["_entry"], entry) if "_entry" in k else -1 for k in flowing]
        if not flowing or -1 in items or len(set(items)) != len(items):
            return
        layout = fit_auto_layout(self.entries[entry], flowing, node["width"], node["height"])
        if layout is None:
            return
        for key in ("itemSpacing", "paddingTop", "paddingRight", "paddingBottom", "paddingLeft"):
            variable = self.vars.number(layout[key], "GAP")
            if variable:
                node.setdefault("bound", {})[key] = variable
        node["layout"] = layout

    def _in_flex(self, index: int) -> bool:
        """Whether entry ``index`` is an item of a flex or grid box."""
        parent = self.entries[index]["p"]
        return parent >= 0 and self.entries[parent].get("display") in _FLEX_BOXES

    def _item_of(self, index: int, container: int) -> int:
        """The direct child of entry ``container`` that entry ``index`` is in (or is); -1 when it is in none."""
        entries = self.entries
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


def _paint_order(node: dict[str, Any]) -> tuple[int, float]:
    """Where a layer paints among its siblings: under the flow (negative z-index), the flow, positioned boxes, and
    those with a positive z-index by it; the same place keeps document order."""
    if not node.get("_positioned"):
        return (0, 0.0)
    z = float(node.get("_z") or 0)
    return (-1, z) if z < 0 else (1, 0.0) if z == 0 else (2, z)


def _count(node: dict[str, Any]) -> int:
    return 1 + sum(_count(child) for child in node.get("children", []))


def _offset(position: str, free: float) -> float:
    """Where a background of a fixed size starts along one side: ``free`` is the box's length less its own."""
    calc = re.fullmatch(r"calc\((-?[\d.]+)% ([+-]) (-?[\d.]+)px\)", position)
    if calc:
        sign = 1 if calc.group(2) == "+" else -1
        return free * float(calc.group(1)) / 100 + sign * float(calc.group(3))
    keyword = {"left": 0.0, "top": 0.0, "center": 0.5, "right": 1.0, "bottom": 1.0}.get(position)
    if keyword is not None:
        return free * keyword
    return px(position, free)


_ALIGN = {"left": "LEFT", "start": "LEFT", "center": "CENTER", "right": "RIGHT", "end": "RIGHT", "justify": "JUSTIFIED"}
_CASE = {"uppercase": "UPPER", "lowercase": "LOWER", "capitalize": "TITLE"}
_DECORATION = {"underline": "UNDERLINE", "line-through": "STRIKETHROUGH"}


def _fit(object_fit: str | None) -> str:
    return {"contain": "FIT", "none": "CROP", "scale-down": "FIT"}.get(object_fit or "", "FILL")


def convert_page(
    page: dict[str, Any],
    *,
    width: float,
    name: str,
    variables: Iterable[LocalVariable] = (),
    components: Mapping[str, str] | None = None,
) -> Conversion:
    """The node spec of a walked page (``page`` as PAGE_WALK returns it), its root ``width`` wide and as tall as the
    document, named ``name``; values equal to one of ``variables`` are bound to it, and an element whose
    ``data-component`` is a key of ``components`` names that component (by id) for the plugin to build an instance
    of."""
    expand_styles(page)
    found = _Variables(variables)
    converter = _Converter(page, found, components or {})
    root = converter.convert(width, name)
    return Conversion(root, converter.images, converter.count, converter.warnings, found.bound)
