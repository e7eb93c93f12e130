// Every bridge method of plugin/code.js, success and error paths, in node:vm against the stand-in editor.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadPlugin } from "./harness/sandbox.mjs";
import { pngSize } from "./harness/png.mjs";

const PROTOCOL_DOC = new URL("../../docs/bridge-protocol.md", import.meta.url);

function fail(reply, code, pattern) {
  assert.equal(reply.result, undefined, "expected an error, got " + JSON.stringify(reply.result));
  assert.equal(typeof reply.error, "string");
  if (code) assert.equal(reply.code, code, reply.error);
  if (pattern) assert.match(reply.error, pattern);
}

async function rect(p, props = {}) {
  const r = await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "RECTANGLE", properties: props });
  return r.node.id;
}

test("every method named in bridge-protocol.md has a handler", async () => {
  const doc = readFileSync(PROTOCOL_DOC, "utf8");
  const table = doc.slice(doc.indexOf("| Method | Params | Timeout |"), doc.indexOf("## Events"));
  const names = new Set();
  for (const line of table.split("\n").slice(2)) {
    const cell = line.split("|")[1] || "";
    for (const m of cell.matchAll(/\b[A-Z][A-Z_]{3,}\b/g)) names.add(m[0]);
  }
  assert.ok(names.size > 70, "parsed " + names.size + " methods");
  const p = loadPlugin();
  const missing = [];
  for (const name of names) {
    const reply = await p.call(name, {});
    if (reply.code === "unknown_method") missing.push(name);
  }
  assert.deepEqual(missing, []);
});

test("unknown methods and malformed commands", async () => {
  const p = loadPlugin();
  const reply = await p.call("NO_SUCH_METHOD");
  assert.equal(reply.error, "Unknown method: NO_SUCH_METHOD");
  p.fromUi({ kind: "command", route: "r", command: { id: "x1", params: {} } });
  const bad = await p.next((m) => m.kind === "reply" && m.reply.id === "x1");
  assert.equal(bad.reply.code, "bad_request");
  p.fromUi({ kind: "command", route: "r", command: { method: "GET_FILE_INFO" } });
  p.fromUi({ kind: "command", route: "r", command: null });
  const info = await p.call("GET_FILE_INFO");
  assert.equal(info.result.fileName, "Test File");
});

test("GET_FILE_INFO and the init handshake data", async () => {
  const p = loadPlugin({ fileKey: null, fileName: "Unsaved" });
  p.fromUi({ kind: "ui-ready" });
  const init = await p.next((m) => m.kind === "init");
  assert.equal(init.pluginVersion, "0.1.0");
  assert.equal(init.fileInfo.fileKey, "local:Unsaved");
  const r = await p.ok("GET_FILE_INFO");
  assert.deepEqual(Object.keys(r).sort(), ["currentPage", "currentPageId", "editorType", "fileKey", "fileName", "pluginVersion", "selectionCount", "success"]);
});

test("RELOAD_UI answers, then reloads when the UI has sent the reply", async () => {
  const p = loadPlugin();
  const id = "reload-1";
  p.fromUi({ kind: "command", route: "r", command: { id, method: "RELOAD_UI", params: {} } });
  const reply = await p.next((m) => m.kind === "reply" && m.reply.id === id);
  assert.equal(reply.then, "reload");
  assert.equal(p.showUiCalls.length, 1);
  p.fromUi({ kind: "reload" });
  assert.equal(p.showUiCalls.length, 2);
});

test("variables: collections, modes, create, update, rename, describe, delete", async () => {
  const p = loadPlugin();
  const col = (await p.ok("CREATE_VARIABLE_COLLECTION", { name: "Tokens", initialModeName: "Light", additionalModes: ["Dark"] })).collection;
  assert.deepEqual(col.modes.map((m) => m.name), ["Light", "Dark"]);
  const added = await p.ok("ADD_MODE", { collectionId: col.id, modeName: "HC" });
  await p.ok("RENAME_MODE", { collectionId: col.id, modeId: added.modeId, newName: "High contrast" });
  const v = (await p.ok("CREATE_VARIABLE", { name: "color/primary", collectionId: col.id, resolvedType: "COLOR", valuesByMode: { Light: "#1E88E5", Dark: "#90CAF9" }, description: "Brand" })).variable;
  assert.equal(v.valuesByMode[col.modes[0].modeId].hex, "#1E88E5");
  const upd = await p.ok("UPDATE_VARIABLE", { variableId: v.id, modeId: col.modes[1].modeId, value: "#F00" });
  assert.equal(upd.variable.valuesByMode[col.modes[1].modeId].hex, "#FF0000");
  const size = (await p.ok("CREATE_VARIABLE", { name: "space/4", collectionId: col.id, resolvedType: "FLOAT" })).variable;
  await p.ok("UPDATE_VARIABLE", { variableId: size.id, value: "16" });
  const alias = (await p.ok("CREATE_VARIABLE", { name: "color/link", collectionId: col.id, resolvedType: "COLOR" })).variable;
  const aliased = await p.ok("UPDATE_VARIABLE", { variableId: alias.id, modeId: col.modes[0].modeId, value: v.id });
  assert.deepEqual(aliased.variable.valuesByMode[col.modes[0].modeId], { type: "VARIABLE_ALIAS", id: v.id });
  assert.equal((await p.ok("RENAME_VARIABLE", { variableId: v.id, newName: "color/brand" })).variable.name, "color/brand");
  assert.equal((await p.ok("SET_VARIABLE_DESCRIPTION", { variableId: v.id, description: "Main" })).variable.description, "Main");
  const data = await p.ok("GET_VARIABLES_DATA");
  assert.equal(data.variables.length, 3);
  assert.equal(data.variableCollections[0].variableIds.length, 3);
  const refreshed = await p.ok("REFRESH_VARIABLES");
  assert.equal(refreshed.variables.length, 3);
  assert.equal(p.events("VARIABLES_DATA").at(-1).variables.length, 3);
  await p.ok("DELETE_VARIABLE", { variableId: size.id });
  const gone = await p.ok("DELETE_VARIABLE_COLLECTION", { collectionId: col.id });
  assert.equal(gone.deleted.variableCount, 2);
  assert.equal((await p.ok("GET_VARIABLES_DATA")).variables.length, 0);
});

test("variables: error paths name the parameter and the fix", async () => {
  const p = loadPlugin();
  const col = (await p.ok("CREATE_VARIABLE_COLLECTION", { name: "T" })).collection;
  const v = (await p.ok("CREATE_VARIABLE", { name: "n", collectionId: col.id, resolvedType: "FLOAT" })).variable;
  fail(await p.call("UPDATE_VARIABLE", { variableId: "VariableID:404:1", value: 1 }), "not_found", /design_get_variables/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: v.id, value: "wide" }), "bad_params", /FLOAT/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: v.id, modeId: "nope", value: 1 }), "not_found", /modes/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: v.id }), "bad_params", /'value'/);
  fail(await p.call("CREATE_VARIABLE", { name: "x", collectionId: col.id, resolvedType: "DATE" }), "bad_params", /COLOR/);
  fail(await p.call("CREATE_VARIABLE", { name: "c", collectionId: col.id, resolvedType: "COLOR", valuesByMode: { "Mode 1": "#12" } }), "bad_params", /hex/);
  assert.equal((await p.ok("GET_VARIABLES_DATA")).variables.length, 1, "a failed create leaves no half-made variable");
  fail(await p.call("CREATE_VARIABLE", { name: "x", collectionId: "VariableCollectionId:9:9", resolvedType: "FLOAT" }), "not_found");
  fail(await p.call("CREATE_VARIABLE_COLLECTION", { name: "Many", additionalModes: ["a", "b", "c", "d"] }), "plugin_api_error", /fewer modes/);
  fail(await p.call("CREATE_VARIABLE_COLLECTION", { name: "" }), "bad_params");
  fail(await p.call("RENAME_VARIABLE", { variableId: v.id }), "bad_params", /newName/);
  fail(await p.call("SET_VARIABLE_DESCRIPTION", { variableId: v.id, description: 5 }), "bad_params");
  fail(await p.call("DELETE_VARIABLE", {}), "bad_params", /variableId/);
  fail(await p.call("DELETE_VARIABLE_COLLECTION", { collectionId: "x" }), "not_found");
  fail(await p.call("ADD_MODE", { collectionId: col.id }), "bad_params", /modeName/);
  fail(await p.call("RENAME_MODE", { collectionId: col.id, modeId: "zz", newName: "a" }), "not_found");
});

async function buttonSet(p) {
  const a = (await p.ok("EXECUTE_CODE", { code: "const c = figma.createComponent(); c.name = 'Size=S, State=Default'; c.resize(80, 32); return c.id" })).result;
  const b = (await p.ok("EXECUTE_CODE", { code: "const c = figma.createComponent(); c.name = 'Size=S, State=Focus'; c.resize(80, 40); return c.id" })).result;
  return { a, b, set: (await p.ok("CREATE_COMPONENT_SET", { componentIds: [a, b], name: "Button" })).componentSet };
}

test("components: sets, properties, instances, descriptions, analysis", async () => {
  const p = loadPlugin();
  const { set } = await buttonSet(p);
  assert.equal(set.type, "COMPONENT_SET");
  assert.equal(set.variants.length, 2);
  const base = (await p.ok("EXECUTE_CODE", { code: "const c = figma.createComponent(); c.name = 'Chip'; return c.id" })).result;
  const matrix = (await p.ok("CREATE_COMPONENT_SET", { baseComponentId: base, properties: { Size: ["S", "M"], Tone: ["A", "B", "C"] }, position: { x: 500, y: 0 } })).componentSet;
  assert.equal(matrix.variants.length, 6);
  assert.equal(matrix.x, 500);

  const prop = await p.ok("ADD_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "Label", propertyType: "TEXT", defaultValue: "OK" });
  assert.match(prop.propertyName, /^Label#/);
  const edited = await p.ok("EDIT_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "Label", newValue: { name: "Caption" } });
  assert.match(edited.propertyName, /^Caption#/);
  const flag = await p.ok("ADD_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "Icon", type: "BOOLEAN", defaultValue: false });
  await p.ok("DELETE_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: flag.propertyName });

  const inst = await p.ok("INSTANTIATE_COMPONENT", { nodeId: set.id, variant: { State: "Focus" }, position: { x: 10, y: 20 }, overrides: { Caption: "Go" } });
  assert.equal(inst.instance.type, "INSTANCE");
  assert.equal(inst.instance.x, 10);
  assert.equal(inst.mainComponent.name, "Size=S, State=Focus");
  const props = await p.ok("SET_INSTANCE_PROPERTIES", { nodeId: inst.instance.id, properties: { Caption: "Stop" } });
  assert.equal(props.componentProperties[edited.propertyName].value, "Stop");

  const comp = await p.ok("GET_COMPONENT", { nodeId: set.id });
  assert.equal(comp.component.variants.length, 2);
  const instInfo = await p.ok("GET_COMPONENT", { nodeId: inst.instance.id });
  assert.equal(instInfo.component.mainComponent.name, "Size=S, State=Focus");
  const local = await p.ok("GET_LOCAL_COMPONENTS");
  assert.equal(local.totalComponentSets, 2);
  const deep = await p.ok("DEEP_GET_COMPONENT", { nodeId: set.id, depth: 3 });
  assert.equal(deep.component.children.length, 2);
  const analysis = await p.ok("ANALYZE_COMPONENT_SET", { nodeId: set.id });
  assert.deepEqual(analysis.states, { axis: "State", values: ["Default", "Focus"] });
  assert.deepEqual(analysis.variants[1].changes.height, { from: 32, to: 40 });
  const desc = await p.ok("SET_NODE_DESCRIPTION", { nodeId: set.id, description: "Primary action", descriptionMarkdown: "**Primary**" });
  assert.equal(desc.node.description, "Primary action");

  const published = (await p.ok("EXECUTE_CODE", { code: "const c = figma.createComponent(); c.name = 'Lib'; return c.key" })).result;
  p.control.publish((await p.figma.root.findAllWithCriteria({ types: ["COMPONENT"] })).find((c) => c.key === published));
  const fromKey = await p.ok("INSTANTIATE_COMPONENT", { componentKey: published, parentId: p.figma.currentPage.id });
  assert.equal(fromKey.mainComponent.key, published);
});

test("components: error paths", async () => {
  const p = loadPlugin();
  const { a, set } = await buttonSet(p);
  const r = await rect(p);
  fail(await p.call("GET_COMPONENT", { nodeId: r }), "wrong_node_type", /RECTANGLE/);
  fail(await p.call("GET_COMPONENT", { nodeId: "77:77" }), "not_found", /look the node up again/);
  fail(await p.call("DEEP_GET_COMPONENT", { nodeId: set.id, depth: 99 }), "bad_params", /depth/);
  fail(await p.call("ANALYZE_COMPONENT_SET", { nodeId: a }), "wrong_node_type");
  fail(await p.call("SET_NODE_DESCRIPTION", { nodeId: r, description: "x" }), "wrong_node_type");
  fail(await p.call("SET_NODE_DESCRIPTION", { nodeId: "S:missing,", description: "x" }), "not_found");
  fail(await p.call("ADD_COMPONENT_PROPERTY", { nodeId: a, propertyName: "X", propertyType: "TEXT", defaultValue: "" }), "wrong_node_type", /component set/);
  fail(await p.call("ADD_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "X", propertyType: "BOOLEAN", defaultValue: "yes" }), "bad_params");
  fail(await p.call("EDIT_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "Nope", newValue: { name: "A" } }), "not_found", /Its properties/);
  fail(await p.call("DELETE_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "Nope" }), "not_found");
  fail(await p.call("INSTANTIATE_COMPONENT", { componentKey: "missing-key" }), "not_found", /library/);
  fail(await p.call("INSTANTIATE_COMPONENT", { nodeId: set.id, variant: { State: "Hover" } }), "not_found", /Variants/);
  fail(await p.call("INSTANTIATE_COMPONENT", { nodeId: set.id, overrides: { Missing: "x" } }), "not_found", /neither/);
  fail(await p.call("SET_INSTANCE_PROPERTIES", { nodeId: r, properties: {} }), "wrong_node_type");
  const inst = (await p.ok("INSTANTIATE_COMPONENT", { nodeId: a })).instance;
  fail(await p.call("SET_INSTANCE_PROPERTIES", { nodeId: inst.id, properties: { Ghost: 1 } }), "not_found");
  fail(await p.call("CREATE_COMPONENT_SET", { baseComponentId: a }), "bad_params", /axes/);
  fail(await p.call("CREATE_COMPONENT_SET", { baseComponentId: a, properties: { A: Array.from({ length: 30 }, (_, i) => "a" + i), B: Array.from({ length: 30 }, (_, i) => "b" + i) } }), "bad_params", /limit/);
  fail(await p.call("CREATE_COMPONENT_SET", { componentIds: [r] }), "wrong_node_type");
});

test("annotations", async () => {
  const p = loadPlugin();
  const frame = (await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "FRAME" })).node.id;
  const child = (await p.ok("CREATE_CHILD_NODE", { parentId: frame, nodeType: "RECTANGLE" })).node.id;
  await p.ok("SET_ANNOTATIONS", { nodeId: child, annotations: [{ label: "Tap target", categoryId: "cat:1" }] });
  await p.ok("SET_ANNOTATIONS", { nodeId: child, annotations: [{ labelMarkdown: "**More**" }], mode: "append" });
  const own = await p.ok("GET_ANNOTATIONS", { nodeId: child });
  assert.equal(own.annotations.length, 2);
  const tree = await p.ok("GET_ANNOTATIONS", { nodeId: frame, includeChildren: true, depth: 2 });
  assert.equal(tree.nodes.length, 1);
  assert.equal(tree.nodes[0].nodeId, child);
  const cats = await p.ok("GET_ANNOTATION_CATEGORIES");
  assert.equal(cats.categories[0].label, "Interaction");
  fail(await p.call("SET_ANNOTATIONS", { nodeId: child, annotations: [{}] }), "bad_params", /label/);
  fail(await p.call("SET_ANNOTATIONS", { nodeId: child, annotations: [], mode: "merge" }), "bad_params", /replace, append/);
  fail(await p.call("GET_ANNOTATIONS", { nodeId: p.figma.root.id }), "wrong_node_type");
});

test("slots", async () => {
  const p = loadPlugin();
  const comp = (await p.ok("EXECUTE_CODE", { code: "const c = figma.createComponent(); c.name = 'Card'; return c.id" })).result;
  const slot = await p.ok("CREATE_SLOT", { nodeId: comp, name: "Body", width: 200, height: 80, layoutMode: "VERTICAL" });
  assert.equal(slot.slot.type, "SLOT");
  assert.equal(slot.slot.width, 200);
  const listed = await p.ok("GET_SLOTS", { nodeId: comp });
  assert.equal(listed.slots[0].name, "Body");
  const inst = (await p.ok("INSTANTIATE_COMPONENT", { nodeId: comp })).instance.id;
  const source = await rect(p);
  const appended = await p.ok("APPEND_TO_SLOT", { instanceId: inst, slotName: "Body", sourceNodeId: source });
  assert.notEqual(appended.appended.id, source, "clone by default");
  await p.ok("APPEND_TO_SLOT", { instanceId: inst, slotName: "Body", nodeType: "TEXT", properties: { name: "Note" } });
  const reset = await p.ok("RESET_SLOT", { instanceId: inst, slotName: "Body" });
  assert.equal(reset.slot.childCount, 0);
  fail(await p.call("CREATE_SLOT", { nodeId: source }), "wrong_node_type");
  fail(await p.call("APPEND_TO_SLOT", { instanceId: inst, slotName: "Footer" }), "not_found", /Its slots: Body/);
  fail(await p.call("APPEND_TO_SLOT", {}), "bad_params", /slotId/);
  fail(await p.call("RESET_SLOT", { slotId: source }), "wrong_node_type");
  fail(await p.call("GET_SLOTS", { nodeId: source }), "wrong_node_type");
});

test("node edits: resize, move, fills, strokes, opacity, radius, clone, rename, delete, create child", async () => {
  const p = loadPlugin();
  const id = await rect(p, { name: "Box", x: 5, y: 6, width: 40, height: 30, fills: [{ type: "SOLID", color: "#00FF0080" }] });
  assert.equal((await p.ok("RESIZE_NODE", { nodeId: id, width: 64, height: 48 })).node.width, 64);
  assert.equal((await p.ok("RESIZE_NODE", { nodeId: id, width: 10, height: 10, withConstraints: false })).node.height, 10);
  assert.equal((await p.ok("MOVE_NODE", { nodeId: id, x: 100, y: -3 })).node.y, -3);
  const col = (await p.ok("CREATE_VARIABLE_COLLECTION", { name: "C" })).collection;
  const color = (await p.ok("CREATE_VARIABLE", { name: "bg", collectionId: col.id, resolvedType: "COLOR" })).variable;
  const fills = await p.ok("SET_NODE_FILLS", { nodeId: id, fills: [{ type: "SOLID", color: "#abc" }, { type: "SOLID", color: "#11223344", variableId: color.id }] });
  assert.deepEqual(fills.fills[0], { type: "SOLID", color: "#AABBCC" });
  assert.equal(fills.fills[1].variableId, color.id);
  assert.equal(fills.fills[1].opacity.toFixed(3), (0x44 / 255).toFixed(3));
  const strokes = await p.ok("SET_NODE_STROKES", { nodeId: id, strokes: [{ color: "#000" }], strokeWeight: 2 });
  assert.equal(strokes.strokeWeight, 2);
  assert.equal((await p.ok("SET_NODE_OPACITY", { nodeId: id, opacity: 0.5 })).opacity, 0.5);
  assert.equal((await p.ok("SET_NODE_CORNER_RADIUS", { nodeId: id, radius: 8 })).cornerRadius, 8);
  const copy = await p.ok("CLONE_NODE", { nodeId: id });
  assert.notEqual(copy.node.id, id);
  assert.equal((await p.ok("RENAME_NODE", { nodeId: copy.node.id, newName: "Copy" })).node.name, "Copy");
  await p.ok("DELETE_NODE", { nodeId: copy.node.id });
  fail(await p.call("RENAME_NODE", { nodeId: copy.node.id, newName: "x" }), "not_found");
  const text = await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "TEXT", properties: { text: "Hello", fontSize: 18 } });
  assert.equal(text.node.type, "TEXT");
  const line = await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "LINE", properties: { width: 50 } });
  assert.equal(line.node.height, 0);
  assert.equal((await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "ELLIPSE" })).node.type, "ELLIPSE");
});

test("node edits: error paths", async () => {
  const p = loadPlugin();
  const id = await rect(p);
  fail(await p.call("RESIZE_NODE", { nodeId: id, width: 0, height: 5 }), "bad_params", /width/);
  fail(await p.call("RESIZE_NODE", { nodeId: p.figma.currentPage.id, width: 5, height: 5 }), "bad_params", /PAGE/);
  fail(await p.call("MOVE_NODE", { nodeId: id, x: "1", y: 2 }), "bad_params", /'x'/);
  for (const bad of ["#12", "red", "#GGGGGG", 42]) {
    fail(await p.call("SET_NODE_FILLS", { nodeId: id, fills: [{ type: "SOLID", color: bad }] }), "bad_params", /hex/);
  }
  fail(await p.call("SET_NODE_FILLS", { nodeId: id, fills: "#fff" }), "bad_params", /array/);
  fail(await p.call("SET_NODE_FILLS", { nodeId: id, fills: [{ color: "#fff", variableId: "VariableID:0:0" }] }), "not_found");
  fail(await p.call("SET_NODE_STROKES", { nodeId: id, strokes: [], strokeWeight: -1 }), "bad_params");
  fail(await p.call("SET_NODE_OPACITY", { nodeId: id, opacity: 2 }), "bad_params", /at most 1/);
  fail(await p.call("SET_NODE_CORNER_RADIUS", { nodeId: id }), "bad_params", /radius/);
  const text = (await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "LINE" })).node.id;
  fail(await p.call("SET_NODE_CORNER_RADIUS", { nodeId: text, radius: 2 }), "wrong_node_type", /cornerRadius/);
  fail(await p.call("CLONE_NODE", { nodeId: "" }), "bad_params");
  fail(await p.call("DELETE_NODE", { nodeId: p.figma.root.id }), "bad_params", /document/);
  fail(await p.call("DELETE_NODE", { nodeId: p.figma.currentPage.id }), "bad_params", /only page/);
  fail(await p.call("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "STAR" }), "bad_params", /RECTANGLE/);
  fail(await p.call("CREATE_CHILD_NODE", { parentId: id, nodeType: "FRAME" }), "wrong_node_type", /cannot hold children/);
  const before = p.figma.currentPage.children.length;
  fail(await p.call("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "FRAME", properties: { fills: [{ color: "nope" }] } }), "bad_params");
  assert.equal(p.figma.currentPage.children.length, before, "a failed create removes the half-made node");
});

test("image fill decodes base64 and checks the image", async () => {
  const p = loadPlugin();
  const a = await rect(p);
  const b = await rect(p);
  const png = p.figma.base64Encode(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
  const r = await p.ok("SET_IMAGE_FILL", { nodeIds: [a, b], imageData: "data:image/png;base64," + png, scaleMode: "FIT" });
  assert.equal(r.format, "PNG");
  assert.equal(p.figma.getNodeById(b).fills[0].scaleMode, "FIT");
  fail(await p.call("SET_IMAGE_FILL", { nodeIds: [a], imageData: p.figma.base64Encode(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])) }), "bad_params", /PNG, JPEG or GIF/);
  fail(await p.call("SET_IMAGE_FILL", { nodeIds: [a], imageData: "%%%" }), "bad_params", /base64/);
  fail(await p.call("SET_IMAGE_FILL", { nodeIds: [], imageData: png }), "bad_params");
  fail(await p.call("SET_IMAGE_FILL", { nodeIds: [a], imageData: png, scaleMode: "STRETCH" }), "bad_params", /FILL/);
});

test("text: fonts are loaded before edits, styles are normalised", async () => {
  const p = loadPlugin();
  const id = (await p.ok("EXECUTE_CODE", { code: "const t = figma.createText(); return t.id" })).result;
  // The stand-in editor refuses text changes while the font is not loaded, as the real one does.
  fail(await p.call("EXECUTE_CODE", { code: "(await figma.getNodeByIdAsync('" + id + "')).characters = 'x'" }), "execution_error", /font is not loaded/);
  const r = await p.ok("SET_TEXT_CONTENT", { nodeId: id, text: "Hello", fontSize: 20 });
  assert.equal(r.node.characters, "Hello");
  assert.equal(r.node.fontSize, 20);
  const bold = await p.ok("SET_TEXT_CONTENT", { nodeId: id, text: "Bold", fontFamily: "Roboto", fontWeight: 700 });
  assert.deepEqual(bold.node.fontName, { family: "Roboto", style: "Bold" });
  const semi = await p.ok("SET_TEXT_CONTENT", { nodeId: id, text: "x", fontFamily: "Inter", fontStyle: "semibold" });
  assert.equal(semi.node.fontName.style, "Semi Bold");
  const fallback = await p.ok("SET_TEXT_CONTENT", { nodeId: id, text: "x", fontFamily: "Inter", fontStyle: "Ultra Wide" });
  assert.equal(fallback.node.fontName.style, "Regular");
  fail(await p.call("SET_TEXT_CONTENT", { nodeId: id, text: "x", fontFamily: "Nonexistent Sans" }), "font_unavailable", /Inter/);
  fail(await p.call("SET_TEXT_CONTENT", { nodeId: id }), "bad_params", /text/);
  fail(await p.call("SET_TEXT_CONTENT", { nodeId: await rect(p), text: "x" }), "wrong_node_type");
});

test("screenshots: PNG, JPG, SVG, page capture, long-edge cap, stale and hidden nodes", async () => {
  const p = loadPlugin();
  const id = await rect(p, { width: 200, height: 100, fills: [{ color: "#FF0000" }] });
  const png = (await p.ok("CAPTURE_SCREENSHOT", { nodeId: id, scale: 2 })).image;
  assert.equal(png.mimeType, "image/png");
  assert.deepEqual([png.width, png.height], [400, 200]);
  assert.deepEqual(pngSize(p.figma.base64Decode(png.base64)), { width: 400, height: 200 });
  const big = await rect(p, { width: 4000, height: 1000 });
  const capped = (await p.ok("CAPTURE_SCREENSHOT", { nodeId: big, scale: 2 })).image;
  assert.equal(capped.width, 1568);
  assert.equal(capped.capped, true);
  const small = (await p.ok("CAPTURE_SCREENSHOT", { nodeId: big, maxEdge: 500 })).image;
  assert.equal(small.width, 500);
  const jpg = (await p.ok("CAPTURE_SCREENSHOT", { nodeId: id, format: "JPG" })).image;
  assert.equal(jpg.mimeType, "image/jpeg");
  const svg = (await p.ok("CAPTURE_SCREENSHOT", { nodeId: id, format: "SVG" })).image;
  assert.match(new TextDecoder().decode(p.figma.base64Decode(svg.base64)), /<svg/);
  const page = (await p.ok("CAPTURE_SCREENSHOT", {})).image;
  assert.equal(page.nodeId, p.figma.currentPage.id);
  assert.equal(page.width, 1568);

  fail(await p.call("CAPTURE_SCREENSHOT", { nodeId: "123:456" }), "not_found", /stale|look the node up again/);
  await p.ok("DELETE_NODE", { nodeId: id });
  fail(await p.call("CAPTURE_SCREENSHOT", { nodeId: id }), "not_found");
  const frame = (await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "FRAME" })).node.id;
  const inner = (await p.ok("CREATE_CHILD_NODE", { parentId: frame, nodeType: "RECTANGLE" })).node.id;
  p.figma.getNodeById(frame).visible = false;
  fail(await p.call("CAPTURE_SCREENSHOT", { nodeId: inner }), "hidden_node", /visible/);
  fail(await p.call("CAPTURE_SCREENSHOT", { nodeId: big, format: "GIF" }), "bad_params", /PNG, JPG, SVG/);
  fail(await p.call("CAPTURE_SCREENSHOT", { nodeId: big, scale: 9 }), "bad_params", /scale/);
  const empty = loadPlugin();
  fail(await empty.call("CAPTURE_SCREENSHOT", {}), "empty_node", /no visible layers/);
});

test("lint and accessibility audit", async () => {
  const p = loadPlugin();
  const frame = (await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "FRAME", properties: { fills: [{ color: "#FFFFFF" }] } })).node.id;
  await p.ok("CREATE_CHILD_NODE", { parentId: frame, nodeType: "TEXT", properties: { text: "faint", fontSize: 10, fills: [{ color: "#DDDDDD" }] } });
  await p.ok("CREATE_CHILD_NODE", { parentId: frame, nodeType: "RECTANGLE" });
  const lint = await p.ok("LINT_DESIGN", { nodeId: frame });
  const rules = new Set(lint.findings.map((f) => f.rule));
  for (const r of ["wcag-contrast", "wcag-text-size", "ds-hardcoded-color", "layout-no-autolayout", "bp-default-name"]) assert.ok(rules.has(r), r + " in " + [...rules]);
  const only = await p.ok("LINT_DESIGN", { nodeId: frame, rules: ["wcag"], maxFindings: 1 });
  assert.equal(only.findings.length, 1);
  assert.equal(only.truncated, true);
  assert.ok(only.findings.every((f) => f.rule.startsWith("wcag")));
  fail(await p.call("LINT_DESIGN", { rules: ["spelling"] }), "bad_params", /Rules:/);
  // designd asks for counts alone once its list is full: no findings, every count.
  const counted = await p.ok("LINT_DESIGN", { nodeId: frame, maxFindings: 0 });
  assert.deepEqual([counted.findings.length, counted.counts], [0, lint.counts]);
  fail(await p.call("LINT_DESIGN", { maxFindings: -1 }), "bad_params");

  const { set } = await buttonSet(p);
  const audit = await p.ok("AUDIT_COMPONENT_ACCESSIBILITY", { nodeId: set.id, targetSize: 44 });
  assert.equal(audit.components.length, 2);
  assert.ok(audit.components[0].issues.some((i) => i.rule === "target-size"));
  assert.equal(audit.owners[0].hasFocusState, true);
  const page = await p.ok("AUDIT_COMPONENT_ACCESSIBILITY", {});
  assert.ok(page.componentCount >= 2);
  fail(await p.call("AUDIT_COMPONENT_ACCESSIBILITY", { targetSize: 0 }), "bad_params");
});

test("whiteboard methods in a whiteboard file", async () => {
  const p = loadPlugin({ editorType: "figjam" });
  const s1 = (await p.ok("CREATE_STICKY", { text: "Idea", color: "BLUE", x: 10, y: 10 })).node;
  assert.equal(s1.type, "STICKY");
  const many = await p.ok("CREATE_STICKIES", { stickies: [{ text: "a" }, { text: "b", color: "PINK" }] });
  assert.equal(many.count, 2);
  const conn = await p.ok("CREATE_CONNECTOR", { startNodeId: s1.id, endNodeId: many.nodes[0].id, label: "leads to", endMagnet: "LEFT" });
  assert.equal(conn.startNodeId, s1.id);
  const shape = await p.ok("CREATE_SHAPE_WITH_TEXT", { text: "DB", shapeType: "ENG_DATABASE", width: 120, height: 80, fillColor: "#eee", strokeDashPattern: "4,2" });
  assert.equal(shape.node.width, 120);
  assert.equal((await p.ok("CREATE_SECTION", { name: "Zone", fillColor: "#F0F0F0" })).node.width, 1000);
  const table = await p.ok("CREATE_TABLE", { rows: 2, columns: 2, data: [["a", "b"], ["c", "d"]] });
  assert.equal(table.rows, 2);
  const code = await p.ok("CREATE_CODE_BLOCK", { code: "print(1)", language: "python" });
  assert.equal(code.node.type, "CODE_BLOCK");
  const board = await p.ok("GET_BOARD_CONTENTS", { nodeTypes: ["STICKY"] });
  assert.equal(board.total, 3);
  assert.equal(board.nodes[0].text, "Idea");
  const links = await p.ok("GET_CONNECTIONS");
  assert.deepEqual(links.connections.map((c) => c.label), ["leads to"]);
  fail(await p.call("CREATE_STICKY", { text: "x", color: "TEAL" }), "bad_params", /YELLOW/);
  fail(await p.call("CREATE_STICKIES", { stickies: [] }), "bad_params");
  fail(await p.call("CREATE_CONNECTOR", { startNodeId: s1.id, endNodeId: "0:404" }), "not_found");
  fail(await p.call("CREATE_TABLE", { rows: 0, columns: 2 }), "bad_params", /rows/);
  fail(await p.call("CREATE_CODE_BLOCK", { code: "x", language: "klingon" }), "bad_params", /TYPESCRIPT/);
  fail(await p.call("GET_BOARD_CONTENTS", { nodeTypes: ["WIDGET"] }), "bad_params");
});

test("whiteboard and slides methods refuse other editors with a clear error", async () => {
  const p = loadPlugin({ editorType: "figma" });
  fail(await p.call("CREATE_STICKY", { text: "x" }), "unsupported", /FigJam/);
  fail(await p.call("GET_BOARD_CONTENTS"), "unsupported", /FigJam/);
  fail(await p.call("GET_CONNECTIONS"), "unsupported", /FigJam/);
  fail(await p.call("LIST_SLIDES"), "unsupported", /slides/);
  fail(await p.call("SET_SLIDE_BACKGROUND", { slideId: "1:1", color: "#fff" }), "unsupported");
});

test("slides methods in a slides file", async () => {
  const p = loadPlugin({ editorType: "slides" });
  const a = (await p.ok("CREATE_SLIDE", {})).slide.id;
  const b = (await p.ok("CREATE_SLIDE", { row: 0, col: 1 })).slide.id;
  const c = (await p.ok("DUPLICATE_SLIDE", { slideId: a })).slide.id;
  assert.equal((await p.ok("LIST_SLIDES")).count, 3);
  assert.deepEqual((await p.ok("GET_SLIDE_GRID")).grid, [[a, b, c]]);
  assert.deepEqual((await p.ok("REORDER_SLIDES", { grid: [[c, b], [a]] })).grid, [[c, b], [a]]);
  const t = await p.ok("SET_SLIDE_TRANSITION", { slideId: a, style: "DISSOLVE", duration: 0.8 });
  assert.equal(t.transition.style, "DISSOLVE");
  assert.equal((await p.ok("GET_SLIDE_TRANSITION", { slideId: a })).transition.duration, 0.8);
  assert.equal((await p.ok("SET_SLIDES_VIEW_MODE", { mode: "single-slide" })).mode, "single-slide");
  await p.ok("FOCUS_SLIDE", { slideId: b });
  assert.equal((await p.ok("GET_FOCUSED_SLIDE")).slide.id, b);
  assert.equal((await p.ok("SKIP_SLIDE", { slideId: b, skip: true })).isSkipped, true);
  const text = await p.ok("ADD_TEXT_TO_SLIDE", { slideId: a, text: "Title", fontSize: 48, color: "#333", textAlign: "CENTER", width: 800, textCase: "UPPER" });
  assert.equal(text.node.parentId, a);
  const shape = await p.ok("ADD_SHAPE_TO_SLIDE", { slideId: a, shapeType: "ELLIPSE", x: 1, y: 2, width: 30, height: 40 });
  assert.equal(shape.node.type, "ELLIPSE");
  await p.ok("SET_SLIDE_BACKGROUND", { slideId: a, color: "#102030" });
  const content = await p.ok("GET_SLIDE_CONTENT", { slideId: a });
  assert.equal(content.slide.children.length, 2);
  assert.deepEqual((await p.ok("GET_TEXT_STYLES")).styles, []);
  await p.ok("DELETE_SLIDE", { slideId: c });
  assert.equal((await p.ok("LIST_SLIDES")).count, 2);
  fail(await p.call("REORDER_SLIDES", { grid: [[a]] }), "bad_params", /every slide/);
  fail(await p.call("SET_SLIDE_TRANSITION", { slideId: a, style: "SPIN" }), "bad_params", /DISSOLVE/);
  fail(await p.call("SET_SLIDES_VIEW_MODE", { mode: "list" }), "bad_params");
  fail(await p.call("SKIP_SLIDE", { slideId: a }), "bad_params", /skip/);
  fail(await p.call("ADD_SHAPE_TO_SLIDE", { slideId: a, shapeType: "STAR", x: 0, y: 0, width: 1, height: 1 }), "bad_params");
  fail(await p.call("ADD_TEXT_TO_SLIDE", { slideId: a, text: "x", fontFamily: "Comic Zans" }), "font_unavailable");
  fail(await p.call("GET_SLIDE_CONTENT", { slideId: text.node.id }), "wrong_node_type");
  fail(await p.call("SET_SLIDE_BACKGROUND", { slideId: a, color: "blue" }), "bad_params", /hex/);
});

test("CREATE_STICKIES checks every entry before it creates one", async () => {
  const p = loadPlugin({ editorType: "figjam" });
  const count = () => figmaCount(p, "STICKY");
  fail(await p.call("CREATE_STICKIES", { stickies: [{ text: "a" }, { text: "b", color: "TEAL" }] }), "bad_params", /stickies\[1\]\.color/);
  fail(await p.call("CREATE_STICKIES", { stickies: [{ text: "a" }, { text: "b", x: "left" }] }), "bad_params", /stickies\[1\]\.x/);
  fail(await p.call("CREATE_STICKIES", { stickies: [{ text: "a" }, null] }), "bad_params", /stickies\[1\]/);
  assert.equal(count(), 0);
  p.control.failOn("createSticky", 2);
  fail(await p.call("CREATE_STICKIES", { stickies: [{ text: "a" }, { text: "b" }, { text: "c" }] }), undefined, /createSticky/);
  assert.equal(count(), 0);
  assert.equal((await p.ok("CREATE_STICKIES", { stickies: [{ text: "a" }, { text: "b" }] })).count, 2);
  assert.equal(count(), 2);
});

/** @param {any} p @param {string} type */
function figmaCount(p, type) {
  return p.figma.currentPage.findAll((/** @type {any} */ n) => n.type === type).length;
}

test("AUTO_ARRANGE lays nodes out without overlap and leaves connectors to follow", async () => {
  const p = loadPlugin({ editorType: "figjam" });
  const sizes = [[240, 240], [400, 90], [60, 300], [100, 100], [10, 10]];
  const ids = [];
  for (const [w, h] of sizes) ids.push((await p.ok("CREATE_SHAPE_WITH_TEXT", { width: w, height: h, x: 7, y: 9 })).node.id);
  const link = (await p.ok("CREATE_CONNECTOR", { startNodeId: ids[0], endNodeId: ids[4] })).node.id;
  const out = await p.ok("AUTO_ARRANGE", { nodeIds: [...ids, link], spacing: 20, columns: 2 });
  assert.deepEqual(out.skippedConnectors, [link]);
  assert.equal(out.columns, 2);
  assert.equal(out.rows, 3);
  const boxes = ids.map((id) => p.figma.getNodeById(id));
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i];
      const b = boxes[j];
      const apart = a.x + a.width + 20 <= b.x || b.x + b.width + 20 <= a.x || a.y + a.height + 20 <= b.y || b.y + b.height + 20 <= a.y;
      assert.ok(apart, "nodes " + a.id + " and " + b.id + " overlap");
    }
  }
  assert.deepEqual([boxes[0].x, boxes[0].y], [7, 9]);
  assert.equal(p.figma.getNodeById(link).connectorEnd.endpointNodeId, ids[4]);
  const row = await p.ok("AUTO_ARRANGE", { nodeIds: ids, layout: "horizontal", spacing: 0 });
  assert.deepEqual(row.nodes.map((/** @type {any} */ n) => n.to.x), [7, 247, 647, 707, 807]);
  fail(await p.call("AUTO_ARRANGE", { nodeIds: [ids[0], ids[0]] }), "bad_params", /twice/);
  fail(await p.call("AUTO_ARRANGE", { nodeIds: [link] }), "bad_params", /connectors/);
  fail(await p.call("AUTO_ARRANGE", { nodeIds: [ids[0]], layout: "circle" }), "bad_params");
});

test("REORDER_SLIDES refuses a repeated slide; LIST_SLIDES reads as an outline", async () => {
  const p = loadPlugin({ editorType: "slides" });
  const a = (await p.ok("CREATE_SLIDE")).slide.id;
  const b = (await p.ok("CREATE_SLIDE")).slide.id;
  fail(await p.call("REORDER_SLIDES", { grid: [[a, a]] }), "bad_params", new RegExp("repeated: " + a));
  assert.deepEqual((await p.ok("GET_SLIDE_GRID")).grid, [[a], [b]]);
  await p.ok("ADD_TEXT_TO_SLIDE", { slideId: b, text: "small", y: 10, fontSize: 12 });
  await p.ok("ADD_TEXT_TO_SLIDE", { slideId: b, text: "Big title", y: 200, fontSize: 80 });
  const outline = (await p.ok("LIST_SLIDES")).slides;
  assert.deepEqual(outline.map((/** @type {any} */ s) => [s.id, s.title, s.text]), [[a, null, []], [b, "Big title", ["small"]]]);
});
