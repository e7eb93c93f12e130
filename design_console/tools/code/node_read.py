"""A subtree's node data read through the plugin: a page of layers at a time (READ_LAYERS, resumed at a position), or
the whole styled subtree in one EXECUTE_CODE call; flat records in document order.

The plugin serialises a script's result with caps (200 items an array, 10,000 characters a string, 6 levels), so a
script sends its data as JSON text cut into chunks (:data:`SEND_JSON`), which :func:`json_result` joins and decodes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.tools.context import Context
from design_console.tools.plugin_replies import parse_reply, run_script, script

READ_TIMEOUT_MS = 30_000
#: Where a component's code mapping lives: shared plugin data, so every teammate's plugin reads it with the file.
MAPPING_NS = "design_console"
MAPPING_KEY = "codeMapping"
#: Layers one read takes at most; a larger subtree is cut there and the answer says so.
MAX_NODES = 5_000
#: Layers one READ_LAYERS page carries at most (the plugin's own cap; it also stops at 256 KiB of records).
READ_PAGE_NODES = 5_000

_READ = """
const rootId = __ROOT__, maxDepth = __DEPTH__, limit = __LIMIT__, full = __FULL__, media = __MEDIA__;
const out = { roots: [], nodes: [], variables: {}, styles: {}, images: {}, truncated: false };
let roots;
if (rootId) {
  const n = await figma.getNodeByIdAsync(rootId);
  if (!n || n.type === "DOCUMENT") return { missing: rootId };
  roots = [n];
} else {
  roots = figma.currentPage.selection.length ? figma.currentPage.selection.slice() : figma.currentPage.children.slice();
  out.scope = figma.currentPage.selection.length ? "selection" : "page";
}
const plain = (v) => (typeof v === "symbol" ? "mixed" : v);
const box = (n) => {
  const b = n.absoluteBoundingBox;
  return b ? b : { x: n.x || 0, y: n.y || 0, width: n.width || 0, height: n.height || 0 };
};
const varIds = new Set(), styleIds = new Set();
const noteBound = (bv) => {
  if (!bv) return;
  for (const k of Object.keys(bv)) {
    const v = bv[k];
    for (const a of Array.isArray(v) ? v : [v]) if (a && a.id) varIds.add(a.id);
  }
};
const notePaints = (paints) => {
  if (!Array.isArray(paints)) return;
  for (const p of paints) if (p && p.boundVariables) noteBound(p.boundVariables);
};
const FIELDS = ["opacity", "blendMode", "rotation", "clipsContent", "layoutMode", "layoutWrap",
  "primaryAxisAlignItems", "counterAxisAlignItems", "itemSpacing", "counterAxisSpacing", "paddingLeft",
  "paddingRight", "paddingTop", "paddingBottom", "layoutSizingHorizontal", "layoutSizingVertical",
  "layoutPositioning", "layoutGrow", "layoutAlign", "constraints", "fills", "strokes", "strokeWeight", "strokeAlign",
  "dashPattern", "strokeTopWeight", "strokeRightWeight", "strokeBottomWeight", "strokeLeftWeight", "cornerRadius",
  "topLeftRadius", "topRightRadius", "bottomRightRadius", "bottomLeftRadius",
  "effects", "characters", "fontName", "fontSize", "fontWeight", "lineHeight", "letterSpacing",
  "textAlignHorizontal", "textAlignVertical", "textDecoration", "textCase", "textAutoResize", "textTruncation",
  "maxLines", "fillStyleId", "strokeStyleId", "textStyleId", "effectStyleId", "componentProperties",
  "variantProperties", "isMask"];
const VECTORS = new Set(["VECTOR", "STAR", "POLYGON", "BOOLEAN_OPERATION", "LINE"]);
const visit = async (n, parent, depth, parentBox) => {
  if (out.nodes.length >= limit) { out.truncated = true; return; }
  const b = box(n);
  const rec = { id: n.id, name: n.name, type: n.type, p: parent, d: depth,
    x: b.x - parentBox.x, y: b.y - parentBox.y, w: "width" in n ? n.width : b.width,
    h: "height" in n ? n.height : b.height };
  if (n.visible === false) rec.hidden = true;
  const index = out.nodes.push(rec) - 1;
  if (full) {
    for (const k of FIELDS) {
      if (!(k in n)) continue;
      let v;
      try { v = plain(n[k]); } catch (e) { continue; }
      if (v === undefined || v === null || v === "") continue;
      rec[k] = v;
    }
    if (n.boundVariables && Object.keys(n.boundVariables).length) {
      rec.boundVariables = n.boundVariables;
      noteBound(n.boundVariables);
    }
    notePaints(n.fills); notePaints(n.strokes);
    if (Array.isArray(n.effects)) for (const e of n.effects) if (e.boundVariables) noteBound(e.boundVariables);
    for (const k of ["fillStyleId", "strokeStyleId", "textStyleId", "effectStyleId"]) {
      if (typeof rec[k] === "string") styleIds.add(rec[k]);
    }
    const mixed = [n.fontSize, n.fontName, n.fills, n.fontWeight, n.letterSpacing, n.lineHeight, n.textDecoration];
    if (n.type === "TEXT" && n.getStyledTextSegments && mixed.some((v) => typeof v === "symbol")) {
      rec.segments = n.getStyledTextSegments(["fontName", "fontSize", "fontWeight", "fills", "letterSpacing",
        "lineHeight", "textDecoration", "textCase"]);
      for (const s of rec.segments) notePaints(s.fills);
    }
    if (n.type === "INSTANCE") {
      const main = await n.getMainComponentAsync();
      if (main) {
        rec.componentId = main.id; rec.componentName = main.name;
        const set = main.parent && main.parent.type === "COMPONENT_SET" ? main.parent : null;
        if (set) { rec.componentSetId = set.id; rec.componentSetName = set.name; }
        const mapping = (set && set.getSharedPluginData(__NS__, __KEY__)) || main.getSharedPluginData(__NS__, __KEY__);
        if (mapping) rec.codeMapping = mapping;
      }
    }
    if (media && VECTORS.has(n.type) && typeof n.exportAsync === "function") {
      try {
        const bytes = await n.exportAsync({ format: "SVG" });
        let s = "";
        for (let i = 0; i < bytes.length; i += 4096) {
          s += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, i + 4096)));
        }
        rec.svg = decodeURIComponent(escape(s));
      } catch (e) { rec.svgError = String(e && e.message || e); }
    }
    if (media && Array.isArray(n.fills)) for (const p of n.fills) {
      if (p.type !== "IMAGE" || !p.imageHash || p.imageHash in out.images) continue;
      if (typeof figma.getImageByHash === "function") {
        const image = figma.getImageByHash(p.imageHash);
        out.images[p.imageHash] = image ? figma.base64Encode(await image.getBytesAsync()) : null;
      }
    }
  }
  if ("children" in n && n.children && depth < maxDepth && !(media && VECTORS.has(n.type))) {
    for (const c of n.children) await visit(c, index, depth + 1, b);
  } else if ("children" in n && n.children && n.children.length) {
    rec.more = n.children.length;
  }
};
for (const r of roots) {
  out.roots.push(out.nodes.length);
  const inLayer = r.parent && r.parent.type !== "PAGE" && r.parent.type !== "DOCUMENT";
  const parentBox = inLayer ? box(r.parent) : { x: 0, y: 0 };
  await visit(r, -1, 0, parentBox);
}
if (full) {
  const collections = {};
  const queue = Array.from(varIds);
  while (queue.length) {
    const id = queue.shift();
    if (id in out.variables) continue;
    const v = await figma.variables.getVariableByIdAsync(id);
    out.variables[id] = null;
    if (!v) continue;
    for (const value of Object.values(v.valuesByMode)) {
      if (value && value.type === "VARIABLE_ALIAS") queue.push(value.id);
    }
    let c = collections[v.variableCollectionId];
    if (c === undefined) {
      const coll = await figma.variables.getVariableCollectionByIdAsync(v.variableCollectionId);
      c = collections[v.variableCollectionId] = coll ? { name: coll.name, modes: coll.modes } : null;
    }
    out.variables[id] = { name: v.name, resolvedType: v.resolvedType, valuesByMode: v.valuesByMode,
      collection: c ? c.name : "", modes: c ? c.modes : [] };
  }
  for (const id of styleIds) {
    const s = await figma.getStyleByIdAsync(id);
    if (s) out.styles[id] = { name: s.name, type: s.type };
  }
}
"""
#: The end of a script that sends ``out`` as JSON text in chunks (see :func:`json_result`).
SEND_JSON = """
const text = JSON.stringify(out);
const chunks = [];
for (let i = 0; i < text.length; i += 9000) chunks.push(text.slice(i, i + 9000));
const groups = [];
for (let i = 0; i < chunks.length; i += 200) groups.push(chunks.slice(i, i + 200));
return { json: groups };
"""


class Tree(msgspec.Struct):
    """What the plugin read: node records in document order (``p``: the parent's index, -1 for a root; ``d``:
    depth), root indexes, the variables and styles the nodes use, and image bytes (base64) by hash."""

    roots: list[int]
    nodes: list[dict[str, Any]]
    styles: dict[str, dict[str, Any]] = {}
    variables: dict[str, dict[str, Any] | None] = {}
    images: dict[str, str | None] = {}
    truncated: bool = False
    scope: str = ""


async def read_nodes(
    ctx: Context, node_id: str | None, *, depth: int, full: bool, media: bool = False, limit: int = MAX_NODES
) -> Tree:
    """The subtree of ``node_id`` (the selection, else the current page, when None) to ``depth`` levels; ``full``
    adds styling, text, layout, instance and variable data, ``media`` vector SVG and image bytes. An unknown node id
    is refused."""
    code = script(
        _READ,
        root=node_id or "",
        depth=depth,
        limit=limit,
        full=full,
        media=media,
        ns=MAPPING_NS,
        key=MAPPING_KEY,
    )
    result = await run_script(ctx, code + SEND_JSON, READ_TIMEOUT_MS)
    if isinstance(result, dict) and "missing" in result:
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"No node {node_id} in this file.",
            "Check the node id (design_get_metadata lists them), or omit nodeId to read the selection.",
        )
    tree: Tree = _decoded(result, Tree)
    return tree


async def json_result(ctx: Context, code: str) -> Any:
    """What a script ending in :data:`SEND_JSON` sent."""
    return _decoded(await run_script(ctx, code, READ_TIMEOUT_MS), Any)


def _decoded(result: Any, kind: Any) -> Any:
    """The JSON text of a :data:`SEND_JSON` reply (chunks of text in groups), joined and decoded as ``kind``."""
    groups = result.get("json") if isinstance(result, dict) else None
    if not isinstance(groups, list) or not all(isinstance(g, list) for g in groups):
        raise DesignError(ErrorCode.BAD_REPLY, "The plugin answered the layer read in an unexpected shape.")
    text = "".join(chunk for group in groups for chunk in group if isinstance(chunk, str))
    try:
        return msgspec.json.decode(text, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise DesignError(ErrorCode.BAD_REPLY, f"The plugin's data did not decode ({exc}).") from None


class LayerPage(msgspec.Struct):
    """One page of READ_LAYERS: layer records in document order (``d``: depth, ``i``: index among siblings, the box
    relative to the parent, ``more``: children not read), the records of the first one's ancestors, and the position
    of the next page (None at the end). ``rootsKey`` names the roots the page was read from."""

    scope: str
    rootsKey: str
    roots: int
    ancestors: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    next: list[int] | None = None


async def read_layers(
    ctx: Context,
    node_id: str | None,
    *,
    depth: int,
    max_nodes: int,
    start: list[int] | None = None,
    roots_key: str | None = None,
    selection_only: bool = False,
    file_key: str | None = None,
) -> LayerPage:
    """One page of the layers under ``node_id`` (the selection, else the current page's top layers, when None; only
    the selection with ``selection_only``) of file ``file_key`` (default: the active file), from position ``start``;
    the plugin walks no further than the page. A page whose roots are no longer ``roots_key``, or whose position left
    the tree, is refused with how to start again."""
    params: dict[str, Any] = {"depth": depth, "maxNodes": max_nodes}
    if node_id:
        params["rootId"] = node_id
    if selection_only:
        params["scope"] = "selection"
    if start:
        params["start"] = start
    if roots_key:
        params["rootsKey"] = roots_key
    try:
        reply = await ctx.bridge("READ_LAYERS", params, file_key=file_key or ctx.active_file_key or "")
    except DesignError as exc:
        if "stale_cursor" in exc.message:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT,
                "The layers this cursor was reading changed (another selection, page or tree) since it was handed out.",
                "Call again without cursor to read from the start.",
            ) from None
        if "(code not_found)" in exc.message:
            raise DesignError(
                ErrorCode.NOT_FOUND,
                f"No node {node_id} in this file.",
                "Check the node id (design_get_metadata lists them), or omit nodeId to read the selection.",
            ) from None
        raise
    page: LayerPage = parse_reply(ctx, reply, LayerPage, "READ_LAYERS")
    return page
