import { badParams } from "./errors.js";

const COLOR_FORMS = "#RGB, #RGBA, #RRGGBB, #RRGGBBAA, rgb(r, g, b) or rgba(r, g, b, a)";

/**
 * Parses a colour as people write it: hex (#RGB, #RGBA, #RRGGBB, #RRGGBBAA, the # optional) or CSS rgb()/rgba()
 * with 0–255 or percentage channels and a 0–1 or percentage alpha (comma or space separated, `/ alpha` too).
 * @param {unknown} value
 * @param {string} [what] parameter name for the error
 * @returns {{r: number, g: number, b: number, a: number}}
 */
export function parseColorString(value, what) {
  const label = what || "color";
  if (typeof value !== "string") throw badParams("'" + label + "' must be a colour string such as \"#1E88E5\" (" + COLOR_FORMS + ").");
  const text = value.trim();
  if (/^rgba?\(/i.test(text)) return parseRgb(text, label);
  let hex = text.replace(/^#/, "");
  if (!/^[0-9a-fA-F]+$/.test(hex) || [3, 4, 6, 8].indexOf(hex.length) < 0) {
    throw badParams("'" + label + "' is not a hex colour: " + JSON.stringify(value) + ". Use " + COLOR_FORMS + ".");
  }
  if (hex.length <= 4) {
    hex = hex
      .split("")
      .map((c) => c + c)
      .join("");
  }
  const channel = (/** @type {number} */ i) => parseInt(hex.slice(i, i + 2), 16) / 255;
  return { r: channel(0), g: channel(2), b: channel(4), a: hex.length === 8 ? channel(6) : 1 };
}

/** @param {string} text @param {string} label */
function parseRgb(text, label) {
  const fail = () => badParams("'" + label + "' is not a valid rgb()/rgba() colour: " + JSON.stringify(text) + ". Use " + COLOR_FORMS + ".");
  const m = /^rgba?\(\s*([^)]*?)\s*\)$/i.exec(text);
  if (!m) throw fail();
  const slash = m[1].split("/");
  if (slash.length > 2) throw fail();
  const parts = slash[0].trim().split(/\s*,\s*|\s+/).filter((p) => p !== "");
  if (slash.length === 2) parts.push(slash[1].trim());
  if (parts.length !== 3 && parts.length !== 4) throw fail();
  /** @param {string} part @param {number} scale @returns {number} */
  const read = (part, scale) => {
    const pct = /%$/.test(part);
    const n = Number(pct ? part.slice(0, -1) : part);
    if (part === "" || !isFinite(n)) throw fail();
    const x = pct ? n / 100 : n / scale;
    if (x < 0 || x > 1) throw fail();
    return x;
  };
  return { r: read(parts[0], 255), g: read(parts[1], 255), b: read(parts[2], 255), a: parts.length === 4 ? read(parts[3], 1) : 1 };
}

/**
 * Accepts a colour string (hex, rgb(), rgba()) or an {r,g,b[,a]} object with channels in 0..1.
 * @param {unknown} value
 * @param {string} [what]
 */
export function parseColor(value, what) {
  if (typeof value === "string") return parseColorString(value, what);
  const v = /** @type {any} */ (value);
  const unit = (/** @type {unknown} */ c) => typeof c === "number" && c >= 0 && c <= 1;
  if (v && typeof v === "object" && [v.r, v.g, v.b].every(unit) && (v.a === undefined || unit(v.a))) {
    return { r: v.r, g: v.g, b: v.b, a: typeof v.a === "number" ? v.a : 1 };
  }
  throw badParams("'" + (what || "color") + "' must be a hex colour string (\"#RRGGBB\"), rgb()/rgba(), or {r,g,b,a} with channels 0..1.");
}

/** @param {{r: number, g: number, b: number, a?: number}} c */
export function toHex(c) {
  const part = (/** @type {number} */ x) => ("0" + Math.round(Math.max(0, Math.min(1, x)) * 255).toString(16)).slice(-2);
  const alpha = c.a === undefined || c.a >= 1 ? "" : part(c.a);
  return ("#" + part(c.r) + part(c.g) + part(c.b) + alpha).toUpperCase();
}

/** @param {{r: number, g: number, b: number}} c relative luminance per WCAG 2.2 (sRGB linearisation threshold 0.04045) */
export function luminance(c) {
  const lin = (/** @type {number} */ x) => (x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4));
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** @param {{r: number, g: number, b: number}} a @param {{r: number, g: number, b: number}} b */
export function contrastRatio(a, b) {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/**
 * A solid paint from a hex colour (alpha becomes the paint's opacity).
 * @param {unknown} color @param {number} [opacity] @param {string} [what]
 * @returns {SolidPaint}
 */
export function solidPaint(color, opacity, what) {
  const c = parseColor(color, what);
  return { type: "SOLID", color: { r: c.r, g: c.g, b: c.b }, opacity: opacity === undefined ? c.a : opacity };
}
