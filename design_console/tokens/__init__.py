"""Design tokens as code: a neutral model (:mod:`.model`), one module per file format (write and read), format
detection, and the diff between tokens from files and the design tool's variables (:mod:`.diff`). Pure: no I/O;
callers hand in and take back text keyed by file path.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from types import ModuleType
from typing import Literal

from design_console.errors import DesignError, ErrorCode
from design_console.tokens import (
    css_vars,
    dtcg,
    json_flat,
    json_nested,
    less,
    scss,
    sd_v3,
    tailwind_v3,
    tailwind_v4,
    tokens_studio,
    ts_module,
)
from design_console.tokens.common import ExportOptions, ParseOptions
from design_console.tokens.model import TokenSet, merge, resolve_all, select_modes, type_aliases
from design_console.tokens.names import slug

Format = Literal[
    "dtcg",
    "tokens-studio",
    "css-vars",
    "tailwind-v4",
    "tailwind-v3",
    "scss",
    "less",
    "ts-module",
    "json-flat",
    "json-nested",
    "style-dictionary-v3",
]

#: The module that writes and reads each format.
FORMATS: dict[Format, ModuleType] = {
    "dtcg": dtcg,
    "tokens-studio": tokens_studio,
    "css-vars": css_vars,
    "tailwind-v4": tailwind_v4,
    "tailwind-v3": tailwind_v3,
    "scss": scss,
    "less": less,
    "ts-module": ts_module,
    "json-flat": json_flat,
    "json-nested": json_nested,
    "style-dictionary-v3": sd_v3,
}

#: Names that formats had in some tools before every tool used the names of :data:`FORMATS`. They are refused, with
#: the name to use, rather than taken: one name for each format everywhere.
RENAMED: dict[str, Format] = {
    "css": "css-vars",
    "sass": "scss",
    "tailwind": "tailwind-v3",
    "tailwind-v3-config": "tailwind-v3",
    "typescript": "ts-module",
    "json": "dtcg",
}

__all__ = [
    "FORMATS",
    "ExportOptions",
    "Format",
    "ParseOptions",
    "TokenSet",
    "detect",
    "export",
    "format_named",
    "parse",
    "read_file",
]


def format_named(name: str) -> Format:
    """The format called ``name``; ValueError for any other name, naming the format an old name is now."""
    if name in FORMATS:
        return name
    if name in RENAMED:
        raise ValueError(f"the token format {name!r} is now called {RENAMED[name]!r}")
    raise ValueError(f"unknown token format {name!r}; use one of {', '.join(FORMATS)}")


def _parts(tokens: TokenSet, opts: ExportOptions) -> list[tuple[str, TokenSet]]:
    """``(file stem, tokens)`` of each file the split options ask for."""
    by_coll = (
        [(slug((c.name,)), TokenSet([c])) for c in tokens.collections]
        if opts.split_by_collection
        else [(opts.base_name, tokens)]
    )
    if not opts.split_by_mode:
        return by_coll
    out: list[tuple[str, TokenSet]] = []
    for stem, part in by_coll:
        modes = list(dict.fromkeys(m for c in part.collections for m in c.modes))
        for mode in modes:
            kept = TokenSet([c for c in select_modes(part, [mode]).collections if mode in c.modes])
            out.append((f"{stem}.{slug((mode,))}", kept))
    return out


def export(tokens: TokenSet, fmt: Format, opts: ExportOptions | None = None) -> dict[str, str]:
    """The files (path → text) of ``tokens`` written in ``fmt``; DesignError (bad_argument) when the tokens cannot
    be written so (two names that become one identifier, a name that is also a group)."""
    opts = opts or ExportOptions()
    module = FORMATS[fmt]
    chosen = select_modes(tokens, opts.modes)
    if opts.resolve_aliases or getattr(module, "RESOLVES", False):
        # Before splitting: an alias may lead into a collection or mode that another file holds.
        chosen = resolve_all(chosen)
    out: dict[str, str] = {}
    for stem, part in _parts(chosen, opts):
        path = f"{stem}.{module.EXTENSION}"
        try:
            out[path] = module.write(part, opts)
        except ValueError as err:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT,
                f"cannot write {path} as {fmt}: {err}",
                "rename the tokens, or choose another format or a prefix",
            ) from err
    return out


_SNIFF: list[tuple[re.Pattern[str], Format]] = [
    (re.compile(r"@theme\b"), "tailwind-v4"),
    (re.compile(r"module\.exports\s*="), "tailwind-v3"),
    (re.compile(r"export\s+const\s+\w+\s*="), "ts-module"),
    (re.compile(r"^\s*\$[\w-]+\s*:", re.MULTILINE), "scss"),
    (re.compile(r"^\s*@[\w-]+\s*:", re.MULTILINE), "less"),
    (re.compile(r"--[\w-]+\s*:"), "css-vars"),
]

_BY_SUFFIX: dict[str, Format] = {
    ".scss": "scss",
    ".sass": "scss",
    ".less": "less",
    ".ts": "ts-module",
    ".mts": "ts-module",
    ".js": "tailwind-v3",
    ".cjs": "tailwind-v3",
    ".mjs": "tailwind-v3",
}


def _json_format(data: object) -> Format | None:
    if not isinstance(data, dict):
        return None
    if "$themes" in data or "$metadata" in data:
        return "tokens-studio"
    text = json.dumps(data)
    if '"$value"' in text:
        return "dtcg"
    if '"value"' in text:
        sets = [k for k in data if not k.startswith("$")]
        return "tokens-studio" if sets and all("/" in k for k in sets) else "style-dictionary-v3"
    modes = [m for coll in data.values() if isinstance(coll, dict) for m in coll.values()]
    if modes and all(isinstance(m, dict) for m in modes):
        flat = all(not isinstance(v, dict) for m in modes for v in m.values())
        return "json-flat" if flat else "json-nested"
    return None


def detect(path: str, text: str) -> Format:
    """The format of a token file, from its name and content; DesignError (bad_argument) when neither tells."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix == ".css":
        return "tailwind-v4" if re.search(r"@theme\b", text) else "css-vars"
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    if text.lstrip().startswith("{"):
        try:
            found = _json_format(json.loads(text))
        except ValueError:
            found = None
        if found:
            return found
    for pattern, fmt in _SNIFF:
        if pattern.search(text):
            return fmt
    raise DesignError(
        ErrorCode.BAD_ARGUMENT,
        f"cannot tell the token format of {path}",
        f"name the format: one of {', '.join(FORMATS)}",
    )


def _format(name: str) -> Format:
    try:
        return format_named(name)
    except ValueError as err:
        raise DesignError(ErrorCode.BAD_ARGUMENT, f"{err}.", f"Use one of {', '.join(FORMATS)}.") from None


def read_file(path: str, text: str, fmt: Format | Literal["auto"], opts: ParseOptions) -> tuple[Format, TokenSet]:
    """The format of one file and its tokens as the file gives them: types as declared, before :func:`parse` fills
    in the type of a token that only aliases. DesignError (bad_argument) names a file that cannot be read."""
    name = detect(path, text) if fmt == "auto" else _format(fmt)
    try:
        return name, FORMATS[name].read(text, opts)
    except ValueError as err:
        # Covers malformed JSON too (JSONDecodeError is a ValueError).
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"{path} is not a readable {name} file: {err}",
            "fix the file, or name its format if it was detected wrongly",
        ) from err


def parse(
    files: dict[str, str],
    fmt: Format | Literal["auto"] = "auto",
    opts: ParseOptions | None = None,
) -> TokenSet:
    """The tokens of ``files`` (path → text; files split by collection or mode are merged, in the order given:
    the first file a collection's mode appears in decides the mode order, so its default). DesignError
    (bad_argument) names the file that cannot be read."""
    opts = opts or ParseOptions()
    return typed(merge([read_file(path, text, fmt, opts)[1] for path, text in files.items()]))


def typed(tokens: TokenSet) -> TokenSet:
    """``tokens`` (read and merged) with the type of every token that only aliases taken from what it aliases."""
    type_aliases(tokens)
    return tokens
