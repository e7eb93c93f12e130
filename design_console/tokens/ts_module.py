"""A TypeScript module: ``export const tokens = {collection: {mode: {group: {name: value}}}} as const`` and its
type ``Tokens``. Values are literals for code to use, so aliases are always resolved.

Losses: aliases (resolved to their values), descriptions, and types (inferred from values as in
:mod:`design_console.tokens.json_flat`).
"""

from __future__ import annotations

import json
import re

from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.jsonmodes import read_tree, write_tree
from design_console.tokens.model import TokenSet, resolve_all

EXTENSION = "ts"
#: Values are literals: aliases are resolved before the export is split into files.
RESOLVES = True

_BODY = re.compile(r"export\s+const\s+tokens\s*=\s*(\{.*\})\s*as\s+const\s*;", re.DOTALL)


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The TypeScript module text of ``tokens``."""
    body = json.dumps(write_tree(resolve_all(tokens), opts, nested=True), indent=2, ensure_ascii=False)
    return f"export const tokens = {body} as const;\n\nexport type Tokens = typeof tokens;\n"


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a module written by :func:`write` (its ``tokens`` object must be JSON-shaped)."""
    m = _BODY.search(text)
    if m is None:
        raise ValueError("no `export const tokens = {…} as const;` in the module")
    return read_tree(json.loads(m.group(1)), opts)
