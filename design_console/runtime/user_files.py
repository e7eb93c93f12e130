"""Files on the user's machine that tools read or write (image fills, token files, docs, extracted packages).

designd does not run in the user's project, so a path is resolved against the AI app's working directory (the shim
reports it) and must lie inside one of the session's folders: the client's MCP roots when it offers them, else the
AI app's working directory and the folders of DESIGN_FILE_ROOTS (:func:`session_scope`). Symlinks and ``..`` are
resolved before that check, so neither can lead out of the allowed folders. Hidden files and folders of the home
directory (shell start-up files, keys, tool settings) are refused even inside an allowed folder, unless that folder
is itself inside one of them. Writes are atomic (temp file + rename) and never replace a
file whose content differs unless the caller asked for ``replace``; ``dry-run`` shows the diff instead of writing.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from design_console.errors import DesignError, ErrorCode
from design_console.runtime.files import write_private

WriteStrategy = Literal["create", "replace", "dry-run"]

#: A diff longer than this is cut: enough for a model to see what would change, not a whole token file.
DIFF_PREVIEW_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class FileScope:
    """Where one AI app session may read and write: its working directory and, if the client offers them, roots."""

    cwd: Path | None = None
    #: The allowed folders; ``None`` only for callers with no session (designctl on the user's own terminal).
    roots: tuple[Path, ...] | None = None

    @staticmethod
    def from_wire(cwd: str, roots: list[str] | None) -> FileScope:
        """The scope from what the shim and the client reported (``file://`` URIs or plain paths for roots)."""
        parsed = None if roots is None else tuple(_root_path(r) for r in roots)
        return FileScope(cwd=Path(cwd) if cwd else None, roots=parsed)


@dataclass(slots=True)
class WriteReport:
    """What a write did, or would do under ``dry-run``."""

    path: str
    action: Literal["created", "replaced", "unchanged", "would-create", "would-replace"]
    bytes: int
    diff: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """The report as a tool result fragment (empty fields left out)."""
        out: dict[str, object] = {"path": self.path, "action": self.action, "bytes": self.bytes}
        if self.diff:
            out["diff"] = self.diff
        if self.notes:
            out["notes"] = self.notes
        return out


def session_scope(cwd: str, roots: list[str] | None, extra: tuple[Path, ...] = ()) -> FileScope:
    """An AI app session's scope: its MCP roots, or without them its working directory and the ``extra`` folders
    (DESIGN_FILE_ROOTS). With neither, no folder is allowed."""
    if roots is not None:
        return FileScope.from_wire(cwd, roots)
    folders = ([cwd] if cwd else []) + [str(folder) for folder in extra]
    return FileScope.from_wire(cwd, list(dict.fromkeys(folders)))


def _root_path(uri: str) -> Path:
    if uri.startswith("file://"):
        from urllib.parse import unquote, urlsplit

        parts = urlsplit(uri)
        return Path(unquote(parts.path))
    return Path(uri)


def _allowed_text(scope: FileScope) -> str:
    assert scope.roots is not None
    shared = ", ".join(str(r) for r in scope.roots) or "none"
    return f"{shared} (the AI app's MCP roots, else its working directory and the folders of DESIGN_FILE_ROOTS)"


def _hidden_in_home(real: Path, roots: list[Path]) -> Path | None:
    """The hidden entry of the home directory that ``real`` is in (``~/.bashrc``, ``~/.ssh``), unless an allowed
    folder lies inside that entry (a project kept under ``~/.local/src``); None when it is in none."""
    home = Path(os.path.realpath(Path.home()))
    if real == home or not real.is_relative_to(home):
        return None
    entry = home / real.relative_to(home).parts[0]
    if not entry.name.startswith("."):
        return None
    if any(root.is_relative_to(entry) for root in roots):
        return None
    return entry


def resolve(raw: str, scope: FileScope, *, argument: str = "path") -> Path:
    """The absolute, symlink-free path ``raw`` names for this session, checked against its roots.

    A relative path needs the AI app's working directory; ``~`` expands to this user's home. The check runs on the
    fully resolved path (links followed), so a link inside a root that points outside it is refused.
    """
    if not raw or "\x00" in raw:
        raise DesignError(ErrorCode.BAD_ARGUMENT, f"{argument} is empty or not a valid path.", "Give a file path.")
    path = Path(raw).expanduser()
    if not path.is_absolute():
        if scope.cwd is None:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT,
                f"{argument} {raw!r} is relative, and the AI app did not report its working directory.",
                "Give an absolute path.",
            )
        path = scope.cwd / path
    real = Path(os.path.realpath(path))
    real_roots = [Path(os.path.realpath(r)) for r in scope.roots or ()]
    hidden = _hidden_in_home(real, real_roots)
    if hidden is not None:
        raise DesignError(
            ErrorCode.PATH_NOT_ALLOWED,
            f"{argument} {raw!r} resolves to {real}, inside {hidden}: hidden files and folders of the home directory "
            "(shell start-up files, keys, settings) are never read or written.",
            "Use a path in the project's folder.",
        )
    if scope.roots is not None:
        if not any(real == root or real.is_relative_to(root) for root in real_roots):
            via_link = " (it is a link that leads there)" if real != Path(os.path.abspath(path)) else ""
            raise DesignError(
                ErrorCode.PATH_NOT_ALLOWED,
                f"{argument} {raw!r} resolves to {real}{via_link}, outside the folders this AI app shares.",
                f"Use a path inside one of: {_allowed_text(scope)}.",
            )
    return real


def read_bytes(raw: str, scope: FileScope, *, max_bytes: int, argument: str = "path") -> bytes:
    """Read a user file within the session's scope, refusing directories and files above ``max_bytes``."""
    path = resolve(raw, scope, argument=argument)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise DesignError(ErrorCode.BAD_ARGUMENT, f"{argument} {path} is not a regular file.", "Give a file path.")
        if size > max_bytes:
            raise DesignError(
                ErrorCode.TOO_LARGE,
                f"{path} is {size:,} bytes; the limit is {max_bytes:,}.",
                "Use a smaller file.",
            )
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise DesignError(ErrorCode.NOT_FOUND, f"{argument} {path} does not exist.", "Check the path.") from None
    except PermissionError:
        raise DesignError(
            ErrorCode.PERMISSION_DENIED, f"{path} cannot be read by this user.", "Check its mode."
        ) from None
    if len(data) > max_bytes:
        raise DesignError(
            ErrorCode.TOO_LARGE, f"{path} grew past the limit of {max_bytes:,} bytes.", "Use a smaller file."
        )
    return data


def _diff(old: bytes, new: bytes, name: str) -> str:
    try:
        old_text, new_text = old.decode(), new.decode()
    except UnicodeDecodeError:
        return f"binary content differs ({len(old):,} → {len(new):,} bytes)"
    lines = difflib.unified_diff(
        old_text.splitlines(keepends=True), new_text.splitlines(keepends=True), f"a/{name}", f"b/{name}", n=2
    )
    text = "".join(lines)
    if len(text) > DIFF_PREVIEW_CHARS:
        cut = text[:DIFF_PREVIEW_CHARS].rsplit("\n", 1)[0]
        text = f"{cut}\n… diff cut at {DIFF_PREVIEW_CHARS:,} characters"
    return text


def write_bytes(
    raw: str, data: bytes, scope: FileScope, *, strategy: WriteStrategy = "create", argument: str = "outputPath"
) -> WriteReport:
    """Write ``data`` to a user file atomically, never silently replacing different content.

    ``create`` writes a new file or one whose content is already ``data``; an existing file with other content is
    refused with a diff and the way to replace it. ``replace`` overwrites. ``dry-run`` writes nothing and reports
    what would happen, with the diff. Missing parent folders are created (inside the scope).
    """
    path = resolve(raw, scope, argument=argument)
    if path.is_dir():
        raise DesignError(ErrorCode.BAD_ARGUMENT, f"{argument} {path} is a folder.", "Give a file name inside it.")
    old: bytes | None
    try:
        old = path.read_bytes()
    except FileNotFoundError:
        old = None
    except PermissionError:
        raise DesignError(
            ErrorCode.PERMISSION_DENIED, f"{path} cannot be read by this user.", "Check its mode."
        ) from None
    if old == data:
        return WriteReport(str(path), "unchanged", len(data))
    diff = _diff(old, data, path.name) if old is not None else ""
    if strategy == "dry-run":
        return WriteReport(str(path), "would-create" if old is None else "would-replace", len(data), diff)
    if old is not None and strategy != "replace":
        raise DesignError(
            ErrorCode.FILE_EXISTS,
            f"{path} exists with different content; nothing was written. What would change:\n{diff}",
            'Call again with strategy "replace" to overwrite it, or choose another path.',
        )
    _atomic_write(path, data)
    return WriteReport(str(path), "created" if old is None else "replaced", len(data), diff)


def _atomic_write(path: Path, data: bytes) -> None:
    """Write through a temp file and a rename, keeping an existing file's mode (a new one gets the umask's)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        write_private(path, data, mode)
    except PermissionError:
        raise DesignError(
            ErrorCode.PERMISSION_DENIED, f"{path.parent} is not writable by this user.", "Check its mode."
        ) from None


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
