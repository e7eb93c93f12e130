"""Plugin replies checked against the shape the plugin sends, and short scripts the plugin runs through EXECUTE_CODE."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.tools.base import to_json
from design_console.tools.context import ApiContext, Context

#: The plugin serialises at most this many items of one array (its LIMITS.arrayItems): scripts send longer lists
#: as lists of chunks of this size.
PLUGIN_ARRAY_ITEMS = 200


def parse_reply(ctx: Context, reply: Any, kind: type[Any], method: str) -> Any:
    """A plugin result checked against the shape the plugin sends; another shape is a clear error."""
    try:
        return msgspec.convert(reply, kind, strict=False)
    except msgspec.ValidationError as exc:
        manifest = ctx.config.plugin_dir / "manifest.json"
        raise DesignError(
            ErrorCode.BAD_REPLY,
            f"The plugin answered {method} in an unexpected shape ({exc}).",
            f"Update the plugin: re-import {manifest} (Plugins > Development > Import plugin from manifest…), "
            "run it again and retry.",
        ) from None


def unchunk(chunks: list[Any]) -> tuple[list[Any], bool]:
    """Items of a chunked script result, and whether the plugin cut any list short (it leaves a text marker)."""
    items: list[Any] = []
    cut = False
    for chunk in chunks:
        if isinstance(chunk, str):
            cut = True
            continue
        items.extend(chunk)
    return items, cut


def script(template: str, **values: Any) -> str:
    """A script with values put in as JSON literals (never as code).

    Every placeholder is filled in one pass over the template: a value whose text holds another placeholder's name
    is never filled in again, which would splice the second value into the first's string as code."""
    if not values:
        return template
    literals = {f"__{name.upper()}__": to_json(value) for name, value in values.items()}
    return re.sub("|".join(map(re.escape, literals)), lambda found: literals[found.group()], template)


async def run_script(ctx: Context, code: str, timeout_ms: int) -> Any:
    """Run a script in the active file through EXECUTE_CODE and return what it returned."""
    reply = await ctx.bridge("EXECUTE_CODE", {"code": code, "timeout": timeout_ms}, file_key=ctx.active_file_key or "")
    return reply.get("result")


async def data_version(ctx: ApiContext, key: str) -> str | None:
    """The plugin-side data version of file ``key``: how many document and metadata changes designd has seen in it.
    What was read from the plugin, and a cursor into it, holds while this stays the same. None where it cannot be
    told (the hosted server keeps none of the plugin's events): nothing read earlier is then taken as current, and a
    cursor is taken without that check."""
    seen = await ctx.state("change_seq", key)
    return f"plugin:{seen}" if isinstance(seen, int) else None


async def local_components(ctx: Context, key: str) -> dict[str, Any]:
    """GET_LOCAL_COMPONENTS of file ``key``, read a bounded page at a time and joined: ``components`` and
    ``componentSets`` as one reply would hold them. A plugin older than paging answers every one in its first reply."""
    joined: dict[str, Any] = {"components": [], "componentSets": []}
    offset: int | None = 0
    while offset is not None:
        reply = await ctx.bridge("GET_LOCAL_COMPONENTS", {"offset": offset}, file_key=key)
        for part in ("components", "componentSets"):
            found = reply.get(part)
            if not isinstance(found, list):
                # Another shape goes to the caller whole, whose check names what is wrong with it.
                return reply
            joined[part].extend(found)
        following = reply.get("next")
        offset = following if isinstance(following, int) and following > offset else None
    return joined
