"""Atomic, private file writes shared by every file the daemon owns (adverts, token, plugin copy)."""

from __future__ import annotations

import os
from pathlib import Path

from design_console.runtime.platform.private import chmod_private, replace


def write_private(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` atomically: a temp file in the same folder, fsync'd, made private, then renamed."""
    # Imported here: the shim loads this module (through the transport) but writes no file.
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        chmod_private(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
