"""Design data turned into tokens and facts about them: variables and styles as :class:`token_code.Token`, where the
file's nodes use them, and alias chains between variables."""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.tokens.names import split_name
from design_console.tools import shaping
from design_console.tools.token_code import Kind, Ref, Token

_KINDS: dict[str, Kind] = {"COLOR": "color", "FLOAT": "number", "STRING": "string", "BOOLEAN": "boolean"}


def variable_tokens(variables: list[dict[str, Any]], collections: dict[str, dict[str, Any]]) -> list[Token]:
    """Variables as tokens: mode names as modes (the collection's default first), aliases as :class:`Ref`."""
    names = {v["id"]: v.get("name", v["id"]) for v in variables}
    out = []
    for var in variables:
        coll = collections.get(var.get("variableCollectionId", ""), {})
        mode_names: dict[str, str] = {m["modeId"]: m["name"] for m in coll.get("modes", [])}
        raw: dict[str, Any] = var.get("valuesByMode") or {}
        default_id: str = coll.get("defaultModeId", "") if coll.get("defaultModeId") in raw else next(iter(raw), "")
        values: dict[str, Any] = {}
        for mode_id in [default_id, *(m for m in raw if m != default_id)]:
            if mode_id in raw:
                values[mode_names.get(mode_id, mode_id)] = _token_value(raw[mode_id], names)
        out.append(
            Token(
                path=split_name(var.get("name", var["id"])),
                kind=_KINDS.get(var.get("resolvedType", ""), "string"),
                values=values,
                default_mode=mode_names.get(default_id, default_id),
            )
        )
    return out


def _token_value(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS":
        target = str(value.get("id", ""))
        return Ref(split_name(names.get(target, target)))
    if isinstance(value, dict) and {"r", "g", "b"} <= value.keys():
        return shaping.hex_color(value)
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


def style_token(style: dict[str, Any], node: dict[str, Any]) -> Token | None:
    """A style (with its definition node) as a token: solid fills as colours, text as typography, shadows as
    shadows; None for the rest (gradients, images, grids, blurs)."""
    path = split_name(style.get("name") or "style")
    kind = style.get("type")
    if kind == "FILL":
        solid = [p for p in node.get("fills", []) if p.get("type") == "SOLID" and p.get("visible", True)]
        if len(solid) != 1 or "color" not in solid[0]:
            return None
        paint = solid[0]
        colour = shaping.hex_color({**paint["color"], "a": paint["color"].get("a", 1) * paint.get("opacity", 1)})
        return Token(path, "color", {"": colour}, "")
    if kind == "TEXT":
        text_style = node.get("style") or {}
        value = {
            name: text_style[source]
            for name, source in (
                ("fontFamily", "fontFamily"),
                ("fontWeight", "fontWeight"),
                ("fontSize", "fontSize"),
                ("lineHeight", "lineHeightPx"),
                ("letterSpacing", "letterSpacing"),
            )
            if source in text_style
        }
        return Token(path, "typography", {"": value}, "") if value else None
    if kind == "EFFECT":
        shadows = [
            {
                "x": e.get("offset", {}).get("x", 0),
                "y": e.get("offset", {}).get("y", 0),
                "blur": e.get("radius", 0),
                "spread": e.get("spread", 0),
                "color": shaping.hex_color(e.get("color", {})),
                "inset": e.get("type") == "INNER_SHADOW",
            }
            for e in node.get("effects", [])
            if e.get("type") in ("DROP_SHADOW", "INNER_SHADOW") and e.get("visible", True)
        ]
        return Token(path, "shadow", {"": shadows}, "") if shadows else None
    return None
