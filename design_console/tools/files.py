"""Which design file a tool works on: the one its file argument names, else the file the plugin is active in."""

from __future__ import annotations

from design_console.errors import DesignError, ErrorCode
from design_console.tools.context import Context


def file_key_for(ctx: Context, file_key: str | None, *, argument: str = "fileUrl") -> str:
    """``file_key`` (a file argument, already parsed to its key), or the active file's key when none is given.

    ``argument`` is the name the tool gives that parameter, for the error's hint. Raises DesignError ``no_file`` when
    neither is there.
    """
    if file_key:
        return file_key
    if ctx.active_file_key:
        return ctx.active_file_key
    raise DesignError(
        ErrorCode.NO_FILE,
        "No file was given and there is no active file.",
        f"Pass {argument} (the file's link from Share → Copy link, or its key), or run the Desktop Bridge plugin "
        "in the file.",
    )
