// Batches of thousands on the stand-in editor: one call and one undo step, paced in slices so the editor's thread is
// never held for long, one bad item named with nothing written, and a cancel midway taken back whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPlugin } from "./harness/sandbox.mjs";
import { buildBigDocument } from "./harness/big-document.mjs";
import { slowVariable, slowVariableWrites } from "./harness/slow-editor.mjs";
import { SLICE_MS } from "../../plugin/src/code/chunks.js";
import { LISTED_ITEMS } from "../../plugin/src/code/methods/tokens.js";

const COUNT = 2000;

/** Every local variable with everything a batch could change. */
async function variablesState(p) {
  const vars = await p.figma.variables.getLocalVariablesAsync();
  return JSON.stringify(vars.map((v) => ({ id: v.id, name: v.name, description: v.description, values: v.valuesByMode })));
}

/** A file with COUNT number variables in one collection of two modes. */
async function fileWithVariables() {
  const p = loadPlugin({ setup: (figma, control) => buildBigDocument(figma, control, { layers: 200, variables: COUNT, modes: 2, collections: 1 }) });
  const collection = (await p.figma.variables.getLocalVariableCollectionsAsync())[0];
  const variables = await p.figma.variables.getLocalVariablesAsync();
  return { p, collection, variables };
}

/** A plain value of the variable's type, different for each `i`. */
function valueOf(v, i) {
  if (v.resolvedType === "FLOAT") return i;
  if (v.resolvedType === "STRING") return "s" + i;
  if (v.resolvedType === "BOOLEAN") return i % 2 === 0;
  return "#" + (i % 4096).toString(16).toUpperCase().padStart(3, "0") + "ABC";
}

/** Updates giving every variable of the file (aliases included) a new plain value in `modeId`. */
function updatesFor(variables, modeId) {
  return variables.map((v, i) => ({ variableId: v.id, modeId: modeId, value: valueOf(v, i) }));
}

/**
 * Sends one command and, until its reply, queues a timer turn again and again; answers the reply and the most CPU
 * time spent between two turns: the longest stretch the plugin held the thread. CPU time, not wall time, so that
 * other processes on a busy machine do not count. (Handing the command over, which the design tool does before the
 * plugin runs, is not counted.)
 */
async function longestStretch(p, id, method, params) {
  const reply = p.next((m) => m.kind === "reply" && m.reply.id === id, 30000);
  p.fromUi({ kind: "command", route: "test:1", command: { id, method, params } });
  const cpu = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  let longest = 0;
  let last = cpu();
  let running = true;
  const tick = () => {
    const now = cpu();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const result = (await reply).reply;
  running = false;
  return { reply: result, longest };
}

test("2,000 variable updates are one call and one undo step, and the editor gets its thread back between slices", async () => {
  const { p, collection, variables } = await fileWithVariables();
  assert.equal(variables.length, COUNT);
  // Half a millisecond a write, as in a file whose layers use the variables: the batch takes a second, so it slices.
  variables.forEach((v) => slowVariable(v, 0.5));
  const modeId = collection.modes[0].modeId;
  const commits = p.control.undoCommits;
  const { reply, longest } = await longestStretch(p, "big", "BATCH_UPDATE_VARIABLES", { updates: updatesFor(variables, modeId) });
  assert.equal(reply.error, undefined, reply.error);
  assert.equal(reply.result.count, COUNT);
  assert.equal(p.control.undoCommits - commits, 1, "one undo step for the whole batch");
  const written = variables.map((v) => v.valuesByMode[modeId]);
  const wanted = variables.map((v, i) => (v.resolvedType === "COLOR" ? written[i] : valueOf(v, i)));
  assert.deepEqual(written, wanted);
  assert.ok(variables.every((v) => v.resolvedType !== "COLOR" || typeof v.valuesByMode[modeId].r === "number"));
  // Unpaced, the batch would hold the thread for the whole second it takes; paced, a stretch is about a slice (the
  // stand-in's own collections of garbage come on top).
  assert.ok(longest < 4 * SLICE_MS, "the plugin held the thread for " + longest.toFixed(1) + " ms at a stretch");
  const progress = p.events("PROGRESS").filter((d) => d.id === reply.id);
  assert.ok(progress.length >= 10, progress.length + " progress messages");
  assert.equal(progress.at(-1).progress, COUNT);
  // The answer lists the first variables and counts the rest, so it stays small.
  assert.equal(Object.keys(reply.result.changes).length, LISTED_ITEMS);
  assert.equal(reply.result.notListed, COUNT - LISTED_ITEMS);
  assert.ok(JSON.stringify(reply).length < 12000, JSON.stringify(reply).length + " bytes of answer");
});

test("one bad item among 2,000 is named and nothing is written", async () => {
  const { p, collection, variables } = await fileWithVariables();
  const before = await variablesState(p);
  const commits = p.control.undoCommits;
  const updates = updatesFor(variables, collection.modes[1].modeId);
  const bad = 1733;
  updates[bad] = { variableId: variables[bad].id, modeId: collection.modes[1].modeId, value: variables[bad].resolvedType === "STRING" ? 12 : "wide" };
  const reply = await p.call("BATCH_UPDATE_VARIABLES", { updates });
  assert.equal(reply.code, "bad_params");
  assert.match(reply.error, new RegExp("updates\\[" + bad + "\\] \\('" + variables[bad].name.replace(/[/.]/g, "\\$&") + "'\\)"));
  assert.equal(await variablesState(p), before);
  assert.equal(p.control.undoCommits, commits, "a refused batch commits no undo step");

  // The same for a batch of new variables, and one of deletes.
  const names = Array.from({ length: COUNT }, (_, i) => ({ name: "new/" + i, resolvedType: "FLOAT", valuesByMode: { [collection.modes[0].modeId]: i } }));
  names[1500] = { name: variables[0].name, resolvedType: "FLOAT" };
  const create = await p.call("BATCH_CREATE_VARIABLES", { collectionId: collection.id, variables: names });
  assert.equal(create.code, "conflict");
  assert.match(create.error, /variables\[1500\]/);
  const ids = variables.map((v) => v.id);
  ids[999] = "VariableID:404:404";
  const remove = await p.call("BATCH_DELETE_VARIABLES", { variableIds: ids });
  assert.equal(remove.code, "not_found");
  assert.match(remove.error, /variableIds\[999\]/);
  assert.equal(await variablesState(p), before);
});

test("a cancel midway takes back what the batch had written, for updates, creates and deletes", async () => {
  const { p, collection, variables } = await fileWithVariables();
  slowVariableWrites(p, 0.2);
  variables.forEach((v) => slowVariable(v, 0.2));
  const before = await variablesState(p);
  // A refused write waits for the writes before it to settle, so its answer comes after a cancelled batch's rollback.
  const settled = () => p.call("RENAME_VARIABLE", { variableId: "VariableID:404:404", newName: "x" });
  /** Sends `method`, cancels it once it reported progress past a third, and answers its reply. */
  async function cancelled(method, params) {
    const id = "big-" + method;
    p.fromUi({ kind: "command", route: "r", command: { id, method, params } });
    await p.next((m) => m.kind === "event" && m.event.type === "PROGRESS" && m.event.data.id === id && m.event.data.progress > m.event.data.total / 3, 20000);
    p.fromUi({ kind: "command", route: "r", command: { id: "cancel-" + id, method: "CANCEL", params: { target: id } } });
    return (await p.next((m) => m.kind === "reply" && m.reply.id === id, 20000)).reply;
  }
  // Deletes made again get new ids, so the state is compared by names: of the variables and of the aliases' targets.
  const byName = async () => {
    const all = await p.figma.variables.getLocalVariablesAsync();
    const names = new Map(all.map((v) => [v.id, v.name]));
    const shown = (value) => (value && value.type === "VARIABLE_ALIAS" ? "→" + names.get(value.id) : value);
    return JSON.stringify(all.map((v) => [v.name, v.description, v.resolvedType, Object.values(v.valuesByMode).map(shown)]).sort());
  };
  const names = await byName();

  for (const [method, params] of [
    ["BATCH_UPDATE_VARIABLES", { updates: updatesFor(variables, collection.modes[0].modeId) }],
    ["BATCH_CREATE_VARIABLES", { collectionId: collection.id, variables: Array.from({ length: COUNT }, (_, i) => ({ name: "new/" + i, resolvedType: "FLOAT" })) }],
  ]) {
    const reply = await cancelled(method, params);
    assert.equal(reply.code, "cancelled", method);
    // The reply comes at once; the batch notices at the end of its slice and takes back what it wrote.
    assert.equal((await settled()).code, "not_found");
    assert.equal(await variablesState(p), before, method + " left the variables as before");
  }
  const reply = await cancelled("BATCH_DELETE_VARIABLES", { variableIds: variables.map((v) => v.id) });
  assert.equal(reply.code, "cancelled");
  assert.equal((await settled()).code, "not_found");
  assert.equal(await byName(), names, "the deleted variables are back, with their names, types and values");
});

// ---- node edits ------------------------------------------------------------------------------------------------------

/** Every layer of the current page with what a batch edit could change. */
function layersState(p) {
  const out = [];
  const visit = (node) => {
    for (const child of node.children || []) {
      out.push([child.id, child.name, child.x, child.y, child.width, child.height, child.visible, child.opacity, JSON.stringify(child.fills)]);
      visit(child);
    }
  };
  visit(p.figma.currentPage);
  return JSON.stringify(out);
}

/** A file of 8,000 layers and the first COUNT frames, rectangles and texts of its current page outside instances (whose
 * layers the editor does not let a plugin resize). */
function fileWithLayers() {
  const p = loadPlugin({ setup: (figma, control) => buildBigDocument(figma, control, { layers: 8000 }) });
  const layers = [];
  const visit = (node) => {
    for (const child of node.children || []) {
      if (child.type === "INSTANCE") continue;
      if (layers.length < COUNT && ["FRAME", "RECTANGLE", "TEXT"].includes(child.type)) layers.push(child);
      visit(child);
    }
  };
  visit(p.figma.currentPage);
  assert.equal(layers.length, COUNT);
  return { p, layers };
}

test("2,000 node edits are one call and one undo step; one bad edit is named and nothing changes", async () => {
  const { p, layers } = fileWithLayers();
  const before = layersState(p);
  const edits = layers.map((n, i) => ({ nodeId: n.id, width: 10 + (i % 50), opacity: 0.5, name: "edited/" + i }));
  const bad = edits.slice();
  bad[1234] = { nodeId: layers[1234].id, opacity: 2 };
  const refused = await p.call("BATCH_EDIT_NODES", { edits: bad });
  assert.equal(refused.code, "bad_params");
  assert.match(refused.error, /edits\[1234\]\.opacity/);
  assert.equal(layersState(p), before);
  // A layer its parent's auto layout places has no x to set: refused before anything moves.
  const placed = p.figma.currentPage.findOne((n) => !layers.includes(n) && n.parent && n.parent.layoutMode && n.parent.layoutMode !== "NONE");
  bad[1234] = { nodeId: placed.id, x: 5 };
  const auto = await p.call("BATCH_EDIT_NODES", { edits: bad });
  assert.equal(auto.code, "bad_params");
  assert.match(auto.error, /edits\[1234\].*auto layout/);
  assert.equal(layersState(p), before);

  const commits = p.control.undoCommits;
  const { reply, longest } = await longestStretch(p, "edits", "BATCH_EDIT_NODES", { edits });
  assert.equal(reply.error, undefined, reply.error);
  assert.equal(reply.result.count, COUNT);
  assert.equal(p.control.undoCommits - commits, 1);
  layers.forEach((n, i) => assert.deepEqual([n.width, n.opacity, n.name], [10 + (i % 50), 0.5, "edited/" + i]));
  assert.ok(longest < 4 * SLICE_MS, "the plugin held the thread for " + longest.toFixed(1) + " ms at a stretch");
  assert.equal(reply.result.edited.length, LISTED_ITEMS);
  assert.equal(reply.result.notListed, COUNT - LISTED_ITEMS);
});

test("node edits that fail or are cancelled midway set every layer back", async () => {
  const { p, layers } = fileWithLayers();
  const before = layersState(p);
  // A layer the editor refuses to resize, deep in the batch.
  const stubborn = layers[1500];
  stubborn.resize = () => {
    throw new Error("Simulated failure of resize");
  };
  const edits = layers.map((n) => ({ nodeId: n.id, height: 20, visible: false, opacity: 0.3 }));
  const failed = await p.call("BATCH_EDIT_NODES", { edits });
  assert.equal(failed.code, "plugin_api_error");
  assert.equal(failed.failedIndex, 1500);
  assert.match(failed.error, /edits\[1500\].*Simulated failure of resize.*1500 layers already edited were set back/);
  assert.equal(layersState(p), before);
  delete stubborn.resize;

  // Slow layers, so the batch spans slices and the cancel lands midway.
  for (const n of layers) {
    const resize = n.resize.bind(n);
    n.resize = (w, h) => {
      const end = performance.now() + 0.3;
      while (performance.now() < end);
      resize(w, h);
    };
  }
  p.fromUi({ kind: "command", route: "r", command: { id: "slow", method: "BATCH_EDIT_NODES", params: { edits } } });
  await p.next((m) => m.kind === "event" && m.event.type === "PROGRESS" && m.event.data.id === "slow" && m.event.data.progress > COUNT / 3, 20000);
  p.fromUi({ kind: "command", route: "r", command: { id: "stop", method: "CANCEL", params: { target: "slow" } } });
  assert.equal((await p.next((m) => m.kind === "reply" && m.reply.id === "slow")).reply.code, "cancelled");
  // A refused write waits for the cancelled one to settle, so after its answer the rollback is done.
  assert.equal((await p.call("BATCH_EDIT_NODES", { edits: [{ nodeId: "404:404", x: 1 }] })).code, "not_found");
  assert.equal(layersState(p), before);
});
