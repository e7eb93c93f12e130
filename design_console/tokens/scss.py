"""SCSS variables: ``$name`` for a collection's first mode, ``$name--<mode>`` for each other mode; aliases are
``$other`` (or ``$other--<mode>``). Variables are ordered so that each alias target is declared before its use.

Losses are those of CSS custom properties (see :mod:`design_console.tokens.css_vars`): types inferred from syntax,
names as dash-separated slugs, aliases linked by name, descriptions (``//`` comments) on one line. Files split by
collection refer to each other's variables: import them in dependency order.
"""

from __future__ import annotations

from design_console.tokens import cssish
from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.model import TokenSet

EXTENSION = "scss"


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The SCSS text of ``tokens``."""
    return cssish.write(cssish.SCSS, tokens, opts)


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of an SCSS file of variables."""
    return cssish.read(cssish.SCSS, text, opts)
