// CREATE_NODE_TREE on the stand-in editor: a whole tree in one undo step, fonts chosen from the page's stack (or a
// font of its generic class, said in warnings), styled text ranges, gradients, turns and blurs, variables bound; an
// image the editor cannot take left out and named; and all or nothing: a refusal or a failure midway leaves the page
// as it was.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPlugin } from "./harness/sandbox.mjs";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
const black = { type: "SOLID", color: { r: 0, g: 0, b: 0 } };

function text(characters, families, extra = {}) {
  return { type: "TEXT", name: characters, characters, families, fontWeight: 700, fontSize: 14, lineHeight: 20, x: 32, y: 22, width: 30, height: 20, fills: [black], ...extra };
}

function page(children) {
  return {
    type: "FRAME", name: "Page", x: 0, y: 0, width: 800, height: 600, fills: [{ type: "SOLID", color: { r: 1, g: 1, b: 1 } }],
    children: [{
      type: "FRAME", name: "nav", x: 0, y: 0, width: 800, height: 64, fills: [{ type: "IMAGE", image: 0, scaleMode: "FILL" }],
      layout: { mode: "HORIZONTAL", itemSpacing: 24, paddingTop: 0, paddingRight: 32, paddingBottom: 0, paddingLeft: 32, primaryAxisAlignItems: "MIN", counterAxisAlignItems: "CENTER" },
      children: children,
    }],
  };
}

test("a tree is built in one undo step with its fonts, images, auto layout and variables", async () => {
  const p = await loadPlugin();
  const c = p.figma.variables.createVariableCollection("Brand");
  const gap = p.figma.variables.createVariable("Space/Gap", c, "FLOAT");
  gap.setValueForMode(c.modes[0].modeId, 24);
  const spec = page([
    text("Hi", ["Nope", "Roboto"]),
    { type: "SVG", name: "icon", svg: '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><circle cx="12" cy="12" r="10"/></svg>', x: 80, y: 20, width: 24, height: 24 },
    text("Odd", ["Comic Sans"], { fontWeight: 400 }),
  ]);
  spec.children[0].bound = { itemSpacing: gap.id };
  const before = p.control.undoCommits;
  const reply = await p.call("CREATE_NODE_TREE", { spec, images: [PNG] });
  assert.deepEqual(JSON.parse(JSON.stringify(reply.result.counts)), { FRAME: 3, TEXT: 2, VECTOR: 1 });
  assert.deepEqual(JSON.parse(JSON.stringify(reply.result.warnings)), ["font Comic Sans is not available here: Inter used instead, the first sans-serif font installed"]);
  assert.equal(p.control.undoCommits, before + 1);
  const root = await p.figma.getNodeByIdAsync(reply.result.rootId);
  const nav = root.children[0];
  assert.equal(nav.layoutMode, "HORIZONTAL");
  assert.equal(nav.itemSpacing, 24);
  assert.deepEqual(JSON.parse(JSON.stringify(nav.boundVariables.itemSpacing)), { type: "VARIABLE_ALIAS", id: gap.id });
  assert.equal(nav.fills[0].type, "IMAGE");
  assert.deepEqual(JSON.parse(JSON.stringify(nav.children.map((n) => (n.type === "TEXT" ? n.fontName : n.name)))), [{ family: "Roboto", style: "Bold" }, "icon", { family: "Inter", style: "Regular" }]);
});

test("a refusal or a failure midway leaves the page as it was", async () => {
  const p = await loadPlugin();
  const spec = page([text("A", ["Inter"]), text("B", ["Inter"])]);
  const missing = await p.call("CREATE_NODE_TREE", { spec, images: [PNG], parentId: "1:999" });
  assert.equal(missing.code, "not_found");
  const badPaint = await p.call("CREATE_NODE_TREE", { spec: page([text("A", ["Inter"], { fills: [{ type: "GRADIENT_LINEAR", gradientStops: [] }] })]), images: [PNG] });
  assert.equal(badPaint.code, "bad_params");
  assert.match(badPaint.error, /spec\.children\[0\]\.children\[0\]: a gradient's gradientTransform/);
  const badRange = await p.call("CREATE_NODE_TREE", { spec: page([text("A", ["Inter"], { ranges: [{ start: 0, end: 5 }] })]), images: [PNG] });
  assert.match(badRange.error, /ranges\[0\] must have whole start < end within the text's 1 characters/);
  p.control.failOn("createText", 2);
  const failed = await p.call("CREATE_NODE_TREE", { spec, images: [PNG] });
  assert.equal(failed.code, "plugin_api_error");
  assert.match(failed.error, /The part already built was removed/);
  assert.equal(p.figma.currentPage.children.length, 0);
});

test("an image the editor cannot take is left out of the layers that use it, named, and the rest is built", async () => {
  const p = await loadPlugin();
  const spec = page([
    text("A", ["Inter"]),
    { type: "FRAME", name: "photo", x: 0, y: 0, width: 40, height: 30, fills: [{ type: "IMAGE", image: 1, scaleMode: "FILL" }] },
    { type: "FRAME", name: "big", x: 0, y: 0, width: 40, height: 30, fills: [black, { type: "IMAGE", image: 2, scaleMode: "FILL" }] },
  ]);
  const reply = await p.call("CREATE_NODE_TREE", { spec, images: ["PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=", "not base64!", ""] });
  assert.deepEqual(JSON.parse(JSON.stringify(reply.result.warnings)), [
    "images[0] is not a PNG, JPEG or GIF image: left out of Page / nav",
    "images[1] is not base64: left out of Page / nav / photo",
    "images[2] was left out before the build: left out of Page / nav / big",
  ]);
  const root = await p.figma.getNodeByIdAsync(reply.result.rootId);
  const nav = root.children[0];
  assert.deepEqual(nav.fills, []);
  assert.deepEqual(nav.children.map((n) => n.name), ["A", "photo", "big"]);
  assert.deepEqual(nav.children[2].fills.map((f) => f.type), ["SOLID"]);
});

test("a paragraph with inline runs is one text with styled ranges, fonts chosen for each", async () => {
  const p = await loadPlugin();
  const blue = { type: "SOLID", color: { r: 0, g: 0, b: 1 } };
  const para = text("January 1 by Mark", ["Nope", "Roboto"], {
    fontWeight: 400,
    ranges: [{ start: 13, end: 17, families: ["Roboto"], fontWeight: 700, italic: false, fills: [blue], textDecoration: "UNDERLINE", url: "https://example.com/mark" }, { start: 0, end: 7, fontSize: 20 }],
  });
  const reply = await p.call("CREATE_NODE_TREE", { spec: page([para]), images: [PNG] });
  assert.deepEqual(JSON.parse(JSON.stringify(reply.result.warnings)), []);
  const node = (await p.figma.getNodeByIdAsync(reply.result.rootId)).children[0].children[0];
  assert.equal(node.characters, "January 1 by Mark");
  assert.deepEqual({ ...node.getRangeFontName(0, 13) }, { family: "Roboto", style: "Regular" });
  assert.deepEqual({ ...node.getRangeFontName(13, 17) }, { family: "Roboto", style: "Bold" });
  assert.equal(node.getRangeFontName(0, 17), p.figma.mixed);
  assert.equal(node.getRangeFontSize(0, 7), 20);
  assert.equal(node.getRangeFontSize(7, 17), 14);
  assert.deepEqual(JSON.parse(JSON.stringify(node.getRangeFills(13, 17))), [blue]);
  assert.deepEqual(JSON.parse(JSON.stringify(node.getRangeFills(0, 13))), [black]);
  assert.equal(node.getRangeTextDecoration(13, 17), "UNDERLINE");
  assert.deepEqual({ ...node.getRangeHyperlink(13, 17) }, { type: "URL", value: "https://example.com/mark" });
});

test("a font stack falls back within its generic class, in the nearest weight and slant", async () => {
  const p = await loadPlugin();
  p.control.installFont("Noto Serif", ["Regular", "Italic", "Bold", "Bold Italic"]);
  p.control.installFont("Roboto Mono", ["Regular", "SemiBold"]);
  const spec = page([
    text("Serif", ["Playfair Display", "Georgia"], { generic: "serif", fontWeight: 600, italic: true }),
    text("Mono", ["SFMono-Regular", "Menlo"], { generic: "monospace", fontWeight: 500 }),
    text("Hand", ["Marker Felt"], { generic: "cursive" }),
    text("Sans", ["Roboto"], { generic: "sans-serif", fontWeight: 300 }),
  ]);
  const reply = await p.call("CREATE_NODE_TREE", { spec, images: [PNG] });
  const nav = (await p.figma.getNodeByIdAsync(reply.result.rootId)).children[0];
  assert.deepEqual(JSON.parse(JSON.stringify(nav.children.map((n) => n.fontName))), [
    { family: "Noto Serif", style: "Bold Italic" },
    { family: "Roboto Mono", style: "SemiBold" },
    { family: "Inter", style: "Bold" },
    { family: "Roboto", style: "Light" },
  ]);
  assert.deepEqual(JSON.parse(JSON.stringify(reply.result.warnings)), [
    "font Playfair Display, Georgia is not available here: Noto Serif used instead, the first serif font installed",
    "font SFMono-Regular, Menlo is not available here: Roboto Mono used instead, the first monospace font installed",
    "font Marker Felt is not available here: Inter used instead; no cursive font is installed",
  ]);
});

test("gradients, turns, blend modes, blurs and layers placed over an auto layout are built", async () => {
  const p = await loadPlugin();
  const gradient = { type: "GRADIENT_LINEAR", gradientTransform: [[1, 0, 0], [0, 1, 0]], gradientStops: [{ position: 0, color: { r: 1, g: 0, b: 0, a: 1 } }, { position: 1, color: { r: 0, g: 0, b: 1, a: 1 } }] };
  const spec = page([
    { type: "FRAME", name: "banner", x: 10, y: 4, width: 120, height: 60, fills: [gradient], rotation: -30, blendMode: "MULTIPLY", effects: [{ type: "LAYER_BLUR", radius: 4 }, { type: "BACKGROUND_BLUR", radius: 8 }] },
    { type: "FRAME", name: "background", x: 700, y: 20, width: 16, height: 12, fills: [black], absolute: true },
    { type: "FRAME", name: "field", x: 0, y: 0, width: 200, height: 40, fills: [], strokes: [black], strokeWeights: [0, 0, 1, 0] },
  ]);
  const reply = await p.call("CREATE_NODE_TREE", { spec, images: [PNG] });
  assert.equal(reply.error, undefined);
  const nav = (await p.figma.getNodeByIdAsync(reply.result.rootId)).children[0];
  const [banner, icon, field] = nav.children;
  assert.equal(field.strokeWeight, p.figma.mixed);
  assert.deepEqual([field.strokeTopWeight, field.strokeRightWeight, field.strokeBottomWeight, field.strokeLeftWeight], [0, 0, 1, 0]);
  assert.equal(banner.fills[0].type, "GRADIENT_LINEAR");
  assert.deepEqual(JSON.parse(JSON.stringify(banner.fills[0].gradientStops)), gradient.gradientStops);
  assert.equal(banner.rotation, -30);
  assert.equal(banner.blendMode, "MULTIPLY");
  assert.deepEqual(JSON.parse(JSON.stringify(banner.effects)), [{ type: "LAYER_BLUR", radius: 4, visible: true }, { type: "BACKGROUND_BLUR", radius: 8, visible: true }]);
  assert.equal(icon.layoutPositioning, "ABSOLUTE");
  assert.deepEqual([icon.x, icon.y], [700, 20]);
});

test("a large tree reports progress in chunks and ends at its total", async () => {
  const p = await loadPlugin();
  const rows = Array.from({ length: 1200 }, (_, i) => text("Row " + i, ["Inter"], { y: i * 20 }));
  const reply = await p.call("CREATE_NODE_TREE", { spec: { ...page([]), children: rows }, images: [] });
  assert.equal(reply.result.counts.TEXT, 1200);
  const progress = p.events("PROGRESS").filter((d) => d.id === reply.id).map((d) => d.progress);
  assert.ok(progress.length >= 4 && progress.length <= 60, String(progress));
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
  assert.equal(progress[progress.length - 1], 1201);
});

test("a node naming a component of the file is an instance of it with the page's texts; an unknown one stays layers", async () => {
  const p = await loadPlugin();
  const button = p.figma.createComponent();
  button.name = "Button";
  button.resize(120, 40);
  await p.figma.loadFontAsync({ family: "Inter", style: "Regular" });
  const label = p.figma.createText();
  label.characters = "Label";
  button.appendChild(label);
  const spec = page([
    { type: "FRAME", name: "button.btn", component: button.id, x: 10, y: 12, width: 96, height: 36, fills: [black], children: [text("Buy now", ["Inter"], { x: 8, y: 8 })] },
    { type: "FRAME", name: "a.card", component: "9:999", x: 200, y: 12, width: 80, height: 36, fills: [black], children: [text("Card", ["Inter"])] },
  ]);
  const reply = await p.call("CREATE_NODE_TREE", { spec, images: [PNG] });
  assert.deepEqual(JSON.parse(JSON.stringify(reply.result.warnings)), ["component 9:999 of Page / nav / a.card is not a component of this file: built as layers"]);
  const nav = (await p.figma.getNodeByIdAsync(reply.result.rootId)).children[0];
  const [instance, card] = nav.children;
  assert.equal(instance.type, "INSTANCE");
  assert.equal(instance.name, "button.btn");
  assert.deepEqual([instance.width, instance.height], [96, 36]);
  assert.equal((await instance.getMainComponentAsync()).id, button.id);
  assert.deepEqual(instance.findAll((n) => n.type === "TEXT").map((n) => n.characters), ["Buy now"]);
  assert.equal(card.type, "FRAME");
  assert.deepEqual(card.children.map((n) => n.characters), ["Card"]);
});
