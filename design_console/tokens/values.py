"""Colour, size and shadow values as code writes them: hex, hex8, rgba(), hsl(), oklch() colours; px, rem, pt, dp
sizes; shadows as CSS ``box-shadow`` text.

Colours are kept as sRGB floats 0..1 (the design tool's ``{r,g,b,a}``). Writing then reading a colour is exact to
1/255 per channel for ``hex``/``hex8``/``rgba`` and to 0.002 per channel for ``hsl``/``oklch`` (their text is
rounded to a few decimals). Sizes are kept in px; ``rem`` divides by the rem base, ``pt`` is 3/4 of a px and ``dp``
equals a px (Android's density-independent pixel at the baseline density).

This module is the one writer of colour and shadow text for the whole package (tool results, generated code, token
files): hex digits in upper case and channels rounded half up, as the plugin writes them, so that the same colour
reads the same through every tool (the bridge protocol's "Colour text").
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec

ColorFormat = Literal["hex", "hex8", "rgba", "oklch", "hsl"]
SizeUnit = Literal["px", "rem", "pt", "dp"]

#: px per unit, for the units a size may be written in.
_PX_PER: dict[str, float] = {"px": 1.0, "pt": 4 / 3, "dp": 1.0}


class Color(msgspec.Struct, frozen=True, tag="color"):
    """An sRGB colour, channels and alpha 0..1."""

    r: float
    g: float
    b: float
    a: float = 1.0


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


def _num(x: float, places: int) -> str:
    text = f"{x:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def design_color(value: Mapping[str, Any], opacity: float = 1.0) -> Color:
    """The colour of a design tool ``{r, g, b, a?}`` (a missing channel 0, a missing alpha 1), its alpha times
    ``opacity`` (a paint's own opacity)."""
    return Color(
        float(value.get("r", 0)), float(value.get("g", 0)), float(value.get("b", 0)), float(value.get("a", 1)) * opacity
    )


def _byte(x: float) -> int:
    """A channel 0..1 as 0..255, a half rounded up as the plugin's ``Math.round`` does (``round()`` would take an
    alpha of 0.3, 76.5, down to 76 where the plugin writes 77)."""
    return math.floor(_clamp(x) * 255 + 0.5)


def hex_text(c: Color, *, alpha: bool | None = None) -> str:
    """``#RRGGBB``, with ``AA`` when ``alpha`` (by default: when not opaque)."""
    text = "#" + "".join(f"{_byte(x):02X}" for x in (c.r, c.g, c.b))
    with_alpha = c.a < 1 if alpha is None else alpha
    return text + f"{_byte(c.a):02X}" if with_alpha else text


def _linear(x: float) -> float:
    return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4


def _gamma(x: float) -> float:
    return 12.92 * x if x <= 0.0031308 else 1.055 * math.copysign(abs(x) ** (1 / 2.4), x) - 0.055


def to_oklch(c: Color) -> tuple[float, float, float]:
    """Lightness 0..1, chroma, hue in degrees of an sRGB colour."""
    r, g, b = (_linear(x) for x in (c.r, c.g, c.b))
    lms = (
        0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b,
        0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b,
        0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b,
    )
    l_, m_, s_ = (math.copysign(abs(x) ** (1 / 3), x) for x in lms)
    lightness = 0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_
    a = 1.9779984951 * l_ - 2.4285922050 * m_ + 0.4505937099 * s_
    bb = 0.0259040371 * l_ + 0.7827717662 * m_ - 0.8086757660 * s_
    chroma = math.hypot(a, bb)
    hue = math.degrees(math.atan2(bb, a)) % 360 if chroma > 1e-6 else 0.0
    return lightness, chroma, hue


def from_oklch(lightness: float, chroma: float, hue: float, alpha: float = 1.0) -> Color:
    """The sRGB colour of an OKLCH one (clamped into the sRGB gamut)."""
    a, b = chroma * math.cos(math.radians(hue)), chroma * math.sin(math.radians(hue))
    l_ = (lightness + 0.3963377774 * a + 0.2158037573 * b) ** 3
    m_ = (lightness - 0.1055613458 * a - 0.0638541728 * b) ** 3
    s_ = (lightness - 0.0894841775 * a - 1.2914855480 * b) ** 3
    r = 4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_
    g = -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_
    bl = -0.0041960863 * l_ - 0.7034186147 * m_ + 1.7076147010 * s_
    red, green, blue = (_clamp(_gamma(x)) for x in (r, g, bl))
    return Color(red, green, blue, _clamp(alpha))


def to_hsl(c: Color) -> tuple[float, float, float]:
    """Hue in degrees, saturation and lightness 0..1."""
    hi, lo = max(c.r, c.g, c.b), min(c.r, c.g, c.b)
    lightness = (hi + lo) / 2
    if hi - lo < 1e-9:
        return 0.0, 0.0, lightness
    d = hi - lo
    sat = d / (1 - abs(2 * lightness - 1))
    if hi == c.r:
        hue = ((c.g - c.b) / d) % 6
    elif hi == c.g:
        hue = (c.b - c.r) / d + 2
    else:
        hue = (c.r - c.g) / d + 4
    return hue * 60, sat, lightness


def from_hsl(hue: float, sat: float, lightness: float, alpha: float = 1.0) -> Color:
    """The sRGB colour of an HSL one."""
    chroma = (1 - abs(2 * lightness - 1)) * sat
    x = chroma * (1 - abs((hue / 60) % 2 - 1))
    m = lightness - chroma / 2
    sector = int(hue // 60) % 6
    r, g, b = [
        (chroma, x, 0.0),
        (x, chroma, 0.0),
        (0.0, chroma, x),
        (0.0, x, chroma),
        (x, 0.0, chroma),
        (chroma, 0.0, x),
    ][sector]
    return Color(_clamp(r + m), _clamp(g + m), _clamp(b + m), _clamp(alpha))


def color_text(c: Color, fmt: ColorFormat) -> str:
    """A colour as CSS text in ``fmt``."""
    if fmt == "hex":
        return hex_text(c)
    if fmt == "hex8":
        return hex_text(c, alpha=True)
    if fmt == "rgba":
        r, g, b = (_byte(x) for x in (c.r, c.g, c.b))
        return f"rgba({r}, {g}, {b}, {_num(_clamp(c.a), 3)})"
    if fmt == "hsl":
        h, s, lt = to_hsl(c)
        return f"hsl({_num(h, 2)} {_num(s * 100, 2)}% {_num(lt * 100, 2)}% / {_num(c.a, 3)})"
    lt, ch, h = to_oklch(c)
    return f"oklch({_num(lt * 100, 3)}% {_num(ch, 5)} {_num(h, 3)} / {_num(c.a, 3)})"


_HEX = re.compile(r"#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_FUNC = re.compile(r"(rgba?|hsla?|oklch)\(\s*([^)]*)\)", re.IGNORECASE)


def _part(text: str, scale: float) -> float:
    """A colour function argument: a percentage of ``scale``, or a plain number."""
    text = text.strip()
    return float(text[:-1]) / 100 * scale if text.endswith("%") else float(text)


def parse_color(text: str, *, strict: bool = False) -> Color | None:
    """The colour written as ``text`` (hex of 3/4/6/8 digits, rgb[a](), hsl[a](), oklch()), else None.

    Token files are read leniently (a channel past its range is clamped); with ``strict`` a channel or alpha out of
    range makes the text no colour at all, as an argument a user typed should be refused rather than guessed.
    """
    text = text.strip()
    if m := _HEX.fullmatch(text):
        digits = m.group(1)
        if len(digits) <= 4:
            digits = "".join(ch * 2 for ch in digits)
        chans = [int(digits[i : i + 2], 16) / 255 for i in range(0, len(digits), 2)]
        return Color(chans[0], chans[1], chans[2], chans[3] if len(chans) == 4 else 1.0)
    m = _FUNC.fullmatch(text)
    if m is None:
        return None
    kind = m.group(1).lower()
    parts = [p for p in re.split(r"[\s,/]+", m.group(2).strip()) if p]
    if len(parts) not in (3, 4):
        return None
    try:
        alpha = _part(parts[3], 1.0) if len(parts) == 4 else 1.0
        if kind.startswith("rgb"):
            r, g, b = (_part(p, 255) / 255 for p in parts[:3])
            if strict and not all(0 <= x <= 1 for x in (r, g, b, alpha)):
                return None
            return Color(_clamp(r), _clamp(g), _clamp(b), _clamp(alpha))
        if kind.startswith("hsl"):
            return from_hsl(float(parts[0].removesuffix("deg")), _part(parts[1], 1), _part(parts[2], 1), alpha)
        return from_oklch(_part(parts[0], 1), _part(parts[1], 0.4), float(parts[2].removesuffix("deg")), alpha)
    except ValueError:
        return None


def size_text(px: float, unit: SizeUnit, rem_base: float = 16.0) -> str:
    """A size given in px, written in ``unit`` (with its unit even when 0, so that it reads back as a size)."""
    value = px / rem_base if unit == "rem" else px / _PX_PER[unit]
    return f"{_num(value, 4)}{unit}"


_SIZE = re.compile(r"(-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?)(px|rem|pt|dp)", re.IGNORECASE)


def parse_size(text: str, rem_base: float = 16.0) -> float | None:
    """The px of a size written with a unit (px, rem, pt, dp), else None."""
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        return None
    value, unit = float(m.group(1)), m.group(2).lower()
    return value * rem_base if unit == "rem" else value * _PX_PER[unit]


class ShadowLayer(msgspec.Struct, frozen=True):
    """One shadow: its colour, offsets, blur and spread in px, and whether it falls inside the box."""

    color: Color
    offset_x: float = 0.0
    offset_y: float = 0.0
    blur: float = 0.0
    spread: float = 0.0
    inset: bool = False

    @property
    def sizes(self) -> tuple[float, float, float, float]:
        """Its offsets, blur and spread, in the order CSS and the JSON token formats list them."""
        return (self.offset_x, self.offset_y, self.blur, self.spread)


class Shadow(msgspec.Struct, frozen=True, tag="shadow"):
    """A shadow value: its layers, the first drawn on top (as CSS ``box-shadow`` lists them)."""

    layers: tuple[ShadowLayer, ...]


def shadow_layer_text(sizes: Sequence[str], colour: str, *, inset: bool = False) -> str:
    """One layer of CSS shadow text: ``[inset] x y blur spread colour`` (``box-shadow``), or ``x y blur colour``
    (``text-shadow``, which has no spread and no inset), from sizes and a colour already written as text (a
    literal or a ``var(…)``)."""
    return ("inset " if inset else "") + " ".join([*sizes, colour])


def shadow_text(shadow: Shadow, fmt: ColorFormat = "hex", unit: SizeUnit = "px", rem_base: float = 16.0) -> str:
    """A shadow as CSS ``box-shadow`` text: ``[inset] x y blur spread colour`` per layer, comma-separated."""
    return ", ".join(
        shadow_layer_text(
            [size_text(x, unit, rem_base) for x in layer.sizes], color_text(layer.color, fmt), inset=layer.inset
        )
        for layer in shadow.layers
    )


_LAYER_SPLIT = re.compile(r",(?![^()]*\))")


def parse_shadow(text: str, rem_base: float = 16.0) -> Shadow | None:
    """The shadow written as CSS ``box-shadow`` text (each layer: ``inset``, two to four sizes and a colour, in any
    order), else None. A bare ``0`` is a size, as in CSS."""
    layers = []
    for part in _LAYER_SPLIT.split(text):
        words = re.findall(r"[\w#.-]+\([^)]*\)|\S+", part)
        inset = "inset" in words
        sizes: list[float] = []
        colour: Color | None = None
        for word in words:
            if word == "inset":
                continue
            px = 0.0 if word == "0" else parse_size(word, rem_base)
            if px is not None:
                sizes.append(px)
            elif colour is None and (colour := parse_color(word)) is not None:
                continue
            else:
                return None
        if colour is None or not 2 <= len(sizes) <= 4:
            return None
        sizes += [0.0] * (4 - len(sizes))
        layers.append(ShadowLayer(colour, sizes[0], sizes[1], sizes[2], sizes[3], inset))
    return Shadow(tuple(layers)) if layers else None
