"""Components as the design API describes them: a node's entry, its metadata, a render of it, a library's listing."""

from __future__ import annotations

from typing import Any

from design_console.errors import DesignError, ErrorCode
from design_console.tools import shaping
from design_console.tools.context import ApiContext


async def fetch_node(ctx: ApiContext, key: str, nid: str, depth: int | None) -> dict[str, Any]:
    """The design API's entry for one node (its ``document`` to ``depth``, plus components and styles it uses)."""
    body = await ctx.api.request("GET", f"/v1/files/{key}/nodes", params={"ids": nid, "depth": depth})
    entry = (body.get("nodes") or {}).get(nid)
    if not isinstance(entry, dict) or not entry:
        raise DesignError(ErrorCode.NOT_FOUND, f"No node {nid} in file {key}.", "Check the node id (1:2) and the file.")
    return entry


def component_metadata(entry: dict[str, Any]) -> dict[str, Any]:
    """Name, description, key, properties and variants of a component or component set node."""
    node = entry["document"]
    meta = entry.get("components", {}).get(node["id"]) or entry.get("componentSets", {}).get(node["id"]) or {}
    out: dict[str, Any] = {"id": node["id"], "name": node.get("name"), "type": node.get("type")}
    for field_name in ("key", "description", "componentSetId"):
        if meta.get(field_name):
            out[field_name] = meta[field_name]
    box = node.get("absoluteBoundingBox")
    if box:
        out["size"] = {"width": box.get("width"), "height": box.get("height")}
    if node.get("componentPropertyDefinitions"):
        out["properties"] = node["componentPropertyDefinitions"]
    if node.get("type") == "COMPONENT_SET":
        out["variants"] = [{"id": c["id"], "name": c.get("name")} for c in node.get("children", [])]
    return out


async def render_url(ctx: ApiContext, key: str, nid: str, scale: float, fmt: str) -> dict[str, Any]:
    """A render of one node by the design API, pinned to the file's current version: its URL, valid 30 days."""
    version = await ctx.api.file_version(key)
    params = {"ids": nid, "scale": scale, "format": fmt, "version": version}
    body = await ctx.api.request("GET", f"/v1/images/{key}", params=params, cache="pinned")
    if body.get("err"):
        raise DesignError(
            ErrorCode.UPSTREAM_ERROR, f"The design API could not render {nid}: {body['err']}.", "Try again."
        )
    url = (body.get("images") or {}).get(nid)
    if not url:
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"The design API rendered nothing for node {nid} (it does not exist or has nothing visible).",
            "Check the node id with design_get_file_data.",
        )
    return {"nodeId": nid, "imageUrl": url, "format": fmt, "scale": scale, "version": version, "expiresInDays": 30}


async def library_components(
    ctx: ApiContext, key: str, query: str | None, include_variants: bool
) -> list[dict[str, Any]]:
    """Published components and component sets of a library file, matching ``query``."""
    comps = (await ctx.api.request("GET", f"/v1/files/{key}/components")).get("meta", {}).get("components", [])
    sets = (await ctx.api.request("GET", f"/v1/files/{key}/component_sets")).get("meta", {}).get("component_sets", [])
    variants: dict[str, list[dict[str, Any]]] = {}
    items: list[dict[str, Any]] = []
    for comp in comps:
        parent = ((comp.get("containing_frame") or {}).get("containingComponentSet") or {}).get("nodeId")
        entry = {"name": comp["name"], "key": comp["key"], "nodeId": comp["node_id"], "type": "COMPONENT"}
        if comp.get("description"):
            entry["description"] = comp["description"]
        if parent:
            variants.setdefault(parent, []).append(entry)
        else:
            items.append(entry)
    for cset in sets:
        entry = {"name": cset["name"], "key": cset["key"], "nodeId": cset["node_id"], "type": "COMPONENT_SET"}
        if cset.get("description"):
            entry["description"] = cset["description"]
        kids = variants.get(cset["node_id"], [])
        entry["variantCount"] = len(kids)
        if include_variants:
            entry["variants"] = [{"name": k["name"], "key": k["key"]} for k in kids]
        items.append(entry)
    matcher = shaping.name_matcher(query)
    if matcher:
        items = [i for i in items if matcher.search(i["name"]) or matcher.search(i.get("description", ""))]
    return sorted(items, key=lambda i: i["name"].lower())
