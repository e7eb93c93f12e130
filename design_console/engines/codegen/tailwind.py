"""Tailwind v4 classes for an element's CSS declarations, written as a developer would write them.

A value on Tailwind's default scale becomes its utility: lengths in steps of the spacing unit (4 px, and half steps:
``h-12``, ``p-2.5``, ``left-px``), the named font sizes, weights, radii and letter spacings (``text-sm``,
``font-semibold``, ``rounded-lg``, ``tracking-wide``), whole percentages of opacity, and the palette's colours that
are exactly a value of ours (white, black, transparent: Tailwind's other colours are oklch, never one hex value). A
value bound to a variable uses the theme key that design_export_tokens' Tailwind v4 ``@theme`` gives the variable
when its name is in the utility's namespace (``color/brand`` → ``--color-brand`` → ``bg-brand``), else Tailwind's
variable shorthand (``bg-(--brand)``). Only what no utility expresses is an arbitrary value (``h-[17.5px]``) or
property (``[box-shadow:…]``).
"""

from __future__ import annotations

import re

#: Tailwind's spacing unit (``--spacing: 0.25rem``) in px.
SPACING_PX = 4.0
#: Steps of the spacing unit written as utilities: whole and half steps (``p-2.5``), as Tailwind's own scale has.
STEPS_PER_UNIT = 2
#: Font sizes of Tailwind's theme, in px (``--text-*``).
FONT_SIZES = {
    12: "xs",
    14: "sm",
    16: "base",
    18: "lg",
    20: "xl",
    24: "2xl",
    30: "3xl",
    36: "4xl",
    48: "5xl",
    60: "6xl",
    72: "7xl",
    96: "8xl",
    128: "9xl",
}
FONT_WEIGHTS = {
    "100": "thin",
    "200": "extralight",
    "300": "light",
    "400": "normal",
    "500": "medium",
    "600": "semibold",
    "700": "bold",
    "800": "extrabold",
    "900": "black",
}
#: Tailwind's named line heights, as multiples of the font size (``--leading-*`` and ``leading-none``).
LEADING = {1.0: "none", 1.25: "tight", 1.375: "snug", 1.5: "normal", 1.625: "relaxed", 2.0: "loose"}
RADII = {"2px": "xs", "4px": "sm", "6px": "md", "8px": "lg", "12px": "xl", "16px": "2xl", "24px": "3xl", "32px": "4xl"}
TRACKING = {"-0.05em": "tighter", "-0.025em": "tight", "0.025em": "wide", "0.05em": "wider", "0.1em": "widest"}
#: Colours of the palette that are exactly one value of ours (the generators write colours in upper-case hex, and
#: translucent ones as ``rgba()``, which for these is the colour with an opacity modifier: ``bg-black/50``).
PALETTE = {"#FFFFFF": "white", "#000000": "black", "transparent": "transparent"}
PALETTE_RGB = {(255, 255, 255): "white", (0, 0, 0): "black"}
CORNERS = ("tl", "tr", "br", "bl")
PADDING = ("pt", "pr", "pb", "pl")

#: Declarations that are one utility each, whatever the element.
KEYWORDS = {
    ("position", "absolute"): "absolute",
    ("position", "relative"): "relative",
    ("display", "flex"): "flex",
    ("flex-direction", "row"): "flex-row",
    ("flex-direction", "column"): "flex-col",
    ("flex-wrap", "wrap"): "flex-wrap",
    ("justify-content", "flex-start"): "justify-start",
    ("justify-content", "center"): "justify-center",
    ("justify-content", "flex-end"): "justify-end",
    ("justify-content", "space-between"): "justify-between",
    ("align-items", "flex-start"): "items-start",
    ("align-items", "center"): "items-center",
    ("align-items", "flex-end"): "items-end",
    ("align-items", "baseline"): "items-baseline",
    ("align-self", "stretch"): "self-stretch",
    ("flex-shrink", "0"): "shrink-0",
    ("flex", "1 1 0"): "flex-1",
    ("min-width", "0"): "min-w-0",
    ("min-height", "0"): "min-h-0",
    ("overflow", "hidden"): "overflow-hidden",
    ("overflow", "visible"): "overflow-visible",
    ("white-space", "pre"): "whitespace-pre",
    ("white-space", "pre-wrap"): "whitespace-pre-wrap",
    ("white-space", "nowrap"): "whitespace-nowrap",
    ("text-align", "left"): "text-left",
    ("text-align", "center"): "text-center",
    ("text-align", "right"): "text-right",
    ("text-align", "justify"): "text-justify",
    ("text-decoration", "underline"): "underline",
    ("text-decoration", "line-through"): "line-through",
    ("text-transform", "uppercase"): "uppercase",
    ("text-transform", "lowercase"): "lowercase",
    ("text-transform", "capitalize"): "capitalize",
    ("font-style", "italic"): "italic",
    ("font-variant", "small-caps"): "[font-variant:small-caps]",
    ("text-overflow", "ellipsis"): "text-ellipsis",
    ("border-radius", "50%"): "rounded-[50%]",
}
#: Length properties on the spacing scale, and their utility.
SPACED = {
    "width": "w",
    "height": "h",
    "left": "left",
    "top": "top",
    "right": "right",
    "bottom": "bottom",
    "column-gap": "gap-x",
    "row-gap": "gap-y",
}
#: Each property's utility, the theme namespace of the variables it takes by key, and the type hint Tailwind needs
#: to read a variable (``text-`` is both a colour and a size).
THEMED = {
    "background-color": ("bg", "color", ""),
    "color": ("text", "color", "color"),
    "outline-color": ("outline", "color", "color"),
    "font-size": ("text", "text", "length"),
    "line-height": ("leading", "leading", ""),
    "letter-spacing": ("tracking", "tracking", ""),
    "border-radius": ("rounded", "radius", ""),
    "font-weight": ("font", "font-weight", ""),
    "font-family": ("font", "font", "family-name"),
    "opacity": ("opacity", "", ""),
    **{prop: (utility, "spacing", "") for prop, utility in SPACED.items()},
}
_PX = re.compile(r"(-?\d+(?:\.\d+)?)px|0")
_RGBA = re.compile(r"rgba\((\d+), (\d+), (\d+), (\d*\.?\d+)\)")
_VAR = re.compile(r"var\((--[A-Za-z0-9_-]+)\)")


def arbitrary(value: str) -> str:
    """A CSS value in Tailwind's arbitrary-value syntax: spaces become underscores, underscores are escaped, and
    double quotes become single ones (a class attribute holds no ``"``), so a ``'`` inside a string is escaped first
    or it would end the string early."""
    return value.replace("_", "\\_").replace(" ", "_").replace("'", "\\'").replace('"', "'")


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _px(value: str | None) -> float | None:
    """A length in px (``0`` included) as a number, or None for anything else."""
    match = _PX.fullmatch(value.strip()) if value else None
    return float(match.group(1) or 0) if match else None


def step(value: str) -> str | None:
    """A length's step on the spacing scale (``48px`` → ``12``, ``10px`` → ``2.5``, ``1px`` → ``px``, ``0`` → ``0``),
    or None when it is between steps or not in px."""
    px = _px(value)
    if px is None:
        return None
    if abs(px) == 1:
        return "px"
    steps = px / SPACING_PX * STEPS_PER_UNIT
    if abs(steps - round(steps)) > 1e-6:
        return None
    return _number(abs(round(steps) / STEPS_PER_UNIT))


def _negative(value: str) -> bool:
    return value.strip().startswith("-")


def _spaced(utility: str, value: str) -> str | None:
    """``utility-<step>`` (``-`` in front for a negative length), or None off the scale."""
    found = step(value)
    if found is None:
        return None
    return f"{'-' if _negative(value) and found != '0' else ''}{utility}-{found}"


def _variable(prop: str, value: str) -> str | None:
    """The class of a value that is one variable: its theme key when the name is in the utility's namespace,
    else the variable shorthand; None for any other value."""
    match = _VAR.fullmatch(value.strip())
    if match is None or prop not in THEMED:
        return None
    utility, namespace, hint = THEMED[prop]
    name = match.group(1)
    if namespace and name.startswith(f"--{namespace}-") and len(name) > len(namespace) + 3:
        return f"{utility}-{name[len(namespace) + 3 :]}"
    return f"{utility}-({hint + ':' if hint else ''}{name})"


def _value(prop: str, value: str, decl: dict[str, str], relative_leading: bool = False) -> str | None:
    """The scale or theme utility of one declaration, or None when only an arbitrary value expresses it
    (``relative_leading``: see :func:`classes`)."""
    if (themed := _variable(prop, value)) is not None:
        return themed
    if prop in SPACED:
        if value == "100%" and prop in ("width", "height"):
            return f"{SPACED[prop]}-full"
        return _spaced(SPACED[prop], value)
    if prop in ("background-color", "color", "outline-color"):
        return _palette(THEMED[prop][0], value)
    if prop == "font-size":
        size = _px(value)
        # A named size brings its own line height; it is exact only beside a line height of the element's own.
        if size is not None and size in FONT_SIZES and "line-height" in decl:
            return f"text-{FONT_SIZES[int(size)]}"
        return None
    if prop == "line-height":
        return _spaced("leading", value) or (_leading(value, decl) if relative_leading else None)
    if prop == "font-weight" and value in FONT_WEIGHTS:
        return f"font-{FONT_WEIGHTS[value]}"
    if prop == "letter-spacing" and value in TRACKING:
        return f"tracking-{TRACKING[value]}"
    if prop == "border-radius":
        return "rounded-none" if value == "0" else (f"rounded-{RADII[value]}" if value in RADII else None)
    if prop == "opacity":
        percent = float(value) * 100 if re.fullmatch(r"\d*\.?\d+", value) else -1.0
        return f"opacity-{round(percent)}" if 0 <= percent <= 100 and abs(percent - round(percent)) < 1e-6 else None
    return None


def _leading(value: str, decl: dict[str, str]) -> str | None:
    """``leading-normal`` for 24px beside a font size of 16px: a line height that is a named multiple of the font
    size, to the hundredth of a px."""
    height, size = _px(value), _px(decl.get("font-size"))
    if height is None or not size:
        return None
    return next((f"leading-{name}" for ratio, name in LEADING.items() if abs(size * ratio - height) < 0.01), None)


def _palette(utility: str, value: str) -> str | None:
    """``bg-white``, ``text-black/50``: a colour that is exactly one of the palette's, or None."""
    if value in PALETTE:
        return f"{utility}-{PALETTE[value]}"
    match = _RGBA.fullmatch(value)
    if match is None:
        return None
    name = PALETTE_RGB.get((int(match.group(1)), int(match.group(2)), int(match.group(3))))
    percent = float(match.group(4)) * 100
    return f"{utility}-{name}/{round(percent)}" if name and abs(percent - round(percent)) < 1e-6 else None


def _one(prop: str, value: str, decl: dict[str, str], relative_leading: bool = False) -> str:
    """The class of one declaration: a keyword, a scale or theme utility, or an arbitrary value or property."""
    if (prop, value) in KEYWORDS:
        return KEYWORDS[(prop, value)]
    if (found := _value(prop, value, decl, relative_leading)) is not None:
        return found
    if prop in ("background-color", "color", "outline-color") and _RGBA.fullmatch(value):
        # A colour function needs no spaces: one arbitrary value reads better than a property.
        value = value.replace(" ", "")
    if prop in THEMED and (" " not in value.strip() or prop == "font-family"):
        return f"{THEMED[prop][0]}-[{arbitrary(value)}]"
    return f"[{prop}:{arbitrary(value)}]"


def _padding(values: list[str]) -> list[str]:
    """Four sides' padding (top, right, bottom, left) as few utilities as it takes: ``p-4``, ``px-3 py-2``, or one
    per side that has any."""
    if len(set(values)) == 1:
        return [_side("p", values[0])]
    top, right, bottom, left = values
    if top == bottom and left == right:
        return [_side("px", left), _side("py", top)]
    return [_side(prefix, value) for prefix, value in zip(PADDING, values, strict=True) if value != "0"]


def _side(utility: str, value: str) -> str:
    """A spacing utility (padding, gap) of a length: a theme key, the variable shorthand, a step or arbitrary."""
    match = _VAR.fullmatch(value.strip())
    if match is not None:
        name = match.group(1)
        return (
            f"{utility}-{name.removeprefix('--spacing-')}" if name.startswith("--spacing-") else f"{utility}-({name})"
        )
    return _spaced(utility, value) or f"{utility}-[{arbitrary(value)}]"


def _radius(value: str, decl: dict[str, str]) -> list[str]:
    corners = value.split()
    if len(set(corners)) == 1:
        size, sides = _px(corners[0]), [_px(decl.get("width")), _px(decl.get("height"))]
        # Corners that meet across the shorter side are scaled down to half of it, as rounded-full's are.
        if size is not None and None not in sides and 2 * size >= min(s or 0 for s in sides) > 0:
            return ["rounded-full"]
        return [_one("border-radius", corners[0], {})]
    out = []
    for corner, radius in zip(CORNERS, corners, strict=True):
        if radius == "0":
            continue
        named = _value("border-radius", radius, {})
        out.append(
            named.replace("rounded", f"rounded-{corner}", 1) if named else f"rounded-{corner}-[{arbitrary(radius)}]"
        )
    return out


def _outline(value: str) -> list[str] | None:
    """``1px solid #DEE2E6`` as width, style and colour utilities; None when it is not a width, a style and a
    colour (which may be a function with spaces: ``rgba(0, 0, 0, 0.13)``)."""
    parts = value.split(" ", 2)
    if len(parts) != 3 or parts[1] not in ("solid", "dashed", "dotted"):
        return None
    width, style, colour = parts
    thickness = _px(width)
    whole = thickness is not None and thickness > 0 and thickness.is_integer()
    width_class = f"outline-{_number(thickness or 0)}" if whole else None
    return [
        width_class or f"outline-[length:{arbitrary(width)}]",
        f"outline-{style}",
        _one("outline-color", colour, {}),
    ]


def _outline_offset(value: str) -> str:
    offset = _px(value)
    if offset is not None and offset.is_integer():
        return f"{'-' if offset < 0 else ''}outline-offset-{_number(abs(offset))}"
    return f"outline-offset-[{arbitrary(value)}]"


def classes(decl: dict[str, str], *, relative_leading: bool = True) -> list[str]:
    """Tailwind classes for CSS declarations, in their order. With ``relative_leading``, a line height that is a
    named multiple of the font size is written as that multiple (``leading-normal``): the same line for the element,
    but a part of its text with a font size of its own would scale it, so pass False for a text that has one."""
    out: list[str] = []
    gaps = [prop for prop in ("column-gap", "row-gap") if prop in decl]
    # One gap for both axes when they agree, or when a flex line that does not wrap has only the one it uses.
    one_gap = len({decl[prop] for prop in gaps}) == 1 and (len(gaps) == 2 or "flex-wrap" not in decl)
    for prop, value in decl.items():
        if prop in gaps and one_gap:
            if prop == gaps[0]:
                out.append(_side("gap", value))
        elif prop == "padding":
            out.extend(_padding(value.split()))
        elif prop == "border-radius":
            out.extend(_radius(value, decl))
        elif prop == "outline" and (split := _outline(value)) is not None:
            out.extend(split)
        elif prop == "outline-offset":
            out.append(_outline_offset(value))
        else:
            out.append(_one(prop, value, decl, relative_leading))
    return out
