"""CSS custom properties: ``:root`` holds a collection's first mode, ``[data-theme="<mode>"]`` each other mode;
aliases are ``var(--other)``.

What CSS cannot carry, and what reading infers instead:

- types: a colour, a size with a unit (dimension), a bare number, a quoted string and ``true``/``false`` (boolean)
  are told apart by their syntax; a string that looks like a colour or a size reads back as one;
- names: a name becomes a lower-case identifier with ``-`` between parts, so reading gives back the slug with ``/``
  for each ``-`` (``Color/Brand-Blue`` → ``color/brand/blue``);
- an alias names no collection: it is linked to the collection that holds its target (its own first);
- descriptions are flattened to one line;
- a shadow is written as ``box-shadow`` text and reads back as a string (CSS text has no shadow type).
"""

from __future__ import annotations

from design_console.tokens import cssish
from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.model import TokenSet

EXTENSION = "css"


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The CSS text of ``tokens``."""
    return cssish.write(cssish.CSS, tokens, opts)


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a CSS file of custom properties."""
    return cssish.read(cssish.CSS, text, opts)
