import { getNode } from "../nodes.js";
import { optNumber } from "../params.js";
import { contrastRatio, toHex } from "../colors.js";
import { badParams } from "../errors.js";

/** Rule ids by group; a caller may name groups or single rules. */
export const RULE_GROUPS = {
  wcag: ["wcag-contrast", "wcag-text-size", "wcag-target-size"],
  "design-system": ["ds-hardcoded-color", "ds-detached-text-style"],
  layout: ["layout-no-autolayout", "layout-empty-frame"],
  "best-practice": ["bp-default-name", "bp-hidden-layer"],
};
const ALL_RULES = Object.keys(RULE_GROUPS).reduce((/** @type {string[]} */ all, g) => all.concat(/** @type {any} */ (RULE_GROUPS)[g]), []);
const DEFAULT_NAME = /^(Frame|Rectangle|Ellipse|Group|Text|Line|Vector|Polygon|Star|Component|Instance|Section)( \d+)?$/;

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

/** The first visible solid fill of a node. @param {any} node */
function solidOf(node) {
  if (!node || !Array.isArray(node.fills)) return null;
  for (let i = node.fills.length - 1; i >= 0; i--) {
    const p = node.fills[i];
    if (p.type === "SOLID" && p.visible !== false && (p.opacity === undefined || p.opacity > 0.5)) return p.color;
  }
  return null;
}

/** The nearest ancestor's solid fill: what a text is most likely drawn on. @param {any} node */
function backgroundOf(node) {
  let cur = node.parent;
  while (cur && cur.type !== "PAGE" && cur.type !== "DOCUMENT") {
    const c = solidOf(cur);
    if (c) return c;
    cur = cur.parent;
  }
  return { r: 1, g: 1, b: 1 };
}

/** @param {any} node */
function isInteractive(node) {
  return Array.isArray(node.reactions) && node.reactions.length > 0;
}

/**
 * @param {any} node @param {string[]} rules @param {{targetSize: number}} opts
 * @param {(f: {rule: string, severity: string, message: string}) => void} report
 */
function checkNode(node, rules, opts, report) {
  const on = (/** @type {string} */ r) => rules.indexOf(r) >= 0;
  if (node.type === "TEXT" && node.visible !== false) {
    const size = node.fontSize === figma.mixed ? null : node.fontSize;
    const fg = solidOf(node);
    if (on("wcag-contrast") && fg) {
      const bg = backgroundOf(node);
      const bold = node.fontWeight !== figma.mixed && node.fontWeight >= 700;
      const large = size !== null && (size >= 24 || (bold && size >= 18.66));
      const needed = large ? 3 : 4.5;
      const ratio = contrastRatio(fg, bg);
      if (ratio < needed) {
        report({ rule: "wcag-contrast", severity: "error", message: "Text contrast " + ratio.toFixed(2) + ":1 (" + toHex(fg) + " on " + toHex(bg) + ") is below " + needed + ":1." });
      }
    }
    if (on("wcag-text-size") && size !== null && size < 12) {
      report({ rule: "wcag-text-size", severity: "warning", message: "Font size " + size + " px is below 12 px." });
    }
    if (on("ds-detached-text-style") && !node.textStyleId) {
      report({ rule: "ds-detached-text-style", severity: "info", message: "Text does not use a text style." });
    }
  }
  if (on("wcag-target-size") && isInteractive(node) && (node.width < opts.targetSize || node.height < opts.targetSize)) {
    report({ rule: "wcag-target-size", severity: "error", message: "Interactive target " + Math.round(node.width) + "×" + Math.round(node.height) + " is smaller than " + opts.targetSize + "×" + opts.targetSize + "." });
  }
  if (on("ds-hardcoded-color") && Array.isArray(node.fills)) {
    const hard = node.fills.some((/** @type {any} */ p) => p.type === "SOLID" && p.visible !== false && !(p.boundVariables && p.boundVariables.color));
    if (hard && !node.fillStyleId) report({ rule: "ds-hardcoded-color", severity: "warning", message: "Solid fill is not bound to a variable or style." });
  }
  if ((node.type === "FRAME" || node.type === "COMPONENT") && node.children) {
    if (on("layout-no-autolayout") && node.children.length > 1 && node.layoutMode === "NONE") {
      report({ rule: "layout-no-autolayout", severity: "info", message: "Frame with " + node.children.length + " children does not use auto layout." });
    }
    if (on("layout-empty-frame") && node.children.length === 0) report({ rule: "layout-empty-frame", severity: "info", message: "Frame is empty." });
  }
  if (on("bp-default-name") && DEFAULT_NAME.test(node.name)) report({ rule: "bp-default-name", severity: "info", message: "Layer keeps its default name '" + node.name + "'." });
  if (on("bp-hidden-layer") && node.visible === false) report({ rule: "bp-hidden-layer", severity: "info", message: "Layer is hidden." });
}

/** LINT_DESIGN */
export async function lintDesign(/** @type {any} */ params) {
  const root = params.nodeId ? await getNode(params.nodeId) : figma.currentPage;
  const rules = selectRules(params.rules);
  const maxDepth = /** @type {number} */ (optNumber(params, "maxDepth", 10, { min: 0, max: 50 }));
  const maxFindings = /** @type {number} */ (optNumber(params, "maxFindings", 100, { min: 1, max: 5000 }));
  /** @type {any[]} */
  const findings = [];
  /** @type {Record<string, number>} */
  const counts = {};
  let visited = 0;
  let truncated = false;
  /** @param {any} node @param {number} depth */
  function visit(node, depth) {
    visited++;
    if (node.type !== "PAGE") {
      checkNode(node, rules, { targetSize: 24 }, (f) => {
        counts[f.rule] = (counts[f.rule] || 0) + 1;
        if (findings.length < maxFindings) findings.push(Object.assign({ nodeId: node.id, nodeName: node.name, nodeType: node.type }, f));
        else truncated = true;
      });
    }
    if (depth < maxDepth && node.children) node.children.forEach((/** @type {any} */ c) => visit(c, depth + 1));
  }
  visit(root, 0);
  return { success: true, rootId: root.id, rootName: root.name, rulesRun: rules, nodesChecked: visited, counts: counts, findings: findings, truncated: truncated };
}

/** AUDIT_COMPONENT_ACCESSIBILITY: per component (or variant) target size, contrast, text size, description, focus state. */
export async function auditComponentAccessibility(/** @type {any} */ params) {
  const targetSize = /** @type {number} */ (optNumber(params, "targetSize", 24, { min: 1, max: 200 }));
  /** @type {any[]} */
  let components;
  /** @type {any} */
  let set = null;
  if (params.nodeId) {
    const node = /** @type {any} */ (await getNode(params.nodeId));
    if (node.type === "COMPONENT_SET") {
      set = node;
      components = node.children.filter((/** @type {any} */ c) => c.type === "COMPONENT");
    } else if (node.type === "COMPONENT" || node.type === "INSTANCE") {
      components = [node];
    } else {
      components = node.findAllWithCriteria ? node.findAllWithCriteria({ types: ["COMPONENT"] }) : [];
    }
  } else {
    components = figma.currentPage.findAllWithCriteria({ types: ["COMPONENT"] });
  }
  const rules = ["wcag-contrast", "wcag-text-size", "wcag-target-size"];
  const results = components.map((c) => {
    /** @type {any[]} */
    const issues = [];
    const report = (/** @type {any} */ f) => issues.push(f);
    if (c.width < targetSize || c.height < targetSize) {
      issues.push({ rule: "target-size", severity: "error", nodeId: c.id, message: "Component is " + Math.round(c.width) + "×" + Math.round(c.height) + ", below the " + targetSize + "×" + targetSize + " target size." });
    }
    /** @param {any} n */
    const walk = (n) => {
      checkNode(n, rules, { targetSize: targetSize }, (f) => report(Object.assign({ nodeId: n.id, nodeName: n.name }, f)));
      if (n.children) n.children.forEach(walk);
    };
    if (c.children) c.children.forEach(walk);
    const owner = c.parent && c.parent.type === "COMPONENT_SET" ? c.parent : c;
    if (c.type !== "INSTANCE" && !owner.description) issues.push({ rule: "description", severity: "warning", nodeId: owner.id, message: "No description for assistive documentation." });
    const score = Math.max(0, 100 - issues.reduce((s, i) => s + (i.severity === "error" ? 20 : i.severity === "warning" ? 10 : 2), 0));
    return { id: c.id, name: c.name, type: c.type, score: score, issues: issues };
  });
  /** @type {Record<string, any>} */
  const out = { success: true, targetSize: targetSize, components: results, componentCount: results.length };
  if (set) {
    const states = results.map((r) => r.name.toLowerCase());
    out.componentSet = { id: set.id, name: set.name, hasFocusState: states.some((s) => s.indexOf("focus") >= 0), hasDisabledState: states.some((s) => s.indexOf("disabled") >= 0) };
  }
  out.averageScore = results.length ? Math.round(results.reduce((s, r) => s + r.score, 0) / results.length) : null;
  return out;
}
