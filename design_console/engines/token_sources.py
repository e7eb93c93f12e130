"""Design data turned into tokens and facts about them: variables and styles as a token set of
:mod:`design_console.tokens` (the one token model, whose formats write the code exports), the CSS a style stands for,
where the file's nodes use them, and alias chains between variables."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.tokens import TokenSet
from design_console.tokens.model import Collection, Token, TokenType, Value, from_variables
from design_console.tokens.values import Color, Shadow, ShadowLayer, design_color, hex_text, shadow_text


def variable_token_set(variables: list[dict[str, Any]], collections: dict[str, dict[str, Any]]) -> TokenSet:
    """Variables as tokens (collections by id): mode names as modes, the default first; aliases by name."""
    return from_variables({"variableCollections": list(collections.values()), "variables": variables})


def plain_value(value: Value | None) -> Any:
    """A token value as a read shows it: a colour as hex (as in the variables it came from), a whole number as one."""
    if isinstance(value, Color):
        return hex_text(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def alias_chains(
    variables: list[dict[str, Any]], collections: dict[str, dict[str, Any]]
) -> tuple[dict[str, dict[str, list[str]]], dict[str, list[str]]]:
    """For each aliasing variable id, per mode name, the names its value passes through (the last one holds a
    literal); and for each variable id, the names of the variables that alias it directly."""
    by_id = {v["id"]: v for v in variables}
    chains: dict[str, dict[str, list[str]]] = {}
    used_by: dict[str, list[str]] = {}
    for var in variables:
        coll = collections.get(var.get("variableCollectionId", ""), {})
        mode_names = {m["modeId"]: m["name"] for m in coll.get("modes", [])}
        for mode_id, value in (var.get("valuesByMode") or {}).items():
            if not (isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS"):
                continue
            target_id = value.get("id", "")
            used_by.setdefault(target_id, [])
            if var.get("name") not in used_by[target_id]:
                used_by[target_id].append(var.get("name", var["id"]))
            chain: list[str] = []
            seen = {var["id"]}
            while target_id and target_id not in seen:
                seen.add(target_id)
                target = by_id.get(target_id)
                if target is None:
                    chain.append(target_id)
                    break
                chain.append(str(target.get("name", target_id)))
                values = target.get("valuesByMode") or {}
                next_value = values.get(mode_id) or next(iter(values.values()), None)
                is_alias = isinstance(next_value, dict) and next_value.get("type") == "VARIABLE_ALIAS"
                target_id = str(next_value.get("id", "")) if is_alias and isinstance(next_value, dict) else ""
            chains.setdefault(var["id"], {})[mode_names.get(mode_id, mode_id)] = chain
    return chains, used_by


# Usage in the file tree -------------------------------------------------------------------------------------------


class _Bound(msgspec.Struct):
    boundVariables: dict[str, Any] = {}


class _ScanNode(msgspec.Struct):
    """The parts of a node that say which variables and styles it uses; the rest of the node is skipped unread."""

    id: str = ""
    boundVariables: dict[str, Any] = {}
    fills: list[_Bound] | None = None
    strokes: list[_Bound] | None = None
    effects: list[_Bound] | None = None
    layoutGrids: list[_Bound] | None = None
    styles: dict[str, str] = {}
    children: list[_ScanNode] = []


class _ScanFile(msgspec.Struct):
    document: _ScanNode


def _alias_ids(value: Any) -> list[str]:
    if isinstance(value, dict):
        if value.get("type") == "VARIABLE_ALIAS":
            return [str(value.get("id", ""))]
        return [i for v in value.values() for i in _alias_ids(v)]
    if isinstance(value, list):
        return [i for v in value for i in _alias_ids(v)]
    return []


class Usage(msgspec.Struct):
    """What a scan of a file's nodes found: nodes scanned; per variable id, per field, how many nodes bind it; per
    style id, how many nodes use it."""

    nodes: int = 0
    variables: dict[str, dict[str, int]] = {}
    styles: dict[str, int] = {}

    def of_variable(self, variable_id: str) -> dict[str, Any]:
        """``{"nodes": n, "fields": {...}}`` for one variable (zeros when unused)."""
        fields = self.variables.get(variable_id, {})
        return {"nodes": fields.get("", 0), **({"fields": {k: v for k, v in fields.items() if k}} if fields else {})}


def scan_usage(data: bytes) -> Usage:
    """Count bound variables and used styles over every node of a file JSON answer."""
    try:
        root = msgspec.json.decode(data, type=_ScanFile).document
    except msgspec.DecodeError as exc:
        raise DesignError(
            ErrorCode.BAD_RESPONSE, f"The design API's file could not be read ({exc}).", "Try again in a moment."
        ) from None
    variables: dict[str, Counter[str]] = {}
    styles: Counter[str] = Counter()
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        count += 1
        found: dict[str, set[str]] = {}
        for field_name, value in node.boundVariables.items():
            for var_id in _alias_ids(value):
                found.setdefault(var_id, set()).add(field_name)
        for field_name in ("fills", "strokes", "effects", "layoutGrids"):
            for item in getattr(node, field_name) or ():
                for var_id in _alias_ids(item.boundVariables):
                    found.setdefault(var_id, set()).add(field_name)
        for var_id, fields in found.items():
            counter = variables.setdefault(var_id, Counter())
            counter[""] += 1
            counter.update(fields)
        styles.update(set(node.styles.values()))
        stack.extend(node.children)
    return Usage(
        nodes=count,
        variables={k: dict(v) for k, v in variables.items()},
        styles=dict(styles),
    )


# Styles -----------------------------------------------------------------------------------------------------------


#: The one mode of the styles' token set: a style has a single value.
STYLE_MODE = "default"
#: The typography tokens a text style becomes: (style key, token name suffix, token type).
_TEXT_TOKENS: tuple[tuple[str, str, TokenType], ...] = (
    ("fontFamily", "font-family", "string"),
    ("fontWeight", "font-weight", "number"),
    ("fontSize", "font-size", "dimension"),
    ("lineHeightPx", "line-height", "dimension"),
    ("letterSpacing", "letter-spacing", "dimension"),
)


def style_token_set(styles: list[tuple[dict[str, Any], dict[str, Any]]]) -> tuple[TokenSet, dict[str, str]]:
    """Styles (each with its definition node) as one collection of tokens, and the styles that have none, by name,
    with the reason: a solid fill is a colour, a text style one token per property (``<name>/font-size``…), an
    effect style's visible drop and inner shadows one shadow token. Gradients, images, grids and blurs have no token
    type."""
    coll = Collection("styles", [STYLE_MODE])
    skipped: dict[str, str] = {}
    for style, node in styles:
        made = _style_tokens(style, node)
        if isinstance(made, str):
            skipped[style.get("name") or "style"] = made
        else:
            coll.tokens.extend(made)
    return TokenSet([coll]), skipped


def _solid(node: dict[str, Any]) -> dict[str, Any] | None:
    """The colour (alpha times opacity) of a fill style's single visible solid paint."""
    solid = [p for p in node.get("fills", []) if p.get("type") == "SOLID" and p.get("visible", True)]
    if len(solid) != 1 or "color" not in solid[0]:
        return None
    paint = solid[0]
    return {**paint["color"], "a": paint["color"].get("a", 1) * paint.get("opacity", 1)}


def _shadows(node: dict[str, Any]) -> list[dict[str, Any]]:
    """An effect style's visible drop and inner shadows, in the order it lists them."""
    return [e for e in node.get("effects", []) if e.get("type") in _SHADOWS and e.get("visible", True)]


def _style_tokens(style: dict[str, Any], node: dict[str, Any]) -> list[Token] | str:
    """The tokens a style becomes, or why it becomes none."""
    name = style.get("name") or "style"
    kind = style.get("type")
    if kind == "FILL":
        colour = _solid(node)
        if colour is None:
            return "a fill other than one solid colour (gradient, image, several paints) has no token type"
        return [Token(name, "color", {STYLE_MODE: design_color(colour)})]
    if kind == "TEXT":
        text_style = node.get("style") or {}
        return [
            Token(f"{name}/{suffix}", token_type, {STYLE_MODE: _text_value(text_style[key])})
            for key, suffix, token_type in _TEXT_TOKENS
            if key in text_style
        ] or "a text style without font properties has no tokens"
    if kind == "EFFECT":
        shadows = _shadows(node)
        if not shadows:
            return "a blur (or hidden) effect has no token type: only drop and inner shadows are shadow tokens"
        return [Token(name, "shadow", {STYLE_MODE: Shadow(tuple(_shadow_layer(e) for e in shadows))})]
    return f"a {str(kind).lower()} style has no token type"


def _shadow_layer(effect: dict[str, Any]) -> ShadowLayer:
    offset = effect.get("offset", {})
    return ShadowLayer(
        design_color(effect.get("color", {})),
        float(offset.get("x", 0)),
        float(offset.get("y", 0)),
        float(effect.get("radius", 0)),
        float(effect.get("spread", 0)),
        effect.get("type") == "INNER_SHADOW",
    )


def _text_value(value: Any) -> Value:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


def style_css(style: dict[str, Any], node: dict[str, Any]) -> dict[str, str] | None:
    """The CSS declarations a style stands for: a solid fill's colour, a text style's font properties, an effect
    style's shadows; None for the rest."""
    kind = style.get("type")
    if kind == "FILL":
        colour = _solid(node)
        return {"color": hex_text(design_color(colour))} if colour is not None else None
    if kind == "TEXT":
        text_style = node.get("style") or {}
        css = {suffix: _text_css(key, text_style[key]) for key, suffix, _ in _TEXT_TOKENS if key in text_style}
        return css or None
    if kind == "EFFECT":
        shadows = _shadows(node)
        return {"box-shadow": shadow_text(Shadow(tuple(_shadow_layer(e) for e in shadows)))} if shadows else None
    return None


_SHADOWS = ("DROP_SHADOW", "INNER_SHADOW")


def _text_css(key: str, value: Any) -> str:
    if key == "fontFamily":
        family = str(value)
        return family if re.fullmatch(r"[A-Za-z-]+", family) else json.dumps(family)
    return f"{value:g}" if key == "fontWeight" else f"{value:g}px"
