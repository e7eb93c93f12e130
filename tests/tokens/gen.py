"""A seeded, deterministic token set for the format tests and the bench: primitives (colours, sizes, numbers,
strings, booleans) in one collection and semantic tokens aliasing them (and each other, in chains) in another."""

from __future__ import annotations

import random

from design_console.tokens.model import Alias, Collection, Token, TokenSet, TokenType, Value
from design_console.tokens.values import Color

MODES = ["light", "dark", "contrast"]
_HUES = ["red", "orange", "yellow", "green", "teal", "blue", "indigo", "violet", "pink", "gray"]
_WORDS = ["inter", "roboto", "serif", "mono", "ease in", "ease out", "bold", "italic", "wide", "tight"]


def _literal(rng: random.Random, kind: TokenType) -> Value:
    if kind == "color":
        alpha = 1.0 if rng.random() < 0.7 else rng.randrange(0, 255) / 255
        return Color(rng.randrange(256) / 255, rng.randrange(256) / 255, rng.randrange(256) / 255, alpha)
    if kind == "dimension":
        return float(rng.randrange(0, 129))
    if kind == "number":
        return rng.randrange(0, 41) / 8
    if kind == "string":
        return f"{rng.choice(_WORDS)} {rng.randrange(100)}"
    return rng.random() < 0.5


def token_set(count: int = 500, modes: list[str] | None = None, seed: int = 7) -> TokenSet:
    """``count`` tokens in two collections sharing ``modes``; about 40 % of them are semantic tokens whose values
    alias primitives or earlier semantic tokens (chains up to several links), per mode."""
    rng = random.Random(seed)
    modes = modes or MODES
    core = Collection("Core", list(modes))
    semantic = Collection("Semantic", list(modes))
    kinds: list[TokenType] = ["color"] * 5 + ["dimension"] * 2 + ["number", "string", "boolean"]
    n_core = count - count * 2 // 5
    for i in range(n_core):
        kind = kinds[i % len(kinds)]
        name = {
            "color": f"color/{_HUES[i % len(_HUES)]}/{i}",
            "dimension": f"space/{i}",
            "number": f"opacity/{i}",
            "string": f"font/family{i}",
            "boolean": f"flag/on{i}",
        }[kind]
        desc = f"core {kind} number {i}" if i % 3 == 0 else ""
        core.tokens.append(Token(name, kind, {m: _literal(rng, kind) for m in modes}, desc))
    by_kind: dict[TokenType, list[tuple[str, str]]] = {}
    for t in core.tokens:
        by_kind.setdefault(t.type, []).append(("Core", t.name))
    heads = {"color": "bg", "dimension": "gap", "number": "alpha", "string": "label", "boolean": "show"}
    for i in range(count - n_core):
        kind = kinds[rng.randrange(len(kinds))]
        name = f"{heads[kind]}/item{i}/level{i % 4}"
        values: dict[str, Value] = {}
        for m in modes:
            roll = rng.random()
            if roll < 0.15:
                values[m] = _literal(rng, kind)
            else:
                pool = by_kind[kind]
                coll, target = pool[-1 - rng.randrange(min(len(pool), 12))] if roll < 0.6 else rng.choice(pool)
                values[m] = Alias(target, coll)
        semantic.tokens.append(Token(name, kind, values, f"semantic {i}" if i % 5 == 0 else ""))
        by_kind[kind].append(("Semantic", name))
    return TokenSet([core, semantic])
