"""What an extracted design-system package is made of, as pure functions of the mined values: tokens with their
provenance, token files of each format, MDX showcase pages, CSF3 story stubs, the Storybook preview patch, and the
comparisons that verify a package. No I/O: :mod:`design_console.tools.ds.ds_extract` reads and writes the files.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Literal

import msgspec

from design_console.codebase.styles import DEFAULT_MODE, Mining
from design_console.errors import DesignError
from design_console.tokens import FORMATS, ExportOptions, TokenSet, export
from design_console.tokens.common import EXTENSION, ParseOptions, read_css_literal
from design_console.tokens.model import Alias, Collection, Token, index, type_aliases
from design_console.tokens.model import resolve as resolve_value
from design_console.tokens.values import Color, color_text

OutFormat = Literal[
    "dtcg",
    "css-vars",
    "tailwind-v4",
    "tailwind-v3",
    "scss",
    "ts-module",
    "json-nested",
    "json-flat",
    "tokens-studio",
    "style-dictionary-v3",
]
#: Lists in results stop here (the files hold everything).
LIST_LIMIT = 40


#: Where each token came from, by (collection, name): ``{"places": ["file:line", …], "frequency": n}``.
Provenance = dict[tuple[str, str], dict[str, Any]]


#: Mined collections by where the values were found.
COLLECTIONS = {"css": "css", "tailwind": "tailwind", "scss": "scss", "literal": "literals"}


def _literal_name(kind: str, text: str) -> str:
    return f"{'color' if kind == 'color' else 'size'}-" + re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


#: A reference to another custom property: ``var(--x)``, or shadcn's Tailwind v3 ``hsl(var(--x))`` (with an optional
#: ``/ <alpha-value>``), which is the colour of ``--x`` all the same.
_VAR = re.compile(
    r"^(?P<fn>(?:hsla?|rgba?|oklch)\(\s*)?var\(\s*--(?P<name>[\w-]+)\s*(?:,[^()]*)?\)"
    r"(?:\s*/\s*<alpha-value>)?(?(fn)\s*\))$"
)


#: shadcn's older themes store bare HSL channels (``222.2 84% 4.9%``) for ``hsl(var(--x))``: a colour all the same.
_HSL_CHANNELS = re.compile(r"^-?[\d.]+(?:deg)?\s+[\d.]+%\s+[\d.]+%(?:\s*/\s*[\d.]+%?)?$")


_SCSS_ALIAS = re.compile(r"^\$([\w-]+)$")


def tokens_of(mining: Mining) -> tuple[TokenSet, Provenance, list[str]]:
    """The mined values as a token set (collections ``css``, ``tailwind``, ``scss``, ``literals``; modes from theme
    selectors, ``default`` first), the provenance of each token by (collection, name), and the references to
    values defined nowhere in the scan (those values are left out)."""
    names: dict[str, set[str]] = {}
    for item in mining.values:
        coll = COLLECTIONS[item.source]
        name = _literal_name(item.kind, item.name) if item.source == "literal" else item.name.replace(".", "_")
        names.setdefault(coll, set()).add(name)
    collections: dict[str, Collection] = {}
    provenance: Provenance = {}
    unresolved: list[str] = []
    opts = ParseOptions()
    for item in mining.values:
        coll_name = COLLECTIONS[item.source]
        name = _literal_name(item.kind, item.name) if item.source == "literal" else item.name.replace(".", "_")
        into = collections.setdefault(coll_name, Collection(coll_name, [DEFAULT_MODE]))
        values: dict[str, Any] = {}
        kind = None
        for mode, text in item.values.items():
            if (m := _VAR.match(text)) and item.source != "scss":
                target = m.group("name")
                where = next((c for c in (coll_name, "css", "tailwind") if target in names.get(c, ())), None)
                if where is None:
                    unresolved.append(f"{coll_name}/{name} → --{target}")
                    continue
                values[mode] = Alias(target, where)
            elif (m := _SCSS_ALIAS.match(text)) and item.source == "scss":
                if m.group(1) not in names.get("scss", ()):
                    unresolved.append(f"{coll_name}/{name} → ${m.group(1)}")
                    continue
                values[mode] = Alias(m.group(1), "scss")
            else:
                read = read_css_literal(f"hsl({text})" if _HSL_CHANNELS.match(text) else text, opts)
                if read is None:
                    continue
                kind, values[mode] = read
        if not values:
            continue
        for mode in values:
            if mode not in into.modes:
                into.modes.append(mode)
        into.tokens.append(Token(name, kind or "string", values))
        provenance[coll_name, name] = {
            "places": [p.text() for p in item.places],
            "frequency": item.frequency,
        }
    unresolved += _drop_broken_chains(collections, provenance)
    out = TokenSet([c for c in collections.values() if c.tokens])
    type_aliases(out)
    return out, provenance, unresolved


def _drop_broken_chains(collections: dict[str, Collection], provenance: Provenance) -> list[str]:
    """Leave out values that alias a token which was itself left out (its value needed Sass, or named nothing),
    until every alias that remains leads to a value; returns what was left out."""
    dropped: list[str] = []
    changed = True
    while changed:
        changed = False
        present = {(c.name, t.name) for c in collections.values() for t in c.tokens}
        for coll in collections.values():
            for token in coll.tokens:
                for mode, value in list(token.values.items()):
                    if isinstance(value, Alias) and (value.collection, value.name) not in present:
                        del token.values[mode]
                        sigil = "$" if value.collection == "scss" else "--"
                        dropped.append(f"{coll.name}/{token.name} → {sigil}{value.name}")
                        changed = True
            for token in [t for t in coll.tokens if not t.values]:
                coll.tokens.remove(token)
                provenance.pop((coll.name, token.name), None)
    return dropped


def with_provenance(text: str, provenance: Provenance) -> str:
    """A DTCG file of the engine with each token's places and frequency under its ``$extensions``."""
    tree = json.loads(text)
    for (coll, name), facts in provenance.items():
        node = tree.get(coll, {}).get(name)
        if isinstance(node, dict) and ("$value" in node or "value" in node):
            node.setdefault("$extensions", {}).setdefault(EXTENSION, {})["provenance"] = facts
    return json.dumps(tree, indent=2, ensure_ascii=False) + "\n"


def format_files(tokens: TokenSet, formats: list[OutFormat], dialect: str, provenance: Provenance) -> dict[str, bytes]:
    """``tokens/<format>.<ext>`` of each format (one file per format, named after it); where a format that has one
    namespace (CSS variables, SCSS…) would give two collections' tokens one name, ``tokens/<format>/<collection>.<ext>``
    instead. The DTCG file carries the provenance of each token."""
    files: dict[str, bytes] = {}
    for fmt in dict.fromkeys(formats):
        opts = ExportOptions(dtcg_dialect=dialect, base_name=fmt)  # type: ignore[arg-type]
        try:
            written = {f"tokens/{name}": text for name, text in export(tokens, fmt, opts).items()}
        except DesignError:
            split = msgspec.structs.replace(opts, split_by_collection=True)
            written = {f"tokens/{fmt}/{name}": text for name, text in export(tokens, fmt, split).items()}
        for path, text in written.items():
            files[path] = (with_provenance(text, provenance) if fmt == "dtcg" else text).encode()
    return files


def token_files(names: list[str]) -> dict[str, list[str]]:
    """The token files among paths relative to ``tokens/`` (``css-vars.css``, ``css-vars/css.css``), by format."""
    out: dict[str, list[str]] = {}
    for name in sorted(names):
        head, _, rest = name.partition("/")
        fmt = head if rest else head.split(".", 1)[0]
        if fmt in FORMATS and (rest == "" or "/" not in rest):
            out.setdefault(fmt, []).append(name)
    return out


def provenance_of(tree: dict[str, Any]) -> Provenance:
    """The provenance that ``.extraction/tokens.json`` keeps of each token."""
    return {
        (coll, name): node["$extensions"][EXTENSION]["provenance"]
        for coll, group in tree.items()
        if isinstance(group, dict)
        for name, node in group.items()
        if isinstance(node, dict) and "provenance" in node.get("$extensions", {}).get(EXTENSION, {})
    }


def token_summary(tokens: TokenSet, provenance: Provenance) -> dict[str, Any]:
    """Counts by type and collection, and the most used tokens with where each is defined: what a result shows."""
    by_type: Counter[str] = Counter(t.type for _, t in tokens.tokens())
    ranked = sorted(provenance.items(), key=lambda kv: (-kv[1]["frequency"], kv[0]))
    return {
        "tokens": sum(by_type.values()),
        "byType": dict(sorted(by_type.items())),
        "collections": {c.name: {"tokens": len(c.tokens), "modes": c.modes} for c in tokens.collections},
        "mostUsed": [
            {"token": f"{coll}/{name}", "frequency": p["frequency"], "at": p["places"][0]}
            for (coll, name), p in ranked[:LIST_LIMIT]
        ],
    }


def docs_pages(tokens: TokenSet, title: str) -> dict[str, str]:
    """The MDX showcase pages of a token set: an introduction, then colours, type and sizes when there are any."""
    where = index(tokens)
    colors: dict[str, list[tuple[str, str]]] = {}
    fonts: list[tuple[str, str]] = []
    sizes: list[tuple[str, str, str]] = []
    for coll, token in tokens.tokens():
        value = resolve_value(where, token.values.get(coll.modes[0]) or next(iter(token.values.values())), "")
        if isinstance(value, Color):
            group = token.name.rsplit("-", 1)[0] if "-" in token.name else token.name
            colors.setdefault(f"{coll.name}/{group}", []).append((token.name, color_text(value, "hex")))
        elif token.type == "string" and re.search(r"font|family", token.name) and isinstance(value, str):
            fonts.append((token.name, value))
        elif token.type == "dimension" and isinstance(value, float):
            sizes.append((coll.name, token.name, f"{value:g}px"))
    blocks = 'import { Meta, ColorPalette, ColorItem, Typeset } from "@storybook/addon-docs/blocks";\n\n'
    pages = {
        "docs/Introduction.mdx": f'{blocks}<Meta title="{title}/Introduction" />\n\n# {title}\n\n'
        f"Tokens extracted from code: {sum(1 for _ in tokens.tokens())} in "
        f"{len(tokens.collections)} collections ({', '.join(c.name for c in tokens.collections)}).\n"
        "Files: `tokens/` (one per format). Modes other than the default switch with "
        '`data-theme="<mode>"` on the root element.\n'
    }
    if colors:
        items = "\n".join(
            f"  <ColorItem title={json.dumps(group)} colors={{{json.dumps(dict(pairs))}}} />"
            for group, pairs in colors.items()
        )
        pages["docs/Colors.mdx"] = (
            f'{blocks}<Meta title="{title}/Colors" />\n\n# Colors\n\n<ColorPalette>\n{items}\n</ColorPalette>\n'
        )
    if fonts:
        sets = "\n\n".join(
            f"## {name}\n\n<Typeset fontFamily={{{json.dumps(value)}}} fontSizes={{[14, 16, 20, 28]}} "
            'sampleText="The quick brown fox jumps over the lazy dog" />'
            for name, value in fonts
        )
        pages["docs/Typography.mdx"] = f'{blocks}<Meta title="{title}/Typography" />\n\n# Typography\n\n{sets}\n'
    if sizes:
        rows = "\n".join(f"| `{coll}/{name}` | {px} |" for coll, name, px in sizes)
        pages["docs/Sizes.mdx"] = (
            f'{blocks}<Meta title="{title}/Sizes" />\n\n# Sizes\n\n| Token | Value |\n| --- | --- |\n{rows}\n'
        )
    return pages


#: The comment that opens the imports a patched preview gets (and tells that it has them).
MARK = "design-system tokens"


_PREVIEW_OBJECT = re.compile(r"(const\s+preview\s*(?::\s*[\w.]+\s*)?=\s*(?:definePreview\(\s*)?\{)")


def patched_preview(text: str, modes: list[str], stylesheets: list[str]) -> tuple[str, list[str]]:
    """A preview file that imports ``stylesheets`` (paths relative to the package) and, when the tokens have modes,
    switches them from a toolbar (``data-theme`` on the root element, as the CSS export scopes modes); and what could
    not be done."""
    if MARK in text:
        return text, []
    imports = "".join(f'import "../{path}";\n' for path in stylesheets)
    out = f"// {MARK}\n{imports}" + text
    if len(modes) < 2:
        return out, []
    taken = [key for key in ("globalTypes", "initialGlobals", "decorators") if re.search(rf"\b{key}\s*:", text)]
    found = _PREVIEW_OBJECT.search(out)
    if taken or found is None:
        why = f"it already sets {', '.join(taken)}" if taken else "its `const preview = {` was not found"
        return out, [f'No theme switch was added ({why}): set data-theme="<mode>" on <html> to switch modes.']
    switch = (
        f'\n  globalTypes: {{ theme: {{ description: "Token mode", toolbar: {{ title: "Theme", '
        f"items: {json.dumps(modes)}, dynamicTitle: true }} }} }},\n"
        f"  initialGlobals: {{ theme: {json.dumps(modes[0])} }},\n"
        "  decorators: [(Story, context) => { document.documentElement.dataset.theme = context.globals.theme; "
        "return Story(); }],"
    )
    return out[: found.end()] + switch + out[found.end() :], []


def _pascal(text: str) -> str:
    words = re.split(r"[^A-Za-z0-9]+", text)
    name = "".join(w[:1].upper() + w[1:] for w in words if w)
    return name if re.match(r"[A-Za-z_]", name) else f"V{name}"


def story_stub(name: str, module: str, default_export: bool, types_from: str, facts: dict[str, Any]) -> str:
    """A CSF3 story file for a component: its default variants as args, one story per option of its first
    variant."""
    renderer = types_from
    binding = name if default_export else f"{{ {name} }}"
    args = facts.get("defaultVariants") or {}
    lines = [
        f'import type {{ Meta, StoryObj }} from "{renderer}";',
        f'import {binding} from "{module}";',
        "",
        f'const meta = {{\n  title: "Components/{name}",\n  component: {name},',
    ]
    if args:
        lines.append(f"  args: {json.dumps(args)},")
    variants = facts.get("variants") or {}
    if variants:
        arg_types = ", ".join(
            f'{json.dumps(k)}: {{ control: "select", options: {json.dumps(v)} }}' for k, v in variants.items()
        )
        lines.append(f"  argTypes: {{ {arg_types} }},")
    lines += [
        f"}} satisfies Meta<typeof {name}>;",
        "",
        "export default meta;",
        "type Story = StoryObj<typeof meta>;",
        "",
    ]
    lines.append("export const Default: Story = {};")
    if variants:
        key, options = next(iter(variants.items()))
        for option in options:
            if option != args.get(key) and _pascal(option) != "Default":
                pair = f"{json.dumps(key)}: {json.dumps(option)}"
                lines.append(f"export const {_pascal(option)}: Story = {{ args: {{ {pair} }} }};")
    return "\n".join(lines) + "\n"


def broken_references(tokens: TokenSet) -> list[str]:
    """Every alias of a token set that leads nowhere (or in a circle), as ``collection/name (mode) → target``."""
    where = index(tokens)
    return [
        f"{coll.name}/{token.name} ({mode}) → {value.collection}/{value.name}"
        for coll, token in tokens.tokens()
        for mode, value in token.values.items()
        if isinstance(value, Alias) and resolve_value(where, value, mode) is None
    ]


def _same(a: object, b: object) -> bool:
    """Equal values, colours within a step of 8-bit rounding (the 2025 dialect stores channels as fractions)."""
    if isinstance(a, Color) and isinstance(b, Color):
        return all(abs(x - y) <= 1 / 255 for x, y in zip((a.r, a.g, a.b, a.a), (b.r, b.g, b.b, b.a), strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a))
    return a == b


def differences(expected: TokenSet, got: TokenSet) -> list[str]:
    """How a token set differs from the extraction: tokens missing, extra, or with other values."""
    want = {(c.name, t.name): t for c, t in expected.tokens()}
    have = {(c.name, t.name): t for c, t in got.tokens()}
    out = [f"missing {c}/{n}" for c, n in sorted(want.keys() - have.keys())]
    out += [f"extra {c}/{n}" for c, n in sorted(have.keys() - want.keys())]
    for key in sorted(want.keys() & have.keys()):
        a, b = want[key].values, have[key].values
        if a.keys() != b.keys() or not all(_same(a[m], b[m]) for m in a):
            out.append(f"changed {key[0]}/{key[1]}")
    return out
