import { badParams, unsupported } from "../errors.js";
import { getNode, requireType, summarize, describeTree } from "../nodes.js";
import { reqString, optNumber, reqArray, optEnum, reqNumber, optString } from "../params.js";
import { solidPaint } from "../colors.js";
import { resolveFont } from "./text.js";

const TRANSITIONS = /** @type {const} */ (["NONE", "DISSOLVE", "SLIDE_FROM_LEFT", "SLIDE_FROM_RIGHT", "SLIDE_FROM_TOP", "SLIDE_FROM_BOTTOM", "PUSH_FROM_LEFT", "PUSH_FROM_RIGHT", "PUSH_FROM_TOP", "PUSH_FROM_BOTTOM", "MOVE_FROM_LEFT", "MOVE_FROM_RIGHT", "MOVE_FROM_TOP", "MOVE_FROM_BOTTOM", "SLIDE_OUT_TO_LEFT", "SLIDE_OUT_TO_RIGHT", "SLIDE_OUT_TO_TOP", "SLIDE_OUT_TO_BOTTOM", "MOVE_OUT_TO_LEFT", "MOVE_OUT_TO_RIGHT", "MOVE_OUT_TO_TOP", "MOVE_OUT_TO_BOTTOM", "SMART_ANIMATE"]);
const CURVES = /** @type {const} */ (["LINEAR", "EASE_IN", "EASE_OUT", "EASE_IN_AND_OUT", "GENTLE", "QUICK", "BOUNCY", "SLOW"]);

/** @param {string} method */
function requireSlides(method) {
  if (figma.editorType !== "slides" || typeof figma.getSlideGrid !== "function") throw unsupported(method, "slides");
}

/** @param {any} params @param {string} method @returns {Promise<SlideNode>} */
async function getSlide(params, method) {
  requireSlides(method);
  const node = await getNode(params.slideId, "slideId");
  requireType(node, ["SLIDE"], method);
  return /** @type {SlideNode} */ (node);
}

/**
 * A slide's words in reading order (top to bottom, then left to right); the title is the text set largest (the
 * first of equals), the rest its text.
 * @param {any} slide @returns {{title: string|null, text: string[]}}
 */
export function outlineOf(slide) {
  /** @type {any[]} */
  const texts = [];
  /** @param {any} node */
  const walk = (node) => {
    if (node.type === "TEXT" && node.visible !== false && node.characters) texts.push(node);
    if (Array.isArray(node.children)) node.children.forEach(walk);
  };
  (slide.children || []).forEach(walk);
  const at = (/** @type {any} */ n) => (n.absoluteTransform ? [n.absoluteTransform[1][2], n.absoluteTransform[0][2]] : [n.y, n.x]);
  texts.sort((a, b) => at(a)[0] - at(b)[0] || at(a)[1] - at(b)[1]);
  const size = (/** @type {any} */ n) => (typeof n.fontSize === "number" ? n.fontSize : 0);
  let title = null;
  for (const t of texts) if (!title || size(t) > size(title)) title = t;
  return { title: title ? title.characters : null, text: texts.filter((t) => t !== title).map((t) => t.characters) };
}

/** LIST_SLIDES: the deck as an outline, in slide order. */
export async function listSlides() {
  requireSlides("LIST_SLIDES");
  const slides = [];
  const grid = figma.getSlideGrid();
  for (let r = 0; r < grid.length; r++) {
    for (let c = 0; c < grid[r].length; c++) {
      const s = grid[r][c];
      const outline = outlineOf(s);
      slides.push({ id: s.id, name: s.name, row: r, col: c, isSkipped: s.isSkippedSlide, title: outline.title, text: outline.text });
    }
  }
  return { success: true, slides: slides, count: slides.length };
}

/** GET_SLIDE_CONTENT */
export async function getSlideContent(/** @type {any} */ params) {
  const slide = await getSlide(params, "GET_SLIDE_CONTENT");
  const outline = outlineOf(slide);
  return { success: true, id: slide.id, name: slide.name, title: outline.title, text: outline.text, slide: describeTree(slide, 8) };
}

/** GET_SLIDE_GRID */
export async function getSlideGrid() {
  requireSlides("GET_SLIDE_GRID");
  return { success: true, grid: figma.getSlideGrid().map((row) => row.map((s) => s.id)) };
}

/** CREATE_SLIDE */
export async function createSlide(/** @type {any} */ params) {
  requireSlides("CREATE_SLIDE");
  const row = optNumber(params, "row", undefined, { min: 0 });
  const col = optNumber(params, "col", undefined, { min: 0 });
  const slide = row === undefined ? figma.createSlide() : figma.createSlide(row, col === undefined ? 0 : col);
  return { success: true, slide: summarize(slide) };
}

/** DELETE_SLIDE */
export async function deleteSlide(/** @type {any} */ params) {
  const slide = await getSlide(params, "DELETE_SLIDE");
  const info = { id: slide.id, name: slide.name };
  slide.remove();
  return { success: true, deleted: info };
}

/** DUPLICATE_SLIDE */
export async function duplicateSlide(/** @type {any} */ params) {
  const slide = await getSlide(params, "DUPLICATE_SLIDE");
  return { success: true, slide: summarize(slide.clone()), sourceId: slide.id };
}

/** REORDER_SLIDES: the new grid must name every slide exactly once. */
export async function reorderSlides(/** @type {any} */ params) {
  requireSlides("REORDER_SLIDES");
  const grid = reqArray(params, "grid");
  const current = figma.getSlideGrid().reduce((/** @type {string[]} */ all, row) => all.concat(row.map((s) => s.id)), []);
  const given = [];
  const rows = [];
  for (let r = 0; r < grid.length; r++) {
    if (!Array.isArray(grid[r])) throw badParams("grid[" + r + "] must be an array of slide ids.");
    const row = [];
    for (const id of grid[r]) {
      const s = await getNode(id, "grid[" + r + "][]");
      requireType(s, ["SLIDE"], "reorder it");
      row.push(/** @type {SlideNode} */ (s));
      given.push(id);
    }
    rows.push(row);
  }
  // Checked before anything moves: a grid that drops or repeats a slide changes nothing.
  const missing = current.filter((id) => given.indexOf(id) < 0);
  const repeated = given.filter((id, i) => given.indexOf(id) !== i);
  if (missing.length || repeated.length || given.length !== current.length) {
    throw badParams(
      "The grid must list every slide exactly once; missing: " + (missing.join(", ") || "none") + "; repeated: " + (repeated.join(", ") || "none") + ".",
    );
  }
  figma.setSlideGrid(rows);
  return { success: true, grid: figma.getSlideGrid().map((row) => row.map((s) => s.id)) };
}

/** SET_SLIDE_TRANSITION */
export async function setSlideTransition(/** @type {any} */ params) {
  const slide = await getSlide(params, "SET_SLIDE_TRANSITION");
  const style = optEnum(params, "style", TRANSITIONS, undefined);
  if (!style) throw badParams("Parameter 'style' is required: one of " + TRANSITIONS.join(", ") + ".");
  const duration = optNumber(params, "duration", 0.4, { min: 0.01, max: 10 });
  const curve = optEnum(params, "curve", CURVES, "EASE_IN_AND_OUT");
  slide.setSlideTransition(/** @type {any} */ ({ style: style, duration: duration, curve: curve, timing: { type: "ON_CLICK" } }));
  return { success: true, slideId: slide.id, transition: slide.getSlideTransition() };
}

/** GET_SLIDE_TRANSITION */
export async function getSlideTransition(/** @type {any} */ params) {
  const slide = await getSlide(params, "GET_SLIDE_TRANSITION");
  return { success: true, slideId: slide.id, transition: slide.getSlideTransition() };
}

/** SET_SLIDES_VIEW_MODE */
export async function setSlidesViewMode(/** @type {any} */ params) {
  requireSlides("SET_SLIDES_VIEW_MODE");
  const mode = optEnum(params, "mode", /** @type {const} */ (["grid", "single-slide"]), undefined);
  if (!mode) throw badParams("Parameter 'mode' is required: grid or single-slide.");
  figma.viewport.slidesView = mode;
  return { success: true, mode: figma.viewport.slidesView };
}

/** GET_FOCUSED_SLIDE */
export async function getFocusedSlide() {
  requireSlides("GET_FOCUSED_SLIDE");
  const slide = figma.currentPage.focusedSlide;
  return { success: true, slide: slide ? summarize(slide) : null };
}

/** FOCUS_SLIDE */
export async function focusSlide(/** @type {any} */ params) {
  const slide = await getSlide(params, "FOCUS_SLIDE");
  figma.currentPage.focusedSlide = slide;
  return { success: true, slide: summarize(slide) };
}

/** SKIP_SLIDE */
export async function skipSlide(/** @type {any} */ params) {
  const slide = await getSlide(params, "SKIP_SLIDE");
  if (typeof params.skip !== "boolean") throw badParams("Parameter 'skip' is required: true or false.");
  slide.isSkippedSlide = params.skip;
  return { success: true, slideId: slide.id, isSkipped: slide.isSkippedSlide };
}

/** ADD_TEXT_TO_SLIDE */
export async function addTextToSlide(/** @type {any} */ params) {
  const slide = await getSlide(params, "ADD_TEXT_TO_SLIDE");
  const text = reqString(params, "text");
  const font = await resolveFont(optString(params, "fontFamily", "Inter") || "Inter", optString(params, "fontStyle", "Regular") || "Regular");
  const node = figma.createText();
  try {
    slide.appendChild(node);
    node.fontName = font;
    node.characters = text;
    node.fontSize = /** @type {number} */ (optNumber(params, "fontSize", 24, { min: 1, max: 1000 }));
    node.x = /** @type {number} */ (optNumber(params, "x", 100));
    node.y = /** @type {number} */ (optNumber(params, "y", 100));
    if (params.color) node.fills = [solidPaint(params.color, undefined, "color")];
    const align = optEnum(params, "textAlign", /** @type {const} */ (["LEFT", "CENTER", "RIGHT"]), undefined);
    if (align) node.textAlignHorizontal = align;
    const width = optNumber(params, "width", undefined, { min: 1, max: 10000 });
    if (width) {
      node.textAutoResize = "HEIGHT";
      node.resize(width, node.height);
    }
    const lineHeight = optNumber(params, "lineHeight", undefined, { min: 1, max: 500 });
    if (lineHeight) node.lineHeight = { value: lineHeight, unit: "PIXELS" };
    const spacing = optNumber(params, "letterSpacing", undefined);
    if (spacing !== undefined) node.letterSpacing = { value: spacing, unit: "PIXELS" };
    const textCase = optEnum(params, "textCase", /** @type {const} */ (["ORIGINAL", "UPPER", "LOWER", "TITLE"]), undefined);
    if (textCase) node.textCase = textCase;
  } catch (err) {
    node.remove();
    throw err;
  }
  return { success: true, node: summarize(node), slideId: slide.id };
}

/** ADD_SHAPE_TO_SLIDE */
export async function addShapeToSlide(/** @type {any} */ params) {
  const slide = await getSlide(params, "ADD_SHAPE_TO_SLIDE");
  const type = optEnum(params, "shapeType", /** @type {const} */ (["RECTANGLE", "ELLIPSE"]), undefined);
  if (!type) throw badParams("Parameter 'shapeType' is required: RECTANGLE or ELLIPSE.");
  const x = reqNumber(params, "x");
  const y = reqNumber(params, "y");
  const w = reqNumber(params, "width", { min: 1, max: 10000 });
  const h = reqNumber(params, "height", { min: 1, max: 10000 });
  const paint = solidPaint(params.fillColor || "#CCCCCC", undefined, "fillColor");
  const node = type === "RECTANGLE" ? figma.createRectangle() : figma.createEllipse();
  slide.appendChild(node);
  node.x = x;
  node.y = y;
  node.resize(w, h);
  node.fills = [paint];
  return { success: true, node: summarize(node), slideId: slide.id };
}

/** SET_SLIDE_BACKGROUND */
export async function setSlideBackground(/** @type {any} */ params) {
  const slide = await getSlide(params, "SET_SLIDE_BACKGROUND");
  slide.fills = [solidPaint(reqString(params, "color"), undefined, "color")];
  return { success: true, slideId: slide.id };
}

/** GET_TEXT_STYLES */
export async function getTextStyles() {
  const styles = await figma.getLocalTextStylesAsync();
  return {
    success: true,
    styles: styles.map((s) => ({ id: s.id, name: s.name, key: s.key, fontName: s.fontName, fontSize: s.fontSize, lineHeight: s.lineHeight, letterSpacing: s.letterSpacing, description: s.description })),
  };
}

