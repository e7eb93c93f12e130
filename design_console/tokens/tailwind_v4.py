"""Tailwind CSS v4 theme: a collection's first mode in an ``@theme`` block (Tailwind makes utilities of the
variables in its namespaces: ``--color-*``, ``--spacing-*``, ``--radius-*``…), every other mode as a
``[data-theme="<mode>"]`` block overriding the same variables.

Losses are those of CSS custom properties (see :mod:`design_console.tokens.css_vars`): types inferred from syntax,
names as dash-separated slugs, aliases linked by name, descriptions on one line. Names are kept as they are: a
token becomes a utility only if its name starts with a Tailwind namespace (``color/…``, ``spacing/…``); use
``prefix`` or name the tokens so. Shadow tokens are the exception: they go into the ``--shadow-*`` namespace
(``elevation/low`` → ``--shadow-elevation-low``, a ``shadow-`` utility), so a shadow not named ``shadow/…`` reads
back with ``shadow/`` in front, and as a string (CSS text has no shadow type).
"""

from __future__ import annotations

from design_console.tokens import cssish
from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.model import TokenSet

EXTENSION = "css"


def write(tokens: TokenSet, opts: ExportOptions) -> str:
    """The Tailwind v4 ``@theme`` stylesheet of ``tokens``."""
    return '@import "tailwindcss";\n\n' + cssish.write(cssish.TAILWIND, tokens, opts)


def read(text: str, opts: ParseOptions) -> TokenSet:
    """The tokens of a Tailwind v4 ``@theme`` stylesheet."""
    return cssish.read(cssish.TAILWIND, text, opts)
