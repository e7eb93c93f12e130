"""A file's styles through the design API: the published ones, else the local ones the file names."""

from __future__ import annotations

from typing import Any

from design_console.engines import shaping
from design_console.tools.context import ApiContext


async def file_styles(ctx: ApiContext, key: str) -> list[dict[str, Any]]:
    """The file's styles: published ones from /styles, else the local ones named in the file JSON."""
    body = await ctx.api.request("GET", f"/v1/files/{key}/styles")
    published = body.get("meta", {}).get("styles", [])
    if published:
        return [
            {
                "name": s["name"],
                "type": s.get("style_type"),
                "key": s["key"],
                "nodeId": s.get("node_id"),
                "description": s.get("description", ""),
            }
            for s in published
        ]
    data = await ctx.api.request_bytes("GET", f"/v1/files/{key}", params={"depth": 1})
    head = shaping.decode_head(data, shaping.FileHead)
    out = []
    for style_id, raw in head.styles.items():
        style = shaping.raw_value(raw)
        out.append(
            {
                "name": style.get("name"),
                "type": style.get("styleType"),
                "key": style.get("key"),
                "id": style_id,
                "description": style.get("description", ""),
            }
        )
    return out
