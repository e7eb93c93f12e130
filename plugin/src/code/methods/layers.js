import { getNode } from "../nodes.js";
import { optNumber, optEnum, optString } from "../params.js";
import { badParams, PluginError } from "../errors.js";

/**
 * The most characters of records one READ_LAYERS or READ_VARIABLES reply carries (its JSON text, near enough): a page
 * of any file stays a small bridge message, whatever maxNodes asks for. docs/bridge-protocol.md names this bound.
 */
export const READ_MAX_CHARS = 256 * 1024;
/** The most records (layers, variables) one read reply carries. */
export const READ_MAX_NODES = 5000;

/**
 * READ_LAYERS: one page of a subtree's layers in document order (pre-order), read lazily: the walk starts at the
 * position `start` (child indexes from the list of roots) and stops after `maxNodes` layers or READ_MAX_CHARS, so a
 * page costs the same on a file of 1,000 layers or 100,000, and nothing beyond the page is visited.
 *
 * Roots: the node `rootId`, else (scope "auto") the selection or the current page's top layers; scope "selection"
 * reads the selection only. `rootsKey` identifies the roots: a later page passes it back and is refused
 * (`stale_cursor`) when the roots are no longer the same (another selection, another page).
 * @param {any} params
 */
export async function readLayers(params) {
  const depth = /** @type {number} */ (optNumber(params, "depth", 6, { min: 0, max: 50 }));
  const maxNodes = /** @type {number} */ (optNumber(params, "maxNodes", 1000, { min: 1, max: READ_MAX_NODES }));
  const scope = /** @type {string} */ (optEnum(params, "scope", ["auto", "selection"], "auto"));
  const start = startPath(params.start);
  const found = await rootsOf(params.rootId, scope);
  const key = rootsKey(found.roots);
  const expected = optString(params, "rootsKey", undefined);
  if (expected !== undefined && expected !== key) {
    throw new PluginError(
      "stale_cursor",
      "The layers this read started from changed (" + found.scope + " of page '" + figma.currentPage.name + "'): " +
        "read again from the start, without a cursor.",
    );
  }
  /** @type {Record<string, any>} */
  const out = { success: true, scope: found.scope, rootsKey: key, roots: found.roots.length, ancestors: [], nodes: [], next: null };
  if (!found.roots.length) return out;
  const walk = resume(found.roots, start, out.ancestors);
  let chars = 0;
  while (walk.length) {
    const frame = walk[walk.length - 1];
    if (frame.index >= frame.siblings.length) {
      walk.pop();
      continue;
    }
    if (out.nodes.length >= maxNodes || chars >= READ_MAX_CHARS) {
      // An ancestor's frame already points past it; the path names the ancestor itself.
      out.next = walk.map((f, level) => (level === walk.length - 1 ? f.index : f.index - 1));
      break;
    }
    const node = frame.siblings[frame.index];
    const rec = record(node, frame.index, walk.length - 1, frame.box);
    frame.index += 1;
    const kids = childrenOf(node);
    if (kids && kids.length && walk.length - 1 < depth) {
      walk.push({ siblings: kids, index: 0, box: boxOf(node) });
    } else if (kids && kids.length) {
      rec.more = kids.length;
    }
    chars += JSON.stringify(rec).length + 1;
    out.nodes.push(rec);
  }
  return out;
}

/** @param {unknown} value @returns {number[]} */
export function startPath(value) {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > 51 || !value.every((i) => Number.isInteger(i) && i >= 0)) {
    throw badParams("Parameter 'start' must be a list of child indexes, as a previous READ_LAYERS answered in 'next'.");
  }
  return value;
}

/**
 * @param {unknown} rootId @param {string} scope
 * @returns {Promise<{roots: readonly BaseNode[], scope: string}>}
 */
async function rootsOf(rootId, scope) {
  if (rootId !== undefined && rootId !== null) {
    const node = await getNode(rootId, "rootId");
    if (node.type === "DOCUMENT") throw badParams("Node " + node.id + " is the document: name a page or a layer.");
    return { roots: [node], scope: "node" };
  }
  const selection = figma.currentPage.selection;
  if (scope === "selection" || selection.length) return { roots: selection.slice(), scope: "selection" };
  return { roots: figma.currentPage.children.slice(), scope: "page" };
}

/**
 * A short fingerprint of the roots (FNV-1a over their ids and the page's): the same roots give the same key.
 * @param {readonly BaseNode[]} roots
 */
function rootsKey(roots) {
  let hash = 0x811c9dc5;
  const text = figma.currentPage.id + "|" + roots.length + "|" + roots.map((r) => r.id).join(",");
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16);
}

/**
 * The walk's stack at `start`: one frame per level, each with the index of the next sibling to visit; the records
 * of the layers above the start go to `ancestors`, so a page that starts deep in the tree says where it is.
 * A path that no longer fits the tree is refused.
 * @param {readonly BaseNode[]} roots @param {number[]} start @param {any[]} ancestors
 */
export function resume(roots, start, ancestors) {
  // The roots' frame has no box: each root is placed relative to its own parent.
  /** @type {{siblings: readonly BaseNode[], index: number, box: {x: number, y: number} | null}[]} */
  const walk = [{ siblings: roots, index: start.length ? start[0] : 0, box: null }];
  for (let level = 0; level < start.length - 1; level++) {
    const frame = walk[level];
    const node = frame.siblings[frame.index];
    const kids = node && childrenOf(node);
    if (!kids) throw staleStart();
    ancestors.push(record(node, frame.index, level, frame.box));
    // Past this ancestor's subtree the walk goes on with its next sibling.
    frame.index += 1;
    walk.push({ siblings: kids, index: start[level + 1], box: boxOf(node) });
  }
  const last = walk[walk.length - 1];
  if (last.index > last.siblings.length) throw staleStart();
  return walk;
}

function staleStart() {
  return new PluginError("stale_cursor", "The position to read from is no longer in this file's tree: read again from the start, without a cursor.");
}

/** @param {BaseNode} node @returns {readonly BaseNode[] | null} */
export function childrenOf(node) {
  return "children" in node && node.children ? node.children : null;
}

/** @param {BaseNode} node */
function boxOf(node) {
  const n = /** @type {any} */ (node);
  const b = n.absoluteBoundingBox;
  return b ? { x: b.x, y: b.y, width: b.width, height: b.height } : { x: n.x || 0, y: n.y || 0, width: n.width || 0, height: n.height || 0 };
}

/** Boxes are given relative to the parent; a root inside a layer is placed relative to that layer. @param {BaseNode} root */
function rootBox(root) {
  const parent = root.parent;
  return parent && parent.type !== "PAGE" && parent.type !== "DOCUMENT" ? boxOf(parent) : { x: 0, y: 0 };
}

/**
 * One layer: id, name, type, depth (`d`, roots are 0), index among its siblings (`i`), box relative to its parent.
 * @param {BaseNode} node @param {number} index @param {number} depth @param {{x: number, y: number} | null} box
 *   the parent's box (null for a root)
 */
function record(node, index, depth, box) {
  const n = /** @type {any} */ (node);
  const b = boxOf(node);
  const parentBox = box || rootBox(node);
  /** @type {Record<string, any>} */
  const rec = { id: node.id, name: node.name, type: node.type, d: depth, i: index, x: b.x - parentBox.x, y: b.y - parentBox.y, w: b.width, h: b.height };
  if (typeof n.width === "number") rec.w = n.width;
  if (typeof n.height === "number") rec.h = n.height;
  if (n.visible === false) rec.hidden = true;
  return rec;
}
