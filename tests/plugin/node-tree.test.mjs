// CREATE_NODE_TREE on the stand-in editor: a whole tree in one undo step, fonts chosen from the page's stack (or the
// fallback, said in warnings), variables bound, and all or nothing: a refusal or a failure midway leaves the page as
// it was.
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
  assert.deepEqual(JSON.parse(JSON.stringify(reply.result.warnings)), ["font Comic Sans is not available here: Inter used instead"]);
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
  const badImage = await p.call("CREATE_NODE_TREE", { spec, images: ["bm90IGFuIGltYWdl"] });
  assert.equal(badImage.code, "bad_params");
  assert.match(badImage.error, /images\[0\] is not a base64 PNG/);
  p.control.failOn("createText", 2);
  const failed = await p.call("CREATE_NODE_TREE", { spec, images: [PNG] });
  assert.equal(failed.code, "plugin_api_error");
  assert.match(failed.error, /The part already built was removed/);
  assert.equal(p.figma.currentPage.children.length, 0);
});
