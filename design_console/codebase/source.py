"""Component definitions, imports and JSX usage in JavaScript/TypeScript (and Vue, Svelte, Astro templates).

A scan at the level of the tokenizer, not a parser: :func:`blank` first replaces comments (and, for the usage scan,
the contents of string and template literals) by spaces, keeping every newline, so that what follows sees only
code and keeps line numbers. Then:

- a JSX element is ``<`` directly followed by a capitalised (possibly dotted) name, where the code before the ``<``
  cannot end an expression (an identifier, a number, ``)`` or ``]`` before it makes it a comparison or a type
  argument such as ``useState<Props>``);
- a component definition is a capitalised ``function``/``const``/``class`` that the file exports (inline, in an
  ``export { … }`` list, or as the default export);
- an import is ``import … from "module"``.

What it misses, knowingly: components created by factories and re-exported under another name, and tags built at
run time (``React.createElement(name)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SCRIPT_SUFFIXES = (".tsx", ".jsx", ".ts", ".js", ".mjs", ".cjs", ".mts")
TEMPLATE_SUFFIXES = (".vue", ".svelte", ".astro")
#: Files whose components are JSX or template elements.
COMPONENT_SUFFIXES = (".tsx", ".jsx", *TEMPLATE_SUFFIXES)

#: Characters after which a ``/`` starts a regular expression rather than a division.
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}


def blank(text: str, *, strings: bool) -> str:
    """``text`` with comments replaced by spaces and, when ``strings``, the insides of string, template and regular
    expression literals too (quotes kept). Newlines stay, so offsets and line numbers do not move."""
    out = list(text)
    i, n = 0, len(text)
    last = ""  # the last code character before i, for telling a regex from a division

    def wipe(start: int, end: int) -> None:
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            end = text.find("\n", i)
            end = n if end < 0 else end
            wipe(i, end)
            i = end
        elif c == "/" and nxt == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            wipe(i, end)
            i = end
        elif c in "'\"`":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                elif c != "`" and text[j] == "\n":
                    break
                j += 1
            if strings:
                wipe(i + 1, j)
            i = j + 1
            last = c
        elif c == "/" and last in _REGEX_BEFORE:
            j = i + 1
            in_class = False
            while j < n and text[j] != "\n" and (text[j] != "/" or in_class):
                if text[j] == "\\":
                    j += 1
                elif text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                j += 1
            if j < n and text[j] == "/":
                if strings:
                    wipe(i + 1, j)
                i = j + 1
                last = "/"
            else:
                i += 1
                last = c
        else:
            if not c.isspace():
                last = c
            i += 1
    return "".join(out)


def line_of(text: str, offset: int) -> int:
    """The 1-based line of ``offset``."""
    return text.count("\n", 0, offset) + 1


_TAG = re.compile(r"<([A-Z][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?=[\s/>])")
_IMPORT = re.compile(r"\bimport\s+(?:type\s+)?([\w$*{}\s,]+?)\s+from\s+[\"']([^\"']+)[\"']")
_DECL = re.compile(
    r"^[ \t]*(export\s+)?(default\s+)?(?:async\s+)?(?:function\s*\*?\s*|const\s+|let\s+|class\s+)([A-Z][\w$]*)",
    re.MULTILINE,
)
_EXPORT_LIST = re.compile(r"\bexport\s*\{([^}]*)\}")
_EXPORT_DEFAULT = re.compile(r"\bexport\s+default\s+([A-Z][\w$]*)\s*;?\s*$", re.MULTILINE)


@dataclass(slots=True)
class Usage:
    """One element of a component in a file: the tag as written and its line."""

    tag: str
    line: int


@dataclass(slots=True)
class Definition:
    """A component a file defines and exports."""

    name: str
    line: int
    default: bool = False


@dataclass(slots=True)
class ScriptScan:
    """What one source file defines, imports and renders."""

    definitions: list[Definition] = field(default_factory=list)
    #: Local name → module it was imported from.
    imports: dict[str, str] = field(default_factory=dict)
    usages: list[Usage] = field(default_factory=list)


def _template_part(text: str, suffix: str) -> str:
    """Where a template file's elements are: all of it but its ``<style>`` blocks (scripts may hold JSX too)."""
    if suffix not in TEMPLATE_SUFFIXES:
        return text
    return re.sub(r"<style[\s\S]*?</style>", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _imported_names(clause: str) -> list[str]:
    names = []
    clause = clause.strip()
    default, _, rest = clause.partition("{") if "{" in clause else (clause, "", "")
    for part in default.split(","):
        part = part.strip()
        if part.startswith("* as "):
            names.append(part[5:].strip())
        elif part and part != "type":
            names.append(part)
    for part in rest.rstrip("} \n").split(","):
        part = part.strip().removeprefix("type ").strip()
        if part:
            names.append(part.split(" as ")[-1].strip())
    return [n for n in names if re.fullmatch(r"[\w$]+", n)]


#: Keywords after which an expression starts, so a ``<`` there opens an element.
_EXPRESSION_KEYWORDS = frozenset({"return", "yield", "await", "case", "default", "else", "do", "in", "of", "void"})


def _usage_before_ok(code: str, start: int) -> bool:
    """Whether the ``<`` at ``start`` can open an element: the code before it cannot end an expression."""
    k = start - 1
    while k >= 0 and code[k] in " \t\r\n":
        k -= 1
    if k < 0:
        return True
    prev = code[k]
    if prev.isalnum() or prev in "_$":
        word = re.search(r"[\w$]+$", code[: k + 1])
        return word is not None and word.group(0) in _EXPRESSION_KEYWORDS
    return prev not in ")]"


def scan_script(text: str, suffix: str) -> ScriptScan:
    """The definitions, imports and element usages of one file's text (``suffix``: its extension)."""
    out = ScriptScan()
    code = blank(text, strings=False) if suffix not in TEMPLATE_SUFFIXES else text
    bare = blank(code, strings=True) if suffix not in TEMPLATE_SUFFIXES else _template_part(text, suffix)
    for m in _IMPORT.finditer(code):
        for name in _imported_names(m.group(1)):
            out.imports[name] = m.group(2)
    if suffix in COMPONENT_SUFFIXES or suffix in (".js", ".mjs"):
        for m in _TAG.finditer(bare):
            if _usage_before_ok(bare, m.start()):
                out.usages.append(Usage(m.group(1), line_of(bare, m.start())))
    exported = {n.strip().split(" as ")[0].strip() for m in _EXPORT_LIST.finditer(bare) for n in m.group(1).split(",")}
    defaults = {m.group(1) for m in _EXPORT_DEFAULT.finditer(bare)}
    seen: set[str] = set()
    for m in _DECL.finditer(bare):
        name = m.group(3)
        if name in seen:
            continue
        if m.group(1) or name in exported or name in defaults:
            seen.add(name)
            default = bool(m.group(2)) or name in defaults
            out.definitions.append(Definition(name, line_of(bare, m.start(3)), default))
    return out
