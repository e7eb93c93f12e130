"""CSS values of design properties: numbers, colours, paints, gradients, effects, text, variables.

A value bound to a variable is written as that variable's custom property, named as design_export_tokens' CSS output
names it (:func:`design_console.tokens.names.css_var`), never as a copied literal.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from design_console.engines.codegen.escape import css_string
from design_console.tokens.names import UNITLESS, css_var, split_name
from design_console.tokens.values import color_text, design_color, hex_text, shadow_layer_text

#: Which CSS keyword a design font style word stands for, by weight.
WEIGHTS = {
    "thin": 100,
    "hairline": 100,
    "extralight": 200,
    "ultralight": 200,
    "light": 300,
    "regular": 400,
    "normal": 400,
    "book": 400,
    "medium": 500,
    "semibold": 600,
    "demibold": 600,
    "bold": 700,
    "extrabold": 800,
    "ultrabold": 800,
    "black": 900,
    "heavy": 900,
}
BLENDS = {
    "MULTIPLY",
    "SCREEN",
    "OVERLAY",
    "DARKEN",
    "LIGHTEN",
    "COLOR_DODGE",
    "COLOR_BURN",
    "HARD_LIGHT",
    "SOFT_LIGHT",
    "DIFFERENCE",
    "EXCLUSION",
    "HUE",
    "SATURATION",
    "COLOR",
    "LUMINOSITY",
}


def num(value: float) -> str:
    """A number as short CSS text: at most two decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def px(value: float) -> str:
    return "0" if num(value) == "0" else f"{num(value)}px"


def color(rgba: dict[str, Any], opacity: float = 1.0) -> str:
    """``#RRGGBB`` when opaque, else ``rgba(r, g, b, a)`` (both written by :mod:`design_console.tokens.values`)."""
    colour = design_color(rgba, opacity)
    return hex_text(colour, alpha=False) if colour.a >= 0.999 else color_text(colour, "rgba")


def font_weight(style: str, weight: Any) -> int:
    """The CSS weight of a font: the node's own weight when it has one, else read from the style name."""
    if isinstance(weight, (int, float)) and not isinstance(weight, bool):
        return int(weight)
    words = style.lower().replace("-", "").replace(" ", "")
    for word, value in sorted(WEIGHTS.items(), key=lambda item: -len(item[0])):
        if word in words:
            return value
    return 400


class Vars:
    """The variables a tree's values are bound to, and which of them the generated code used."""

    def __init__(self, variables: dict[str, dict[str, Any] | None]) -> None:
        self.variables = variables
        self.used: dict[str, dict[str, Any]] = {}

    def ref(self, binding: Any) -> str | None:
        """``var(--name)`` of a binding (``{"type": "VARIABLE_ALIAS", "id": …}``, or a list of one), noting it
        as used; None when it is not bound or the variable is unknown."""
        if isinstance(binding, list):
            binding = binding[0] if binding else None
        if not isinstance(binding, dict) or not isinstance(binding.get("id"), str):
            return None
        variable = self.variables.get(binding["id"])
        if not variable:
            return None
        self._use(binding["id"])
        return f"var({self.name(variable)})"

    @staticmethod
    def name(variable: dict[str, Any]) -> str:
        return css_var(split_name(str(variable.get("name", ""))))

    def _use(self, var_id: str) -> None:
        if var_id in self.used:
            return
        variable = self.variables.get(var_id)
        if not variable:
            return
        self.used[var_id] = variable
        for value in (variable.get("valuesByMode") or {}).values():
            if isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS":
                self._use(str(value.get("id")))

    def value_text(self, variable: dict[str, Any], value: Any) -> str:
        """The CSS text of one mode's value of ``variable``."""
        if isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS":
            target = self.variables.get(str(value.get("id")))
            return f"var({self.name(target)})" if target else "initial"
        kind = variable.get("resolvedType")
        if kind == "COLOR" and isinstance(value, dict):
            return color(value)
        if kind == "FLOAT" and isinstance(value, (int, float)):
            return num(value) if UNITLESS.search(str(variable.get("name", ""))) else px(value)
        if kind == "BOOLEAN":
            return "true" if value else "false"
        return css_string(str(value))

    def tokens(self) -> list[dict[str, Any]]:
        """The variables used, each with its CSS variable, collection and value per mode."""
        listed = []
        for variable in self.used.values():
            modes = {m["modeId"]: m["name"] for m in variable.get("modes") or [] if isinstance(m, dict)}
            values = {
                modes.get(mode, mode): self.value_text(variable, value)
                for mode, value in (variable.get("valuesByMode") or {}).items()
            }
            listed.append(
                {
                    "name": variable.get("name"),
                    "cssVar": self.name(variable),
                    "collection": variable.get("collection", ""),
                    "type": variable.get("resolvedType"),
                    "values": values,
                }
            )
        return listed

    def root_css(self) -> str:
        """Custom property declarations of the used variables: ``:root`` holds each collection's first mode,
        ``[data-theme="<mode>"]`` the others, as design_export_tokens' CSS does."""
        blocks: dict[str, list[str]] = {}
        for variable in self.used.values():
            modes = [m for m in variable.get("modes") or [] if isinstance(m, dict)]
            values = variable.get("valuesByMode") or {}
            for position, mode in enumerate(modes):
                if mode["modeId"] not in values:
                    continue
                selector = ":root" if position == 0 else f"[data-theme={css_string(str(mode['name']))}]"
                text = self.value_text(variable, values[mode["modeId"]])
                blocks.setdefault(selector, []).append(f"  {self.name(variable)}: {text};")
        return "\n".join(f"{sel} {{\n" + "\n".join(lines) + "\n}" for sel, lines in blocks.items())


def bound_px(vars: Vars, node: dict[str, Any], field: str, value: float) -> str:
    """A length in px, or the variable it is bound to."""
    return vars.ref((node.get("boundVariables") or {}).get(field)) or px(value)


def paint_color(vars: Vars, paint: dict[str, Any]) -> str:
    """The colour of a solid paint, its variable when bound (mixed with transparent by the paint's opacity)."""
    opacity = float(paint.get("opacity", 1))
    bound = vars.ref((paint.get("boundVariables") or {}).get("color"))
    if bound:
        return bound if opacity >= 0.999 else f"color-mix(in srgb, {bound} {num(opacity * 100)}%, transparent)"
    return color(paint.get("color") or {}, opacity)


def visible_paints(paints: Any) -> list[dict[str, Any]]:
    if not isinstance(paints, list):
        return []
    return [p for p in paints if isinstance(p, dict) and p.get("visible", True) is not False]


def _inverse(m: list[list[float]]) -> list[list[float]]:
    (a, b, c), (d, e, f) = m
    det = a * e - b * d or 1e-9
    return [[e / det, -b / det, (b * f - c * e) / det], [-d / det, a / det, (c * d - a * f) / det]]


def _apply(m: list[list[float]], x: float, y: float) -> tuple[float, float]:
    return m[0][0] * x + m[0][1] * y + m[0][2], m[1][0] * x + m[1][1] * y + m[1][2]


def gradient(vars: Vars, paint: dict[str, Any], width: float, height: float) -> str:
    """A linear or radial CSS gradient of a gradient paint, its stops placed along CSS's own gradient line."""
    stops = [s for s in paint.get("gradientStops") or [] if isinstance(s, dict)]
    opacity = float(paint.get("opacity", 1))

    def stop_color(stop: dict[str, Any]) -> str:
        return vars.ref((stop.get("boundVariables") or {}).get("color")) or color(stop.get("color") or {}, opacity)

    if paint.get("type") != "GRADIENT_LINEAR":
        listed = ", ".join(f"{stop_color(s)} {num(float(s.get('position', 0)) * 100)}%" for s in stops)
        return f"radial-gradient(50% 50% at 50% 50%, {listed})"
    transform = paint.get("gradientTransform") or [[1, 0, 0], [0, 1, 0]]
    inverse = _inverse(transform)
    sx, sy = _apply(inverse, 0, 0.5)
    ex, ey = _apply(inverse, 1, 0.5)
    sx, sy, ex, ey = sx * width, sy * height, ex * width, ey * height
    angle = math.atan2(ex - sx, -(ey - sy))
    dx, dy = math.sin(angle), -math.cos(angle)
    length = abs(width * dx) + abs(height * dy) or 1.0

    def along(x: float, y: float) -> float:
        return ((x - width / 2) * dx + (y - height / 2) * dy) / length + 0.5

    start, end = along(sx, sy), along(ex, ey)
    listed = ", ".join(
        f"{stop_color(s)} {num((start + float(s.get('position', 0)) * (end - start)) * 100)}%" for s in stops
    )
    return f"linear-gradient({num(math.degrees(angle) % 360)}deg, {listed})"


def shadows(vars: Vars, effects: Any, *, text: bool) -> tuple[list[str], list[str]]:
    """``box-shadow`` (or ``text-shadow``) items and ``filter``/``backdrop-filter`` declarations of effects."""
    items: list[str] = []
    filters: list[str] = []
    for effect in reversed(effects if isinstance(effects, list) else []):
        if not isinstance(effect, dict) or effect.get("visible", True) is False:
            continue
        bound = effect.get("boundVariables") or {}
        kind = effect.get("type")
        if kind in ("DROP_SHADOW", "INNER_SHADOW"):
            offset = effect.get("offset") or {}
            x = vars.ref(bound.get("offsetX")) or px(float(offset.get("x", 0)))
            y = vars.ref(bound.get("offsetY")) or px(float(offset.get("y", 0)))
            blur = vars.ref(bound.get("radius")) or px(float(effect.get("radius", 0)))
            shade = vars.ref(bound.get("color")) or color(effect.get("color") or {})
            if text:
                if kind == "DROP_SHADOW":
                    items.append(shadow_layer_text([x, y, blur], shade))
                continue
            spread = vars.ref(bound.get("spread")) or px(float(effect.get("spread", 0)))
            items.append(shadow_layer_text([x, y, blur, spread], shade, inset=kind == "INNER_SHADOW"))
        elif kind == "LAYER_BLUR":
            filters.append(f"filter: blur({px(float(effect.get('radius', 0)) / 2)})")
        elif kind == "BACKGROUND_BLUR":
            filters.append(f"backdrop-filter: blur({px(float(effect.get('radius', 0)) / 2)})")
    return items, filters


def line_height(value: Any, bound: Callable[[], str | None]) -> str | None:
    """CSS line-height of a design line height (``{unit, value}``)."""
    if (ref := bound()) is not None:
        return ref
    if not isinstance(value, dict):
        return None
    unit = value.get("unit")
    if unit == "PIXELS":
        return px(float(value.get("value", 0)))
    if unit == "PERCENT":
        return f"{num(float(value.get('value', 0)))}%"
    return "normal"


def letter_spacing(value: Any, bound: Callable[[], str | None]) -> str | None:
    if (ref := bound()) is not None:
        return ref
    if not isinstance(value, dict) or not value.get("value"):
        return None
    if value.get("unit") == "PERCENT":
        return f"{num(float(value['value']) / 100)}em"
    return px(float(value["value"]))


def font_family(family: str) -> str:
    """A font family with fallbacks, quoted."""
    return f"{css_string(family)}, sans-serif" if family else "sans-serif"
