"""Style Dictionary v3 JSON: the layout of :mod:`design_console.tokens.dtcg` (legacy dialect) with the member
names Style Dictionary v3 reads: ``value``, ``type``, ``comment``. Modes and collections travel the same way (a
collection's ``$extensions`` lists its modes; a token's other modes are in its ``$extensions``), so nothing is
lost beyond what the DTCG legacy dialect loses.
"""

from __future__ import annotations

import json

from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.dtcg import SD3_KEYS, read_tree, write_tree
from design_console.tokens.model import TokenSet

EXTENSION = "json"


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The Style Dictionary v3 JSON text of ``tokens``."""
    return json.dumps(write_tree(tokens, opts, SD3_KEYS), indent=2, ensure_ascii=False) + "\n"


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a Style Dictionary v3 JSON file."""
    return read_tree(json.loads(text), opts, SD3_KEYS)
