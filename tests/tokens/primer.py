"""GitHub's Primer design tokens (``@primer/primitives``, DTCG in JSON5) as a design-system engineer imports them
into variables: which file goes into which collection and mode, Primer's own extensions applied, and every token
that variables cannot hold counted with its reason.

Collections and modes:

- ``base/color``: the nine themes of Primer's own build for design tools (``dist/figma``): light, dark, light and
  dark high contrast, dark dimmed, light and dark protanopia-deuteranopia ("colorblind"), light and dark
  tritanopia. Each mode is Primer's base file of its side (``light.json5`` or ``dark.json5``, with
  ``display-*.json5``) and, for high contrast and dimmed, the theme's file that overrides some of its tokens
  (``dark.dimmed.json5`` …): the files go in that order with the same ``collection``/``mode``, so the later file wins
  token by token, as Primer builds its themes. The colour-blind themes use their side's base colours.
- ``functional/color`` and ``component``: the same nine modes, so that an alias resolves in the base mode of the
  same name. A token's ``$value`` is its light value; ``$extensions["org.primer.overrides"]`` gives the other
  themes' values; a theme without its own entry takes its side's (``dark``, or ``light``'s override if any), as
  Primer's build does. The file of each mode is written from that, one per source file and mode.
- ``base/size`` (sizes and z-index), ``base/typography``, ``functional/size`` (sizes, radius, border widths,
  breakpoints, z-index, spacing), ``functional/typography`` (sizes, line heights, weights, font stacks): one mode.
- ``functional/size/pointer``: modes fine and coarse (``size-fine.json5``, ``size-coarse.json5`` define the same
  names: what modes are for).

Primer's ``alpha`` member (a colour with its own opacity, replacing the colour's; a bare override keeps the token's)
is folded into a literal colour's value. An alias with an ``alpha`` is imported as the colour it resolves to in each
mode, with that alpha, as Primer's own design-tool build does: a variable alias takes its target as it is, so the
alias itself is lost. Skipped, each counted under its reason (:data:`REASONS`): composite tokens (shadow, border,
typography, transition), cubic-bézier curves, durations and ``em`` sizes are sent, and the import skips and reports
them; viewport ranges and text with references inside are not sent, nor tokens that alias one of those. The themes
Primer's design-tool build leaves out too (dark-dimmed-high-contrast and the high-contrast colour-blind ones) are
counted as override values not carried.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "node_modules" / "@primer" / "primitives"
SOURCE = PACKAGE / "src" / "tokens"

#: Mode → the override keys it reads, most specific first (none given: the token's ``$value``, Primer's light value).
MODES: dict[str, list[str]] = {
    "light": ["light"],
    "dark": ["dark"],
    "light-high-contrast": ["light-high-contrast", "light"],
    "dark-high-contrast": ["dark-high-contrast", "dark"],
    "dark-dimmed": ["dark-dimmed", "dark"],
    "light-protanopia-deuteranopia": ["light-protanopia-deuteranopia", "light"],
    "dark-protanopia-deuteranopia": ["dark-protanopia-deuteranopia", "dark"],
    "light-tritanopia": ["light-tritanopia", "light"],
    "dark-tritanopia": ["dark-tritanopia", "dark"],
}

#: The file of a mode in Primer's build for design tools, where its name differs.
FIGMA_THEME = {"light-protanopia-deuteranopia": "light-colorblind", "dark-protanopia-deuteranopia": "dark-colorblind"}

#: Mode → Primer's base colour files, later ones overriding earlier ones.
BASE_COLOR_FILES: dict[str, list[str]] = {
    "light": ["base/color/light/light", "base/color/light/display-light"],
    "dark": ["base/color/dark/dark", "base/color/dark/display-dark"],
    "light-high-contrast": [
        "base/color/light/light",
        "base/color/light/display-light",
        "base/color/light/light.high-contrast",
    ],
    "dark-high-contrast": [
        "base/color/dark/dark",
        "base/color/dark/display-dark",
        "base/color/dark/dark.high-contrast",
    ],
    "dark-dimmed": ["base/color/dark/dark", "base/color/dark/display-dark", "base/color/dark/dark.dimmed"],
    # The colour-blind themes change functional colours only: their base colours are their side's.
    "light-protanopia-deuteranopia": ["base/color/light/light", "base/color/light/display-light"],
    "dark-protanopia-deuteranopia": ["base/color/dark/dark", "base/color/dark/display-dark"],
    "light-tritanopia": ["base/color/light/light", "base/color/light/display-light"],
    "dark-tritanopia": ["base/color/dark/dark", "base/color/dark/display-dark"],
}

#: Single-mode files → their collection.
SINGLE: dict[str, str] = {
    "base/size/size": "base/size",
    "base/size/z-index": "base/size",
    "base/typography/typography": "base/typography",
    "functional/size/border": "functional/size",
    "functional/size/breakpoints": "functional/size",
    "functional/size/radius": "functional/size",
    "functional/size/size": "functional/size",
    "functional/size/z-index": "functional/size",
    "functional/size/viewport": "functional/size",
    "functional/spacing/space": "functional/size",
    "functional/border/border": "functional/size",
    "functional/typography/typography": "functional/typography",
    "functional/typography/font-stack": "functional/typography",
    "base/motion/easing": "base/motion",
    "base/motion/timing": "base/motion",
    "functional/motion/motion": "functional/motion",
    "functional/shadow/shadow": "functional/shadow",
}

POINTER = {"fine": "functional/size/size-fine", "coarse": "functional/size/size-coarse"}

#: Why a token is not imported, by the reason's key.
REASONS: dict[str, str] = {
    "composite": "a composite (shadow, border, typography, transition): a variable holds one value; these are "
    "effect and text styles in a design tool",
    "cubicBezier": "a cubic-bézier curve is four numbers; a variable holds one",
    "duration": "a duration: variables have no time unit",
    "em": "an em size is relative to the font size; variables hold px",
    "viewportRange": "a media-query range, not a value",
    "text-with-references": "text with references inside: a variable is one literal or one alias",
    "aliases-skipped": "aliases a token that is skipped",
}

_COMPOSITE = {"shadow", "border", "typography", "transition"}

#: The reasons for which the import itself skips a token (and says so): these tokens are sent.
ENGINE_SKIPS = frozenset({"composite", "cubicBezier", "duration", "em"})


@dataclass
class PrimerImport:
    """The import files of Primer's tokens and what the round trip must hold."""

    #: ``design_import_tokens`` files: ``{path, content, collection, mode}``.
    files: list[dict[str, str]] = field(default_factory=list)
    #: Primer's source files read (JSON5) and the tokens they hold.
    source_files: int = 0
    tokens_read: int = 0
    #: Distinct tokens among them: (collection, name) pairs (a name in several themes or files is one token).
    distinct: int = 0
    #: (collection, name) → mode → Primer's raw ``$value`` for that mode (after overrides, alpha folded).
    expected: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    #: Reason key → tokens skipped: ``dropped`` here (Primer's own semantics a variable cannot keep) plus
    #: ``engine_skipped``, sent and expected to be skipped and reported by the import itself.
    skipped: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    engine_skipped: Counter[str] = field(default_factory=Counter)
    #: Tokens that alias a colour with Primer's ``alpha``: imported as the colour they resolve to in each mode.
    resolved: set[tuple[str, str]] = field(default_factory=set)
    #: Override values for themes that are not imported as modes.
    themes_not_carried: Counter[str] = field(default_factory=Counter)


def read_json5() -> dict[str, Any]:
    """Every ``.json5`` file of Primer's ``src/tokens``, keyed by its path without suffix, read by the json5
    package (comments, unquoted keys, trailing commas)."""
    node = shutil.which("node")
    assert node, "node is needed to read JSON5"
    script = (
        "import JSON5 from 'json5'; import { readFileSync } from 'node:fs'; const out = {};"
        "for (const f of process.argv.slice(1)) out[f] = JSON5.parse(readFileSync(f, 'utf8'));"
        "console.log(JSON.stringify(out));"
    )
    paths = sorted(SOURCE.rglob("*.json5"))
    out = subprocess.run(
        [node, "--input-type=module", "-e", script, *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return {str(Path(k).relative_to(SOURCE).with_suffix("")): v for k, v in json.loads(out).items()}


def walk(node: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, dict[str, Any]]]:
    """(dotted name, token object) of every token in a Primer tree."""
    out: list[tuple[str, dict[str, Any]]] = []
    for key, child in node.items():
        if key.startswith("$") or not isinstance(child, dict):
            continue
        if "$value" in child:
            out.append((".".join((*path, key)), child))
        else:
            out.extend(walk(child, (*path, key)))
    return out


def is_alias(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("{") and value.endswith("}") and value.count("{") == 1


def _hex(value: Any) -> str | None:
    if isinstance(value, dict) and "hex" in value:
        return str(value["hex"])
    if isinstance(value, str) and value.startswith("#"):
        return value
    return None


def _with_alpha(value: Any, alpha: Any) -> Any:
    """A literal colour with Primer's ``alpha`` applied (it replaces the colour's own), as ``#rrggbbaa``; None for
    an alias (a variable alias cannot change its target's alpha)."""
    if alpha is None:
        return value
    hex_ = _hex(value)
    if hex_ is None:
        return None
    return hex_[:7].lower() + f"{round(float(alpha) * 255):02x}"


@dataclass(frozen=True)
class _Tinted:
    """Primer's alias with its own ``alpha``, to be resolved once every file of its mode is read."""

    target: str
    alpha: Any

    def resolve(self, final: dict[tuple[str, str], Any], mode: str) -> str:
        """The target's colour in ``mode`` (following aliases) with this alpha, as ``#rrggbbaa``."""
        value: Any = self
        seen = set()
        while isinstance(value, _Tinted) or is_alias(value):
            name = value.target if isinstance(value, _Tinted) else value[1:-1]
            assert name not in seen, f"alias loop at {name}"
            seen.add(name)
            value = final.get((mode, name), final.get(("light", name)))
        assert value is not None, f"{self.target} leads to no colour in {mode}"
        return str(_with_alpha(value, self.alpha))


def _reason(token: dict[str, Any]) -> str | None:
    """Why a token cannot be a variable, by its type and value (None: it can)."""
    kind = token.get("$type")
    value = token["$value"]
    if kind in _COMPOSITE:
        return "composite"
    if kind == "cubicBezier":
        return "cubicBezier"
    if kind == "duration":
        return "duration"
    if kind == "custom-viewportRange":
        return "viewportRange"
    if isinstance(value, dict) and value.get("unit") not in (None, "px", "rem"):
        return "em"
    if isinstance(value, str) and "{" in value and not is_alias(value):
        return "text-with-references"
    return None


def _mode_value(token: dict[str, Any], mode: str, themes_not_carried: Counter[str] | None) -> tuple[Any, Any]:
    """(value, alpha) of a token in ``mode``: its side's override if Primer gives one, else its ``$value``."""
    overrides = (token.get("$extensions") or {}).get("org.primer.overrides") or {}
    if themes_not_carried is not None:
        for theme in overrides:
            if not any(theme in keys for keys in MODES.values()):
                themes_not_carried[theme] += 1
    for key in MODES[mode]:
        if key in overrides:
            over = overrides[key]
            if isinstance(over, dict):
                return over.get("$value", token["$value"]), over.get("alpha", token.get("alpha"))
            # A bare override replaces the value only: the token's alpha still applies, as Primer builds it.
            return over, token.get("alpha")
    return token["$value"], token.get("alpha")


def _entry(token: dict[str, Any], value: Any) -> dict[str, Any]:
    out = {"$value": value, "$type": token.get("$type")}
    if token.get("$description"):
        out["$description"] = token["$description"]
    return out


def _nest(pairs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for name, entry in pairs.items():
        node = root
        *groups, last = name.split(".")
        for part in groups:
            node = node.setdefault(part, {})
        node[last] = entry
    return root


def primer_import() -> PrimerImport:
    """The import files of Primer's tokens and what the round trip must hold."""
    trees = read_json5()
    plan = PrimerImport(source_files=len(trees), tokens_read=sum(len(walk(t)) for t in trees.values()))
    # (collection, mode, source file) → dotted name → token entry; filled, then pruned of dropped tokens.
    entries: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
    dropped: dict[tuple[str, str], str] = {}
    engine: dict[tuple[str, str], str] = {}
    seen: set[tuple[str, str]] = set()
    placed: set[str] = set()

    def take(collection: str, mode: str, source: str, counted: Counter[str] | None) -> None:
        placed.add(source)
        for name, token in walk(trees[source]):
            seen.add((collection, name))
            reason = _reason(token)
            themed = mode in MODES
            value, alpha = _mode_value(token, mode, counted) if themed else (token["$value"], token.get("alpha"))
            if reason is None and alpha is not None and is_alias(value):
                # A variable alias takes its target as it is: the colour it resolves to in this mode, with its alpha.
                value = _Tinted(value[1:-1], alpha)
                plan.resolved.add((collection, name))
            elif reason is None:
                value = _with_alpha(value, alpha)
            if reason is not None and reason not in ENGINE_SKIPS:
                dropped.setdefault((collection, name), reason)
                continue
            if reason is not None:
                engine.setdefault((collection, name), reason)
            entries.setdefault((collection, mode, source), {})[name] = _entry(token, value)
            if reason is None:
                plan.expected.setdefault((collection, name.replace(".", "/")), {})[mode] = value

    for mode, sources in BASE_COLOR_FILES.items():
        for source in sources:
            take("base/color", mode, source, None)
    for source, collection in SINGLE.items():
        take(collection, "default", source, None)
    for mode, source in POINTER.items():
        take("functional/size/pointer", mode, source, None)
    themed = sorted(s for s in trees if s.startswith(("functional/color/", "component/")))
    for source in themed:
        collection = "component" if source.startswith("component/") else "functional/color"
        for mode in MODES:
            take(collection, mode, source, plan.themes_not_carried if mode == "light" else None)
    assert placed == set(trees), f"Primer files not placed: {sorted(set(trees) - placed)}"

    def aliasing(targets: set[str], among: set[str]) -> set[tuple[str, str]]:
        """Tokens of ``among`` with a value (in some mode) that aliases one of ``targets``."""
        return {
            (collection, name)
            for (collection, _, _), part in entries.items()
            for name, entry in part.items()
            if name in among and is_alias(entry["$value"]) and entry["$value"][1:-1] in targets
        }

    # The last file of a mode wins (a theme's file overrides its base), as the import merges them.
    final = {(mode, name): e["$value"] for (_, mode, _), part in entries.items() for name, e in part.items()}
    for (_, mode, _), part in entries.items():
        for entry in part.values():
            if isinstance(entry["$value"], _Tinted):
                entry["$value"] = entry["$value"].resolve(final, mode)
    for by_mode in plan.expected.values():
        for mode, value in by_mode.items():
            if isinstance(value, _Tinted):
                by_mode[mode] = value.resolve(final, mode)
    # Not sent: a token that aliases one not sent, until none is left (the import would refuse the alias).
    sent = {n for part in entries.values() for n in part} - {n for _, n in dropped}
    while broken := {
        (collection, name)
        for (collection, _, _), part in entries.items()
        for name, entry in part.items()
        if name in sent and is_alias(entry["$value"]) and entry["$value"][1:-1] not in sent
    }:
        dropped.update(dict.fromkeys(broken, "aliases-skipped"))
        sent -= {n for _, n in broken}
    # Sent but skipped by the import: a token that aliases one it skips.
    while more := aliasing({n for _, n in engine}, sent - {n for _, n in engine}):
        engine.update(dict.fromkeys(more, "aliases-skipped"))
    plan.dropped = Counter(dropped.values())
    plan.engine_skipped = Counter(engine.values())
    plan.skipped = plan.dropped + plan.engine_skipped
    plan.distinct = len(seen)
    kept_names = sent - {n for _, n in engine}
    plan.expected = {k: v for k, v in plan.expected.items() if k[1].replace("/", ".") in kept_names}
    for (collection, mode, source), part in entries.items():
        kept = {n: e for n, e in part.items() if n in sent}
        if kept:
            plan.files.append(
                {
                    "path": f"primer/{source}.{mode}.json",
                    "content": json.dumps(_nest(kept)),
                    "collection": collection,
                    "mode": mode,
                }
            )
    return plan


def figma_theme(mode: str) -> dict[str, Any]:
    """Primer's own build of a theme for design tools (``dist/figma/themes``): variable name → its entry (resolved
    ``value`` {r, g, b, a} and ``reference``)."""
    stem = FIGMA_THEME.get(mode, mode)
    data = json.loads((PACKAGE / "dist" / "figma" / "themes" / f"{stem}.json").read_text())
    return {item["name"]: item for item in data}
