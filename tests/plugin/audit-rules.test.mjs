// LINT_DESIGN and AUDIT_COMPONENT_ACCESSIBILITY rules in node:vm against the stand-in editor: contrast measured on
// the colours as rendered (checked against the WCAG 2.2 formula computed here), design-system, layout and naming
// rules, target size with the spacing exception, focus states, and the refusals.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPlugin } from "./harness/sandbox.mjs";

// WCAG 2.2 relative luminance and contrast ratio, written out here independently of the plugin.
const linear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const luminance = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
function wcagRatio(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
/** `top` with alpha over an opaque `bottom`. */
const mix = (top, alpha, bottom) => top.map((t, i) => t * alpha + bottom[i] * (1 - alpha));
const hex = (rgb) => "#" + rgb.map((c) => ("0" + Math.round(c * 255).toString(16)).slice(-2)).join("").toUpperCase();
const floor2 = (x) => Math.floor(x * 100) / 100;
const WHITE = [1, 1, 1];
const BLACK = [0, 0, 0];

/** A plugin whose stand-in editor has the default font loaded, so texts can be made directly. */
async function open() {
  const p = loadPlugin();
  await p.figma.loadFontAsync({ family: "Inter", style: "Regular" });
  return p;
}

function paint(rgb, opacity = 1) {
  return { type: "SOLID", visible: true, opacity, blendMode: "NORMAL", color: { r: rgb[0], g: rgb[1], b: rgb[2] } };
}

function frame(figma, parent, props) {
  const f = figma.createFrame();
  parent.appendChild(f);
  Object.assign(f, { fills: [], x: 0, y: 0, width: 200, height: 100, name: "Card" }, props);
  return f;
}

function text(figma, parent, props) {
  const t = figma.createText();
  parent.appendChild(t);
  Object.assign(t, { x: 10, y: 10, width: 100, height: 20, fontSize: 16, characters: "Label", name: "Label" }, props);
  return t;
}

const contrastOf = (lint, id) => lint.findings.filter((f) => f.rule === "wcag-contrast" && f.nodeId === id);

test("contrast is measured on the rendered colours: fill opacity over the background can fail a passing pair", async () => {
  const p = await open();
  const card = frame(p.figma, p.figma.currentPage, { fills: [paint(WHITE)] });
  // Black on white is 21:1 on the raw values; at 30 % fill opacity the glyphs are drawn light grey.
  const faint = text(p.figma, card, { fills: [paint(BLACK, 0.3)], name: "Faint" });
  const lint = await p.ok("LINT_DESIGN", { nodeId: card.id, rules: ["wcag-contrast"] });
  const [finding] = contrastOf(lint, faint.id);
  const fg = mix(BLACK, 0.3, WHITE);
  assert.ok(wcagRatio(BLACK, WHITE) > 20, "the raw colours pass");
  assert.ok(finding, JSON.stringify(lint.findings));
  assert.equal(finding.severity, "error");
  assert.equal(finding.ratio, floor2(wcagRatio(fg, WHITE)));
  assert.equal(finding.foreground, hex(fg));
  assert.equal(finding.background, "#FFFFFF");
  assert.equal(finding.required, 4.5);
});

test("contrast is measured on the rendered colours: a faint backdrop over a dark one can pass a failing pair", async () => {
  const p = await open();
  const outer = frame(p.figma, p.figma.currentPage, { fills: [paint(BLACK)], width: 400, height: 200 });
  const grey = [0.733, 0.733, 0.733];
  const inner = frame(p.figma, outer, { fills: [paint(grey, 0.2)], x: 20, y: 20 });
  const label = text(p.figma, inner, { fills: [paint(WHITE)] });
  assert.ok(wcagRatio(WHITE, grey) < 4.5, "the raw colours fail");
  const lint = await p.ok("LINT_DESIGN", { nodeId: outer.id, rules: ["wcag-contrast"] });
  assert.deepEqual(contrastOf(lint, label.id), []);
  assert.ok(wcagRatio(WHITE, mix(grey, 0.2, BLACK)) >= 4.5);

  // The same layers as a component: the audit reports the ratio it measured.
  const button = p.figma.createComponent();
  outer.appendChild(button);
  Object.assign(button, { name: "Badge", x: 20, y: 120, width: 120, height: 40, fills: [paint(grey, 0.2)], description: "A badge" });
  text(p.figma, button, { fills: [paint(WHITE)], x: 0, y: 0 });
  const audit = await p.ok("AUDIT_COMPONENT_ACCESSIBILITY", { nodeId: button.id });
  assert.equal(audit.components[0].minContrast, floor2(wcagRatio(WHITE, mix(grey, 0.2, BLACK))));
  assert.equal(audit.components[0].issues.filter((i) => i.rule === "contrast").length, 0);
});

test("layer opacity wraps text and backdrop in one group; siblings that cover the text are its backdrop", async () => {
  const p = await open();
  const dim = frame(p.figma, p.figma.currentPage, { fills: [paint(BLACK)], opacity: 0.5 });
  const inGroup = text(p.figma, dim, { fills: [paint(WHITE)], name: "In group" });
  const plate = frame(p.figma, p.figma.currentPage, { x: 300, y: 0 });
  const back = p.figma.createRectangle();
  plate.appendChild(back);
  Object.assign(back, { x: 0, y: 0, width: 200, height: 100, fills: [paint([0.1, 0.1, 0.1])] });
  const onPlate = text(p.figma, plate, { fills: [paint(WHITE)], name: "On plate" });
  const off = text(p.figma, plate, { fills: [paint(WHITE)], name: "Off plate", x: 150, y: 90 });
  const lint = await p.ok("LINT_DESIGN", { rules: ["wcag-contrast"] });
  const [grouped] = contrastOf(lint, inGroup.id);
  // White glyphs over black, the whole group at 50 % over the page's own background colour.
  const { r, g, b } = p.figma.currentPage.backgrounds[0].color;
  const page = [r, g, b];
  const fg = mix(WHITE, 0.5, page);
  const bg = mix(BLACK, 0.5, page);
  assert.equal(grouped.ratio, floor2(wcagRatio(fg, bg)));
  assert.equal(grouped.foreground, hex(fg));
  assert.equal(grouped.background, hex(bg));
  assert.deepEqual(contrastOf(lint, onPlate.id), []);
  // Half off the dark rectangle: the rectangle is not behind all of it, so the page is.
  const [offPlate] = contrastOf(lint, off.id);
  assert.equal(offPlate.ratio, floor2(wcagRatio(WHITE, page)));
});

test("large text needs 3:1; an image behind makes contrast unmeasurable, not failing; unseen text is skipped", async () => {
  const p = await open();
  const card = frame(p.figma, p.figma.currentPage, { fills: [paint(WHITE)] });
  const grey = [0.55, 0.55, 0.55];
  const big = text(p.figma, card, { fills: [paint(grey)], fontSize: 24, name: "Big" });
  const small = text(p.figma, card, { fills: [paint(grey)], fontSize: 16, name: "Small", y: 40 });
  const photo = frame(p.figma, p.figma.currentPage, { x: 400, fills: [{ type: "IMAGE", imageHash: "abc", scaleMode: "FILL", visible: true }] });
  const caption = text(p.figma, photo, { fills: [paint(WHITE)], name: "Caption" });
  const invisible = text(p.figma, card, { fills: [paint(WHITE)], opacity: 0, name: "Invisible", y: 70 });
  const lint = await p.ok("LINT_DESIGN", { rules: ["wcag-contrast"] });
  const r = wcagRatio(grey, WHITE);
  assert.ok(r >= 3 && r < 4.5, String(r));
  assert.deepEqual(contrastOf(lint, big.id), []);
  assert.equal(contrastOf(lint, small.id)[0].ratio, floor2(r));
  assert.deepEqual(contrastOf(lint, invisible.id), [], "text at opacity 0 is not seen, so not measured");
  const [unknown] = contrastOf(lint, caption.id);
  assert.equal(unknown.severity, "info");
  assert.match(unknown.message, /image/);
});

test("design-system, layout and naming rules; findings capped with counts of all", async () => {
  const p = await open();
  const collection = p.figma.variables.createVariableCollection("Brand");
  const brand = p.figma.variables.createVariable("color/brand", collection, "COLOR");
  brand.setValueForMode(collection.defaultModeId, { r: 0.2, g: 0.4, b: 0.8, a: 1 });
  p.control.addStyle({ id: "S:body", type: "TEXT", name: "Body", fontName: { family: "Inter", style: "Regular" }, fontSize: 16 });
  const card = frame(p.figma, p.figma.currentPage, { name: "Frame 7", fills: [paint([0.2, 0.4, 0.8])], strokes: [paint(BLACK)], x: 0.5 });
  const bound = p.figma.createRectangle();
  card.appendChild(bound);
  Object.assign(bound, { name: "Bound", fills: [Object.assign(paint(WHITE), { boundVariables: { color: { type: "VARIABLE_ALIAS", id: brand.id } } })] });
  const t = text(p.figma, card, { fontName: { family: "Inter", style: "Regular" }, fills: [paint(WHITE)], characters: " " });
  const gone = p.figma.createRectangle();
  card.appendChild(gone);
  Object.assign(gone, { name: "Old", fills: [], fillStyleId: "S:deleted" });
  const hidden = p.figma.createRectangle();
  card.appendChild(hidden);
  Object.assign(hidden, { name: "Hidden", visible: false });

  const lint = await p.ok("LINT_DESIGN", { nodeId: card.id, rules: ["design-system", "layout", "best-practice"] });
  const by = (rule, id) => lint.findings.filter((f) => f.rule === rule && f.nodeId === id);
  const cardColors = by("ds-hardcoded-color", card.id);
  assert.deepEqual(cardColors.map((f) => f.color).sort(), ["#000000", "#3366CC"]);
  assert.match(cardColors.find((f) => f.color === "#3366CC").message, /variable 'color\/brand', bind it/);
  assert.deepEqual(by("ds-hardcoded-color", bound.id), []);
  assert.match(by("ds-detached-text-style", t.id)[0].message, /text style 'Body'/);
  assert.equal(by("ds-detached-text-style", t.id)[0].severity, "warning");
  assert.match(by("ds-missing-style", gone.id)[0].message, /S:deleted no longer exists/);
  assert.equal(by("bp-empty-text", t.id).length, 1);
  assert.equal(by("layout-subpixel", card.id).length, 1);
  assert.equal(by("layout-no-autolayout", card.id).length, 1);
  assert.equal(by("bp-default-name", card.id).length, 1);
  assert.equal(by("bp-hidden-layer", hidden.id).length, 1);
  assert.deepEqual(by("bp-default-name", hidden.id), [], "nothing else is checked on a hidden layer");

  const capped = await p.ok("LINT_DESIGN", { nodeId: card.id, maxFindings: 2 });
  assert.equal(capped.findings.length, 2);
  assert.equal(capped.truncated, true);
  assert.ok(Object.values(capped.counts).reduce((a, b) => a + b, 0) > 2);
});

function variant(figma, name, w, h, extra = {}) {
  const c = figma.createComponent();
  Object.assign(c, { name, width: w, height: h, fills: [paint([0.1, 0.2, 0.6])] }, extra);
  const label = figma.createText();
  c.appendChild(label);
  Object.assign(label, { x: 4, y: 4, width: Math.max(1, w - 8), height: Math.max(1, h - 8), fontSize: 14, characters: "Go", fills: [paint(WHITE)] });
  return c;
}

test("component audit: target size per variant, focus state, disabled exemption, descriptions", async () => {
  const p = await open();
  const ids = [variant(p.figma, "State=Default", 80, 20), variant(p.figma, "State=Hover", 80, 32), variant(p.figma, "State=Disabled", 80, 20, { opacity: 1 })].map((c) => c.id);
  const set = (await p.ok("CREATE_COMPONENT_SET", { componentIds: ids, name: "Button" })).componentSet;
  const audit = await p.ok("AUDIT_COMPONENT_ACCESSIBILITY", { nodeId: set.id });
  assert.equal(audit.targetSize, 24);
  const byName = Object.fromEntries(audit.components.map((c) => [c.name, c]));
  const sizeIssues = (name) => byName[name].issues.filter((i) => i.rule === "target-size");
  assert.equal(sizeIssues("State=Default")[0].severity, "error");
  assert.match(sizeIssues("State=Default")[0].message, /80×20, below 24×24/);
  assert.deepEqual(sizeIssues("State=Hover"), []);
  assert.equal(sizeIssues("State=Disabled")[0].severity, "info");
  const [owner] = audit.owners;
  assert.equal(owner.hasFocusState, false);
  assert.ok(owner.issues.some((i) => i.rule === "focus-state" && i.severity === "error"));
  assert.ok(owner.issues.some((i) => i.rule === "description"));
  assert.ok(audit.errorCount >= 2);

  const roomy = await p.ok("AUDIT_COMPONENT_ACCESSIBILITY", { nodeId: set.id, targetSize: 16 });
  assert.deepEqual(roomy.components.flatMap((c) => c.issues.filter((i) => i.rule === "target-size")), []);
});

test("component audit: small targets inside a component pass only with room around them (WCAG 2.5.8 spacing)", async () => {
  const p = await open();
  const toolbar = p.figma.createComponent();
  Object.assign(toolbar, { name: "Toolbar", width: 200, height: 40, description: "Editing actions", fills: [paint(WHITE)] });
  const icon = (x) => {
    const b = p.figma.createFrame();
    toolbar.appendChild(b);
    Object.assign(b, { name: "Icon button", x, y: 12, width: 16, height: 16, fills: [], reactions: [{ trigger: { type: "ON_CLICK" } }] });
    return b;
  };
  const near = [icon(0), icon(20)];
  const far = icon(150);
  const audit = await p.ok("AUDIT_COMPONENT_ACCESSIBILITY", { nodeId: toolbar.id });
  const flagged = audit.components[0].issues.filter((i) => i.rule === "target-size").map((i) => i.nodeId);
  assert.deepEqual(flagged.sort(), near.map((n) => n.id).sort());
  assert.ok(!flagged.includes(far.id));
});

test("component audit refuses what is not a component, naming what to pass instead", async () => {
  const p = await open();
  const card = frame(p.figma, p.figma.currentPage, {});
  const refused = await p.call("AUDIT_COMPONENT_ACCESSIBILITY", { nodeId: card.id });
  assert.equal(refused.code, "wrong_node_type");
  assert.match(refused.error, /is a FRAME, not a component or component set/);
  const main = variant(p.figma, "Chip", 60, 30);
  const instance = (await p.ok("INSTANTIATE_COMPONENT", { nodeId: main.id })).instance;
  const onInstance = await p.call("AUDIT_COMPONENT_ACCESSIBILITY", { nodeId: instance.id });
  assert.equal(onInstance.code, "wrong_node_type");
  assert.match(onInstance.error, new RegExp("audit its main component 'Chip' \\(" + main.id + "\\)"));
  assert.equal((await p.call("LINT_DESIGN", { rules: "wcag" })).code, "bad_params");
});
