"""The design-system health report: six categories scored 0-100 from plain data, free of I/O.

Input is what the audit tool gathered (variables, collections, components, styles and a bounded crawl of the
file's nodes), as plain dicts. Each category runs a few rules; a rule checks a number of items and names the ones
that fail. A category's score is the share of its checks that pass (100 when it had nothing to check); the overall
score is the weighted mean. The MCP tool and the dashboard app both render what :func:`build_report` returns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from design_console.tokens import values

Category = Literal[
    "naming-semantics", "token-architecture", "component-metadata", "accessibility", "consistency", "coverage"
]
Severity = Literal["error", "warning", "info"]

#: Weights of the categories in the overall score, in percent. Naming, tokens and component metadata are what
#: code generation leans on most; coverage only says what is missing.
WEIGHTS: dict[Category, int] = {
    "naming-semantics": 20,
    "token-architecture": 20,
    "component-metadata": 20,
    "accessibility": 15,
    "consistency": 15,
    "coverage": 10,
}
CATEGORIES: tuple[Category, ...] = tuple(WEIGHTS)

#: Names the design tool gives new layers, components, styles and variables.
_DEFAULT_NAME = re.compile(
    r"^(component|frame|group|rectangle|ellipse|vector|variable|style|property|instance)\s*\d*$", re.IGNORECASE
)
#: Component names that suggest something the user taps or clicks.
_INTERACTIVE = re.compile(r"button|link|input|checkbox|radio|toggle|switch|tab|chip|select|slider", re.IGNORECASE)
#: WCAG 2.2 SC 2.5.8: targets at least 24 by 24 CSS pixels.
MIN_TARGET_PX = 24.0
#: Below this size text is hard to read on any screen.
MIN_TEXT_PX = 12.0
#: WCAG 2 AA contrast for body text.
MIN_CONTRAST = 4.5
#: How many node or variable ids a finding carries; the count says how many there are in all.
MAX_IDS = 20


@dataclass(slots=True)
class AuditData:
    """What the report is computed from; every list holds plain dicts as the plugin or the design API gave them.

    ``nodes`` are crawl records: ``id``, ``type``, and where they apply ``fill`` (a solid fill as #RRGGBB),
    ``fillBound`` / ``fillStyle`` (the fill comes from a variable / a style), ``fontSize``, ``textStyle`` (a text
    node uses a text style), ``background`` (the nearest ancestor's solid fill) and ``component`` (an instance's
    main component id).
    """

    variables: list[dict[str, Any]] = field(default_factory=list)
    collections: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    styles: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class Check:
    """One rule's outcome: how many items it checked and which failed."""

    id: str
    severity: Severity
    message: str
    fix: str
    checked: int
    failed: list[str]

    def finding(self) -> dict[str, Any] | None:
        """The finding of a rule that failed, with at most ``MAX_IDS`` ids; None when every item passed."""
        if not self.failed:
            return None
        out: dict[str, Any] = {
            "id": self.id,
            "severity": self.severity,
            "message": self.message.format(n=len(self.failed), of=self.checked),
            "count": len(self.failed),
            "fix": self.fix,
        }
        ids = [i for i in self.failed if i]
        if ids:
            out["ids"] = ids[:MAX_IDS]
        return out


def _check(rule: str, severity: Severity, message: str, fix: str, items: Iterable[tuple[str, bool]]) -> Check:
    """A rule over ``(id, passes)`` pairs."""
    pairs = list(items)
    return Check(rule, severity, message, fix, len(pairs), [i for i, ok in pairs if not ok])


def _leaf(name: str) -> str:
    return name.rsplit("/", 1)[-1].strip()


# Categories -------------------------------------------------------------------------------------------------------


def naming(data: AuditData) -> list[Check]:
    """Grouped, code-friendly token names; no names the editor made up."""
    named = [*data.variables, *data.components, *data.styles]
    return [
        _check(
            "naming.ungrouped-variable",
            "warning",
            "{n} of {of} variables have no group (no '/' in the name).",
            "Group variables by role, e.g. color/text/primary.",
            ((v["id"], "/" in str(v.get("name", ""))) for v in data.variables),
        ),
        _check(
            "naming.whitespace",
            "info",
            "{n} of {of} variable names contain spaces, which code names cannot.",
            "Use kebab-case or camelCase segments.",
            ((v["id"], not re.search(r"\s", str(v.get("name", "")))) for v in data.variables),
        ),
        _check(
            "naming.default-name",
            "warning",
            "{n} of {of} variables, components or styles keep a default name.",
            "Rename them after their purpose.",
            ((x["id"], not _DEFAULT_NAME.match(_leaf(str(x.get("name", ""))))) for x in named),
        ),
    ]


def _mode_ids(data: AuditData) -> dict[str, set[str]]:
    return {str(c.get("id")): {str(m.get("modeId")) for m in c.get("modes") or []} for c in data.collections}


def _is_alias(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS"


def _color_key(value: Any) -> tuple[float, ...] | None:
    if not isinstance(value, dict) or "r" not in value:
        return None
    return tuple(round(float(value.get(c, 1.0)), 4) for c in ("r", "g", "b", "a"))


def tokens(data: AuditData) -> list[Check]:
    """Every mode has a value, raw colours are not repeated, and the alias layer exists."""
    modes = _mode_ids(data)
    complete = [
        (v["id"], modes.get(str(v.get("variableCollectionId")), set()) <= set((v.get("valuesByMode") or {}).keys()))
        for v in data.variables
    ]
    seen: set[tuple[Any, ...]] = set()
    duplicates: list[tuple[str, bool]] = []
    colors = [v for v in data.variables if v.get("resolvedType") == "COLOR"]
    for var in colors:
        raw = [
            (str(var.get("variableCollectionId")), mode, key)
            for mode, value in sorted((var.get("valuesByMode") or {}).items())
            if (key := _color_key(value)) is not None
        ]
        fingerprint = tuple(raw)
        duplicates.append((var["id"], not raw or fingerprint not in seen))
        if raw:
            seen.add(fingerprint)
    aliased = any(_is_alias(value) for v in colors for value in (v.get("valuesByMode") or {}).values())
    layered = [("", aliased)] if len(colors) >= 2 else []
    return [
        _check(
            "tokens.missing-mode-value",
            "error",
            "{n} of {of} variables lack a value in some mode of their collection.",
            "Set a value for every mode.",
            complete,
        ),
        _check(
            "tokens.duplicate-color",
            "warning",
            "{n} of {of} colour variables repeat another's raw values.",
            "Alias one to the other, or merge them.",
            duplicates,
        ),
        _check(
            "tokens.no-alias-layer",
            "warning",
            "No colour variable aliases another: there is no semantic layer over the raw palette.",
            "Add semantic variables (color/text/primary) that alias the palette.",
            layered,
        ),
    ]


def components(data: AuditData) -> list[Check]:
    """Components and sets carry a description; a set has more than one variant."""
    sets = [c for c in data.components if c.get("type") == "COMPONENT_SET"]
    return [
        _check(
            "components.no-description",
            "warning",
            "{n} of {of} components or sets have no description.",
            "Describe what each is for and when to use it.",
            ((c["id"], bool(str(c.get("description") or "").strip())) for c in data.components),
        ),
        _check(
            "components.single-variant",
            "info",
            "{n} of {of} component sets have a single variant.",
            "Add the missing variants or make it a plain component.",
            ((c["id"], int(c.get("variants") or 0) > 1) for c in sets),
        ),
    ]


def _hex_luminance(text: str) -> float | None:
    color = values.parse_color(text)
    if color is None:
        return None

    def channel(x: float) -> float:
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast_ratio(foreground: str, background: str) -> float | None:
    """The WCAG 2 contrast ratio of two colours (``#RRGGBB``), or None when one does not parse."""
    fg, bg = _hex_luminance(foreground), _hex_luminance(background)
    if fg is None or bg is None:
        return None
    light, dark = max(fg, bg), min(fg, bg)
    return (light + 0.05) / (dark + 0.05)


def accessibility(data: AuditData) -> list[Check]:
    """Text contrast and size, and the size of interactive components."""
    texts = [n for n in data.nodes if n.get("type") == "TEXT"]
    sized = [n for n in texts if isinstance(n.get("fontSize"), int | float)]
    paired = [
        (n["id"], ratio)
        for n in texts
        if n.get("fill") and n.get("background")
        if (ratio := contrast_ratio(n["fill"], n["background"])) is not None
    ]
    targets = [
        c
        for c in data.components
        if _INTERACTIVE.search(str(c.get("name", ""))) and c.get("width") is not None and c.get("height") is not None
    ]
    return [
        _check(
            "a11y.contrast",
            "error",
            "{n} of {of} text layers are below 4.5:1 contrast with their background.",
            "Darken the text or lighten the background (WCAG 1.4.3).",
            ((i, ratio >= MIN_CONTRAST) for i, ratio in paired),
        ),
        _check(
            "a11y.small-text",
            "warning",
            "{n} of {of} text layers are smaller than 12 px.",
            "Use at least 12 px.",
            ((n["id"], float(n["fontSize"]) >= MIN_TEXT_PX) for n in sized),
        ),
        _check(
            "a11y.target-size",
            "warning",
            "{n} of {of} interactive components are smaller than 24x24.",
            "Make targets at least 24x24 (WCAG 2.5.8).",
            ((c["id"], float(c["width"]) >= MIN_TARGET_PX and float(c["height"]) >= MIN_TARGET_PX) for c in targets),
        ),
    ]


def consistency(data: AuditData) -> list[Check]:
    """Fills come from variables or styles; text uses text styles."""
    filled = [n for n in data.nodes if n.get("fill")]
    texts = [n for n in data.nodes if n.get("type") == "TEXT"]
    return [
        _check(
            "consistency.hardcoded-fill",
            "warning",
            "{n} of {of} layers with a solid fill use a hard-coded colour.",
            "Bind the fill to a colour variable or style.",
            ((n["id"], bool(n.get("fillBound") or n.get("fillStyle"))) for n in filled),
        ),
        _check(
            "consistency.no-text-style",
            "warning",
            "{n} of {of} text layers use no text style.",
            "Apply a text style.",
            ((n["id"], bool(n.get("textStyle"))) for n in texts),
        ),
    ]


def coverage(data: AuditData) -> list[Check]:
    """The system has colours, numbers and text styles, and its components are used."""
    kinds = {v.get("resolvedType") for v in data.variables}
    text_styles = any(s.get("type") == "TEXT" for s in data.styles)
    foundations = [
        ("color", "COLOR" in kinds or any(s.get("type") == "PAINT" for s in data.styles)),
        ("spacing", "FLOAT" in kinds),
        ("typography", text_styles),
        ("components", bool(data.components)),
    ]
    used = {str(n.get("component")) for n in data.nodes if n.get("component")}
    standalone = [c for c in data.components if c.get("type") == "COMPONENT"]
    instantiated = (
        [(c["id"], c["id"] in used) for c in standalone] if any(n.get("type") == "INSTANCE" for n in data.nodes) else []
    )
    missing = _check(
        "coverage.missing-foundation",
        "warning",
        "{n} of {of} foundations are missing.",
        "Add the missing foundations (colour, spacing, typography, components).",
        foundations,
    )
    if missing.failed:
        missing.message += " Missing: " + ", ".join(missing.failed) + "."
        missing.failed = ["" for _ in missing.failed]
    return [
        missing,
        _check(
            "coverage.unused-component",
            "info",
            "{n} of {of} components have no instance in the crawled pages.",
            "Use them, or retire them.",
            instantiated,
        ),
    ]


_RULES = {
    "naming-semantics": naming,
    "token-architecture": tokens,
    "component-metadata": components,
    "accessibility": accessibility,
    "consistency": consistency,
    "coverage": coverage,
}

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def _percent(part: int, whole: int) -> int:
    """``100 * part / whole`` rounded half up, in integers (so that a score never depends on float rounding)."""
    return (200 * part + whole) // (2 * whole)


def score(checks: list[Check]) -> int:
    """The share of checked items that passed, 0-100; 100 when nothing was checked."""
    checked = sum(c.checked for c in checks)
    failed = sum(len(c.failed) for c in checks)
    return 100 if checked == 0 else _percent(checked - failed, checked)


def build_report(data: AuditData) -> dict[str, Any]:
    """Every category's score, weight, counts and findings (worst first), and the weighted overall score."""
    categories: list[dict[str, Any]] = []
    for name in CATEGORIES:
        checks = _RULES[name](data)
        findings = [f for c in checks if (f := c.finding()) is not None]
        findings.sort(key=lambda f: (_SEVERITY_ORDER[f["severity"]], -f["count"]))
        categories.append(
            {
                "id": name,
                "score": score(checks),
                "weight": WEIGHTS[name] / 100,
                "checked": sum(c.checked for c in checks),
                "findings": findings,
            }
        )
    # The weights are percentages: the weighted sum over 100, rounded half up.
    overall = (sum(c["score"] * WEIGHTS[c["id"]] for c in categories) + 50) // 100
    return {
        "score": overall,
        "counts": {
            "variables": len(data.variables),
            "collections": len(data.collections),
            "components": len(data.components),
            "styles": len(data.styles),
            "nodes": len(data.nodes),
        },
        "categories": categories,
    }


def top_findings(report: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    """The ``limit`` worst findings over every category (without their id lists), each naming its category."""
    every = [
        {"category": c["id"], **{k: v for k, v in f.items() if k != "ids"}}
        for c in report["categories"]
        for f in c["findings"]
    ]
    every.sort(key=lambda f: (_SEVERITY_ORDER[f["severity"]], -f["count"]))
    return every[:limit]
