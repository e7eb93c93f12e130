"""A file's node tree through the design API, shaped to a verbosity and depth, read one budget-sized part at a time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.tools.args import PagedArgs
from design_console.tools.context import ApiContext


def _file_info(key: str, head: Any) -> dict[str, Any]:
    info = {"key": key, "name": head.name, "version": head.version, "lastModified": head.lastModified}
    if getattr(head, "editorType", ""):
        info["editorType"] = head.editorType
    return info


async def walk_file(
    ctx: ApiContext,
    key: str,
    scope: str,
    *,
    depth: int,
    verbosity: shaping.Verbosity,
    node_ids: list[str] | None,
    page: PagedArgs,
    enrich: bool = False,
    extra_params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Fetch a file (or some of its nodes) and return the part of its shaped tree that the ``page`` arguments ask for
    (``maxTokens``, from their ``cursor``), with a cursor to the next."""
    cursor = page.cursor
    ids = node_ids or None
    if ids:
        params = {"ids": ",".join(ids), "depth": depth or None, **(extra_params or {})}
        data = await ctx.api.request_bytes("GET", f"/v1/files/{key}/nodes", params=params)
        head = shaping.decode_head(data, shaping.NodesHead)
        missing = [i for i in ids if i not in head.nodes or bytes(head.nodes[i]).strip() == b"null"]
        if missing:
            raise DesignError(ErrorCode.NOT_FOUND, f"No node {', '.join(missing)} in this file.", "Check the node ids.")
        roots = [msgspec.json.decode(head.nodes[i], type=dict[str, msgspec.Raw])["document"] for i in ids]
        lookup: dict[str, msgspec.Raw] = {}
    else:
        data = await ctx.api.request_bytes(
            "GET", f"/v1/files/{key}", params={"depth": depth + 1, **(extra_params or {})}
        )
        head = shaping.decode_head(data, shaping.FileHead)
        _, roots = shaping.open_node(head.document)
        lookup = head.components
    digest = shaping.request_digest(key, depth, verbosity, ids, enrich)
    start = shaping.decode_cursor(cursor, scope, digest, head.version, file=key) if cursor else []
    annotate = _component_names(lookup) if enrich and lookup else None
    part = shaping.walk_tree(
        roots,
        start=start,
        max_depth=depth,
        verbosity=verbosity,
        budget=shaping.budget_chars(page.maxTokens),
        annotate=annotate,
    )
    result: dict[str, Any] = {"file": _file_info(key, head), "depth": depth, "verbosity": verbosity}
    if not cursor and isinstance(head, shaping.FileHead):
        result["counts"] = {
            "pages": len(roots),
            "components": len(head.components),
            "componentSets": len(head.componentSets),
            "styles": len(head.styles),
        }
    result["nodes"] = part.nodes
    next_cursor = (
        shaping.encode_cursor(scope, digest, part.next_path, head.version, file=key) if part.next_path else None
    )
    return shaping.paged(result, next_cursor)


def _component_names(components: dict[str, msgspec.Raw]) -> Callable[[dict[str, Any]], None]:
    def annotate(record: dict[str, Any]) -> None:
        component = components.get(record.get("componentId", ""))
        if component is not None:
            record["componentName"] = shaping.raw_value(component).get("name")

    return annotate
