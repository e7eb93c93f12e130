"""Components as the design API describes them: a node's entry, its metadata, a render of it, a library's listing."""

from __future__ import annotations

from typing import Any

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.tokens.values import design_color, hex_text
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


def _paints(paints: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for paint in paints:
        item: dict[str, Any] = {"type": paint.get("type")}
        if paint.get("type") == "SOLID" and isinstance(paint.get("color"), dict):
            item["color"] = hex_text(design_color(paint["color"]))
        if paint.get("opacity", 1) != 1:
            item["opacity"] = paint["opacity"]
        if paint.get("visible") is False:
            item["visible"] = False
        out.append(item)
    return out


def _bound(bound: dict[str, Any]) -> dict[str, Any]:
    """Bound variables as ids (the design API does not name them for most plans)."""
    out: dict[str, Any] = {}
    for name, value in bound.items():
        aliases = value if isinstance(value, list) else [value]
        ids = [{"id": a["id"]} for a in aliases if isinstance(a, dict) and a.get("id")]
        if ids:
            out[name] = ids[0] if len(ids) == 1 else ids
    return out


def _variant_properties(name: str) -> dict[str, str]:
    """``State=Hover, Size=L`` → {"State": "Hover", "Size": "L"}: a variant's name is its properties."""
    pairs = (part.split("=", 1) for part in name.split(",") if "=" in part)
    return {key.strip(): value.strip() for key, value in pairs}


def layer_tree(node: dict[str, Any], depth: int) -> dict[str, Any]:
    """A design API node in the shape of the plugin's DEEP_GET_COMPONENT tree, down to ``depth``."""
    out: dict[str, Any] = {"id": node.get("id"), "name": node.get("name"), "type": node.get("type")}
    box = node.get("absoluteBoundingBox") or {}
    if box:
        out["width"], out["height"] = box.get("width"), box.get("height")
    if node.get("visible") is False:
        out["visible"] = False
    if isinstance(node.get("fills"), list):
        out["fills"] = _paints(node["fills"])
    if node.get("strokes"):
        out["strokes"] = _paints(node["strokes"])
        out["strokeWeight"] = node.get("strokeWeight")
    if node.get("opacity", 1) != 1:
        out["opacity"] = node["opacity"]
    if node.get("cornerRadius"):
        out["cornerRadius"] = node["cornerRadius"]
    if node.get("layoutMode") not in (None, "NONE"):
        out["layout"] = {
            "mode": node["layoutMode"],
            "itemSpacing": node.get("itemSpacing", 0),
            "padding": [node.get(f"padding{side}", 0) for side in ("Top", "Right", "Bottom", "Left")],
        }
    if node.get("type") == "TEXT":
        style = node.get("style") or {}
        out["characters"] = node.get("characters", "")
        out["fontSize"] = style.get("fontSize")
        out["fontName"] = {"family": style.get("fontFamily"), "style": style.get("fontStyle") or "Regular"}
    if node.get("boundVariables"):
        out["boundVariables"] = _bound(node["boundVariables"])
    if node.get("description"):
        out["description"] = node["description"]
    if node.get("interactions"):
        out["reactions"] = len(node["interactions"])
    shaping.outline_children(out, node.get("children") or [], depth, layer_tree)
    return out


_VISUAL = ("width", "height", "fills", "strokes", "strokeWeight", "cornerRadius", "opacity", "layout")


def component_from_api(entry: dict[str, Any], depth: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A component or set from the design API's node entry, as the plugin would give it: the component record
    (GET_COMPONENT), its layer tree (DEEP_GET_COMPONENT) and, for a set, the variant analysis (else empty)."""
    node = entry["document"]
    meta = component_metadata(entry)
    tree = layer_tree(node, depth)
    component: dict[str, Any] = {key: meta[key] for key in ("id", "name", "type", "key", "description") if key in meta}
    if tree.get("width") is not None:
        component["width"], component["height"] = tree["width"], tree["height"]
    if node.get("componentPropertyDefinitions"):
        component["componentPropertyDefinitions"] = node["componentPropertyDefinitions"]
    analysis: dict[str, Any] = {}
    if node.get("type") == "COMPONENT_SET":
        variants = [child for child in tree.get("children") or [] if child.get("type") == "COMPONENT"]
        for variant in variants:
            variant["variantProperties"] = _variant_properties(str(variant.get("name") or ""))
        component["variants"] = [
            {"id": v["id"], "name": v["name"], "variantProperties": v["variantProperties"]} for v in variants
        ]
        if variants:
            base = variants[0]
            axes: dict[str, list[str]] = {}
            for variant in variants:
                for axis, value in variant["variantProperties"].items():
                    axes.setdefault(axis, [])
                    if value not in axes[axis]:
                        axes[axis].append(value)
            analysis = {
                "axes": axes,
                "defaultVariant": {"id": base["id"], "name": base["name"]},
                "variants": [
                    {
                        "id": v["id"],
                        "name": v["name"],
                        "changes": {
                            k: {"from": base.get(k), "to": v.get(k)} for k in _VISUAL if v.get(k) != base.get(k)
                        },
                    }
                    for v in variants
                ],
            }
    return component, tree, analysis
