/**
 * The colours a text is actually seen in: its fills and every layer behind it composited as the editor draws them
 * (normal blending, paint opacity, layer opacity, a layer with opacity drawn as one group), down to the page
 * background. Contrast checks measure these, not the raw fill values, which can differ a lot from what is shown.
 */

/** @typedef {{r: number, g: number, b: number, a: number}} Rgba */
/** @typedef {{x: number, y: number, width: number, height: number}} Box */
/** @typedef {{approximate: string[], unknown: string[]}} Notes what made the result uncertain, by node name */

/** @type {Rgba} */
const CLEAR = { r: 0, g: 0, b: 0, a: 0 };
/** @type {Rgba} */
const WHITE = { r: 1, g: 1, b: 1, a: 1 };
/** Blend modes that draw a paint or layer plainly over what is behind it. */
const PLAIN_BLENDS = ["NORMAL", "PASS_THROUGH"];

/**
 * `top` drawn over `bottom` (source-over, straight alpha).
 * @param {Rgba} top @param {Rgba} bottom @returns {Rgba}
 */
export function over(top, bottom) {
  const a = top.a + bottom.a * (1 - top.a);
  if (a <= 0) return CLEAR;
  const mix = (/** @type {number} */ t, /** @type {number} */ b) => (t * top.a + b * bottom.a * (1 - top.a)) / a;
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a: a };
}

/** @param {Rgba} c @param {number} opacity */
function faded(c, opacity) {
  return { r: c.r, g: c.g, b: c.b, a: c.a * opacity };
}

/**
 * One paint as a colour: a solid as it is, a gradient as the mean of its stops (approximate), an image or video
 * as null (its colour cannot be known here).
 * @param {any} paint @returns {{color: Rgba, exact: boolean} | null}
 */
function paintColor(paint) {
  const opacity = typeof paint.opacity === "number" ? paint.opacity : 1;
  const plain = !paint.blendMode || PLAIN_BLENDS.indexOf(paint.blendMode) >= 0;
  if (paint.type === "SOLID") {
    const c = paint.color;
    return { color: { r: c.r, g: c.g, b: c.b, a: (typeof c.a === "number" ? c.a : 1) * opacity }, exact: plain };
  }
  if (typeof paint.type === "string" && paint.type.indexOf("GRADIENT") === 0 && Array.isArray(paint.gradientStops) && paint.gradientStops.length) {
    const stops = paint.gradientStops;
    const mean = (/** @type {"r"|"g"|"b"|"a"} */ k) => stops.reduce((s, /** @type {any} */ st) => s + (k === "a" && typeof st.color.a !== "number" ? 1 : st.color[k]), 0) / stops.length;
    return { color: { r: mean("r"), g: mean("g"), b: mean("b"), a: mean("a") * opacity }, exact: false };
  }
  return null;
}

/**
 * A node's own fills stacked bottom to top (the last paint of the list is drawn on top).
 * @param {any} node @param {Notes} notes @returns {Rgba | null} null when its fills are mixed (text ranges)
 */
export function fillsColor(node, notes) {
  if (!Array.isArray(node.fills)) return node.fills === undefined ? CLEAR : null;
  let color = CLEAR;
  node.fills.forEach((/** @type {any} */ paint) => {
    if (paint.visible === false) return;
    const p = paintColor(paint);
    if (!p) {
      notes.unknown.push(node.name);
      return;
    }
    if (!p.exact) notes.approximate.push(node.name);
    color = over(p.color, color);
  });
  return color;
}

/** Bounds in page coordinates. @param {any} node @returns {Box} */
export function boxOf(node) {
  const b = node.absoluteBoundingBox;
  return b ? b : { x: node.x || 0, y: node.y || 0, width: node.width || 0, height: node.height || 0 };
}

/** @param {Box} outer @param {Box} inner */
function covers(outer, inner) {
  const e = 0.01;
  return outer.x <= inner.x + e && outer.y <= inner.y + e && outer.x + outer.width >= inner.x + inner.width - e && outer.y + outer.height >= inner.y + inner.height - e;
}

/** @param {any} node */
function visible(node) {
  return node.visible !== false && (typeof node.opacity !== "number" || node.opacity > 0);
}

/** @param {any} node */
function opacityOf(node) {
  return typeof node.opacity === "number" ? node.opacity : 1;
}

/**
 * What `node` paints over all of `area` (its fills, then its children that cover the area), before its own layer
 * opacity. Text layers are not a backdrop: glyphs do not cover an area.
 * @param {any} node @param {Box} area @param {Notes} notes @returns {Rgba}
 */
function paintedOver(node, area, notes) {
  let color = node.type === "TEXT" ? CLEAR : fillsColor(node, notes) || CLEAR;
  if (node.blendMode && PLAIN_BLENDS.indexOf(node.blendMode) < 0) notes.approximate.push(node.name);
  (node.children || []).forEach((/** @type {any} */ child) => {
    if (visible(child) && child.type !== "TEXT" && covers(boxOf(child), area)) color = over(faded(paintedOver(child, area, notes), opacityOf(child)), color);
  });
  return color;
}

/** The page's background colour, white when it has none. */
function pageBackground() {
  const page = /** @type {any} */ (figma.currentPage);
  const bg = Array.isArray(page.backgrounds) ? page.backgrounds.filter((/** @type {any} */ p) => p.visible !== false && p.type === "SOLID") : [];
  if (!bg.length) return WHITE;
  const c = bg[bg.length - 1].color;
  return over({ r: c.r, g: c.g, b: c.b, a: typeof bg[bg.length - 1].opacity === "number" ? bg[bg.length - 1].opacity : 1 }, WHITE);
}

/**
 * The colours a text is seen in: `foreground` where its glyphs are and `background` right beside them, both
 * opaque, after compositing the text's fills and opacity, the layers behind it that cover its bounds (siblings
 * below it, then each ancestor's fills and lower children, each with its layer opacity), and the page.
 * Null when the text's fills are mixed or it has no visible fill.
 * @param {any} text
 * @returns {{foreground: Rgba, background: Rgba, approximate: string[], unknown: string[]} | null}
 */
export function renderedTextColors(text) {
  /** @type {Notes} */
  const notes = { approximate: [], unknown: [] };
  const own = fillsColor(text, notes);
  // Text nobody can see has no contrast to check.
  if (!own || own.a <= 0 || opacityOf(text) <= 0) return null;
  const area = boxOf(text);
  // The content of `child` after its layer opacity, with the glyphs and without them; each step wraps both in the
  // next ancestor's group, over what that ancestor paints below the child.
  let withText = faded(own, opacityOf(text));
  /** @type {Rgba} */
  let without = CLEAR;
  let child = text;
  let parent = text.parent;
  while (parent && parent.type !== "PAGE" && parent.type !== "DOCUMENT") {
    let below = fillsColor(parent, notes) || CLEAR;
    const siblings = parent.children || [];
    for (let i = 0; i < siblings.length && siblings[i] !== child; i++) {
      const s = siblings[i];
      if (visible(s) && s.type !== "TEXT" && covers(boxOf(s), area)) below = over(faded(paintedOver(s, area, notes), opacityOf(s)), below);
    }
    const o = opacityOf(parent);
    if (o <= 0) return null;
    withText = faded(over(withText, below), o);
    without = faded(over(without, below), o);
    child = parent;
    parent = parent.parent;
  }
  const page = pageBackground();
  return { foreground: over(withText, page), background: over(without, page), approximate: notes.approximate, unknown: notes.unknown };
}
