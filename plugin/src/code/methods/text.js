import { PluginError, badParams, errorText } from "../errors.js";
import { getNode, requireType, summarize } from "../nodes.js";
import { optNumber, optString } from "../params.js";
import { cutText } from "../serialize.js";

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

/** Longest text a result repeats back (a previous text, for instance). */
const MAX_ECHO_CHARS = 200;

/**
 * Loads one font, or fails naming it (and the layer that needs it).
 * @param {FontName} font @param {BaseNode} [node]
 */
export async function loadFont(font, node) {
  try {
    await figma.loadFontAsync(font);
  } catch (err) {
    const layer = node ? " used by text layer '" + node.name + "' (" + node.id + ")" : "";
    throw new PluginError(
      "font_unavailable",
      "Font '" + font.family + " " + font.style + "'" + layer + " cannot be loaded in this editor (" + errorText(err) + "). " +
        "Install or enable it, or give the layer another font first (design_set_text with fontFamily/fontStyle).",
      { font: { family: font.family, style: font.style } },
    );
  }
}

/** Loads every font a text node uses; text cannot change before its fonts are loaded. @param {TextNode} node */
export async function loadFontsOf(node) {
  const fonts = node.characters.length ? node.getRangeAllFontNames(0, node.characters.length) : [];
  if (node.fontName !== figma.mixed) fonts.push(node.fontName);
  /** @type {Record<string, boolean>} */
  const seen = {};
  for (const font of fonts) {
    const key = font.family + "\u0000" + font.style;
    if (seen[key]) continue;
    seen[key] = true;
    await loadFont(font, node);
  }
}

/** A text's characters, shortened for a result. @param {string} text */
export function echoText(text) {
  return text.length > MAX_ECHO_CHARS ? cutText(text, MAX_ECHO_CHARS) + "… (" + text.length + " characters)" : text;
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
    await loadFont(font);
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
  const previous = {
    characters: echoText(text.characters),
    fontName: text.fontName === figma.mixed ? "mixed" : text.fontName,
    fontSize: text.fontSize === figma.mixed ? "mixed" : text.fontSize,
  };
  // A new font for the whole layer needs only itself loaded, so a layer whose font is missing can be repaired.
  /** @type {FontName | null} */
  let font = null;
  if (family || style) {
    const current = text.fontName === figma.mixed ? { family: "Inter", style: "Regular" } : text.fontName;
    font = await resolveFont(family || current.family, style || current.style);
  } else {
    await loadFontsOf(text);
  }
  if (font) text.fontName = font;
  text.characters = params.text;
  if (fontSize !== undefined) text.fontSize = fontSize;
  return {
    success: true,
    previous: previous,
    node: Object.assign(summarize(text), { characters: text.characters, fontName: text.fontName, fontSize: text.fontSize }),
  };
}
