"""Nested JSON: ``{collection: {mode: {group: {name: value}}}}``.

Losses: those of :mod:`design_console.tokens.json_flat` (types inferred, no descriptions), and a token name cannot
also be a group of others.
"""

from __future__ import annotations

import json

from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.jsonmodes import read_tree, write_tree
from design_console.tokens.model import TokenSet

EXTENSION = "json"


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The nested JSON text of ``tokens``."""
    return json.dumps(write_tree(tokens, opts, nested=True), indent=2, ensure_ascii=False) + "\n"


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a nested JSON file."""
    return read_tree(json.loads(text), opts)
