"""Flat JSON: ``{collection: {mode: {"group/name": value}}}``.

Losses: types are inferred from values (a colour or size text, a number, a boolean, else a string; a string that
looks like a colour or size reads back as one, and a dimension written without unit as a number); descriptions
are not written.
"""

from __future__ import annotations

import json

from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.jsonmodes import read_tree, write_tree
from design_console.tokens.model import TokenSet

EXTENSION = "json"


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The flat JSON text of ``tokens``."""
    return json.dumps(write_tree(tokens, opts, nested=False), indent=2, ensure_ascii=False) + "\n"


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a flat JSON file."""
    return read_tree(json.loads(text), opts)
