import { PluginError, badParams, notFound, errorText } from "../errors.js";
import { getNode } from "../nodes.js";
import { isPlainObject } from "../params.js";
import { imageKind } from "./edit.js";

/** The most layers one CREATE_NODE_TREE builds; designd's callers cap lower (design_generate_from_web's maxNodes). */
const MAX_TREE_NODES = 20000;
/** The font a text gets when none of its page's families is available here. */
const FALLBACK_FAMILY = "Inter";
const TYPES = new Set(["FRAME", "TEXT", "SVG"]);
const STYLE_BY_WEIGHT = { 100: "Thin", 200: "Extra Light", 300: "Light", 400: "Regular", 500: "Medium", 600: "Semi Bold", 700: "Bold", 800: "Extra Bold", 900: "Black" };
const CORNERS = ["topLeftRadius", "topRightRadius", "bottomRightRadius", "bottomLeftRadius"];
const PADDINGS = ["paddingTop", "paddingRight", "paddingBottom", "paddingLeft"];
const ALIGNS = new Set(["MIN", "MAX", "CENTER", "SPACE_BETWEEN"]);

/** @param {unknown} v */
const finite = (v) => typeof v === "number" && isFinite(v);

/**
 * CREATE_NODE_TREE: a whole tree of frames, texts and SVG vectors from one spec, in one undo step. Everything is
 * checked first (the parent, each node's fields, images, variables, fonts, loaded or replaced by a fallback); then the
 * tree is built, and if the editor fails midway the part already built is removed, so the file is as before.
 */
export async function createNodeTree(/** @type {any} */ params, /** @type {any} */ ctx) {
  if (!isPlainObject(params.spec)) throw badParams("'spec' must be the root node of the tree: {type, name, width, height, children}.");
  const parent = params.parentId === undefined || params.parentId === null ? null : await getNode(params.parentId, "parentId");
  if (parent && (!("appendChild" in parent) || parent.type === "DOCUMENT")) {
    throw new PluginError("wrong_node_type", "Parent " + parent.id + " (" + parent.name + ") is a " + parent.type + " and cannot hold layers; pass a frame, group, section or page id.");
  }
  const imageData = Array.isArray(params.images) ? params.images : [];
  const images = imageData.map((/** @type {unknown} */ data, /** @type {number} */ i) => {
    const bytes = typeof data === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(data) ? figma.base64Decode(data) : null;
    if (!bytes || !imageKind(bytes)) throw badParams("images[" + i + "] is not a base64 PNG, JPEG or GIF image.");
    return figma.createImage(bytes);
  });
  /** @type {any[]} */
  const all = [];
  /** @type {Set<string>} */
  const variableIds = new Set();
  if (params.spec.type !== "FRAME") throw badParams("spec.type must be FRAME: the tree's root is a frame.");
  check(params.spec, "spec", all, variableIds, images.length);
  if (all.length > MAX_TREE_NODES) throw badParams("The tree has " + all.length + " layers; the most one call builds is " + MAX_TREE_NODES + ".");
  /** @type {Map<string, Variable>} */
  const variables = new Map();
  for (const id of variableIds) {
    const v = await figma.variables.getVariableByIdAsync(id);
    if (!v) throw notFound("Variable " + id + " is not in this file; read the variables again (design_get_variables) and retry.");
    variables.set(id, v);
  }
  const fonts = await chooseFonts(all.filter((n) => n.type === "TEXT"));
  const warnings = fonts.warnings;
  const state = { done: 0, total: all.length, ctx: ctx, images: images, variables: variables, warnings: warnings, fonts: fonts.byNode };
  /** @type {any} */
  let root = null;
  try {
    root = await build(params.spec, state);
    if (parent) /** @type {any} */ (parent).appendChild(root);
    else {
      const others = figma.currentPage.children.filter((c) => c !== root);
      root.x = others.length ? Math.max(...others.map((c) => c.x + c.width)) + 100 : 0;
      root.y = 0;
    }
    for (const child of params.spec.children || []) await buildInto(root, child, state);
  } catch (err) {
    if (root) root.remove();
    if (err instanceof PluginError && err.code === "cancelled") throw err;
    throw new PluginError("plugin_api_error", "Building the tree failed: " + errorText(err) + ". The part already built was removed.", { rolledBack: true });
  }
  return { success: true, rootId: root.id, name: root.name, width: root.width, height: root.height, counts: countTypes(root), warnings: warnings };
}

/**
 * Checks one spec node and its children, collecting them (depth first) and the variables they name.
 * @param {any} node @param {string} where @param {any[]} all @param {Set<string>} variableIds @param {number} imageCount
 */
function check(node, where, all, variableIds, imageCount) {
  if (!isPlainObject(node) || !TYPES.has(node.type)) throw badParams(where + ".type must be one of FRAME, TEXT, SVG.");
  for (const key of ["x", "y", "width", "height"]) {
    if (node[key] !== undefined && !finite(node[key])) throw badParams(where + "." + key + " must be a number.");
  }
  if (node.type === "TEXT" && typeof node.characters !== "string") throw badParams(where + ".characters must be a string.");
  if (node.type === "SVG" && typeof node.svg !== "string") throw badParams(where + ".svg must be SVG markup.");
  for (const paint of [...(node.fills || []), ...(node.strokes || [])]) {
    if (paint.type === "IMAGE" && !(Number.isInteger(paint.image) && paint.image >= 0 && paint.image < imageCount)) throw badParams(where + ": an image paint names no image of 'images'.");
    if (paint.variableId) variableIds.add(paint.variableId);
  }
  Object.values(node.bound || {}).forEach((id) => variableIds.add(String(id)));
  if (node.layout && !(ALIGNS.has(node.layout.primaryAxisAlignItems) && ALIGNS.has(node.layout.counterAxisAlignItems))) throw badParams(where + ".layout has an unknown alignment.");
  all.push(node);
  (node.children || []).forEach((/** @type {any} */ c, /** @type {number} */ i) => check(c, where + ".children[" + i + "]", all, variableIds, imageCount));
}

/** The style name of a weight (rounded to the nearest hundred) and slant. @param {number} weight @param {boolean} italic */
function styleName(weight, italic) {
  const w = Math.min(900, Math.max(100, Math.round(weight / 100) * 100));
  const base = /** @type {Record<number, string>} */ (STYLE_BY_WEIGHT)[w];
  if (!italic) return base;
  return base === "Regular" ? "Italic" : base + " Italic";
}

/**
 * The font of each text: the first family of its stack that is installed here, in the style nearest its weight;
 * else the fallback family. Each font is loaded once; a text whose font will not load gets the fallback's Regular.
 * @param {any[]} texts
 */
async function chooseFonts(texts) {
  /** @type {Map<string, Set<string>>} */
  const installed = new Map();
  (await figma.listAvailableFontsAsync()).forEach((f) => {
    if (!installed.has(f.fontName.family)) installed.set(f.fontName.family, new Set());
    /** @type {Set<string>} */ (installed.get(f.fontName.family)).add(f.fontName.style);
  });
  /** @type {string[]} */
  const warnings = [];
  /** @type {Map<any, FontName>} */
  const byNode = new Map();
  /** @type {Map<string, Promise<boolean>>} */
  const loads = new Map();
  /** @param {FontName} font */
  const load = (font) => {
    const key = font.family + "\u0000" + font.style;
    if (!loads.has(key)) loads.set(key, figma.loadFontAsync(font).then(() => true, () => false));
    return /** @type {Promise<boolean>} */ (loads.get(key));
  };
  /** @type {Set<string>} */
  const missing = new Set();
  for (const t of texts) {
    const style = styleName(finite(t.fontWeight) ? t.fontWeight : 400, Boolean(t.italic));
    const families = Array.isArray(t.families) ? t.families : [];
    const family = families.find((/** @type {string} */ f) => installed.has(f));
    /** @type {FontName} */
    let font = { family: family || FALLBACK_FAMILY, style: style };
    const styles = installed.get(font.family);
    if (styles && !styles.has(style)) font = { family: font.family, style: styles.has("Regular") ? "Regular" : [...styles][0] };
    if (!family) missing.add(families.join(", ") || "(none)");
    if (!(await load(font))) {
      font = { family: FALLBACK_FAMILY, style: "Regular" };
      if (!(await load(font))) throw new PluginError("font_unavailable", "Neither the page's fonts nor " + FALLBACK_FAMILY + " Regular can be loaded in this editor; install " + FALLBACK_FAMILY + " and retry.");
    }
    byNode.set(t, font);
  }
  missing.forEach((stack) => warnings.push("font " + stack + " is not available here: " + FALLBACK_FAMILY + " used instead"));
  return { byNode: byNode, warnings: warnings };
}

/** A spec paint as an editor paint. @param {any} p @param {any} state */
function paint(p, state) {
  if (p.type === "IMAGE") return { type: "IMAGE", imageHash: state.images[p.image].hash, scaleMode: p.scaleMode || "FILL" };
  /** @type {any} */
  const out = { type: "SOLID", color: { r: p.color.r, g: p.color.g, b: p.color.b } };
  if (finite(p.opacity)) out.opacity = p.opacity;
  if (p.variableId) return figma.variables.setBoundVariableForPaint(out, "color", state.variables.get(p.variableId));
  return out;
}

/** Builds one node (not its children) and places it. @param {any} spec @param {any} state @returns {Promise<SceneNode | null>} */
async function build(spec, state) {
  /** @type {any} */
  let node;
  if (spec.type === "SVG") {
    try {
      node = figma.createNodeFromSvg(spec.svg);
    } catch (err) {
      state.warnings.push("SVG " + spec.name + " could not be read (" + errorText(err) + "): left out");
      return null;
    }
  } else if (spec.type === "TEXT") {
    node = figma.createText();
    node.fontName = state.fonts.get(spec);
    node.characters = spec.characters;
    if (finite(spec.fontSize) && spec.fontSize > 0) node.fontSize = spec.fontSize;
    if (finite(spec.lineHeight) && spec.lineHeight > 0) node.lineHeight = { unit: "PIXELS", value: spec.lineHeight };
    if (finite(spec.letterSpacing)) node.letterSpacing = { unit: "PIXELS", value: spec.letterSpacing };
    if (spec.textAlign) node.textAlignHorizontal = spec.textAlign;
    if (spec.textCase) node.textCase = spec.textCase;
    if (spec.textDecoration) node.textDecoration = spec.textDecoration;
    node.textAutoResize = spec.autoResize || "WIDTH_AND_HEIGHT";
    if (node.textAutoResize === "HEIGHT") node.resize(Math.max(spec.width, 1), Math.max(spec.height, 1));
  } else {
    node = figma.createFrame();
    node.clipsContent = Boolean(spec.clipsContent);
    if (finite(spec.cornerRadius)) node.cornerRadius = spec.cornerRadius;
    if (Array.isArray(spec.cornerRadii)) CORNERS.forEach((k, i) => (node[k] = spec.cornerRadii[i]));
    if (spec.strokes) {
      node.strokes = spec.strokes.map((/** @type {any} */ p) => paint(p, state));
      node.strokeAlign = "INSIDE";
      if (finite(spec.strokeWeight)) node.strokeWeight = spec.strokeWeight;
      if (Array.isArray(spec.strokeWeights)) ["strokeTopWeight", "strokeRightWeight", "strokeBottomWeight", "strokeLeftWeight"].forEach((k, i) => (node[k] = spec.strokeWeights[i]));
      if (Array.isArray(spec.dashPattern)) node.dashPattern = spec.dashPattern;
    }
    if (Array.isArray(spec.effects)) node.effects = spec.effects.map((/** @type {any} */ e) => Object.assign({ visible: true, blendMode: "NORMAL" }, e));
    if (spec.layout) {
      node.layoutMode = spec.layout.mode;
      node.primaryAxisSizingMode = "FIXED";
      node.counterAxisSizingMode = "FIXED";
      node.itemSpacing = spec.layout.itemSpacing;
      PADDINGS.forEach((k) => (node[k] = spec.layout[k]));
      node.primaryAxisAlignItems = spec.layout.primaryAxisAlignItems;
      node.counterAxisAlignItems = spec.layout.counterAxisAlignItems;
    }
    node.resize(Math.max(spec.width, 0.01), Math.max(spec.height, 0.01));
  }
  node.name = String(spec.name || spec.type);
  if (spec.fills) node.fills = spec.fills.map((/** @type {any} */ p) => paint(p, state));
  if (finite(spec.opacity)) node.opacity = spec.opacity;
  for (const [field, id] of Object.entries(spec.bound || {})) {
    const variable = state.variables.get(id);
    if (field === "cornerRadius") CORNERS.forEach((k) => node.setBoundVariable(k, variable));
    else node.setBoundVariable(field, variable);
  }
  node.x = spec.x || 0;
  node.y = spec.y || 0;
  state.done += 1;
  await state.ctx.progress(state.done, state.total, "Built " + state.done + " of " + state.total + " layers");
  return node;
}

/** Builds a spec node and its subtree inside `parent`. @param {any} parent @param {any} spec @param {any} state */
async function buildInto(parent, spec, state) {
  const node = await build(spec, state);
  if (!node) return;
  parent.appendChild(node);
  if (parent.layoutMode && parent.layoutMode !== "NONE" && spec.type !== "TEXT") {
    /** @type {any} */ (node).layoutSizingHorizontal = "FIXED";
    /** @type {any} */ (node).layoutSizingVertical = "FIXED";
  }
  for (const child of spec.children || []) await buildInto(node, child, state);
}

/** How many layers of each type a tree holds. @param {SceneNode} root */
function countTypes(root) {
  /** @type {Record<string, number>} */
  const counts = {};
  /** @param {any} n */
  const walk = (n) => {
    counts[n.type] = (counts[n.type] || 0) + 1;
    (n.children || []).forEach(walk);
  };
  walk(root);
  return counts;
}
