"""Code mappings proposed by matching design components to code components: by name, then by properties and
variant options, each proposal with a confidence and the reasons for it."""

from __future__ import annotations

import re
from typing import Any

#: Below this confidence a design component is listed as unmatched rather than given a weak guess.
MIN_CONFIDENCE = 0.4
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def words(name: str) -> list[str]:
    """``Forms/Button Primary`` → ``["button", "primary"]``: the words of a name's last path part."""
    last = name.split("/")[-1]
    return [w.lower() for w in _WORDS.findall(last)]


def _key(name: str) -> str:
    return "".join(words(name))


def name_score(design: str, code: str) -> tuple[float, str]:
    a, b = _key(design), _key(code)
    if not a or not b:
        return 0.0, ""
    if a == b:
        return 1.0, f"same name ({code})"
    if a in b or b in a:
        return 0.7, f"one name holds the other ({design} ~ {code})"
    wa, wb = set(words(design)), set(words(code))
    shared = wa & wb
    if not shared:
        return 0.0, ""
    return 0.6 * len(shared) / len(wa | wb), f"shared words {', '.join(sorted(shared))}"


def prop_matches(design_props: dict[str, Any], code: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """Design property → code prop for those whose names agree, and the reasons (variant options in common)."""
    code_props = {_key(p): p for p in [*code.get("props", []), *code.get("variants", {})]}
    matched: dict[str, str] = {}
    reasons: list[str] = []
    for name, prop in design_props.items():
        target = code_props.get(_key(name))
        if target is None:
            continue
        matched[name] = target
        options = {_key(o) for o in (prop or {}).get("options") or []}
        code_options = {_key(o) for o in code.get("variants", {}).get(target, [])}
        if options and code_options and options & code_options:
            reasons.append(f"{name} options in common: {len(options & code_options)} of {len(options)}")
    return matched, reasons


def suggest(design: list[dict[str, Any]], code: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """For each design component (``{componentId, name, props, mapped}``), the code component (``{name, path,
    props, variants}``) it most likely is; and the names of those with no likely match."""
    suggestions: list[dict[str, Any]] = []
    unmatched: list[str] = []
    for component in design:
        props = component.get("props") or {}
        best: tuple[float, dict[str, Any]] | None = None
        for candidate in code:
            score, why = name_score(str(component.get("name", "")), str(candidate.get("name", "")))
            if score == 0:
                continue
            matched, reasons = prop_matches(props, candidate)
            share = len(matched) / len(props) if props else 0.0
            confidence = round(score * (0.6 + 0.4 * share) if props else score * 0.8, 2)
            if best is None or confidence > best[0]:
                because = (
                    [why] + ([f"{len(matched)} of {len(props)} properties match props"] if props else []) + reasons
                )
                mapping: dict[str, Any] = {"source": candidate.get("path"), "exportName": candidate.get("name")}
                if matched:
                    mapping["props"] = matched
                best = (
                    confidence,
                    {
                        "componentId": component.get("componentId"),
                        "name": component.get("name"),
                        "confidence": confidence,
                        "why": because,
                        "mapping": mapping,
                    },
                )
        if best is None or best[0] < MIN_CONFIDENCE:
            unmatched.append(str(component.get("name")))
            continue
        if component.get("mapped"):
            best[1]["alreadyMapped"] = True
        suggestions.append(best[1])
    suggestions.sort(key=lambda s: -float(s["confidence"]))
    return suggestions, unmatched
