"""Text from a design file written into code as the data it is: literals and names for each language the generators
write (CSS, JavaScript, JSX), and the rules a code mapping's source and props must meet.

A layer name, a text, a font, a token or mode name, a plugin's reply and a code mapping are all the file's to shape;
none of them may end the literal it is written in and start code. HTML text and attributes go through
:func:`html.escape`; SVG goes through :mod:`design_console.engines.codegen.svg`.
"""

from __future__ import annotations

import json
import re
from typing import Any

_JS_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_WORDS = re.compile(r"[^A-Za-z0-9]+")
#: Names an import may not bind: the reserved words, and the two that strict code (every module) forbids.
RESERVED = frozenset(
    "await break case catch class const continue debugger default delete do else enum export extends false finally "
    "for function if implements import in instanceof interface let new null package private protected public return "
    "static super switch this throw true try typeof var void while with yield arguments eval".split()
)
#: Props a design value may not set on a mapped component: the component would hand them on to the DOM (as Vue does
#: with attributes a component does not declare), where they are markup, links or code.
SINK_PROPS = frozenset(
    {
        "innerhtml",
        "outerhtml",
        "dangerouslysetinnerhtml",
        "srcdoc",
        "href",
        "xlinkhref",
        "src",
        "action",
        "formaction",
        "style",
        "is",
        "key",
        "ref",
        "slot",
    }
)
#: An event handler: ``onClick`` (React, Vue) or a DOM handler attribute such as ``onload``.
_HANDLER = re.compile(r"on(?:[^a-z]|[a-z]+$)")
#: A URL scheme of two letters or more (``https:``, ``data:``, ``javascript:``): a module fetched from there would run
#: what the file names. One letter is a Windows drive (``C:\\app``).
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def css_string(text: str) -> str:
    """``text`` as a double-quoted CSS string. ``"``, ``<`` and control characters are hex escapes: the string holds
    no ``</style>`` that would end the style block it is written in, no line break that would end the string, and no
    ``"`` but its delimiters, which Tailwind's arbitrary values turn into ``'``."""
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char in '"<' or ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\{ord(char):x} ")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def js_literal(value: Any) -> str:
    """``value`` as a JavaScript literal (JSON, which escapes quotes, line ends and U+2028/U+2029)."""
    return json.dumps(value)


def script_literal(value: Any) -> str:
    """:func:`js_literal` for JavaScript inside markup (a Vue SFC's ``<script>``): ``<``, ``>`` and ``&`` as ``\\u``
    escapes, so the literal holds no ``</script>`` or ``<!--`` that would end or change its block."""
    return js_literal(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def jsx_attribute(text: str) -> str:
    """``text`` as a quoted JSX attribute value. JSX strings take no backslash escapes, only HTML character
    references, so ``&`` and ``"`` are written as those."""
    return '"' + text.replace("&", "&amp;").replace('"', "&quot;") + '"'


def is_js_identifier(text: str) -> bool:
    """Whether an import may bind ``text`` as written (ASCII, as every bundler reads it, and not reserved)."""
    return bool(_JS_IDENTIFIER.fullmatch(text)) and text not in RESERVED


def pascal(name: str) -> str:
    """``login card`` → ``LoginCard``: a name as a component name, led by a letter."""
    words = [w for w in _WORDS.split(name) if w]
    text = "".join(w[0].upper() + w[1:] for w in words)
    return text if text and text[0].isalpha() else f"Design{text}"


def is_safe_prop(name: str) -> bool:
    """Whether a design value may be passed to a mapped component as the prop ``name``: an identifier that is no
    event handler and no prop the DOM reads as markup, a link or code."""
    return is_js_identifier(name) and not _HANDLER.match(name) and name.lower() not in SINK_PROPS


def module_source_problem(source: str) -> str | None:
    """Why ``source`` cannot be a code mapping's module (a URL, a host, a control character), or None when it can:
    a package, an alias or a path."""
    if _CONTROL.search(source):
        return "it holds a control character or a line break"
    if _SCHEME.match(source):
        return "it is a URL; give a package name, an alias such as @/components/Button, or a path"
    if source.startswith(("//", "\\\\")):
        return "it names a host; give a package name, an alias such as @/components/Button, or a path"
    return None
