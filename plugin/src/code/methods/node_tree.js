import { PluginError, badParams, notFound, errorText } from "../errors.js";
import { getNode } from "../nodes.js";
import { isPlainObject } from "../params.js";
import { chooseFonts } from "../font_choice.js";
import { imageKind } from "./edit.js";

/** The most layers one CREATE_NODE_TREE builds; designd's callers cap lower (design_generate_from_web's maxNodes). */
const MAX_TREE_NODES = 20000;
/** A large build reports progress (and lets the editor draw and take input) after this many layers… */
const PROGRESS_EVERY_LAYERS = 250;
/** …or after this many milliseconds, whichever comes first. */
const PROGRESS_EVERY_MS = 100;
const TYPES = new Set(["FRAME", "TEXT", "SVG"]);
const CORNERS = ["topLeftRadius", "topRightRadius", "bottomRightRadius", "bottomLeftRadius"];
const PADDINGS = ["paddingTop", "paddingRight", "paddingBottom", "paddingLeft"];
const ALIGNS = new Set(["MIN", "MAX", "CENTER", "SPACE_BETWEEN"]);
const GRADIENTS = new Set(["GRADIENT_LINEAR", "GRADIENT_RADIAL", "GRADIENT_ANGULAR", "GRADIENT_DIAMOND"]);
const BLENDS = new Set(["NORMAL", "DARKEN", "MULTIPLY", "COLOR_BURN", "LIGHTEN", "SCREEN", "COLOR_DODGE", "OVERLAY", "SOFT_LIGHT", "HARD_LIGHT", "DIFFERENCE", "EXCLUSION", "HUE", "SATURATION", "COLOR", "LUMINOSITY"]);
const EFFECTS = new Set(["DROP_SHADOW", "INNER_SHADOW", "LAYER_BLUR", "BACKGROUND_BLUR"]);
const DECORATIONS = new Set(["NONE", "UNDERLINE", "STRIKETHROUGH"]);
const CASES = new Set(["ORIGINAL", "UPPER", "LOWER", "TITLE"]);

/** @param {unknown} v */
const finite = (v) => typeof v === "number" && isFinite(v);

/**
 * CREATE_NODE_TREE: a whole tree of frames, texts and SVG vectors from one spec, in one undo step. Everything is
 * checked first (the parent, each node's fields, variables, fonts, loaded or replaced by a stand-in); an image the
 * editor cannot take is left out of the layers that use it, each named in the warnings, and the rest is built. If the
 * editor fails midway the part already built is removed, so the file is as before.
 */
export async function createNodeTree(/** @type {any} */ params, /** @type {any} */ ctx) {
  if (!isPlainObject(params.spec)) throw badParams("'spec' must be the root node of the tree: {type, name, width, height, children}.");
  const parent = params.parentId === undefined || params.parentId === null ? null : await getNode(params.parentId, "parentId");
  if (parent && (!("appendChild" in parent) || parent.type === "DOCUMENT")) {
    throw new PluginError("wrong_node_type", "Parent " + parent.id + " (" + parent.name + ") is a " + parent.type + " and cannot hold layers; pass a frame, group, section or page id.");
  }
  const imageData = Array.isArray(params.images) ? params.images : [];
  /** @type {any[]} */
  const all = [];
  /** @type {Set<string>} */
  const variableIds = new Set();
  if (params.spec.type !== "FRAME") throw badParams("spec.type must be FRAME: the tree's root is a frame.");
  check(params.spec, "spec", String(params.spec.name || "spec"), all, variableIds, imageData.length);
  if (all.length > MAX_TREE_NODES) throw badParams("The tree has " + all.length + " layers; the most one call builds is " + MAX_TREE_NODES + ".");
  /** @type {Map<string, Variable>} */
  const variables = new Map();
  for (const id of variableIds) {
    const v = await figma.variables.getVariableByIdAsync(id);
    if (!v) throw notFound("Variable " + id + " is not in this file; read the variables again (design_get_variables) and retry.");
    variables.set(id, v);
  }
  const texts = all.filter((n) => n.type === "TEXT");
  const asks = [...texts, ...texts.flatMap((t) => (Array.isArray(t.ranges) ? t.ranges.filter(hasFont) : []))];
  const fonts = await chooseFonts(asks);
  const warnings = fonts.warnings;
  const images = makeImages(imageData, all, warnings);
  const components = await findComponents(all, warnings);
  const state = { done: 0, reported: 0, reportedAt: Date.now(), total: all.length, ctx: ctx, images: images, variables: variables, warnings: warnings, fonts: fonts.byAsk, components: components };
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
    await state.ctx.progress(state.total, state.total, "Built " + state.total + " layers");
  } catch (err) {
    if (root) root.remove();
    if (err instanceof PluginError && err.code === "cancelled") throw err;
    throw new PluginError("plugin_api_error", "Building the tree failed: " + errorText(err) + ". The part already built was removed.", { rolledBack: true });
  }
  return { success: true, rootId: root.id, name: root.name, width: root.width, height: root.height, counts: countTypes(root), warnings: warnings };
}

/** Whether a text range asks for a font of its own. @param {any} r */
const hasFont = (r) => r.families !== undefined || r.fontWeight !== undefined || r.italic !== undefined || r.generic !== undefined;

/**
 * The editor's image for each base64 entry of `images`, or null for one it cannot take (not base64, not a PNG,
 * JPEG or GIF, or refused by the editor); each layer that uses a refused one is named in the warnings.
 * @param {unknown[]} data @param {any[]} all @param {string[]} warnings
 */
function makeImages(data, all, warnings) {
  return data.map((item, i) => {
    let why = null;
    let image = null;
    const bytes = typeof item === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(item) ? figma.base64Decode(item) : null;
    if (item === "") why = "was left out before the build";
    else if (!bytes) why = "is not base64";
    else if (!imageKind(bytes)) why = "is not a PNG, JPEG or GIF image";
    else {
      try {
        image = figma.createImage(bytes);
      } catch (err) {
        why = "was refused by the editor (" + errorText(err) + ")";
      }
    }
    if (why) {
      const users = all.filter((n) => [...(n.fills || []), ...(n.strokes || [])].some((p) => p.type === "IMAGE" && p.image === i));
      const named = users.slice(0, 3).map((n) => n.__path).join("; ") + (users.length > 3 ? " and " + (users.length - 3) + " more" : "");
      warnings.push("images[" + i + "] " + why + ": left out of " + (named || "no layer"));
    }
    return image;
  });
}

/**
 * The component each node that names one (`component`: a component or component set id) becomes an instance of:
 * a set's default variant. One that is not in the file is named in the warnings and built as its layers.
 * @param {any[]} all @param {string[]} warnings
 */
async function findComponents(all, warnings) {
  /** @type {Map<string, ComponentNode | null>} */
  const found = new Map();
  for (const node of all) {
    if (typeof node.component !== "string" || found.has(node.component)) continue;
    const main = /** @type {any} */ (await figma.getNodeByIdAsync(node.component));
    const component = main && main.type === "COMPONENT_SET" ? main.defaultVariant : main;
    found.set(node.component, component && component.type === "COMPONENT" ? component : null);
  }
  for (const node of all) {
    if (typeof node.component === "string" && !found.get(node.component)) warnings.push("component " + node.component + " of " + node.__path + " is not a component of this file: built as layers");
  }
  return found;
}

/**
 * An instance of `component` in place of a spec node's layers: its size and name, and its texts set to the node's
 * (in order) when they are as many; the fonts of a text are loaded before it changes.
 * @param {ComponentNode} component @param {any} spec @param {any} state
 */
async function instanceOf(component, spec, state) {
  const node = component.createInstance();
  node.resize(Math.max(spec.width, 0.01), Math.max(spec.height, 0.01));
  /** @type {string[]} */
  const wanted = [];
  /** @param {any} s */
  const collect = (s) => {
    if (s.type === "TEXT") wanted.push(s.characters);
    (s.children || []).forEach(collect);
  };
  (spec.children || []).forEach(collect);
  const texts = /** @type {TextNode[]} */ (node.findAll((n) => n.type === "TEXT"));
  if (wanted.length && texts.length === wanted.length) {
    for (let i = 0; i < texts.length; i++) {
      if (texts[i].characters === wanted[i]) continue;
      for (const font of texts[i].getRangeAllFontNames(0, texts[i].characters.length)) await figma.loadFontAsync(font);
      texts[i].characters = wanted[i];
    }
  } else if (wanted.length) {
    state.warnings.push("instance of " + component.name + " at " + spec.__path + " has " + texts.length + " texts and the page " + wanted.length + ": its texts are the component's");
  }
  return node;
}

/**
 * Checks one spec node and its children, collecting them (depth first) and the variables they name; each node
 * learns its path of layer names (for warnings).
 * @param {any} node @param {string} where @param {string} path @param {any[]} all @param {Set<string>} variableIds @param {number} imageCount
 */
function check(node, where, path, all, variableIds, imageCount) {
  if (!isPlainObject(node) || !TYPES.has(node.type)) throw badParams(where + ".type must be one of FRAME, TEXT, SVG.");
  for (const key of ["x", "y", "width", "height", "rotation"]) {
    if (node[key] !== undefined && !finite(node[key])) throw badParams(where + "." + key + " must be a number.");
  }
  if (node.type === "TEXT" && typeof node.characters !== "string") throw badParams(where + ".characters must be a string.");
  if (node.type === "SVG" && typeof node.svg !== "string") throw badParams(where + ".svg must be SVG markup.");
  if (node.component !== undefined && (typeof node.component !== "string" || node.type !== "FRAME")) throw badParams(where + ".component must be a component id, on a FRAME.");
  if (node.blendMode !== undefined && !BLENDS.has(node.blendMode)) throw badParams(where + ".blendMode must be one of " + [...BLENDS].join(", ") + ".");
  const paints = [...(node.fills || []), ...(node.strokes || [])];
  (node.ranges || []).forEach((/** @type {any} */ r) => paints.push(...(r.fills || [])));
  for (const paint of paints) checkPaint(paint, where, imageCount, variableIds);
  for (const effect of node.effects || []) {
    if (!isPlainObject(effect) || !EFFECTS.has(effect.type)) throw badParams(where + ".effects: each effect's type must be one of " + [...EFFECTS].join(", ") + ".");
  }
  if (node.ranges !== undefined) checkRanges(node, where);
  Object.values(node.bound || {}).forEach((id) => variableIds.add(String(id)));
  if (node.layout && !(ALIGNS.has(node.layout.primaryAxisAlignItems) && ALIGNS.has(node.layout.counterAxisAlignItems))) throw badParams(where + ".layout has an unknown alignment.");
  Object.defineProperty(node, "__path", { value: path, enumerable: false });
  all.push(node);
  (node.children || []).forEach((/** @type {any} */ c, /** @type {number} */ i) => check(c, where + ".children[" + i + "]", path + " / " + String(c && c.name || "children[" + i + "]"), all, variableIds, imageCount));
}

/** @param {any} paint @param {string} where @param {number} imageCount @param {Set<string>} variableIds */
function checkPaint(paint, where, imageCount, variableIds) {
  if (!isPlainObject(paint)) throw badParams(where + ": each paint must be an object.");
  if (paint.type === "IMAGE") {
    if (!(Number.isInteger(paint.image) && paint.image >= 0 && paint.image < imageCount)) throw badParams(where + ": an image paint names no image of 'images'.");
  } else if (GRADIENTS.has(paint.type)) {
    const t = paint.gradientTransform;
    const rows = Array.isArray(t) && t.length === 2 && t.every((row) => Array.isArray(row) && row.length === 3 && row.every(finite));
    if (!rows) throw badParams(where + ": a gradient's gradientTransform must be [[a, b, c], [d, e, f]].");
    const stops = paint.gradientStops;
    if (!Array.isArray(stops) || !stops.length || !stops.every((s) => isPlainObject(s) && finite(s.position) && isPlainObject(s.color) && ["r", "g", "b"].every((k) => finite(s.color[k])))) {
      throw badParams(where + ": a gradient's gradientStops must be [{color: {r, g, b, a}, position}].");
    }
  } else if (paint.type !== "SOLID" || !isPlainObject(paint.color)) {
    throw badParams(where + ": a paint's type must be SOLID (with color), IMAGE or one of " + [...GRADIENTS].join(", ") + ".");
  }
  if (paint.variableId) variableIds.add(paint.variableId);
}

/** @param {any} node @param {string} where */
function checkRanges(node, where) {
  if (!Array.isArray(node.ranges)) throw badParams(where + ".ranges must be a list of {start, end, …}.");
  const length = node.characters.length;
  node.ranges.forEach((/** @type {any} */ r, /** @type {number} */ i) => {
    if (!isPlainObject(r) || !Number.isInteger(r.start) || !Number.isInteger(r.end) || r.start < 0 || r.end > length || r.start >= r.end) {
      throw badParams(where + ".ranges[" + i + "] must have whole start < end within the text's " + length + " characters.");
    }
    if (r.url !== undefined && typeof r.url !== "string") throw badParams(where + ".ranges[" + i + "].url must be a string.");
    if (r.textDecoration !== undefined && !DECORATIONS.has(r.textDecoration)) throw badParams(where + ".ranges[" + i + "].textDecoration must be NONE, UNDERLINE or STRIKETHROUGH.");
    if (r.textCase !== undefined && !CASES.has(r.textCase)) throw badParams(where + ".ranges[" + i + "].textCase must be ORIGINAL, UPPER, LOWER or TITLE.");
  });
}

/** A spec paint as an editor paint; null for an image left out. @param {any} p @param {any} state */
function paint(p, state) {
  if (p.type === "IMAGE") {
    const image = state.images[p.image];
    return image ? { type: "IMAGE", imageHash: image.hash, scaleMode: p.scaleMode || "FILL" } : null;
  }
  if (GRADIENTS.has(p.type)) {
    const stops = p.gradientStops.map((/** @type {any} */ s) => ({ position: Math.min(1, Math.max(0, s.position)), color: { r: s.color.r, g: s.color.g, b: s.color.b, a: finite(s.color.a) ? s.color.a : 1 } }));
    /** @type {any} */
    const out = { type: p.type, gradientTransform: p.gradientTransform.map((/** @type {number[]} */ row) => row.slice()), gradientStops: stops };
    if (finite(p.opacity)) out.opacity = p.opacity;
    return out;
  }
  /** @type {any} */
  const out = { type: "SOLID", color: { r: p.color.r, g: p.color.g, b: p.color.b } };
  if (finite(p.opacity)) out.opacity = p.opacity;
  if (p.variableId) return figma.variables.setBoundVariableForPaint(out, "color", state.variables.get(p.variableId));
  return out;
}

/** @param {any[]} list @param {any} state */
const paints = (list, state) => list.map((p) => paint(p, state)).filter(Boolean);

/** An effect as the editor takes it: shadows have a blend mode, blurs do not. @param {any} e */
function effect(e) {
  if (e.type === "LAYER_BLUR" || e.type === "BACKGROUND_BLUR") return { type: e.type, radius: finite(e.radius) ? e.radius : 0, visible: true };
  return Object.assign({ visible: true, blendMode: "NORMAL" }, e);
}

/** The text's styled ranges: each its own font, size, fills, decoration, case, spacing and link. @param {any} node @param {any} spec @param {any} state */
function styleRanges(node, spec, state) {
  for (const r of spec.ranges || []) {
    const font = state.fonts.get(r);
    if (font) node.setRangeFontName(r.start, r.end, font);
    if (finite(r.fontSize) && r.fontSize > 0) node.setRangeFontSize(r.start, r.end, r.fontSize);
    if (Array.isArray(r.fills)) node.setRangeFills(r.start, r.end, paints(r.fills, state));
    if (r.textDecoration) node.setRangeTextDecoration(r.start, r.end, r.textDecoration);
    if (r.textCase) node.setRangeTextCase(r.start, r.end, r.textCase);
    if (finite(r.letterSpacing)) node.setRangeLetterSpacing(r.start, r.end, { unit: "PIXELS", value: r.letterSpacing });
    if (r.url) node.setRangeHyperlink(r.start, r.end, { type: "URL", value: r.url });
  }
}

/** Builds one node (not its children). @param {any} spec @param {any} state @returns {Promise<SceneNode | null>} */
async function build(spec, state) {
  /** @type {any} */
  let node;
  if (spec.type === "SVG") {
    try {
      node = figma.createNodeFromSvg(spec.svg);
    } catch (err) {
      state.warnings.push("SVG " + spec.__path + " could not be read (" + errorText(err) + "): left out");
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
    if (spec.fills) node.fills = paints(spec.fills, state);
    styleRanges(node, spec, state);
    node.textAutoResize = spec.autoResize || "WIDTH_AND_HEIGHT";
    if (node.textAutoResize === "HEIGHT") node.resize(Math.max(spec.width, 1), Math.max(spec.height, 1));
  } else {
    node = figma.createFrame();
    node.clipsContent = Boolean(spec.clipsContent);
    if (finite(spec.cornerRadius)) node.cornerRadius = spec.cornerRadius;
    if (Array.isArray(spec.cornerRadii)) CORNERS.forEach((k, i) => (node[k] = spec.cornerRadii[i]));
    if (spec.strokes) {
      node.strokes = paints(spec.strokes, state);
      node.strokeAlign = "INSIDE";
      if (finite(spec.strokeWeight)) node.strokeWeight = spec.strokeWeight;
      if (Array.isArray(spec.strokeWeights)) ["strokeTopWeight", "strokeRightWeight", "strokeBottomWeight", "strokeLeftWeight"].forEach((k, i) => (node[k] = spec.strokeWeights[i]));
      if (Array.isArray(spec.dashPattern)) node.dashPattern = spec.dashPattern;
    }
    if (spec.layout) {
      node.layoutMode = spec.layout.mode;
      node.primaryAxisSizingMode = "FIXED";
      node.counterAxisSizingMode = "FIXED";
      node.itemSpacing = spec.layout.itemSpacing;
      PADDINGS.forEach((k) => (node[k] = spec.layout[k]));
      node.primaryAxisAlignItems = spec.layout.primaryAxisAlignItems;
      node.counterAxisAlignItems = spec.layout.counterAxisAlignItems;
      if (spec.layout.wrap) {
        node.layoutWrap = "WRAP";
        if (finite(spec.layout.counterAxisSpacing)) node.counterAxisSpacing = spec.layout.counterAxisSpacing;
      }
    }
    node.resize(Math.max(spec.width, 0.01), Math.max(spec.height, 0.01));
    if (spec.fills) node.fills = paints(spec.fills, state);
  }
  node.name = String(spec.name || spec.type);
  if (Array.isArray(spec.effects)) node.effects = spec.effects.map(effect);
  if (finite(spec.opacity)) node.opacity = spec.opacity;
  if (spec.blendMode) node.blendMode = spec.blendMode;
  for (const [field, id] of Object.entries(spec.bound || {})) {
    const variable = state.variables.get(id);
    if (field === "cornerRadius") CORNERS.forEach((k) => node.setBoundVariable(k, variable));
    else node.setBoundVariable(field, variable);
  }
  // The editor turns a layer about its top-left corner, which the spec places: turn first, then place.
  if (finite(spec.rotation) && spec.rotation) node.rotation = spec.rotation;
  node.x = spec.x || 0;
  node.y = spec.y || 0;
  state.done += 1;
  const now = Date.now();
  if (state.done - state.reported >= PROGRESS_EVERY_LAYERS || now - state.reportedAt >= PROGRESS_EVERY_MS) {
    state.reported = state.done;
    state.reportedAt = now;
    await state.ctx.progress(state.done, state.total, "Built " + state.done + " of " + state.total + " layers");
  }
  return node;
}

/** How many spec nodes a subtree holds. @param {any} spec @returns {number} */
const sizeOf = (spec) => 1 + (spec.children || []).reduce((/** @type {number} */ n, /** @type {any} */ c) => n + sizeOf(c), 0);

/** Builds a spec node and its subtree inside `parent`. @param {any} parent @param {any} spec @param {any} state */
async function buildInto(parent, spec, state) {
  const component = typeof spec.component === "string" ? state.components.get(spec.component) : null;
  const node = component ? await instanceOf(component, spec, state) : await build(spec, state);
  if (!node) return;
  if (component) {
    node.name = String(spec.name || component.name);
    node.x = spec.x || 0;
    node.y = spec.y || 0;
    state.done += sizeOf(spec);
  }
  parent.appendChild(node);
  if (parent.layoutMode && parent.layoutMode !== "NONE") {
    if (spec.absolute) {
      // Placed over the box, out of its flow (a background icon, a border side): where the spec puts it.
      /** @type {any} */ (node).layoutPositioning = "ABSOLUTE";
      node.x = spec.x || 0;
      node.y = spec.y || 0;
    } else if (spec.type !== "TEXT" || component) {
      /** @type {any} */ (node).layoutSizingHorizontal = "FIXED";
      /** @type {any} */ (node).layoutSizingVertical = "FIXED";
    }
  }
  if (!component) for (const child of spec.children || []) await buildInto(node, child, state);
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
