"""designd's ``tools/list`` answer, kept in the private cache between starts.

Building the answer evaluates every tool's argument annotations (about a thousand) for its JSON schemas: some 40 ms
of the first chat of the day's wait. The answer depends only on our code and on which tools the configuration
selects, so designd keeps it under a key of both: its version, the Python and msgspec versions, the selected tool
names in order, and the path, size and modification time of every source file of the package. Editing any source
file, upgrading, or choosing other toolsets builds the answer afresh.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec

import design_console
from design_console import __version__
from design_console.errors import DesignError
from design_console.runtime.dirs import ensure_private_dir
from design_console.runtime.files import write_private

log = logging.getLogger("design_console.daemon")

CACHE_NAME = "tools-list.json"
PACKAGE = Path(design_console.__file__).parent


class _Named(msgspec.Struct):
    name: str


class _Listing(msgspec.Struct):
    tools: list[_Named]


def listing_key(names: Sequence[str], package: Path = PACKAGE) -> str | None:
    """The key the cached answer must carry; None when the package's files cannot be read (no cache then)."""
    digest = hashlib.sha256()
    digest.update(f"{__version__}\0{sys.version}\0{msgspec.__version__}\0".encode())
    digest.update("\0".join(names).encode() + b"\0")
    try:
        digest.update("".join(_sources(str(package), "")).encode())
    except OSError:
        return None
    return digest.hexdigest()


def _sources(folder: str, relative: str) -> list[str]:
    """Each source file under ``folder`` as a line of its path, size and modification time, in a stable order."""
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    lines = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                lines += _sources(entry.path, f"{relative}{entry.name}/")
        elif entry.name.endswith(".py"):
            info = entry.stat()
            lines.append(f"{relative}{entry.name}\0{info.st_size}\0{info.st_mtime_ns}\n")
    return lines


class ListingCache:
    """The cached ``tools/list`` answer for one catalog selection: :meth:`load` it, or :meth:`save` a new one."""

    def __init__(self, cache_dir: Path, names: Sequence[str], package: Path = PACKAGE) -> None:
        self.cache_dir = cache_dir
        self.path = cache_dir / CACHE_NAME
        self.names = list(names)
        self.key = listing_key(self.names, package)

    def load(self) -> bytes | None:
        """The cached answer when its key matches and it lists exactly the selected tools, else None."""
        if self.key is None:
            return None
        try:
            head, newline, payload = self.path.read_bytes().partition(b"\n")
        except OSError:
            return None
        if not newline or head != self.key.encode():
            return None
        try:
            listing = msgspec.json.decode(payload, type=_Listing)
        except msgspec.DecodeError:
            log.warning("the cached tool list in %s is unreadable; building it afresh", self.path)
            return None
        if [tool.name for tool in listing.tools] != self.names:
            return None
        return payload

    def save(self, payload: bytes) -> None:
        """Keep ``payload`` for the next start (atomically, 0600 in the 0700 cache); a failure only costs that."""
        if self.key is None:
            return
        try:
            ensure_private_dir(self.cache_dir)
            write_private(self.path, self.key.encode() + b"\n" + payload)
        except (OSError, DesignError) as exc:
            log.warning("could not keep the tool list in %s: %s", self.path, exc)
