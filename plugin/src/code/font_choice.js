import { PluginError } from "./errors.js";

/** The font a text gets when neither its stack nor its generic class has a font installed here. */
export const FALLBACK_FAMILY = "Inter";

/**
 * Families commonly installed for each CSS generic class, tried in order when none of a text's own families is:
 * a serif stack stays serif, a monospace one monospace.
 */
const GENERIC_FAMILIES = {
  serif: ["Georgia", "Times New Roman", "Times", "Noto Serif", "Source Serif 4", "Source Serif Pro", "PT Serif", "Merriweather", "Lora", "Libre Baskerville", "IBM Plex Serif", "Roboto Serif", "EB Garamond", "Playfair Display"],
  "sans-serif": ["Inter", "Roboto", "Helvetica Neue", "Helvetica", "Arial", "Noto Sans", "Open Sans", "Source Sans 3", "Source Sans Pro"],
  monospace: ["Roboto Mono", "Source Code Pro", "JetBrains Mono", "IBM Plex Mono", "Fira Code", "Fira Mono", "SF Mono", "Menlo", "Monaco", "Consolas", "Courier New", "Ubuntu Mono", "Inconsolata", "Space Mono", "DM Mono"],
  cursive: ["Comic Sans MS", "Caveat", "Dancing Script", "Pacifico", "Brush Script MT"],
  fantasy: ["Impact", "Bebas Neue", "Papyrus"],
};

/** Weight words of style names ("Semi Bold", "SemiBold", "Demibold"…), as numbers. */
const WEIGHT_WORDS = [
  [/hairline|thin/, 100],
  [/extra ?light|ultra ?light/, 200],
  [/light/, 300],
  [/medium/, 500],
  [/semi ?bold|demi ?bold/, 600],
  [/extra ?bold|ultra ?bold/, 800],
  [/bold/, 700],
  [/black|heavy/, 900],
];

/** A style name's weight and slant. @param {string} style */
function styleOf(style) {
  const s = style.toLowerCase();
  const found = WEIGHT_WORDS.find(([re]) => /** @type {RegExp} */ (re).test(s));
  return { weight: found ? /** @type {number} */ (found[1]) : 400, italic: /italic|oblique/.test(s) };
}

/**
 * The installed style of `styles` nearest to `weight` and `italic`: the same slant first, then the nearest weight
 * (a tie goes to the bolder one above 400, the lighter one below, as CSS picks).
 * @param {string[]} styles @param {number} weight @param {boolean} italic
 */
function nearestStyle(styles, weight, italic) {
  let best = styles[0];
  let bestScore = Infinity;
  for (const style of styles) {
    const s = styleOf(style);
    const towards = weight >= 400 ? s.weight >= weight : s.weight <= weight;
    const score = (s.italic === italic ? 0 : 10000) + Math.abs(s.weight - weight) * 2 + (towards ? 0 : 1);
    if (score < bestScore) {
      best = style;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Chooses and loads the font of every text and styled range of a tree. Each asks for {families, generic,
 * fontWeight, italic}: its first family installed here, else the first of its generic class, else the fallback,
 * in the installed style nearest its weight and slant. A stand-in is named in the warnings once per stack.
 * @param {any[]} asks
 * @returns {Promise<{byAsk: Map<any, FontName>, warnings: string[]}>}
 */
export async function chooseFonts(asks) {
  /** @type {Map<string, string[]>} */
  const installed = new Map();
  (await figma.listAvailableFontsAsync()).forEach((f) => {
    if (!installed.has(f.fontName.family)) installed.set(f.fontName.family, []);
    /** @type {string[]} */ (installed.get(f.fontName.family)).push(f.fontName.style);
  });
  /** @type {Map<string, Promise<boolean>>} */
  const loads = new Map();
  /** @param {FontName} font */
  const load = (font) => {
    const key = font.family + "\u0000" + font.style;
    if (!loads.has(key)) loads.set(key, figma.loadFontAsync(font).then(() => true, () => false));
    return /** @type {Promise<boolean>} */ (loads.get(key));
  };
  /** @type {Map<string, string>} */
  const substitutes = new Map();
  /** @type {Map<string, FontName>} */
  const chosen = new Map();
  /** @type {Map<any, FontName>} */
  const byAsk = new Map();
  for (const ask of asks) {
    const families = Array.isArray(ask.families) ? ask.families.map(String) : [];
    const generic = typeof ask.generic === "string" && ask.generic in GENERIC_FAMILIES ? ask.generic : "sans-serif";
    const weight = typeof ask.fontWeight === "number" && isFinite(ask.fontWeight) ? ask.fontWeight : 400;
    const italic = Boolean(ask.italic);
    const key = families.join(",") + "\u0000" + generic + "\u0000" + weight + "\u0000" + italic;
    let font = chosen.get(key);
    if (!font) {
      const own = families.find((f) => installed.has(f));
      const stand = own || /** @type {Record<string, string[]>} */ (GENERIC_FAMILIES)[generic].find((f) => installed.has(f));
      const family = stand || FALLBACK_FAMILY;
      if (!own) {
        const why = stand ? ", the first " + generic + " font installed" : "; no " + generic + " font is installed";
        substitutes.set(families.join(", ") || "(none)", family + " used instead" + why);
      }
      font = { family: family, style: nearestStyle(installed.get(family) || ["Regular"], weight, italic) };
      if (!(await load(font))) {
        font = { family: FALLBACK_FAMILY, style: "Regular" };
        if (!(await load(font))) throw new PluginError("font_unavailable", "Neither the page's fonts nor " + FALLBACK_FAMILY + " Regular can be loaded in this editor; install " + FALLBACK_FAMILY + " and retry.");
      }
      chosen.set(key, font);
    }
    byAsk.set(ask, font);
  }
  const warnings = [...substitutes].map(([stack, used]) => "font " + stack + " is not available here: " + used);
  return { byAsk: byAsk, warnings: warnings };
}
