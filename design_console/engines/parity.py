"""Design–code parity: what a caller says its code implements (``codeSpec``), what the design API says the design
specifies, and the differences between them as a score, per-category discrepancies and fix items. No I/O here;
``audits.py`` fetches the node and the variable names.

The ``codeSpec`` argument of ``design_check_design_parity`` (every part optional; only what is given is compared):

- ``filePath``: the source file of the component (named in fix items that change the code).
- ``visual``: ``backgroundColor``, ``textColor``, ``borderColor`` (CSS colours: ``#hex``, ``rgb()``, ``hsl()``),
  ``borderWidth``, ``borderRadius`` (px), ``opacity`` (0-1).
- ``spacing``: ``paddingTop``, ``paddingRight``, ``paddingBottom``, ``paddingLeft``, ``gap``, ``width``, ``height``
  (px).
- ``typography``: ``fontFamily``, ``fontSize`` (px), ``fontWeight`` (100-900), ``lineHeight`` (px),
  ``letterSpacing`` (px).
- ``tokens``: names of the design tokens the code uses, in any common spelling (``color.action.primary``,
  ``--color-action-primary``, ``$color-action-primary``, ``{color.action.primary}``); compared with the variables
  bound in the design (names need ``enrich``).
- ``componentAPI``: ``props``, a list of ``{name, type, values, default}`` (type: variant, boolean, text, instance;
  values: a variant's options).
- ``accessibility``: ``focusVisible`` (the code shows a focus state), ``disabledState`` (it has a disabled state),
  ``minTargetSize`` (its smallest hit area side, px).
- ``metadata``: ``name``, ``description``.

The design side of a component set is its default variant (component properties come from the set). Colours match
within 2/255 a channel, lengths within 0.5 px.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal

import msgspec

from design_console.tokens import values

Side = Literal["design", "code"]

#: Channel difference (of 0..1) below which two colours are the same (rounding of 8-bit values on either side).
COLOR_TOLERANCE = 2 / 255
#: Length difference (px) below which two sizes are the same.
LENGTH_TOLERANCE = 0.5
#: A length difference up to this (px) is minor; more is major.
MINOR_LENGTH = 2.0
#: Depth of the design subtree read for a parity check: deep enough for a component's label and its backdrop.
DESIGN_DEPTH = 6


class _Part(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Base of the parts of a codeSpec: an unknown key is refused, so that a misspelt one is not silently ignored."""


class VisualSpec(_Part):
    backgroundColor: str | None = None
    textColor: str | None = None
    borderColor: str | None = None
    borderWidth: float | None = None
    borderRadius: float | None = None
    opacity: float | None = None


class SpacingSpec(_Part):
    paddingTop: float | None = None
    paddingRight: float | None = None
    paddingBottom: float | None = None
    paddingLeft: float | None = None
    gap: float | None = None
    width: float | None = None
    height: float | None = None


class TypographySpec(_Part):
    fontFamily: str | None = None
    fontSize: float | None = None
    fontWeight: float | None = None
    lineHeight: float | None = None
    letterSpacing: float | None = None


class PropSpec(_Part):
    name: str
    type: Literal["variant", "boolean", "text", "instance"] | None = None
    values: list[str] | None = None
    default: str | bool | None = None


class ComponentApiSpec(_Part):
    props: list[PropSpec] = []


class AccessibilitySpec(_Part):
    focusVisible: bool | None = None
    disabledState: bool | None = None
    minTargetSize: float | None = None


class MetadataSpec(_Part):
    name: str | None = None
    description: str | None = None


class CodeSpec(_Part):
    """What the code implements; see the module docstring."""

    filePath: str | None = None
    visual: VisualSpec | None = None
    spacing: SpacingSpec | None = None
    typography: TypographySpec | None = None
    tokens: list[str] | None = None
    componentAPI: ComponentApiSpec | None = None
    accessibility: AccessibilitySpec | None = None
    metadata: MetadataSpec | None = None


#: The codeSpec parameter's description in the tool list: its keys only (the outline comes with an error).
SUMMARY = "filePath,visual,spacing,typography,tokens,componentAPI,accessibility,metadata"

CATEGORIES = ("visual", "spacing", "typography", "tokens", "componentAPI", "accessibility", "metadata")
#: The outline of a codeSpec that an error shows, so a caller can fix the call without other documentation.
OUTLINE = (
    "codeSpec keys: filePath; visual{backgroundColor,textColor,borderColor,borderWidth,borderRadius,opacity}; "
    "spacing{paddingTop,paddingRight,paddingBottom,paddingLeft,gap,width,height}; "
    "typography{fontFamily,fontSize,fontWeight,lineHeight,letterSpacing}; tokens[names]; "
    "componentAPI{props[{name,type,values,default}]}; accessibility{focusVisible,disabledState,minTargetSize}; "
    "metadata{name,description}. Colours as CSS, lengths in px."
)


def parse_code_spec(raw: dict[str, Any]) -> CodeSpec:
    """The codeSpec argument as a :class:`CodeSpec`; raises ValueError naming the wrong field and the outline."""
    try:
        spec = msgspec.convert(raw, CodeSpec, strict=False)
    except msgspec.ValidationError as exc:
        raise ValueError(f"codeSpec: {exc}. {OUTLINE}") from None
    for name in ("backgroundColor", "textColor", "borderColor"):
        text = getattr(spec.visual, name, None) if spec.visual else None
        if text is not None and values.parse_color(text) is None:
            raise ValueError(f"codeSpec.visual.{name}: {text[:80]!r} is not a CSS colour (#hex, rgb(), hsl()).")
    if not any(getattr(spec, c) for c in CATEGORIES):
        raise ValueError(f"codeSpec has nothing to compare. {OUTLINE}")
    return spec


# The design side --------------------------------------------------------------------------------------------------


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("children") or []:
        if child.get("visible", True):
            yield from _walk(child)


def _solid(node: dict[str, Any]) -> values.Color | None:
    """The top visible solid fill of a node, its paint opacity as alpha."""
    for paint in reversed(node.get("fills") or []):
        if paint.get("visible", True) and paint.get("type") == "SOLID" and "color" in paint:
            c = paint["color"]
            return values.Color(c["r"], c["g"], c["b"], c.get("a", 1) * paint.get("opacity", 1))
    return None


def _box(node: dict[str, Any]) -> dict[str, float]:
    return node.get("absoluteBoundingBox") or {}


def _covers(outer: dict[str, float], inner: dict[str, float]) -> bool:
    keys = ("x", "y", "width", "height")
    if not all(k in outer and k in inner for k in keys):
        return False
    return (
        outer["x"] <= inner["x"] + 0.01
        and outer["y"] <= inner["y"] + 0.01
        and outer["x"] + outer["width"] >= inner["x"] + inner["width"] - 0.01
        and outer["y"] + outer["height"] >= inner["y"] + inner["height"] - 0.01
    )


def default_variant(node: dict[str, Any]) -> dict[str, Any]:
    """The node a component set's styles are read from: the variant of the default values, else the first."""
    variants: list[dict[str, Any]] = [c for c in node.get("children") or [] if c.get("type") == "COMPONENT"]
    if node.get("type") != "COMPONENT_SET" or not variants:
        return node
    defaults = {
        f"{name}={d.get('defaultValue')}"
        for name, d in (node.get("componentPropertyDefinitions") or {}).items()
        if d.get("type") == "VARIANT"
    }
    for variant in variants:
        parts = {p.strip() for p in str(variant.get("name", "")).split(",")}
        if defaults and defaults <= parts:
            return variant
    return variants[0]


def _backdrop(node: dict[str, Any]) -> dict[str, Any]:
    """The layer that paints the component's background: itself when filled, else a child covering all of it."""
    if _solid(node) is not None:
        return node
    children: list[dict[str, Any]] = node.get("children") or []
    for child in children:
        if child.get("type") != "TEXT" and child.get("visible", True) and _solid(child) is not None:
            if _covers(_box(child), _box(node)):
                return child
    return node


def _first_text(node: dict[str, Any]) -> dict[str, Any] | None:
    return next((n for n in _walk(node) if n.get("type") == "TEXT"), None)


def _variant_values(node: dict[str, Any]) -> list[str]:
    return [
        str(v)
        for d in (node.get("componentPropertyDefinitions") or {}).values()
        if d.get("type") == "VARIANT"
        for v in d.get("variantOptions") or []
    ]


def bound_variable_ids(node: dict[str, Any]) -> list[str]:
    """Ids of the variables bound anywhere in the node's subtree (properties and paints), in order of appearance."""
    found: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("type") == "VARIABLE_ALIAS" and isinstance(value.get("id"), str):
                if value["id"] not in found:
                    found.append(value["id"])
                return
            for item in value.values():
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    for n in _walk(node):
        collect(n.get("boundVariables"))
        for paint in (n.get("fills") or []) + (n.get("strokes") or []):
            collect(paint.get("boundVariables"))
    return found


def design_spec(root: dict[str, Any], meta: dict[str, Any], variable_names: dict[str, str] | None) -> dict[str, Any]:
    """What the design specifies, in the categories and units of a codeSpec. ``meta`` is the design API's component
    (or set) entry; ``variable_names`` maps variable ids to names (None: names unknown)."""
    node = default_variant(root)
    spec: dict[str, Any] = {}
    backdrop = _backdrop(node)
    text = _first_text(node)
    visual: dict[str, Any] = {"opacity": node.get("opacity", 1)}
    if (bg := _solid(backdrop)) is not None:
        visual["backgroundColor"] = values.hex_text(bg)
    if text is not None and (fg := _solid(text)) is not None:
        visual["textColor"] = values.hex_text(fg)
    stroke_owner = node if node.get("strokes") else backdrop
    strokes = [p for p in stroke_owner.get("strokes") or [] if p.get("visible", True) and p.get("type") == "SOLID"]
    if strokes:
        c = strokes[-1]["color"]
        visual["borderColor"] = values.hex_text(values.Color(c["r"], c["g"], c["b"], c.get("a", 1)))
        visual["borderWidth"] = stroke_owner.get("strokeWeight", 1)
    radius = node.get("cornerRadius", backdrop.get("cornerRadius"))
    if radius is not None:
        visual["borderRadius"] = radius
    spec["visual"] = visual
    box = _box(node)
    spacing: dict[str, Any] = {
        k: node[k] for k in ("paddingTop", "paddingRight", "paddingBottom", "paddingLeft") if k in node
    }
    if "itemSpacing" in node:
        spacing["gap"] = node["itemSpacing"]
    spacing.update({k: box[k] for k in ("width", "height") if k in box})
    spec["spacing"] = spacing
    if text is not None:
        style = text.get("style") or {}
        typography = {k: style[k] for k in ("fontFamily", "fontSize", "fontWeight", "letterSpacing") if k in style}
        if "lineHeightPx" in style:
            typography["lineHeight"] = style["lineHeightPx"]
        spec["typography"] = typography
    ids = bound_variable_ids(node)
    spec["tokens"] = [variable_names.get(i, i) for i in ids] if variable_names is not None else None
    spec["componentAPI"] = [
        {
            "name": name.split("#", 1)[0],
            "type": str(d.get("type", "")).lower(),
            "values": d.get("variantOptions"),
            "default": d.get("defaultValue"),
        }
        for name, d in (root.get("componentPropertyDefinitions") or {}).items()
    ]
    options = _variant_values(root) + [str(c.get("name", "")) for c in root.get("children") or []]
    is_set = root.get("type") == "COMPONENT_SET"
    spec["accessibility"] = {
        "focusVisible": any(re.search("focus", o, re.I) for o in options) if is_set else None,
        "disabledState": any(re.search("disabled", o, re.I) for o in options) if is_set else None,
        "minTargetSize": min(box["width"], box["height"]) if "width" in box and "height" in box else None,
    }
    spec["metadata"] = {"name": root.get("name"), "description": meta.get("description") or root.get("description")}
    return spec


# The comparison ---------------------------------------------------------------------------------------------------


def token_key(name: str) -> str:
    """A token name in one spelling: lower case, segments joined by ``/`` (``--color-action-primary``,
    ``{color.action.primary}`` and ``color/action/primary`` are one name)."""
    text = name.strip().lstrip("-$@").strip("{}").lower()
    return "/".join(p for p in re.split(r"[./\-_\s]+", text) if p)


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _same_token(code: str, design: str) -> bool:
    """One name in either spelling, or the code's with a category prefix before the design's (``color/…``)."""
    return code == design or code.endswith("/" + design) or design.endswith("/" + code)


class _Report:
    """Collects checks and discrepancies of one comparison."""

    def __init__(self, canonical: Side, where_code: str, where_design: str) -> None:
        self.canonical = canonical
        self.where = {"code": where_code, "design": where_design}
        self.checks: dict[str, list[int]] = {c: [0, 0] for c in CATEGORIES}
        self.discrepancies: dict[str, list[dict[str, Any]]] = {}
        self.fixes: list[dict[str, Any]] = []

    def check(self, category: str, prop: str, design: Any, code: Any, same: bool, severity: str = "major") -> None:
        counts = self.checks[category]
        counts[0] += 1
        if same:
            counts[1] += 1
            return
        self.discrepancies.setdefault(category, []).append(
            {"property": prop, "design": design, "code": code, "severity": severity}
        )
        change: Side = "code" if self.canonical == "design" else "design"
        target = design if self.canonical == "design" else code
        if target is None:
            action = f"remove {prop} (the {self.canonical} has none)"
        else:
            action = f"set {prop} to {target!r}"
        self.fixes.append({"change": change, "in": self.where[change], "category": category, "fix": action})


def _length(report: _Report, category: str, prop: str, design: Any, code: float | None) -> None:
    if code is None:
        return
    if not isinstance(design, int | float):
        report.check(category, prop, None, code, False)
        return
    diff = abs(design - code)
    report.check(category, prop, design, code, diff <= LENGTH_TOLERANCE, "minor" if diff <= MINOR_LENGTH else "major")


def _color(report: _Report, prop: str, design: str | None, code: str | None) -> None:
    if code is None:
        return
    theirs = values.parse_color(code)
    ours = values.parse_color(design) if design else None
    if ours is None or theirs is None:
        report.check("visual", prop, design, code, False)
        return
    same = all(
        abs(a - b) <= COLOR_TOLERANCE
        for a, b in zip(msgspec.structs.astuple(ours), msgspec.structs.astuple(theirs), strict=True)
    )
    report.check("visual", prop, design, values.hex_text(theirs), same)


def _props(report: _Report, design: list[dict[str, Any]], code: list[PropSpec]) -> None:
    ours = {_key(p["name"]): p for p in design}
    theirs = {_key(p.name): p for p in code}
    for key, prop in ours.items():
        other = theirs.get(key)
        if other is None:
            report.check("componentAPI", f"prop {prop['name']}", prop["type"], None, False)
            continue
        if other.type is not None:
            report.check("componentAPI", f"{prop['name']}.type", prop["type"], other.type, other.type == prop["type"])
        if other.values is not None and prop.get("values") is not None:
            same = {_key(v) for v in other.values} == {_key(v) for v in prop["values"]}
            report.check("componentAPI", f"{prop['name']}.values", prop["values"], other.values, same)
        if other.default is not None and prop.get("default") is not None:
            same = _key(str(other.default)) == _key(str(prop["default"]))
            report.check("componentAPI", f"{prop['name']}.default", prop["default"], other.default, same)
    for key, other in theirs.items():
        if key not in ours:
            report.check("componentAPI", f"prop {other.name}", None, other.type or "prop", False)


def compare(design: dict[str, Any], code: CodeSpec, *, canonical: Side, node_id: str) -> dict[str, Any]:
    """Score (0-100: the share of compared properties that match), discrepancies by category, and fix items on the
    side that is not ``canonical``."""
    report = _Report(canonical, code.filePath or "the code", f"node {node_id}")
    notes: list[str] = []
    if code.visual:
        dv = design["visual"]
        for prop in ("backgroundColor", "textColor", "borderColor"):
            _color(report, prop, dv.get(prop), getattr(code.visual, prop))
        for prop in ("borderWidth", "borderRadius"):
            _length(report, "visual", prop, dv.get(prop), getattr(code.visual, prop))
        if code.visual.opacity is not None:
            same = abs(dv["opacity"] - code.visual.opacity) <= 0.01
            report.check("visual", "opacity", dv["opacity"], code.visual.opacity, same)
    if code.spacing:
        for prop in SpacingSpec.__struct_fields__:
            _length(report, "spacing", prop, design["spacing"].get(prop), getattr(code.spacing, prop))
    if code.typography:
        dt = design.get("typography")
        if dt is None:
            notes.append("typography: the design has no text layer to compare with")
        else:
            t = code.typography
            if t.fontFamily is not None:
                same = _key(t.fontFamily.split(",")[0].strip("'\" ")) == _key(str(dt.get("fontFamily", "")))
                report.check("typography", "fontFamily", dt.get("fontFamily"), t.fontFamily, same)
            for prop in ("fontSize", "fontWeight", "lineHeight", "letterSpacing"):
                _length(report, "typography", prop, dt.get(prop), getattr(t, prop))
    if code.tokens is not None:
        if design["tokens"] is None:
            notes.append("tokens: variable names are unknown (enrich=false or unreadable), so tokens were not compared")
        else:
            ours = [token_key(n) for n in design["tokens"]]
            theirs = [token_key(n) for n in code.tokens]
            for name, key in zip(design["tokens"], ours, strict=True):
                report.check("tokens", name, name, None, any(_same_token(t, key) for t in theirs))
            for name, key in zip(code.tokens, theirs, strict=True):
                if not any(_same_token(key, o) for o in ours):
                    report.check("tokens", name, None, name, False)
    if code.componentAPI:
        _props(report, design["componentAPI"], code.componentAPI.props)
    if code.accessibility:
        da, ca = design["accessibility"], code.accessibility
        for prop in ("focusVisible", "disabledState"):
            mine = getattr(ca, prop)
            if mine is not None and da[prop] is not None:
                report.check("accessibility", prop, da[prop], mine, da[prop] == mine)
        _length(report, "accessibility", "minTargetSize", da["minTargetSize"], ca.minTargetSize)
    if code.metadata:
        dm = design["metadata"]
        if code.metadata.name is not None:
            same = _key(code.metadata.name) == _key(str(dm.get("name") or ""))
            report.check("metadata", "name", dm.get("name"), code.metadata.name, same)
        if code.metadata.description is not None:
            same = " ".join(code.metadata.description.split()) == " ".join(str(dm.get("description") or "").split())
            report.check("metadata", "description", dm.get("description"), code.metadata.description, same, "minor")
    total = sum(c[0] for c in report.checks.values())
    matched = sum(c[1] for c in report.checks.values())
    categories = {
        name: {
            "compared": n,
            "matched": m,
            **({"discrepancies": report.discrepancies[name]} if name in report.discrepancies else {}),
        }
        for name, (n, m) in report.checks.items()
        if n
    }
    result: dict[str, Any] = {
        "score": round(100 * matched / total) if total else None,
        "compared": total,
        "matched": matched,
        "canonicalSource": canonical,
        "categories": categories,
        "fixes": report.fixes,
    }
    if notes:
        result["notes"] = notes
    return result
