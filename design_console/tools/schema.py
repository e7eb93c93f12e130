"""JSON Schemas for ``tools/list``: derived from each tool's argument struct, inlined and trimmed.

Some MCP clients reject ``$ref`` and tuple forms, and every byte of the tool list costs the user context, so the
schema msgspec emits is inlined, stripped of titles, and optional-or-null unions are folded to the plain type.
Constraints that only guard against abuse (string lengths, closed objects, whole numbers written as floats beyond 64
bits) are enforced when arguments are validated but left out of the published schema: a model gains nothing from
them, and all 125 tools pay for them in every session. Nor do normalised strings (node ids, file URLs, colours) get a
pattern: each takes several forms a pattern could only approximate, and its description names them. Ranges, enums
and item limits stay: they tell the model what it may ask for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

#: Keys msgspec emits that the published schema leaves out (see the module docstring).
_UNPUBLISHED = frozenset({"title", "$defs", "minLength", "maxLength"})


def _resolve(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_resolve(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _resolve(merged, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _UNPUBLISHED or (key == "additionalProperties" and value is False):
            continue
        out[key] = _resolve(value, defs) if key not in ("default", "enum", "const") else value
    return _fold(out)


def _fold(node: dict[str, Any]) -> dict[str, Any]:
    """``anyOf: [X, null]`` with a null default becomes X: an omitted field already means "not given".

    Other unions stay ``anyOf`` branches of one ``type`` each: a ``type`` list is shorter, but clients that map tool
    schemas onto a single-type dialect (the OpenAPI subset of Gemini-style function declarations) reject it.
    """
    variants = node.get("anyOf")
    if isinstance(variants, list) and node.get("default", 0) is None:
        rest = [v for v in variants if v != {"type": "null"}]
        if len(rest) == 1:
            folded = {**rest[0], **{k: v for k, v in node.items() if k not in ("anyOf", "default")}}
            return folded
        variants = rest
        node = {**node, "anyOf": rest}
    if node.get("default", 0) is None or (node.get("type") == "boolean" and node.get("default") is False):
        # Omitted means "not given" and a flag left out is off: saying so again costs every session.
        node = {k: v for k, v in node.items() if k != "default"}
    if node.get("required") == []:
        node = {k: v for k, v in node.items() if k != "required"}
    enum = node.get("enum")
    if isinstance(enum, list) and "type" not in node and enum and all(isinstance(e, str) for e in enum):
        node = {"type": "string", **node}
    return node


def input_schemas(args: Sequence[type[msgspec.Struct]]) -> list[dict[str, Any]]:
    """The published input schemas of argument structs, in order: inline object schemas with no ``$ref``.

    msgspec describes all the structs in one pass, so the ones many tools share (and the annotations it evaluates
    for them) are worked out once: per-struct passes made designd's ``tools/list`` about twice as slow to build.
    """
    unique = list(dict.fromkeys(args))
    refs, defs = msgspec.json.schema_components(unique, ref_template="#/$defs/{name}")
    by_type = dict(zip(unique, refs, strict=True))
    return [_published(by_type[struct], defs) for struct in args]


def input_schema(args: type[msgspec.Struct]) -> dict[str, Any]:
    """The published input schema of one argument struct (see :func:`input_schemas`)."""
    return input_schemas([args])[0]


def _published(ref: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    # Resolved afresh for each tool, so no two entries share (and could alter) one dict.
    schema: dict[str, Any] = _resolve(ref, defs)
    schema.setdefault("properties", {})
    schema["type"] = "object"
    if not schema.get("required"):
        schema.pop("required", None)
    return schema
