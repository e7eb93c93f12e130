"""Which variables and styles a subtree uses, and on which properties: bindings on the layers, their paints, effects
and text ranges."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from design_console.engines.codegen.css import Vars

STYLE_FIELDS = {"fillStyleId": "fills", "strokeStyleId": "strokes", "textStyleId": "text", "effectStyleId": "effects"}


def _aliases(value: Any) -> Iterator[str]:
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            yield item["id"]


def bindings(node: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(variable id, property) of every binding of one layer."""
    for prop, value in (node.get("boundVariables") or {}).items():
        for var_id in _aliases(value):
            yield var_id, str(prop)
    for prop in ("fills", "strokes", "effects"):
        items = node.get(prop)
        for item in items if isinstance(items, list) else []:
            for field, value in ((item or {}).get("boundVariables") or {}).items():
                for var_id in _aliases(value):
                    # A paint's binding is the node's ``fills``/``strokes`` binding seen from the paint.
                    yield var_id, prop if prop != "effects" else f"effects.{field}"
    segments = node.get("segments")
    for segment in segments if isinstance(segments, list) else []:
        for paint in segment.get("fills") or []:
            for var_id in _aliases(((paint or {}).get("boundVariables") or {}).get("color")):
                yield var_id, "fills"


def resolved(variables: dict[str, dict[str, Any] | None], var_id: str, mode_name: str, seen: int = 0) -> Any:
    """A variable's value in the mode named ``mode_name`` (else its first mode), following aliases."""
    variable = variables.get(var_id)
    if not variable or seen > 20:
        return None
    modes = [m for m in variable.get("modes") or [] if isinstance(m, dict)]
    values = variable.get("valuesByMode") or {}
    mode = next((m["modeId"] for m in modes if m.get("name") == mode_name), modes[0]["modeId"] if modes else None)
    value = values.get(mode) if mode is not None else None
    if isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS":
        return resolved(variables, str(value.get("id")), mode_name, seen + 1)
    return value


def _literal(vars: Vars, variable: dict[str, Any], var_id: str, mode_name: str) -> str | None:
    value = resolved(vars.variables, var_id, mode_name)
    return None if value is None else vars.value_text(variable, value)


def definitions(
    nodes: list[dict[str, Any]], variables: dict[str, dict[str, Any] | None], styles: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The variables (with collection, CSS variable, value per mode, resolved value per mode, the properties they
    are bound on and how many layers use them) and the local styles a subtree uses."""
    uses: dict[str, dict[str, set[str]]] = {}
    for node in nodes:
        for var_id, prop in bindings(node):
            entry = uses.setdefault(var_id, {"props": set(), "layers": set()})
            entry["props"].add(prop)
            entry["layers"].add(str(node.get("id")))
    vars = Vars(variables)
    listed = []
    for var_id, entry in uses.items():
        variable = variables.get(var_id)
        if not variable:
            continue
        vars.ref({"id": var_id})
        modes = [m for m in variable.get("modes") or [] if isinstance(m, dict)]
        values = variable.get("valuesByMode") or {}
        listed.append(
            {
                "id": var_id,
                "name": variable.get("name"),
                "collection": variable.get("collection", ""),
                "type": variable.get("resolvedType"),
                "cssVar": Vars.name(variable),
                "values": {
                    m["name"]: vars.value_text(variable, values[m["modeId"]]) for m in modes if m["modeId"] in values
                },
                "resolved": {m["name"]: _literal(vars, variable, var_id, str(m["name"])) for m in modes},
                "boundOn": sorted(entry["props"]),
                "layers": len(entry["layers"]),
            }
        )
    used_styles: dict[str, dict[str, Any]] = {}
    applied: dict[str, set[str]] = {}
    for node in nodes:
        for field, prop in STYLE_FIELDS.items():
            style_id = node.get(field)
            if isinstance(style_id, str) and style_id in styles:
                style = used_styles.setdefault(style_id, {"id": style_id, **styles[style_id], "layers": 0})
                style["layers"] += 1
                applied.setdefault(style_id, set()).add(prop)
    listed.sort(key=lambda v: (str(v["collection"]), str(v["name"])))
    aliases = [v for v in vars.tokens() if v["name"] not in {item["name"] for item in listed}]
    result: dict[str, Any] = {"variables": listed}
    if aliases:
        result["aliasTargets"] = aliases
    result["styles"] = [{**s, "appliedTo": sorted(applied[i])} for i, s in used_styles.items()]
    return result
