"""Where a design component already lives in a local codebase: files named after it, and the exports defining it."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from design_console.errors import DesignError, ErrorCode

SOURCE_SUFFIXES = (".tsx", ".jsx", ".ts", ".js", ".mjs", ".vue", ".svelte", ".astro")
SKIPPED_DIRS = frozenset(
    {"node_modules", "dist", "build", "out", "coverage", "vendor", "__pycache__", "target", "storybook-static"}
)
MAX_FILES = 5_000
MAX_FILE_BYTES = 256 * 1024
MAX_MATCHES = 20


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])", name) if w]


def code_names(component_name: str) -> list[str]:
    """Identifiers a component of this design name is likely called in code: ``Icon/Star`` → ``Star``,
    ``IconStar``; ``Sign in`` → ``SignIn``."""
    parts = [p for p in component_name.split("/") if p.strip() and "=" not in p]
    candidates = []
    for words in (_words(parts[-1]) if parts else [], _words("".join(parts))):
        if words:
            candidates.append("".join(w[:1].upper() + w[1:] for w in words))
    return list(dict.fromkeys(candidates))


def _file_kind(file_name: str) -> str:
    if ".stories." in file_name:
        return "story"
    return "test" if re.search(r"\.(test|spec)\.", file_name) else "file"


def _flat(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def find_component_code(root_text: str, component_name: str) -> dict[str, Any]:
    """Files of the codebase at ``root_text`` named after the component, and the lines exporting it."""
    root = Path(root_text).expanduser()
    if not root.is_absolute() or not root.is_dir():
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"codebasePath {root_text[:200]!r} is not an absolute path to a directory.",
            "Pass the absolute path of the project's source folder (for example /home/me/app/src).",
        )
    names = code_names(component_name)
    if not names:
        return {"root": str(root), "componentName": component_name, "codeNames": [], "matches": [], "scannedFiles": 0}
    flat_names = {_flat(n) for n in names}
    alternatives = "|".join(map(re.escape, names))
    export = re.compile(
        r"^[ \t]*export\s+(?:default\s+)?(?:async\s+)?(?:function|const|class|let)\s+(" + alternatives + r")\b",
        re.MULTILINE,
    )
    matches: list[dict[str, Any]] = []
    scanned = 0
    truncated = False
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for file_name in sorted(files):
            if not file_name.endswith(SOURCE_SUFFIXES):
                continue
            if scanned >= MAX_FILES:
                truncated = True
                break
            scanned += 1
            path = Path(folder, file_name)
            relative = str(path.relative_to(root))
            stem = file_name.split(".", 1)[0]
            if _flat(stem) in flat_names or (stem.lower() == "index" and _flat(path.parent.name) in flat_names):
                matches.append({"path": relative, "kind": _file_kind(file_name)})
            try:
                if path.stat().st_size > MAX_FILE_BYTES:
                    continue
                content = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for found in export.finditer(content):
                line = content.count("\n", 0, found.start()) + 1
                matches.append({"path": relative, "kind": "export", "name": found.group(1), "line": line})
        if truncated:
            break
    result: dict[str, Any] = {
        "root": str(root),
        "componentName": component_name,
        "codeNames": names,
        "matches": matches[:MAX_MATCHES],
        "scannedFiles": scanned,
    }
    if len(matches) > MAX_MATCHES:
        result["moreMatches"] = len(matches) - MAX_MATCHES
    if truncated:
        result["note"] = f"Stopped after {MAX_FILES} source files: pass a narrower codebasePath."
    return result
