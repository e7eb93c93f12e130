"""LESS variables: ``@name`` for a collection's first mode, ``@name--<mode>`` for each other mode; aliases are
``@other`` (or ``@other--<mode>``).

Losses are those of CSS custom properties (see :mod:`design_console.tokens.css_vars`): types inferred from syntax,
names as dash-separated slugs, aliases linked by name, descriptions (``//`` comments) on one line. LESS evaluates
``hsl()`` itself and wants it with commas: prefer ``hex``, ``hex8``, ``rgba`` or ``oklch`` colours.
"""

from __future__ import annotations

from design_console.tokens import cssish
from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.model import TokenSet

EXTENSION = "less"


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The LESS text of ``tokens``."""
    return cssish.write(cssish.LESS, tokens, opts)


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a LESS file of variables."""
    return cssish.read(cssish.LESS, text, opts)
