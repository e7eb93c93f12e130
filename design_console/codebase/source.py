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

import bisect
import re
from dataclasses import dataclass, field

SCRIPT_SUFFIXES = (".tsx", ".jsx", ".ts", ".js", ".mjs", ".cjs", ".mts")
TEMPLATE_SUFFIXES = (".vue", ".svelte", ".astro")
#: Files whose components are JSX or template elements.
COMPONENT_SUFFIXES = (".tsx", ".jsx", *TEMPLATE_SUFFIXES)

#: Characters after which a ``/`` starts a regular expression rather than a division.
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}


_SPECIAL = re.compile(r"[/'\"`]")


def _regex_may_start(out: list[str], at: int) -> bool:
    """Whether a ``/`` at ``at`` starts a regular expression: the code before it (comments already blanked in
    ``out``) cannot end an operand, or ends in a keyword such as ``return``."""
    k = at - 1
    while k >= 0 and out[k] in " \t\r\n":
        k -= 1
    if k < 0 or out[k] in _REGEX_BEFORE:
        return True
    if out[k].isalnum() or out[k] in "_$":
        start = k
        while start > 0 and (out[start - 1].isalnum() or out[start - 1] in "_$"):
            start -= 1
        return "".join(out[start : k + 1]) in _EXPRESSION_KEYWORDS
    return False


def blank(text: str, *, strings: bool) -> str:
    """``text`` with comments replaced by spaces and, when ``strings``, the insides of string, template and regular
    expression literals too (quotes kept). Newlines stay, so offsets and line numbers do not move.

    It jumps from one ``/`` or quote to the next (a regular expression search), so long files cost little."""
    out = list(text)
    n = len(text)

    def wipe(start: int, end: int) -> None:
        out[start:end] = ["\n" if ch == "\n" else " " for ch in text[start:end]]

    i = 0
    while (m := _SPECIAL.search(text, i)) is not None:
        j = m.start()
        c = text[j]
        nxt = text[j + 1 : j + 2]
        if c == "/" and nxt == "/":
            end = text.find("\n", j)
            end = n if end < 0 else end
            wipe(j, end)
            i = end
        elif c == "/" and nxt == "*":
            end = text.find("*/", j + 2)
            end = n if end < 0 else end + 2
            wipe(j, end)
            i = end
        elif c == "/":
            i = j + 1
            if not _regex_may_start(out, j):
                continue
            k = j + 1
            in_class = False
            while k < n and text[k] != "\n" and (text[k] != "/" or in_class):
                if text[k] == "\\":
                    k += 1
                elif text[k] == "[":
                    in_class = True
                elif text[k] == "]":
                    in_class = False
                k += 1
            if k < n and text[k] == "/":
                if strings:
                    wipe(j + 1, k)
                i = k + 1
        else:
            k = j + 1
            while k < n and text[k] != c:
                if text[k] == "\\":
                    k += 1
                elif c != "`" and text[k] == "\n":
                    break
                k += 1
            if strings:
                wipe(j + 1, min(k, n))
            i = k + 1
    return "".join(out)


class Lines:
    """1-based line numbers of offsets in one text, by binary search over its line starts."""

    def __init__(self, text: str) -> None:
        self.starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def of(self, offset: int) -> int:
        """The line of ``offset``."""
        return bisect.bisect_right(self.starts, offset)


_TAG = re.compile(r"<([A-Z][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?=[\s/>])")
# The patterns start with a literal word (no ``\b``, no ``^``): the regex engine then skips to its occurrences, which
# makes a scan of thousands of files about ten times faster. Word and line boundaries are checked in code.
_IMPORT = re.compile(r"import\s+(?:type\s+)?([\w$*{}\s,]+?)\s+from\s+[\"']([^\"']+)[\"']")
_DECL = re.compile(r"(?:function\s*\*?\s*|const\s+|let\s+|class\s+)([A-Z][\w$]*)")
#: What may stand before a declaration on its line.
_DECL_PREFIX = re.compile(r"[ \t]*(export[ \t]+)?(default[ \t]+)?(?:async[ \t]+)?")
_EXPORT_LIST = re.compile(r"export\s*\{([^}]*)\}")
_EXPORT_DEFAULT = re.compile(r"export\s+default\s+([A-Z][\w$]*)\s*;?[ \t]*$", re.MULTILINE)


def _word_starts(text: str, at: int) -> bool:
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_$.")


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
    lines = Lines(text)
    for m in _IMPORT.finditer(code):
        if not _word_starts(code, m.start()):
            continue
        for name in _imported_names(m.group(1)):
            out.imports[name] = m.group(2)
    if suffix in COMPONENT_SUFFIXES or suffix in (".js", ".mjs"):
        for m in _TAG.finditer(bare):
            if _usage_before_ok(bare, m.start()):
                out.usages.append(Usage(m.group(1), lines.of(m.start())))
    exported = {
        n.strip().split(" as ")[0].strip()
        for m in _EXPORT_LIST.finditer(bare)
        if _word_starts(bare, m.start())
        for n in m.group(1).split(",")
    }
    defaults = {m.group(1) for m in _EXPORT_DEFAULT.finditer(bare) if _word_starts(bare, m.start())}
    seen: set[str] = set()
    for m in _DECL.finditer(bare):
        name = m.group(1)
        line_start = bare.rfind("\n", 0, m.start()) + 1
        prefix = _DECL_PREFIX.fullmatch(bare, line_start, m.start())
        if name in seen or prefix is None:
            continue
        if prefix.group(1) or name in exported or name in defaults:
            seen.add(name)
            default = bool(prefix.group(2)) or name in defaults
            out.definitions.append(Definition(name, lines.of(m.start(1)), default))
    return out
