"""What one component takes: its props (from its ``…Props`` type or its destructured parameters) and its variants
(``cva`` variant maps, and props typed as unions of string literals), read at the tokenizer level from its source.
"""

from __future__ import annotations

import re
from typing import Any

from design_console.codebase.source import blank

_IDENT = r"[A-Za-z_$][\w$]*"


def _block(code: str, start: int) -> tuple[int, int] | None:
    """The span inside the brace that opens at or after ``start`` (code must be comment-blanked)."""
    open_at = code.find("{", start)
    if open_at < 0:
        return None
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return open_at + 1, k
    return None


def _top_level_keys(body: str) -> list[tuple[str, int]]:
    """Keys of an object literal or type body at depth 0, with their offsets in ``body``."""
    keys = []
    depth = 0
    expect_key = True
    k = 0
    while k < len(body):
        c = body[k]
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        elif depth == 0 and c in ",;\n":
            expect_key = True
        elif depth == 0 and expect_key and not c.isspace():
            m = re.match(rf"(?:readonly\s+)?(\"[^\"]*\"|'[^']*'|{_IDENT})\s*(\??)\s*:", body[k:])
            if m:
                keys.append((m.group(1).strip("\"'"), k))
                k += m.end()
                expect_key = False
                continue
            expect_key = False
        k += 1
    return keys


def _props_body(code: str, name: str) -> str | None:
    m = re.search(rf"\b(?:interface\s+{name}Props\b[^{{]*|type\s+{name}Props\s*=[^{{]*)", code)
    if m is None:
        return None
    span = _block(code, m.end() - 1 if code[m.end() - 1] == "{" else m.end())
    return code[span[0] : span[1]] if span else None


def _destructured(code: str, name: str) -> list[str]:
    m = re.search(rf"\b(?:function\s+{name}\s*(?:<[^>]*>)?\s*\(|{name}\s*=\s*(?:[\w.]+\()?\s*(?:async\s*)?\()", code)
    if m is None:
        return []
    rest = code[m.end() :].lstrip()
    if not rest.startswith("{"):
        return []
    span = _block(rest, 0)
    if span is None:
        return []
    out = []
    for part in _split_top(rest[span[0] : span[1]]):
        part = part.strip()
        if part and not part.startswith("..."):
            out.append(re.split(r"\s*[=:]\s*", part, maxsplit=1)[0].strip())
    return [p for p in out if re.fullmatch(_IDENT, p)]


def _split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return parts


def _cva_variants(code: str, raw: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Variant name → its options, and the default of each, from the ``cva(…)`` calls of a file."""
    variants: dict[str, list[str]] = {}
    defaults: dict[str, str] = {}
    for m in re.finditer(r"\bvariants\s*:\s*\{", code):
        span = _block(code, m.end() - 1)
        if span is None:
            continue
        body_code, body_raw = code[span[0] : span[1]], raw[span[0] : span[1]]
        for key, offset in _top_level_keys(body_code):
            inner = _block(body_code, offset)
            if inner is None:
                continue
            options = [k for k, _ in _top_level_keys(body_raw[inner[0] : inner[1]])]
            variants.setdefault(key, options)
    for m in re.finditer(r"\bdefaultVariants\s*:\s*\{", code):
        span = _block(code, m.end() - 1)
        if span:
            for part in _split_top(raw[span[0] : span[1]]):
                if ":" in part:
                    key, value = part.split(":", 1)
                    defaults[key.strip().strip("\"'")] = value.strip().strip("\"'")
    return variants, defaults


def describe(source: str, name: str) -> dict[str, Any]:
    """The props and variants of component ``name`` in ``source`` (a .tsx/.jsx/.ts/.js text)."""
    raw = blank(source, strings=False)
    code = blank(raw, strings=True)
    props: dict[str, dict[str, Any]] = {}
    body = _props_body(raw, name)
    if body is not None:
        for key, offset in _top_level_keys(blank(body, strings=True)):
            rest = body[offset:]
            typ = rest.split(":", 1)[1] if ":" in rest else ""
            typ = re.split(r"[;\n]", typ, maxsplit=1)[0].strip().rstrip(",")
            entry: dict[str, Any] = {"type": typ[:120], "optional": bool(re.match(r"\S+\s*\?", rest))}
            literals = re.findall(r"[\"']([^\"']+)[\"']", typ)
            if literals and re.fullmatch(r"\s*[\"'][^\"']*[\"'](\s*\|\s*[\"'][^\"']*[\"'])+\s*", typ):
                entry["options"] = literals
            props[key] = entry
    for key in _destructured(code, name):
        props.setdefault(key, {})
    variants, defaults = _cva_variants(code, raw)
    for key, entry in props.items():
        if "options" in entry:
            variants.setdefault(key, entry["options"])
    return {"props": props, "variants": variants, "defaultVariants": defaults}
