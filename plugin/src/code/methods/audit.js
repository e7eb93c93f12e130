import { getNode } from "../nodes.js";
import { optNumber } from "../params.js";
import { contrastRatio, toHex } from "../colors.js";
import { PluginError, badParams } from "../errors.js";
import { boxOf, renderedTextColors } from "../rendered.js";
import { READ_MAX_CHARS, childrenOf, resume, startPath } from "./layers.js";

/** Rule ids by group; a caller may name groups or single rules. */
export const RULE_GROUPS = {
  wcag: ["wcag-contrast", "wcag-text-size", "wcag-target-size"],
  "design-system": ["ds-hardcoded-color", "ds-detached-text-style", "ds-missing-style"],
  layout: ["layout-no-autolayout", "layout-empty-frame", "layout-subpixel"],
  "best-practice": ["bp-default-name", "bp-hidden-layer", "bp-empty-text"],
};
const ALL_RULES = Object.keys(RULE_GROUPS).reduce((/** @type {string[]} */ all, g) => all.concat(/** @type {any} */ (RULE_GROUPS)[g]), []);
const DEFAULT_NAME = /^(Frame|Rectangle|Ellipse|Group|Text|Line|Vector|Polygon|Star|Component|Instance|Section)( \d+)?$/;
/** Names of components people press, tick, type into or pick from. */
const INTERACTIVE_NAME = /button|link|checkbox|check box|radio|switch|toggle|input|text ?field|select|dropdown|tab\b|chip|menu ?item|slider|stepper|icon ?button/i;
/** WCAG 2.2 1.4.3: large text is at least 18 pt (24 px), or 14 pt (18.66 px) bold. */
const LARGE_TEXT_PX = 24;
const LARGE_BOLD_TEXT_PX = 18.66;
const BOLD_WEIGHT = 700;
/** Below this size text is hard to read on any screen; WCAG sets no minimum, so this is a warning. */
const MIN_TEXT_PX = 12;
/** WCAG 2.2 2.5.8 (Target Size, Minimum). */
const DEFAULT_TARGET_PX = 24;

/** @param {unknown} rules */
function selectRules(rules) {
  if (rules === undefined || rules === null) return ALL_RULES.slice();
  if (!Array.isArray(rules)) throw badParams("'rules' must be an array of rule ids or groups (" + Object.keys(RULE_GROUPS).join(", ") + ").");
  /** @type {string[]} */
  const out = [];
  rules.forEach((r) => {
    const group = /** @type {any} */ (RULE_GROUPS)[r];
    const ids = group || (ALL_RULES.indexOf(r) >= 0 ? [r] : null);
    if (!ids) throw badParams("Unknown rule '" + r + "'. Rules: " + ALL_RULES.join(", ") + "; groups: " + Object.keys(RULE_GROUPS).join(", ") + ".");
    ids.forEach((/** @type {string} */ id) => out.indexOf(id) < 0 && out.push(id));
  });
  return out;
}

/** @param {number} x a ratio shown to two decimals, never rounded up past the threshold it missed */
function shownRatio(x) {
  return Math.floor(x * 100) / 100;
}

/** @param {any} node */
function isLarge(node) {
  const size = node.fontSize === figma.mixed ? null : node.fontSize;
  const bold = node.fontWeight !== figma.mixed && typeof node.fontWeight === "number" && node.fontWeight >= BOLD_WEIGHT;
  return size !== null && (size >= LARGE_TEXT_PX || (bold && size >= LARGE_BOLD_TEXT_PX));
}

/**
 * The WCAG 1.4.3 contrast of a text as it is rendered. Null when it has no measurable colour (mixed or no fills).
 * @param {any} node
 */
export function textContrast(node) {
  const seen = renderedTextColors(node);
  if (!seen) return null;
  const ratio = contrastRatio(seen.foreground, seen.background);
  const required = isLarge(node) ? 3 : 4.5;
  /** @type {Record<string, any>} */
  const out = { ratio: ratio, required: required, foreground: toHex(seen.foreground), background: toHex(seen.background) };
  if (seen.unknown.length) out.unknownBehind = seen.unknown;
  if (seen.approximate.length) out.approximateBehind = seen.approximate;
  return out;
}

/**
 * A contrast result as a finding's fields and message, or null when it passes.
 * @param {Record<string, any>} c @returns {{severity: string, message: string} & Record<string, any> | null}
 */
function contrastFinding(c) {
  if (c.unknownBehind) {
    return { severity: "info", message: "Contrast cannot be measured: an image is behind the text (" + c.unknownBehind.join(", ") + "); check it by eye.", foreground: c.foreground };
  }
  if (c.ratio >= c.required) return null;
  /** @type {{severity: string, message: string} & Record<string, any>} */
  const f = {
    severity: "error",
    message: "Text contrast " + shownRatio(c.ratio).toFixed(2) + ":1 (" + c.foreground + " on " + c.background + " as rendered) is below " + c.required + ":1.",
    ratio: shownRatio(c.ratio),
    required: c.required,
    foreground: c.foreground,
    background: c.background,
  };
  if (c.approximateBehind) f.approximate = "gradients or blend modes behind (" + c.approximateBehind.join(", ") + ") were averaged";
  return f;
}

/** @param {any} node */
function isInteractive(node) {
  if (Array.isArray(node.reactions) && node.reactions.length > 0) return true;
  return (node.type === "INSTANCE" || node.type === "COMPONENT" || node.type === "COMPONENT_SET") && INTERACTIVE_NAME.test(node.name);
}

/** @param {any} paint */
function hardCoded(paint) {
  return paint.type === "SOLID" && paint.visible !== false && !(paint.boundVariables && paint.boundVariables.color);
}

/**
 * What the file offers to attach instead of raw values: colour variables and paint styles by hex, text styles by
 * font. Read once per lint.
 */
async function designSystem() {
  /** @type {Record<string, string>} */
  const colors = {};
  /** @type {Record<string, string>} */
  const fonts = {};
  const f = /** @type {any} */ (figma);
  if (f.variables && typeof f.variables.getLocalVariablesAsync === "function") {
    const collections = await f.variables.getLocalVariableCollectionsAsync();
    /** @type {Record<string, string>} */
    const defaultMode = {};
    collections.forEach((/** @type {any} */ c) => (defaultMode[c.id] = c.defaultModeId));
    (await f.variables.getLocalVariablesAsync("COLOR")).forEach((/** @type {any} */ v) => {
      const value = v.valuesByMode[defaultMode[v.variableCollectionId]];
      if (value && typeof value.r === "number") colors[toHex(value)] = colors[toHex(value)] || "variable '" + v.name + "'";
    });
  }
  if (typeof f.getLocalPaintStylesAsync === "function") {
    (await f.getLocalPaintStylesAsync()).forEach((/** @type {any} */ s) => {
      const p = s.paints && s.paints.length === 1 && s.paints[0];
      if (p && p.type === "SOLID") colors[toHex(Object.assign({ a: p.opacity }, p.color))] = colors[toHex(Object.assign({ a: p.opacity }, p.color))] || "style '" + s.name + "'";
    });
  }
  if (typeof f.getLocalTextStylesAsync === "function") {
    (await f.getLocalTextStylesAsync()).forEach((/** @type {any} */ s) => {
      if (s.fontName) fonts[fontKey(s.fontName, s.fontSize)] = s.name;
    });
  }
  return { colors: colors, fonts: fonts };
}

/** @param {any} fontName @param {any} size */
function fontKey(fontName, size) {
  return fontName.family + "|" + fontName.style + "|" + size;
}

/**
 * @typedef {{rules: string[], targetSize: number, system: {colors: Record<string, string>, fonts: Record<string, string>}, styles: Map<string, boolean>}} LintContext
 * @typedef {{rule: string, severity: string, message: string} & Record<string, any>} Finding
 */

/** Whether a style id still resolves; cached per lint. @param {LintContext} ctx @param {string} id */
async function styleExists(ctx, id) {
  if (!ctx.styles.has(id)) ctx.styles.set(id, !!(await figma.getStyleByIdAsync(id)));
  return ctx.styles.get(id);
}

/**
 * @param {any} node @param {LintContext} ctx
 * @param {(f: Finding) => void} report
 */
async function checkNode(node, ctx, report) {
  const on = (/** @type {string} */ r) => ctx.rules.indexOf(r) >= 0;
  if (node.type === "TEXT") {
    const size = node.fontSize === figma.mixed ? null : node.fontSize;
    if (on("wcag-contrast")) {
      const c = textContrast(node);
      const f = c && contrastFinding(c);
      if (f) report(Object.assign({ rule: "wcag-contrast", severity: f.severity, message: f.message }, f));
    }
    if (on("wcag-text-size") && size !== null && size < MIN_TEXT_PX) {
      report({ rule: "wcag-text-size", severity: "warning", message: "Font size " + size + " px is below " + MIN_TEXT_PX + " px." });
    }
    if (on("ds-detached-text-style") && !node.textStyleId && node.fontName && node.fontName !== figma.mixed) {
      const match = ctx.system.fonts[fontKey(node.fontName, size)];
      if (match) report({ rule: "ds-detached-text-style", severity: "warning", message: "Text matches text style '" + match + "' but is not attached to it; re-attach the style." });
      else report({ rule: "ds-detached-text-style", severity: "info", message: "Text does not use a text style." });
    }
    if (on("bp-empty-text") && typeof node.characters === "string" && node.characters.trim() === "") {
      report({ rule: "bp-empty-text", severity: "warning", message: "Text layer is empty." });
    }
  }
  if (on("wcag-target-size") && isInteractive(node) && (node.width < ctx.targetSize || node.height < ctx.targetSize)) {
    report({ rule: "wcag-target-size", severity: "error", message: "Interactive target " + Math.round(node.width) + "×" + Math.round(node.height) + " is smaller than " + ctx.targetSize + "×" + ctx.targetSize + " (WCAG 2.5.8)." });
  }
  if (on("ds-hardcoded-color")) {
    [["fills", "fillStyleId", "Fill"], ["strokes", "strokeStyleId", "Stroke"]].forEach(([prop, styleProp, label]) => {
      const paints = node[prop];
      if (!Array.isArray(paints) || (node[styleProp] && node[styleProp] !== figma.mixed)) return;
      paints.filter(hardCoded).forEach((/** @type {any} */ p) => {
        const hex = toHex(Object.assign({ a: p.opacity }, p.color));
        const match = ctx.system.colors[hex];
        report({ rule: "ds-hardcoded-color", severity: "warning", message: label + " " + hex + " is not bound to a variable or style" + (match ? "; it equals " + match + ", bind it." : "."), color: hex });
      });
    });
  }
  if (on("ds-missing-style")) {
    for (const prop of ["fillStyleId", "strokeStyleId", "textStyleId", "effectStyleId"]) {
      const id = node[prop];
      if (typeof id === "string" && id && !(await styleExists(ctx, id))) {
        report({ rule: "ds-missing-style", severity: "warning", message: prop.replace("StyleId", "") + " style " + id + " no longer exists (deleted or unpublished); attach a current style." });
      }
    }
  }
  if ((node.type === "FRAME" || node.type === "COMPONENT") && node.children) {
    if (on("layout-no-autolayout") && node.children.length > 1 && node.layoutMode === "NONE") {
      report({ rule: "layout-no-autolayout", severity: "info", message: "Frame with " + node.children.length + " children does not use auto layout." });
    }
    if (on("layout-empty-frame") && node.children.length === 0) report({ rule: "layout-empty-frame", severity: "info", message: "Frame is empty." });
  }
  if (on("layout-subpixel") && node.type !== "TEXT" && [node.x, node.y, node.width, node.height].some((v) => typeof v === "number" && Math.abs(v - Math.round(v)) > 0.01)) {
    report({ rule: "layout-subpixel", severity: "info", message: "Position or size is not on whole pixels (" + [node.x, node.y, node.width, node.height].map((v) => (typeof v === "number" ? +v.toFixed(2) : v)).join(", ") + ")." });
  }
  if (on("bp-default-name") && DEFAULT_NAME.test(node.name)) report({ rule: "bp-default-name", severity: "info", message: "Layer keeps its default name '" + node.name + "'." });
}

/** The most layers one paged LINT_DESIGN reply checks: a chunk of the walk costs the same on any size of file. */
const LINT_VISIT_MAX = 5000;

/**
 * LINT_DESIGN: findings in tree order, at most maxFindings of them; counts cover every finding of the layers checked.
 * Given `start` (**ours**: a position, `[]` for the beginning, then the `next` a reply answered), the walk is one
 * chunk: it resumes there, checks at most LINT_VISIT_MAX layers and stops before its findings pass READ_MAX_CHARS,
 * and answers `next` (`null` at the end); without it, the whole subtree in one reply.
 */
export async function lintDesign(/** @type {any} */ params) {
  const root = params.nodeId ? await getNode(params.nodeId) : figma.currentPage;
  const rules = selectRules(params.rules);
  const maxDepth = /** @type {number} */ (optNumber(params, "maxDepth", 10, { min: 0, max: 50 }));
  const maxFindings = /** @type {number} */ (optNumber(params, "maxFindings", 100, { min: 0, max: 5000 }));
  const paged = params.start !== undefined && params.start !== null;
  const start = startPath(params.start);
  const needsSystem = rules.indexOf("ds-hardcoded-color") >= 0 || rules.indexOf("ds-detached-text-style") >= 0;
  /** @type {LintContext} */
  const ctx = { rules: rules, targetSize: DEFAULT_TARGET_PX, system: needsSystem ? await designSystem() : { colors: {}, fonts: {} }, styles: new Map() };
  /** @type {any[]} */
  const findings = [];
  /** @type {Record<string, number>} */
  const counts = {};
  let visited = 0;
  let chars = 0;
  /** @param {any} node @param {Finding} f */
  const report = (node, f) => {
    counts[f.rule] = (counts[f.rule] || 0) + 1;
    if (findings.length < maxFindings) {
      const entry = Object.assign({ nodeId: node.id, nodeName: node.name, nodeType: node.type }, f);
      findings.push(entry);
      if (paged) chars += JSON.stringify(entry).length + 1;
    }
  };
  const walk = resume([root], start, []);
  // The position of the layer the walk is at: an ancestor's frame already points past it.
  const here = () => walk.map((f, level) => (level === walk.length - 1 ? f.index : f.index - 1));
  /** @type {number[] | null} */
  let next = null;
  while (walk.length) {
    const frame = walk[walk.length - 1];
    if (frame.index >= frame.siblings.length) {
      walk.pop();
      continue;
    }
    if (paged && (visited >= LINT_VISIT_MAX || chars >= READ_MAX_CHARS)) {
      next = here();
      break;
    }
    const node = /** @type {any} */ (frame.siblings[frame.index]);
    frame.index += 1;
    visited++;
    if (node.type !== "PAGE") {
      // What is hidden is not seen: one finding for the layer, no checks of it or inside it.
      if (node.visible === false) {
        if (rules.indexOf("bp-hidden-layer") >= 0) report(node, { rule: "bp-hidden-layer", severity: "info", message: "Layer is hidden." });
        continue;
      }
      await checkNode(node, ctx, (f) => report(node, f));
    }
    const kids = childrenOf(node);
    if (kids && kids.length && walk.length - 1 < maxDepth) walk.push({ siblings: kids, index: 0, box: null });
  }
  const total = Object.keys(counts).reduce((s, k) => s + counts[k], 0);
  /** @type {Record<string, any>} */
  const out = { success: true, rootId: root.id, rootName: root.name, rulesRun: rules, nodesChecked: visited, counts: counts, findings: findings, truncated: total > findings.length };
  if (paged) out.next = next;
  return out;
}

// Component accessibility -------------------------------------------------------------------------------------------

/** A variant's properties, from the editor or from its name ("Size=S, State=Hover"). @param {any} c */
function variantProps(c) {
  /** @type {Record<string, string> | null} */
  let own = null;
  try {
    own = c.variantProperties;
  } catch (err) {
    // The editor throws for a variant of a set with conflicting variants; the name still says what it is.
    own = null;
  }
  if (own) return own;
  /** @type {Record<string, string>} */
  const out = {};
  String(c.name)
    .split(",")
    .forEach((part) => {
      const eq = part.indexOf("=");
      if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
    });
  return out;
}

/** @param {any} c */
function isDisabled(c) {
  const values = Object.keys(variantProps(c)).map((k) => variantProps(c)[k]);
  return values.concat([c.name]).some((v) => /disabled|inactive/i.test(String(v)));
}

/** @param {any} node @param {(n: any) => void} fn */
function eachVisible(node, fn) {
  (node.children || []).forEach((/** @type {any} */ c) => {
    if (c.visible === false) return;
    fn(c);
    eachVisible(c, fn);
  });
}

/**
 * WCAG 2.5.8: a target under the minimum passes when a circle of the minimum's diameter centred on it meets no
 * other target and no other undersized target's circle.
 * @param {any[]} targets @param {number} min
 */
function undersizedTargets(targets, min) {
  const boxes = targets.map(boxOf);
  const small = boxes.map((b) => b.width < min || b.height < min);
  const centre = (/** @type {any} */ b) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });
  const r = min / 2;
  /** @param {{x: number, y: number}} p @param {any} b */
  const distToBox = (p, b) => Math.hypot(Math.max(b.x - p.x, 0, p.x - (b.x + b.width)), Math.max(b.y - p.y, 0, p.y - (b.y + b.height)));
  return targets.filter((t, i) => {
    if (!small[i]) return false;
    const c = centre(boxes[i]);
    return boxes.some((b, j) => j !== i && (distToBox(c, b) < r || (small[j] && Math.hypot(c.x - centre(b).x, c.y - centre(b).y) < min)));
  });
}

/**
 * The checks of one component or variant.
 * @param {any} c @param {number} targetSize @param {any} owner the set, or the component itself
 */
function auditComponent(c, targetSize, owner) {
  /** @type {any[]} */
  const issues = [];
  const disabled = isDisabled(c);
  const interactive = isInteractive(owner) || isInteractive(c);
  // Targets: the component when people press it, and what inside it is pressed on its own.
  /** @type {any[]} */
  const inner = [];
  eachVisible(c, (n) => isInteractive(n) && inner.push(n));
  const alone = (/** @type {any} */ t) => boxOf(t).width < targetSize || boxOf(t).height < targetSize;
  // Where it sits is unknown, so the component itself gets no spacing exception.
  const failing = (interactive && alone(c) ? [c] : []).concat(undersizedTargets(inner, targetSize));
  failing.forEach((t) => {
    issues.push({ rule: "target-size", severity: disabled ? "info" : "error", nodeId: t.id, nodeName: t.name, message: "Target is " + Math.round(t.width) + "×" + Math.round(t.height) + ", below " + targetSize + "×" + targetSize + (t === c ? "" : " and too close to another target") + " (WCAG 2.5.8)." + (disabled ? " Disabled variants are exempt." : "") });
  });
  /** @type {number | null} */
  let minContrast = null;
  let texts = 0;
  eachVisible(c, (n) => {
    if (n.type !== "TEXT") return;
    texts++;
    const size = n.fontSize === figma.mixed ? null : n.fontSize;
    if (size !== null && size < MIN_TEXT_PX) issues.push({ rule: "text-size", severity: "warning", nodeId: n.id, nodeName: n.name, message: "Font size " + size + " px is below " + MIN_TEXT_PX + " px." });
    const contrast = textContrast(n);
    if (!contrast) return;
    if (!contrast.unknownBehind) minContrast = minContrast === null ? contrast.ratio : Math.min(minContrast, contrast.ratio);
    const f = contrastFinding(contrast);
    if (!f) return;
    // WCAG 1.4.3 exempts text of inactive controls.
    if (disabled && f.severity === "error") {
      f.severity = "info";
      f.message += " Disabled variants are exempt.";
    }
    issues.push(Object.assign({ rule: "contrast", nodeId: n.id, nodeName: n.name }, f));
  });
  if (interactive && texts === 0 && !owner.description) {
    issues.push({ rule: "accessible-name", severity: "warning", nodeId: owner.id, message: "No visible text label and no description: document the accessible name (aria-label) it needs." });
  }
  const score = Math.max(0, 100 - issues.reduce((s, i) => s + (i.severity === "error" ? 20 : i.severity === "warning" ? 10 : 0), 0));
  /** @type {Record<string, any>} */
  const out = { id: c.id, name: c.name, size: { width: c.width, height: c.height }, interactive: interactive, score: score, issues: issues };
  if (minContrast !== null) out.minContrast = shownRatio(minContrast);
  if (disabled) out.disabled = true;
  return out;
}

/** Checks of the set (or lone component) as a whole: focus state, description, property names. @param {any} owner @param {any[]} variants @param {boolean} interactive */
function auditOwner(owner, variants, interactive) {
  /** @type {any[]} */
  const issues = [];
  if (!owner.description) issues.push({ rule: "description", severity: "warning", nodeId: owner.id, message: "No description: add what it is for and how assistive technology should announce it." });
  /** @type {Record<string, string[]>} */
  const axes = {};
  variants.forEach((v) => {
    const props = variantProps(v);
    Object.keys(props).forEach((k) => (axes[k] = axes[k] || []).indexOf(props[k]) < 0 && axes[k].push(props[k]));
  });
  Object.keys(axes).forEach((axis) => {
    if (/^Property \d+$/.test(axis)) issues.push({ rule: "property-name", severity: "warning", nodeId: owner.id, message: "Variant property '" + axis + "' keeps its default name; name what it changes (State, Size…)." });
  });
  const values = Object.keys(axes).reduce((/** @type {string[]} */ all, k) => all.concat(axes[k]), []);
  const hasFocus = values.some((v) => /focus/i.test(v)) || variants.some((v) => /focus/i.test(v.name));
  if (interactive && !hasFocus) issues.push({ rule: "focus-state", severity: "error", nodeId: owner.id, message: "No focus variant: add a State=Focus variant with a visible focus indicator (WCAG 2.4.7)." });
  return { issues: issues, hasFocusState: hasFocus, hasDisabledState: values.some((v) => /disabled/i.test(v)), axes: axes };
}

/** AUDIT_COMPONENT_ACCESSIBILITY: per variant target size, contrast as rendered, text size; per set focus state, names. */
export async function auditComponentAccessibility(/** @type {any} */ params) {
  const targetSize = /** @type {number} */ (optNumber(params, "targetSize", DEFAULT_TARGET_PX, { min: 1, max: 200 }));
  /** @type {any[]} */
  let owners;
  if (params.nodeId) {
    const node = /** @type {any} */ (await getNode(params.nodeId));
    if (node.type === "INSTANCE") {
      const main = await node.getMainComponentAsync();
      const owner = main && main.parent && main.parent.type === "COMPONENT_SET" ? main.parent : main;
      throw new PluginError("wrong_node_type", "Node " + node.id + " (" + node.name + ") is an instance; audit its main component" + (owner ? " '" + owner.name + "' (" + owner.id + ")" : "") + " instead.");
    }
    if (node.type !== "COMPONENT" && node.type !== "COMPONENT_SET") {
      throw new PluginError("wrong_node_type", "Node " + node.id + " (" + node.name + ") is a " + node.type + ", not a component or component set; pass a component's id (design_search_components finds them) or omit nodeId to audit every component on the page.");
    }
    owners = [node.type === "COMPONENT" && node.parent && node.parent.type === "COMPONENT_SET" ? node.parent : node];
    if (node.type === "COMPONENT" && owners[0] !== node) owners = [{ only: node, set: owners[0] }];
  } else {
    owners = figma.currentPage.findAllWithCriteria({ types: ["COMPONENT_SET", "COMPONENT"] }).filter((/** @type {any} */ n) => !(n.type === "COMPONENT" && n.parent && n.parent.type === "COMPONENT_SET"));
  }
  /** @type {any[]} */
  const components = [];
  /** @type {any[]} */
  const sets = [];
  owners.forEach((entry) => {
    const owner = entry.set || entry;
    const variants = entry.only ? [entry.only] : owner.type === "COMPONENT_SET" ? owner.children.filter((/** @type {any} */ c) => c.type === "COMPONENT") : [owner];
    const interactive = isInteractive(owner) || variants.some(isInteractive);
    const results = variants.map((v) => auditComponent(v, targetSize, owner));
    const whole = auditOwner(owner, owner.type === "COMPONENT_SET" ? owner.children : variants, interactive);
    results.forEach((r) => components.push(Object.assign({ owner: owner.id }, r)));
    const score = Math.max(0, Math.round(results.reduce((s, r) => s + r.score, 0) / Math.max(1, results.length)) - whole.issues.reduce((s, i) => s + (i.severity === "error" ? 20 : 10), 0));
    sets.push({ id: owner.id, name: owner.name, type: owner.type, interactive: interactive, hasFocusState: whole.hasFocusState, hasDisabledState: whole.hasDisabledState, score: score, issues: whole.issues });
  });
  const errors = components.reduce((s, c) => s + c.issues.filter((/** @type {any} */ i) => i.severity === "error").length, 0) + sets.reduce((s, o) => s + o.issues.filter((/** @type {any} */ i) => i.severity === "error").length, 0);
  return {
    success: true,
    targetSize: targetSize,
    componentCount: components.length,
    errorCount: errors,
    averageScore: sets.length ? Math.round(sets.reduce((s, o) => s + o.score, 0) / sets.length) : null,
    owners: sets,
    components: components,
  };
}

/** The most layers one READ_AUDIT_NODES reply visits. */
const AUDIT_VISIT_MAX = 5000;

/** The topmost visible solid paint of a list, or null. @param {any} paints */
function topSolid(paints) {
  if (!Array.isArray(paints)) return null;
  for (let i = paints.length - 1; i >= 0; i--) {
    const p = paints[i];
    if (p && p.type === "SOLID" && p.visible !== false) return p;
  }
  return null;
}

/** Whether the design-system audit looks inside a layer. @param {any} node */
function auditDescends(node) {
  return "children" in node && node.type !== "INSTANCE" && node.type !== "TEXT";
}

/**
 * READ_AUDIT_NODES (**ours**): the design-system audit's records of every page, one chunk at a time: texts,
 * instances and layers with a solid fill (their colour and whether a variable or style holds it; a text's size, text
 * style and the colour behind it; an instance's main component), in document order from the position `start` (child
 * indexes from the document's pages, as `next` answered). A chunk visits at most AUDIT_VISIT_MAX layers and stops
 * after READ_MAX_CHARS of records; the first also carries the local styles.
 * @param {any} params
 */
export async function readAuditNodes(params) {
  await figma.loadAllPagesAsync();
  const start = startPath(params.start);
  const pages = figma.root.children;
  const walk = resume(pages, start, []).map((frame) => Object.assign(frame, { bg: null }));
  // What lies behind each level's layers: a page's background, else the nearest ancestor's solid fill.
  for (let level = 1; level < walk.length; level++) {
    const parent = /** @type {any} */ (walk[level - 1].siblings[walk[level - 1].index - 1]);
    const paint = level === 1 ? topSolid(parent.backgrounds) : topSolid(parent.fills);
    walk[level].bg = paint ? paint.color : walk[level - 1].bg;
  }
  /** @type {any[]} */
  const records = [];
  /** @type {[any, any][]} */
  const instances = [];
  let chars = 0;
  let visited = 0;
  /** @type {number[] | null} */
  let next = null;
  while (walk.length) {
    const frame = walk[walk.length - 1];
    if (frame.index >= frame.siblings.length) {
      walk.pop();
      continue;
    }
    if (visited >= AUDIT_VISIT_MAX || chars >= READ_MAX_CHARS) {
      next = walk.map((f, level) => (level === walk.length - 1 ? f.index : f.index - 1));
      break;
    }
    const node = /** @type {any} */ (frame.siblings[frame.index]);
    frame.index += 1;
    visited += 1;
    const paint = node.type === "PAGE" ? null : topSolid(node.fills);
    if (node.type === "TEXT" || node.type === "INSTANCE" || paint) {
      /** @type {Record<string, any>} */
      const r = { id: node.id, type: node.type };
      if (paint) {
        r.fill = paint.color;
        r.fillBound = !!(paint.boundVariables && paint.boundVariables.color);
        r.fillStyle = typeof node.fillStyleId === "string" && node.fillStyleId !== "";
      }
      if (node.type === "TEXT") {
        if (typeof node.fontSize === "number") r.fontSize = node.fontSize;
        r.textStyle = typeof node.textStyleId === "string" && node.textStyleId !== "";
        if (frame.bg) r.background = frame.bg;
      }
      if (node.type === "INSTANCE") instances.push([r, node]);
      records.push(r);
      chars += JSON.stringify(r).length + 1;
    }
    if (auditDescends(node) && node.children.length) {
      const behind = node.type === "PAGE" ? topSolid(node.backgrounds) : paint;
      walk.push({ siblings: node.children, index: 0, box: null, bg: behind ? behind.color : frame.bg });
    }
  }
  for (const [r, node] of instances) {
    const main = typeof node.getMainComponentAsync === "function" ? await node.getMainComponentAsync() : null;
    if (main) r.component = main.id;
  }
  /** @type {Record<string, any>} */
  const out = { success: true, records: records, next: next };
  if (!start.length) {
    const styles = [];
    for (const [fn, type] of [["getLocalPaintStylesAsync", "PAINT"], ["getLocalTextStylesAsync", "TEXT"], ["getLocalEffectStylesAsync", "EFFECT"]]) {
      const f = /** @type {any} */ (figma);
      if (typeof f[fn] !== "function") continue;
      for (const s of await f[fn]()) styles.push({ id: s.id, name: s.name, type: type, description: s.description || "" });
    }
    out.styles = styles;
  }
  return out;
}
