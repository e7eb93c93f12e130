import { PluginError, badParams, conflict, errorText } from "../errors.js";
import { getNode, getSceneNode, requireProp, summarize, describePaints, placeUnder } from "../nodes.js";
import { reqString, reqNumber, optNumber, optBool, reqArray, optEnum, optObject, isPlainObject } from "../params.js";
import { Pacer } from "../chunks.js";
import { solidPaint } from "../colors.js";
import { loadFontsOf, echoText } from "./text.js";

export const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

/** RESIZE_NODE */
export async function resizeNode(/** @type {any} */ params) {
  const node = requireProp(await getSceneNode(params.nodeId), "resize", "resize");
  const width = reqNumber(params, "width", { min: 0.01, max: 100000 });
  const height = reqNumber(params, "height", { min: 0.01, max: 100000 });
  const previous = { width: node.width, height: node.height };
  if (optBool(params, "withConstraints", true)) node.resize(width, height);
  else node.resizeWithoutConstraints(width, height);
  return { success: true, previous: previous, node: summarize(node) };
}

/** MOVE_NODE */
export async function moveNode(/** @type {any} */ params) {
  const node = requireProp(await getSceneNode(params.nodeId), "x", "move");
  const x = reqNumber(params, "x");
  const y = reqNumber(params, "y");
  const previous = { x: node.x, y: node.y };
  node.x = x;
  node.y = y;
  return { success: true, previous: previous, node: summarize(node) };
}

/**
 * Builds paints from the callers' shapes: {type:"SOLID", color:"#hex", opacity?, variableId?}; other paint objects
 * (gradients, images) pass through as the plugin API defines them.
 * @param {unknown[]} list @param {string} what
 * @returns {Promise<Paint[]>}
 */
async function buildPaints(list, what) {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const p = /** @type {any} */ (list[i]);
    if (!p || typeof p !== "object") throw badParams(what + "[" + i + "] must be an object such as {\"type\":\"SOLID\",\"color\":\"#FF0000\"}.");
    const type = p.type || "SOLID";
    if (type !== "SOLID") {
      out.push(p);
      continue;
    }
    let paint = solidPaint(p.color === undefined && p.variableId ? "#000000" : p.color, typeof p.opacity === "number" ? p.opacity : undefined, what + "[" + i + "].color");
    if (p.variableId) {
      const variable = await figma.variables.getVariableByIdAsync(p.variableId);
      if (!variable) throw new PluginError("not_found", "Variable " + p.variableId + " (" + what + "[" + i + "].variableId) does not exist in this file.");
      if (variable.resolvedType !== "COLOR") throw badParams("Variable " + variable.name + " is " + variable.resolvedType + "; a fill needs a COLOR variable.");
      paint = figma.variables.setBoundVariableForPaint(paint, "color", variable);
    }
    out.push(paint);
  }
  return out;
}

/** SET_NODE_FILLS */
export async function setFills(/** @type {any} */ params) {
  const node = requireProp(await getSceneNode(params.nodeId), "fills", "set fills");
  const paints = await buildPaints(reqArray(params, "fills"), "fills");
  const previous = describePaints(node.fills);
  node.fills = paints;
  return { success: true, previous: { fills: previous }, node: summarize(node), fills: describePaints(node.fills) };
}

/** SET_NODE_STROKES */
export async function setStrokes(/** @type {any} */ params) {
  const node = requireProp(await getSceneNode(params.nodeId), "strokes", "set strokes");
  const paints = await buildPaints(reqArray(params, "strokes"), "strokes");
  const weight = optNumber(params, "strokeWeight", undefined, { min: 0, max: 1000 });
  const previous = { strokes: describePaints(node.strokes), strokeWeight: node.strokeWeight === figma.mixed ? "mixed" : node.strokeWeight };
  node.strokes = paints;
  if (weight !== undefined) node.strokeWeight = weight;
  return { success: true, previous: previous, node: summarize(node), strokes: describePaints(node.strokes), strokeWeight: node.strokeWeight };
}

/** SET_NODE_OPACITY */
export async function setOpacity(/** @type {any} */ params) {
  const node = requireProp(await getSceneNode(params.nodeId), "opacity", "set opacity");
  const opacity = reqNumber(params, "opacity", { min: 0, max: 1 });
  const previous = { opacity: node.opacity };
  node.opacity = opacity;
  return { success: true, previous: previous, node: summarize(node), opacity: node.opacity };
}

/** SET_NODE_CORNER_RADIUS */
export async function setCornerRadius(/** @type {any} */ params) {
  const node = requireProp(await getSceneNode(params.nodeId), "cornerRadius", "set the corner radius");
  const radius = reqNumber(params, "radius", { min: 0, max: 100000 });
  const previous = { cornerRadius: node.cornerRadius === figma.mixed ? "mixed" : node.cornerRadius };
  node.cornerRadius = radius;
  return { success: true, previous: previous, node: summarize(node), cornerRadius: node.cornerRadius };
}

/** @param {Uint8Array} b */
export function imageKind(b) {
  if (b.length > 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "PNG";
  if (b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "JPEG";
  if (b.length > 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return "GIF";
  return null;
}

/** SET_IMAGE_FILL: imageData is base64 (a data: URL prefix is accepted) or bytes. */
export async function setImageFill(/** @type {any} */ params) {
  const ids = reqArray(params, "nodeIds");
  if (!ids.length) throw badParams("Parameter 'nodeIds' must list at least one node id.");
  const scaleMode = optEnum(params, "scaleMode", /** @type {const} */ (["FILL", "FIT", "CROP", "TILE"]), "FILL");
  let bytes;
  if (params.imageData instanceof Uint8Array) {
    bytes = params.imageData;
  } else {
    const data = reqString(params, "imageData").replace(/^data:[^,]*,/, "").replace(/\s+/g, "");
    if (data.length > (MAX_IMAGE_BYTES * 4) / 3 + 4) throw badParams("Image is larger than " + MAX_IMAGE_BYTES / 1048576 + " MiB; scale it down first.");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw badParams("'imageData' is not valid base64.");
    bytes = figma.base64Decode(data);
  }
  const kind = imageKind(bytes);
  if (!kind) throw badParams("'imageData' is not a PNG, JPEG or GIF image (unrecognised header).");
  const nodes = [];
  for (const id of ids) nodes.push(requireProp(await getSceneNode(id, "nodeIds[]"), "fills", "set an image fill"));
  const image = figma.createImage(bytes);
  /** @type {Record<string, any>} */
  const previous = {};
  nodes.forEach((n) => {
    previous[n.id] = describePaints(n.fills);
  });
  /** @type {Array<[any, any]>} */
  const done = [];
  try {
    nodes.forEach((n) => {
      const before = n.fills;
      n.fills = [{ type: "IMAGE", imageHash: image.hash, scaleMode: scaleMode }];
      done.push([n, before]);
    });
  } catch (err) {
    done.reverse().forEach(([n, before]) => (n.fills = before));
    throw new PluginError("plugin_api_error", "SET_IMAGE_FILL failed: " + errorText(err) + ". The fills already changed were set back.", { rolledBack: true });
  }
  return { success: true, imageHash: image.hash, format: kind, byteLength: bytes.length, previous: { fills: previous }, nodes: nodes.map(summarize) };
}

/** CLONE_NODE */
export async function cloneNode(/** @type {any} */ params) {
  const node = requireProp(await getSceneNode(params.nodeId), "clone", "clone");
  const copy = node.clone();
  return { success: true, node: summarize(copy), sourceId: node.id };
}

/**
 * What a deleted node was and where it sat, enough to rebuild it: type, name, parent and index, box, fills and
 * strokes, text, and its component (for an instance).
 * @param {BaseNode} node
 */
async function deletedInfo(node) {
  const n = /** @type {any} */ (node);
  const parent = node.parent;
  /** @type {Record<string, any>} */
  const info = summarize(node);
  info.index = parent ? /** @type {any} */ (parent).children.indexOf(node) : null;
  if (parent) info.parentName = parent.name;
  if ("fills" in n && n.fills !== figma.mixed && n.fills.length) info.fills = describePaints(n.fills);
  if ("strokes" in n && n.strokes.length) info.strokes = describePaints(n.strokes);
  if (typeof n.opacity === "number" && n.opacity !== 1) info.opacity = n.opacity;
  if (typeof n.cornerRadius === "number" && n.cornerRadius) info.cornerRadius = n.cornerRadius;
  if (node.type === "TEXT") info.characters = echoText(n.characters);
  if ("children" in n) info.childCount = n.children.length;
  if (node.type === "COMPONENT" || node.type === "COMPONENT_SET") info.key = n.key;
  if (node.type === "INSTANCE") {
    const main = await /** @type {InstanceNode} */ (node).getMainComponentAsync();
    info.mainComponent = main ? { id: main.id, key: main.key, name: main.name } : null;
  }
  return info;
}

/** DELETE_NODE: `deleted` says what the node was and where it sat. */
export async function deleteNode(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  if (node.type === "DOCUMENT") throw badParams("The document itself cannot be deleted.");
  if (node.type === "PAGE" && figma.root.children.length <= 1) throw badParams("The only page of a file cannot be deleted.");
  const info = await deletedInfo(node);
  node.remove();
  return { success: true, deleted: info };
}

/** RENAME_NODE */
export async function renameNode(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  const newName = reqString(params, "newName");
  const oldName = node.name;
  node.name = newName;
  return { success: true, oldName: oldName, newName: node.name, node: summarize(node) };
}

const CHILD_TYPES = /** @type {const} */ (["RECTANGLE", "ELLIPSE", "FRAME", "TEXT", "LINE"]);

/** CREATE_CHILD_NODE: paints are checked before the node is made; a failure later removes it again. */
export async function createChildNode(/** @type {any} */ params) {
  const type = optEnum(params, "nodeType", CHILD_TYPES, undefined);
  if (!type) throw badParams("Parameter 'nodeType' is required: one of " + CHILD_TYPES.join(", ") + ".");
  const parent = await getNode(params.parentId, "parentId");
  if (!("appendChild" in parent)) throw new PluginError("wrong_node_type", "Parent " + parent.id + " is a " + parent.type + " and cannot hold children.");
  const props = optObject(params, "properties") || {};
  /** @type {Paint[] | undefined} */
  let paints;
  if (props.fills !== undefined) {
    paints = await buildPaints(Array.isArray(props.fills) ? props.fills : [typeof props.fills === "string" ? { type: "SOLID", color: props.fills } : props.fills], "properties.fills");
  } else if (typeof props.color === "string") {
    paints = [solidPaint(props.color, undefined, "properties.color")];
  }
  /** @type {SceneNode} */
  let node;
  if (type === "RECTANGLE") node = figma.createRectangle();
  else if (type === "ELLIPSE") node = figma.createEllipse();
  else if (type === "FRAME") node = figma.createFrame();
  else if (type === "LINE") node = figma.createLine();
  else node = figma.createText();
  try {
    await placeUnder(node, parent.id);
    const n = /** @type {any} */ (node);
    if (typeof props.name === "string") n.name = props.name;
    if (typeof props.x === "number") n.x = props.x;
    if (typeof props.y === "number") n.y = props.y;
    if (type === "TEXT") {
      await loadFontsOf(n);
      n.characters = typeof props.text === "string" ? props.text : "";
      if (typeof props.fontSize === "number") n.fontSize = props.fontSize;
    }
    if (typeof props.width === "number" || typeof props.height === "number") {
      const w = typeof props.width === "number" ? props.width : n.width;
      const h = typeof props.height === "number" ? props.height : n.height;
      n.resize(Math.max(w, 0.01), type === "LINE" ? 0 : Math.max(h, 0.01));
    }
    if (paints) n.fills = paints;
  } catch (err) {
    node.remove();
    throw err;
  }
  return { success: true, node: summarize(node) };
}

/** Edits per BATCH_EDIT_NODES: 5,000 layers moved, resized or restyled in one call and one undo step. */
export const MAX_EDITS = 5000;
/** Edits an answer lists by node id; beyond this it only counts them. */
const LISTED_EDITS = 100;

/**
 * What each property of a batch edit needs: the node property it sets (the one the node must have) and a check of
 * the value, which answers the value to write or throws.
 * @type {Record<string, {prop: string, check: (value: any, where: string) => any}>}
 */
const EDITABLE = {
  x: { prop: "x", check: (v, where) => finite(v, where, -1e6, 1e6) },
  y: { prop: "y", check: (v, where) => finite(v, where, -1e6, 1e6) },
  width: { prop: "resize", check: (v, where) => finite(v, where, 0.01, 100000) },
  height: { prop: "resize", check: (v, where) => finite(v, where, 0.01, 100000) },
  name: {
    prop: "name",
    check: (v, where) => {
      if (typeof v !== "string" || !v) throw badParams(where + " must be a non-empty string.");
      return v;
    },
  },
  visible: {
    prop: "visible",
    check: (v, where) => {
      if (typeof v !== "boolean") throw badParams(where + " must be true or false.");
      return v;
    },
  },
  opacity: { prop: "opacity", check: (v, where) => finite(v, where, 0, 1) },
  cornerRadius: { prop: "cornerRadius", check: (v, where) => finite(v, where, 0, 100000) },
  fills: { prop: "fills", check: (v) => v },
};

/** @param {unknown} v @param {string} where @param {number} min @param {number} max */
function finite(v, where, min, max) {
  if (typeof v !== "number" || !isFinite(v) || v < min || v > max) throw badParams(where + " must be a number from " + min + " to " + max + ".");
  return v;
}

/**
 * @typedef {{index: number, node: any, set: Record<string, any>}} PlannedEdit
 * @typedef {{node: any, before: Record<string, any>}} DoneEdit
 */

/** Checks every edit of a batch against its node; nothing changes here. @param {any[]} items @param {Pacer} pacer */
async function planEdits(items, pacer) {
  /** @type {PlannedEdit[]} */
  const planned = [];
  /** @type {Map<string, number>} */
  const seen = new Map();
  for (let i = 0; i < items.length; i++) {
    await pacer.check();
    const item = items[i];
    const at = "edits[" + i + "]";
    if (!isPlainObject(item)) throw badParams(at + " must be an object with 'nodeId' and the properties to set.");
    /** @type {any} */
    let node;
    try {
      node = await getSceneNode(item.nodeId, at + ".nodeId");
    } catch (err) {
      // The layer's own message, prefixed with the edit it belongs to: one bad id among thousands is found at once.
      if (err instanceof PluginError) throw new PluginError(err.code, at + ": " + err.message, err.extra);
      throw err;
    }
    const twin = seen.get(node.id);
    if (twin !== undefined) throw conflict(at + ": edits[" + twin + "] edits node " + node.id + " too; give each node one edit.");
    seen.set(node.id, i);
    /** @type {Record<string, any>} */
    const set = {};
    for (const key of Object.keys(item)) {
      if (key === "nodeId") continue;
      const rule = EDITABLE[key];
      const where = at + "." + key + " (" + node.type + " '" + node.name + "')";
      if (!rule) throw badParams(at + ": '" + key + "' cannot be set here; the properties are " + Object.keys(EDITABLE).join(", ") + ".");
      if (!(rule.prop in node)) throw new PluginError("wrong_node_type", where + ": a " + node.type + " has no " + key + ".");
      set[key] = key === "fills" ? await buildPaints(Array.isArray(item.fills) ? item.fills : [], at + ".fills") : rule.check(item[key], where);
    }
    if (!Object.keys(set).length) throw badParams(at + ": give at least one property to set besides 'nodeId'.");
    const parent = node.parent;
    if (("x" in set || "y" in set) && parent && parent.layoutMode && parent.layoutMode !== "NONE" && node.layoutPositioning !== "ABSOLUTE") {
      throw badParams(at + ": " + node.type + " '" + node.name + "' is placed by the auto layout of '" + parent.name + "'; x and y do not apply to it. Leave them out, or move its parent.");
    }
    planned.push({ index: i, node: node, set: set });
  }
  return planned;
}

/** Writes one planned edit; answers what the node had before, for a rollback. @param {PlannedEdit} edit */
function applyEdit(edit) {
  const node = edit.node;
  const set = edit.set;
  /** @type {Record<string, any>} */
  const before = {};
  if ("width" in set || "height" in set) {
    before.size = [node.width, node.height];
    node.resize("width" in set ? set.width : node.width, "height" in set ? set.height : node.height);
  }
  for (const key of Object.keys(set)) {
    if (key === "width" || key === "height") continue;
    before[key] = node[key];
    node[key] = set[key];
  }
  return before;
}

/** Sets a node back as `before` says. @param {DoneEdit} done */
function undoEdit(done) {
  const node = done.node;
  for (const key of Object.keys(done.before)) {
    if (key === "size") node.resize(done.before.size[0], done.before.size[1]);
    else node[key] = done.before[key];
  }
}

/**
 * BATCH_EDIT_NODES: up to MAX_EDITS layers moved, resized, renamed, shown or hidden, faded, rounded or refilled, all
 * or none. Every edit is checked first; the edits are written in slices (chunks.js), and a failure or a cancel midway
 * sets every node already edited back.
 */
export async function batchEditNodes(/** @type {any} */ params, /** @type {import("../dispatch.js").CommandContext} */ ctx) {
  const items = reqArray(params, "edits");
  if (!items.length) throw badParams("'edits' is empty: give at least one edit.");
  if (items.length > MAX_EDITS) throw badParams("'edits' has " + items.length + " items; the limit is " + MAX_EDITS + " per call. Split it into calls of at most " + MAX_EDITS + ".");
  const planned = await planEdits(items, new Pacer(ctx, 0));
  /** @type {DoneEdit[]} */
  const done = [];
  let current = planned[0];
  const pacer = new Pacer(ctx, planned.length);
  try {
    for (const edit of planned) {
      current = edit;
      done.push({ node: edit.node, before: applyEdit(edit) });
      await pacer.step((n, total) => "Edited " + n + " of " + total + " layers");
    }
  } catch (err) {
    let left = 0;
    done.reverse().forEach((d) => {
      try {
        undoEdit(d);
      } catch (undoErr) {
        left++;
      }
    });
    const undone = left
      ? "Setting back the " + done.length + " layers already edited failed for " + left + "; check them."
      : "Nothing was kept: the " + done.length + " layers already edited were set back.";
    if (err instanceof PluginError && err.code === "cancelled") throw new PluginError("cancelled", err.message + " " + undone);
    throw new PluginError("plugin_api_error", "The design tool refused edits[" + current.index + "] (" + current.node.id + "): " + errorText(err) + ". " + undone, {
      rolledBack: left === 0,
      failedIndex: current.index,
      failedName: current.node.name,
    });
  }
  /** @type {Record<string, any>} */
  const out = { success: true, count: done.length, edited: planned.slice(0, LISTED_EDITS).map((e) => e.node.id) };
  if (planned.length > LISTED_EDITS) out.notListed = planned.length - LISTED_EDITS;
  return out;
}
