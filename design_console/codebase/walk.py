"""The files a codebase scan reads: everything under the targets except dependencies, VCS data and build output,
narrowed by include/exclude globs and capped in number so that a huge monorepo cannot stall a worker."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: Folders never entered: installed dependencies, VCS data, caches and build output (the code that ships comes from
#: the sources, not from these).
SKIPPED_DIRS = frozenset(
    {
        "node_modules",
        "bower_components",
        "jspm_packages",
        ".git",
        ".hg",
        ".svn",
        "dist",
        "build",
        "out",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".astro",
        ".output",
        ".vercel",
        ".turbo",
        ".cache",
        ".parcel-cache",
        "coverage",
        "storybook-static",
        "__pycache__",
        ".venv",
        "target",
        ".extraction",
    }
)
#: The files a scan looks at: sources, stylesheets and the manifests that name frameworks.
SCANNED_SUFFIXES = (
    ".tsx",
    ".jsx",
    ".ts",
    ".js",
    ".mjs",
    ".cjs",
    ".mts",
    ".vue",
    ".svelte",
    ".astro",
    ".css",
    ".scss",
    ".sass",
    ".less",
)
SCANNED_NAMES = frozenset({"package.json", "components.json", "jsconfig.json"})
#: TypeScript configs (``tsconfig.json``, ``tsconfig.app.json`` …): their ``paths`` say what import aliases mean.
TSCONFIG = re.compile(r"^tsconfig(\.[\w-]+)?\.json$")
#: A file above this is generated or minified code, not design-system source.
MAX_FILE_BYTES = 512 * 1024
#: How often (in files) a long walk reports progress.
PROGRESS_EVERY = 500

#: Told (files read so far, message) during a long walk; called from the thread that walks.
Progress = Callable[[int, str], None]


@dataclass(slots=True)
class SourceFile:
    """One file a scan read: its path relative to its target, the target, and its text."""

    path: str
    target: str
    text: str
    #: The extension of the language the text is in, when it is not the file's own (a component's ``<style>``).
    language: str = ""

    @property
    def suffix(self) -> str:
        """The lower-case extension (of the language of the text), with its dot."""
        return self.language or os.path.splitext(self.path)[1].lower()

    @property
    def name(self) -> str:
        """The file name without folders."""
        return os.path.basename(self.path)


@dataclass(slots=True)
class Walk:
    """What a scan read, and what it left out."""

    files: list[SourceFile] = field(default_factory=list)
    truncated: bool = False
    skipped_large: int = 0
    skipped_minified: int = 0


def _matches(path: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(os.path.basename(path), p) for p in patterns)


def _minified(name: str, text: str) -> bool:
    if ".min." in name:
        return True
    lines = text.count("\n") + 1
    return len(text) > 20_000 and len(text) / lines > 500


def walk(
    targets: Sequence[Path],
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    max_files: int,
    progress: Progress | None = None,
    skip: Sequence[Path] = (),
) -> Walk:
    """Read the scanned files under ``targets`` (each a folder or a file), in a stable order, at most ``max_files``.

    A path is kept when it matches one of ``include`` (globs on the path relative to its target, or on the file name;
    empty: all) and none of ``exclude``. Files above :data:`MAX_FILE_BYTES` and minified ones are counted, not read.
    The folders in ``skip`` (such as the package being extracted, when it lies inside a target) are not entered.
    """
    skipped = {str(p) for p in skip}
    out = Walk()
    seen = 0
    for target in targets:
        base = target if target.is_dir() else target.parent
        candidates: list[Path]
        if target.is_file():
            candidates = [target]
        else:
            candidates = []
            for folder, dirs, files in os.walk(target):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and os.path.join(folder, d) not in skipped)
                candidates += [Path(folder, f) for f in sorted(files)]
        for path in candidates:
            name = path.name
            wanted = name.endswith(SCANNED_SUFFIXES) or name in SCANNED_NAMES or TSCONFIG.match(name)
            if not wanted or name.endswith(".d.ts"):
                continue
            relative = path.relative_to(base).as_posix()
            if (include and not _matches(relative, include)) or _matches(relative, exclude):
                continue
            if len(out.files) >= max_files:
                out.truncated = True
                return out
            try:
                if path.stat().st_size > MAX_FILE_BYTES:
                    out.skipped_large += 1
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if _minified(name, text):
                out.skipped_minified += 1
                continue
            out.files.append(SourceFile(relative, str(target), text))
            seen += 1
            if progress is not None and seen % PROGRESS_EVERY == 0:
                progress(seen, f"read {seen} files")
    return out
