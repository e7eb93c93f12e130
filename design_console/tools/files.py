"""Which design file a tool works on: the one its ``fileUrl`` names, else the file the plugin is active in."""

from __future__ import annotations

from typing import Any

from design_console.errors import DesignError


def file_key_for(ctx: Any, file_url: str | None, *, argument: str = "fileUrl") -> str:
    """The key of ``file_url`` (a file URL or bare key), or of the active file when none is given.

    ``argument`` is the name the tool gives that parameter, for the error's hint.

    Raises ``DesignError("no_file")`` when neither is there, and ``DesignError("bad_argument")`` for a URL that is
    not a design file's.
    """
    if file_url:
        # Imported here so that loading the tool catalog (designd) does not load the HTTP client.
        from design_console.clients.design_api import parse_file_key

        return parse_file_key(file_url)
    active = getattr(ctx, "active_file_key", None)
    if active:
        return str(active)
    raise DesignError(
        "no_file",
        "No file was given and there is no active file.",
        f"Pass {argument} (the file's link from Share → Copy link, or its key), or run the Desktop Bridge plugin "
        "in the file.",
    )
