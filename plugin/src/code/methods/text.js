import { PluginError, badParams } from "../errors.js";
import { getNode, requireType, summarize } from "../nodes.js";
import { optNumber, optString } from "../params.js";

const WEIGHT_STYLES = /** @type {Record<number, string>} */ ({
  100: "Thin",
  200: "Extra Light",
  300: "Light",
  400: "Regular",
  500: "Medium",
  600: "Semi Bold",
  700: "Bold",
  800: "Extra Bold",
  900: "Black",
});

/** Loads every font a text node uses; text cannot change before its fonts are loaded. @param {TextNode} node */
export async function loadFontsOf(node) {
  const fonts = node.characters.length ? node.getRangeAllFontNames(0, node.characters.length) : [];
  if (node.fontName !== figma.mixed) fonts.push(node.fontName);
  for (const font of fonts) await figma.loadFontAsync(font);
}

/** "semibold", "SemiBold", "semi-bold" → "Semi Bold". @param {string} style */
export function normaliseStyle(style) {
  const key = style.replace(/[\s_-]+/g, "").toLowerCase();
  const names = ["Thin", "Extra Light", "Light", "Regular", "Medium", "Semi Bold", "Bold", "Extra Bold", "Black", "Italic", "Bold Italic"];
  const hit = names.find((n) => n.replace(/\s/g, "").toLowerCase() === key);
  return hit || style;
}

/**
 * Finds a loadable font for the wanted family and style: exact, then the normalised style name, then the family's
 * closest style, then Regular. Fails with the family's available styles when none load.
 * @param {string} family @param {string} style
 * @returns {Promise<FontName>}
 */
export async function resolveFont(family, style) {
  const candidates = [style, normaliseStyle(style)];
  const available = await figma.listAvailableFontsAsync();
  const styles = available.filter((f) => f.fontName.family === family).map((f) => f.fontName.style);
  if (!styles.length) {
    throw new PluginError("font_unavailable", "Font family '" + family + "' is not available in this editor. Pick an installed family (for example Inter).");
  }
  const squash = (/** @type {string} */ s) => s.replace(/[\s_-]+/g, "").toLowerCase();
  const close = styles.find((s) => squash(s) === squash(style));
  if (close) candidates.push(close);
  candidates.push("Regular");
  for (const candidate of candidates) {
    if (styles.indexOf(candidate) < 0) continue;
    const font = { family: family, style: candidate };
    await figma.loadFontAsync(font);
    return font;
  }
  throw new PluginError("font_unavailable", "Style '" + style + "' of " + family + " is not available. Its styles: " + styles.join(", ") + ".");
}

/** SET_TEXT_CONTENT */
export async function setTextContent(/** @type {any} */ params) {
  const node = await getNode(params.nodeId);
  requireType(node, ["TEXT"], "set text");
  const text = /** @type {TextNode} */ (node);
  if (typeof params.text !== "string") throw badParams("Parameter 'text' is required and must be a string.");
  const fontSize = optNumber(params, "fontSize", undefined, { min: 1, max: 1000 });
  const family = optString(params, "fontFamily");
  let style = optString(params, "fontStyle");
  const weight = optNumber(params, "fontWeight", undefined, { min: 100, max: 900 });
  if (!style && weight !== undefined) style = WEIGHT_STYLES[Math.round(weight / 100) * 100];
  await loadFontsOf(text);
  if (family || style) {
    const current = text.fontName === figma.mixed ? { family: "Inter", style: "Regular" } : text.fontName;
    const font = await resolveFont(family || current.family, style || current.style);
    text.fontName = font;
  }
  text.characters = params.text;
  if (fontSize !== undefined) text.fontSize = fontSize;
  return { success: true, node: Object.assign(summarize(text), { characters: text.characters, fontName: text.fontName, fontSize: text.fontSize }) };
}
