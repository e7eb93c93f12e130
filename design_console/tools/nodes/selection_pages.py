"""The selection page by page: the plugin pushes the first 50 selected layers; a bigger selection is read from the
plugin one budget-sized page at a time (READ_LAYERS over the selection, its top layers only), behind a cursor bound
to the file and to the selection it started from."""

from __future__ import annotations

from typing import Any

from design_console.engines import shaping
from design_console.tools.code.node_read import READ_PAGE_NODES, read_layers
from design_console.tools.context import Context

#: Characters one selected layer takes at least in the answer.
ENTRY_CHARS = 60


async def selection_page(
    ctx: Context, key: str, cursor: str | None, max_tokens: int | None
) -> tuple[list[dict[str, Any]], str | None]:
    """The selected layers of file ``key`` from where ``cursor`` points, as many as fit in ``max_tokens``; and the
    cursor to the rest (None at the end)."""
    position: dict[str, Any] = {}
    if cursor:
        found = shaping.decode_cursor(cursor, "selection", "", file=key)
        position = found if isinstance(found, dict) else {}
    budget = shaping.budget_chars(max_tokens)
    at = int(position.get("at", 0))
    page = await read_layers(
        ctx,
        None,
        depth=0,
        max_nodes=min(READ_PAGE_NODES, budget // ENTRY_CHARS + 1),
        start=[at],
        roots_key=position.get("roots"),
        selection_only=True,
        file_key=key,
    )
    entries = [
        {"id": n["id"], "name": n["name"], "type": n["type"], "width": n["w"], "height": n["h"]} for n in page.nodes
    ]
    chosen, shown = shaping.fit_items(entries, 0, budget)
    if shown is None and page.next is None:
        return chosen, None
    following = at + (len(chosen) if shown is not None else len(entries))
    return chosen, shaping.encode_cursor("selection", "", {"at": following, "roots": page.rootsKey}, file=key)
