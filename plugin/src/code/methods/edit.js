import { PluginError, badParams, errorText } from "../errors.js";
import { getNode, getSceneNode, requireProp, summarize, describePaints, placeUnder } from "../nodes.js";
import { reqString, reqNumber, optNumber, optBool, reqArray, optEnum, optObject } from "../params.js";
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
