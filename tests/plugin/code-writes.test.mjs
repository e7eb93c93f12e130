// The plugin's writes, checked on the document afterwards: one undo step per write, results that say what changed,
// all-or-nothing batches (a failure on the 57th item leaves the document exactly as before), values as people write
// them, clear refusals that change nothing, and progress for long commands.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadPlugin } from "./harness/sandbox.mjs";
import { REFUSALS } from "../../plugin/src/code/dispatch.js";
import { MAX_BATCH } from "../../plugin/src/code/methods/tokens.js";
import { slowVariableWrites } from "./harness/slow-editor.mjs";

const PROTOCOL_DOC = new URL("../../docs/bridge-protocol.md", import.meta.url);
const NEW_METHODS = ["BATCH_CREATE_VARIABLES", "BATCH_UPDATE_VARIABLES", "SETUP_DESIGN_TOKENS", "ARRANGE_COMPONENT_SET", "ADD_SLOT_PROPERTY"];

/** Data made inside the plugin's realm, comparable with data made here. */
const plain = (value) => JSON.parse(JSON.stringify(value));

function fail(reply, code, pattern) {
  assert.equal(reply.result, undefined, "expected an error, got " + JSON.stringify(reply.result));
  assert.equal(typeof reply.error, "string");
  if (code) assert.equal(reply.code, code, reply.error);
  if (pattern) assert.match(reply.error, pattern);
  return reply;
}

/** Every local collection and variable with everything a write could change. */
async function variablesState(p) {
  const cols = await p.figma.variables.getLocalVariableCollectionsAsync();
  const vars = await p.figma.variables.getLocalVariablesAsync();
  return JSON.stringify({
    collections: cols.map((c) => ({ id: c.id, name: c.name, modes: c.modes, defaultModeId: c.defaultModeId, variableIds: c.variableIds })),
    variables: vars.map((v) => ({
      id: v.id,
      name: v.name,
      type: v.resolvedType,
      description: v.description,
      scopes: v.scopes,
      collection: v.variableCollectionId,
      values: v.valuesByMode,
    })),
  });
}

/** The current page's layers with what the node writes touch. */
function pageState(p) {
  const walk = (n) => ({
    id: n.id,
    type: n.type,
    name: n.name,
    box: [n.x, n.y, n.width, n.height],
    visible: n.visible,
    fills: n.fills,
    strokes: n.strokes,
    characters: n.type === "TEXT" ? n.characters : undefined,
    fontName: n.type === "TEXT" ? n.fontName : undefined,
    annotations: n.annotations,
    description: n.description,
    refs: n.componentPropertyReferences,
    defs: n.type === "COMPONENT_SET" || (n.type === "COMPONENT" && !(n.parent && n.parent.type === "COMPONENT_SET")) ? n.componentPropertyDefinitions : undefined,
    children: n.children ? n.children.map(walk) : undefined,
  });
  return JSON.stringify(p.figma.currentPage.children.map(walk));
}

async function collection(p, name = "Tokens", modes = ["Light", "Dark"]) {
  return (await p.ok("CREATE_VARIABLE_COLLECTION", { name, initialModeName: modes[0], additionalModes: modes.slice(1) })).collection;
}

async function code(p, body) {
  return (await p.ok("EXECUTE_CODE", { code: body })).result;
}

async function buttonSet(p, sizes = ["S", "M", "L"], states = ["Default", "Hover"]) {
  const ids = [];
  for (const size of sizes) {
    for (const state of states) {
      ids.push(await code(p, `const c = figma.createComponent(); c.name = 'Size=${size}, State=${state}'; c.resize(${60 + sizes.indexOf(size) * 20}, 32); return c.id`));
    }
  }
  return (await p.ok("CREATE_COMPONENT_SET", { componentIds: ids, name: "Button" })).componentSet;
}

function tokenList(n) {
  const tokens = [];
  for (let i = 0; i < n; i++) {
    tokens.push({ name: "color/step/" + i, resolvedType: "COLOR", values: { Light: "#0000" + (i % 256).toString(16).padStart(2, "0"), Dark: "#FFFFFF", HC: "#000000" } });
  }
  return tokens;
}

/** What the design tool holds for a value written as `expected` in results. */
function parsedOf(type, expected) {
  if (type !== "COLOR") return expected;
  const hex = expected.slice(1);
  const ch = (i) => parseInt(hex.slice(i, i + 2), 16) / 255;
  return { r: ch(0), g: ch(2), b: ch(4), a: hex.length === 8 ? ch(6) : 1 };
}

// ---- one undo step ----------------------------------------------------------------------------------------------

test("every write that changes the document commits exactly one undo step; a refused write and every read none", async () => {
  const doc = readFileSync(PROTOCOL_DOC, "utf8");
  const table = doc.slice(doc.indexOf("| Method | Params | Timeout |"), doc.indexOf("## Events"));
  const names = new Set(NEW_METHODS);
  for (const line of table.split("\n").slice(2)) {
    for (const m of (line.split("|")[1] || "").matchAll(/\b[A-Z][A-Z_]{3,}\b/g)) names.add(m[0]);
  }
  const reads = new Set([
    "GET_FILE_INFO", "RELOAD_UI", "CANCEL", "GET_VARIABLES_DATA", "REFRESH_VARIABLES", "GET_COMPONENT", "GET_LOCAL_COMPONENTS",
    "DEEP_GET_COMPONENT", "ANALYZE_COMPONENT_SET", "GET_ANNOTATIONS", "GET_ANNOTATION_CATEGORIES", "GET_SLOTS",
    "CAPTURE_SCREENSHOT", "LINT_DESIGN", "AUDIT_COMPONENT_ACCESSIBILITY", "GET_BOARD_CONTENTS", "GET_CONNECTIONS",
    "LIST_SLIDES", "GET_SLIDE_CONTENT", "GET_SLIDE_GRID", "GET_SLIDE_TRANSITION", "SET_SLIDES_VIEW_MODE",
    "GET_FOCUSED_SLIDE", "FOCUS_SLIDE", "GET_TEXT_STYLES", "READ_LAYERS", "READ_VARIABLES", "READ_AUDIT_NODES",
  ]);
  const p = loadPlugin();
  const wrong = [];
  let refusals = 0;
  let before = 0;
  for (const name of names) {
    const before = p.control.undoCommits;
    const reply = await p.call(name, {});
    assert.notEqual(reply.code, "unknown_method", name);
    const commits = p.control.undoCommits - before;
    const refusedWrite = !reads.has(name) && REFUSALS.has(reply.code);
    if (refusedWrite) refusals += 1;
    if (commits !== (reads.has(name) || refusedWrite ? 0 : 1)) wrong.push(name + " (" + reply.code + "): " + commits);
  }
  assert.deepEqual(wrong, []);
  assert.ok(refusals > 20, refusals + " writes refused their empty parameters");

  // The same write, refused and then done: only the change is a step, and the next undo undoes it.
  before = p.control.undoCommits;
  fail(await p.call("CREATE_VARIABLE", { name: "x", collectionId: "VariableCollectionId:nope", resolvedType: "FLOAT" }), "not_found");
  fail(await p.call("CREATE_VARIABLE", { name: "", resolvedType: "FLOAT" }), "bad_params");
  assert.equal(p.control.undoCommits, before, "a refused write commits nothing");

  // Successes, a long batch, and a batch that fails midway are one step each too.
  const col = await collection(p);
  before = p.control.undoCommits;
  await p.ok("CREATE_VARIABLE", { name: "a", collectionId: col.id, resolvedType: "FLOAT", valuesByMode: { Light: 1 } });
  await p.ok("BATCH_CREATE_VARIABLES", { collectionId: col.id, variables: Array.from({ length: 100 }, (_, i) => ({ name: "n" + i, resolvedType: "FLOAT" })) });
  p.control.failOn("createVariable", 3);
  fail(await p.call("BATCH_CREATE_VARIABLES", { collectionId: col.id, variables: Array.from({ length: 5 }, (_, i) => ({ name: "m" + i, resolvedType: "FLOAT" })) }), "plugin_api_error");
  assert.equal(p.control.undoCommits - before, 3);
  before = p.control.undoCommits;
  await p.ok("GET_VARIABLES_DATA");
  await p.ok("GET_LOCAL_COMPONENTS");
  assert.equal(p.control.undoCommits, before);
});

test("writes wait for each other, so one write's step never holds another's changes", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  const counts = [];
  const commit = p.figma.commitUndo;
  p.figma.commitUndo = () => {
    counts.push(p.figma.variables.getLocalVariablesAsync().then((v) => v.length));
    commit();
  };
  const batch = p.call("BATCH_CREATE_VARIABLES", { collectionId: col.id, variables: Array.from({ length: 100 }, (_, i) => ({ name: "n" + i, resolvedType: "FLOAT" })) });
  const single = p.call("CREATE_VARIABLE", { name: "late", collectionId: col.id, resolvedType: "STRING" });
  const read = await p.call("GET_VARIABLES_DATA");
  assert.ok(read.result.variables.length < 101, "a read does not wait for the writes");
  assert.equal((await batch).result.count, 100);
  assert.equal((await single).result.variable.name, "late");
  assert.deepEqual(await Promise.all(counts), [100, 101]);
});

test("a write cancelled while it waits never runs; one cancelled while it runs is rolled back", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  const before = await variablesState(p);
  const items = Array.from({ length: 100 }, (_, i) => ({ name: "n" + i, resolvedType: "FLOAT", valuesByMode: { Light: i } }));
  p.fromUi({ kind: "command", route: "r", command: { id: "long", method: "BATCH_CREATE_VARIABLES", params: { collectionId: col.id, variables: items } } });
  p.fromUi({ kind: "command", route: "r", command: { id: "queued", method: "CREATE_VARIABLE", params: { name: "q", collectionId: col.id, resolvedType: "FLOAT" } } });
  await p.next((m) => m.kind === "event" && m.event.type === "PROGRESS" && m.event.data.id === "long");
  p.fromUi({ kind: "command", route: "r", command: { id: "c1", method: "CANCEL", params: { target: "queued" } } });
  p.fromUi({ kind: "command", route: "r", command: { id: "c2", method: "CANCEL", params: { target: "long" } } });
  assert.equal((await p.next((m) => m.kind === "reply" && m.reply.id === "long")).reply.code, "cancelled");
  assert.equal((await p.next((m) => m.kind === "reply" && m.reply.id === "queued")).reply.code, "cancelled");
  // The batch notices the cancel at its next progress point and removes what it made; the next write waits for that.
  const count = await code(p, "return (await figma.variables.getLocalVariablesAsync()).length");
  assert.equal(count, 0);
  assert.equal(await variablesState(p), before);
});

// ---- progress ------------------------------------------------------------------------------------------------------

test("long commands report rate-limited progress to the server that sent them", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  // Progress goes out once a slice of work (chunks.js) ends: writes that take a millisecond make several slices.
  slowVariableWrites(p, 1);
  const reply = await p.call("BATCH_CREATE_VARIABLES", { collectionId: col.id, variables: Array.from({ length: 100 }, (_, i) => ({ name: "n" + i, resolvedType: "FLOAT" })) }, "9223:1");
  assert.equal(reply.result.count, 100);
  const messages = p.toUi.filter((m) => m.kind === "event" && m.event.type === "PROGRESS");
  assert.ok(messages.length >= 2 && messages.length <= 21, messages.length + " progress messages for 200 steps");
  for (const m of messages) {
    assert.equal(m.route, "9223:1");
    assert.equal(m.event.data.id, reply.id);
    assert.equal(m.event.data.total, 200);
    assert.equal(typeof m.event.data.message, "string");
  }
  const steps = messages.map((m) => m.event.data.progress);
  assert.deepEqual(steps, [...steps].sort((a, b) => a - b));
  assert.equal(steps.at(-1), 200);
  const replyAt = p.toUi.findIndex((m) => m.kind === "reply" && m.reply.id === reply.id);
  assert.ok(p.toUi.indexOf(messages.at(-1)) < replyAt, "progress comes before the reply");

  const small = await p.call("BATCH_CREATE_VARIABLES", { collectionId: col.id, variables: [{ name: "one", resolvedType: "FLOAT" }] });
  assert.equal(p.events("PROGRESS").filter((d) => d.id === small.id).length, 0, "a short command sends none");

  const updates = await p.call("BATCH_UPDATE_VARIABLES", { updates: Object.values(reply.result.created).map((id, i) => ({ variableId: id, modeId: col.modes[1].modeId, value: i })) });
  assert.ok(p.events("PROGRESS").filter((d) => d.id === updates.id).length >= 2);
  const setup = await p.call("SETUP_DESIGN_TOKENS", { collectionName: "Big", modes: ["Light", "Dark", "HC"], tokens: tokenList(120) });
  assert.ok(p.events("PROGRESS").filter((d) => d.id === setup.id).length >= 2);
});

// ---- all or nothing ------------------------------------------------------------------------------------------------

test("SETUP_DESIGN_TOKENS that fails on its 57th token leaves the document exactly as before", async () => {
  const p = loadPlugin();
  const col = await collection(p, "Existing");
  await p.ok("CREATE_VARIABLE", { name: "keep", collectionId: col.id, resolvedType: "COLOR", valuesByMode: { Light: "#123456" } });
  const before = await variablesState(p);
  const commits = p.control.undoCommits;
  p.control.failOn("createVariable", 57, "Internal error in createVariable");
  const reply = fail(await p.call("SETUP_DESIGN_TOKENS", { collectionName: "Theme", modes: ["Light", "Dark", "HC"], tokens: tokenList(100) }), "plugin_api_error", /tokens\[56\] \('color\/step\/56'\).*Internal error.*Nothing was kept/);
  assert.equal(reply.rolledBack, true);
  assert.equal(reply.failedIndex, 56);
  assert.equal(reply.failedName, "color/step/56");
  assert.equal(await variablesState(p), before);
  assert.equal(p.control.undoCommits - commits, 1);

  // The same call succeeds once the editor behaves.
  const ok = await p.ok("SETUP_DESIGN_TOKENS", { collectionName: "Theme", modes: ["Light", "Dark", "HC"], tokens: tokenList(100) });
  assert.equal(ok.count, 100);
});

test("BATCH_CREATE_VARIABLES that fails on its 57th variable leaves the document exactly as before", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  await p.ok("CREATE_VARIABLE", { name: "keep", collectionId: col.id, resolvedType: "FLOAT", valuesByMode: { Light: 4 } });
  const before = await variablesState(p);
  p.control.failOn("createVariable", 57);
  const items = Array.from({ length: 100 }, (_, i) => ({ name: "space/" + i, resolvedType: "FLOAT", valuesByMode: { Light: i, Dark: i * 2 } }));
  const reply = fail(await p.call("BATCH_CREATE_VARIABLES", { collectionId: col.id, variables: items }), "plugin_api_error", /variables\[56\] \('space\/56'\)/);
  assert.equal(reply.failedIndex, 56);
  assert.match(reply.error, /the 56 variables this call had made were removed/);
  assert.equal(await variablesState(p), before);

  // A failure while setting values (after every variable exists) is undone as well.
  p.control.failOn("setValueForMode", 57);
  fail(await p.call("BATCH_CREATE_VARIABLES", { collectionId: col.id, variables: items }), "plugin_api_error", /variables\[28\] \('space\/28'\)/);
  assert.equal(await variablesState(p), before);
});

test("BATCH_UPDATE_VARIABLES that fails on its 57th value sets every earlier value back", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  const made = await p.ok("BATCH_CREATE_VARIABLES", { collectionId: col.id, variables: Array.from({ length: 100 }, (_, i) => ({ name: "c" + i, resolvedType: "COLOR", valuesByMode: { Light: "#FFFFFF", Dark: "#000000" } })) });
  const ids = Object.values(made.created);
  await p.ok("UPDATE_VARIABLE", { variableId: ids[3], modeId: col.modes[0].modeId, value: "{c0}" });
  const before = await variablesState(p);
  p.control.failOn("setValueForMode", 57);
  const updates = ids.map((id) => ({ variableId: id, modeId: col.modes[0].modeId, value: "#336699" }));
  const reply = fail(await p.call("BATCH_UPDATE_VARIABLES", { updates }), "plugin_api_error", /updates\[56\] \('c56'\).*56 values already changed were set back/);
  assert.equal(reply.rolledBack, true);
  assert.equal(await variablesState(p), before, "the alias of c3 is back too");
});

// ---- compact answers -----------------------------------------------------------------------------------------------

test("a batch of 100 answers in well under 8 KB of JSON", async () => {
  const p = loadPlugin();
  const col = await collection(p, "Palette", ["Light", "Dark", "HC"]);
  const created = await p.call("BATCH_CREATE_VARIABLES", {
    collectionId: col.id,
    variables: Array.from({ length: 100 }, (_, i) => ({ name: "color/palette/blue/" + (i * 10), resolvedType: "COLOR", description: "A fairly long description " + i, valuesByMode: { Light: "#1E88E5", Dark: "#90CAF9", HC: "#000000" } })),
  });
  const updated = await p.call("BATCH_UPDATE_VARIABLES", { updates: Object.values(created.result.created).map((id) => ({ variableId: id, modeId: col.modes[1].modeId, value: "rgba(12, 34, 56, 0.5)" })) });
  const setup = await p.call("SETUP_DESIGN_TOKENS", { collectionName: "Theme", modes: ["Light", "Dark", "HC"], tokens: tokenList(100) });
  for (const [name, reply] of [["create", created], ["update", updated], ["setup", setup]]) {
    const size = JSON.stringify(reply).length;
    assert.ok(size < 8000, name + " answered " + size + " characters");
  }
  assert.deepEqual(updated.result.changes[created.result.created["color/palette/blue/0"]][col.modes[1].modeId], ["#90CAF9", "#0C223880"]);
});

// ---- variables -----------------------------------------------------------------------------------------------------

test("values as people write them: hex of every length, rgb(), rgba(), numbers, booleans, strings, aliases", async () => {
  const p = loadPlugin();
  const col = await collection(p, "V", ["One"]);
  const mode = col.modes[0].modeId;
  const cases = [
    ["COLOR", "#abc", "#AABBCC"],
    ["COLOR", "#abcd", "#AABBCCDD"],
    ["COLOR", "1E88E5", "#1E88E5"],
    ["COLOR", "#1E88E580", "#1E88E580"],
    ["COLOR", "rgb(255, 0, 0)", "#FF0000"],
    ["COLOR", "rgba(0, 128, 255, 0.5)", "#0080FF80"],
    ["COLOR", "rgb(100% 0% 0% / 50%)", "#FF000080"],
    ["COLOR", { r: 0, g: 1, b: 0 }, "#00FF00"],
    ["FLOAT", 12.5, 12.5],
    ["FLOAT", "16", 16],
    ["BOOLEAN", true, true],
    ["BOOLEAN", "false", false],
    ["STRING", "Inter", "Inter"],
  ];
  for (const [i, [type, input, expected]] of cases.entries()) {
    const v = (await p.ok("CREATE_VARIABLE", { name: "v" + i, collectionId: col.id, resolvedType: type, valuesByMode: { One: input } })).variable;
    const stored = (await p.figma.variables.getVariableByIdAsync(v.id)).valuesByMode[mode];
    if (type === "COLOR") {
      for (const k of ["r", "g", "b", "a"]) assert.ok(Math.abs(stored[k] - parsedOf(type, expected)[k]) < 0.003, type + " " + JSON.stringify(input) + " " + k);
    } else {
      assert.equal(stored, expected);
    }
    const upd = await p.ok("UPDATE_VARIABLE", { variableId: v.id, modeId: mode, value: input });
    assert.deepEqual(upd.value, expected, type + " " + JSON.stringify(input));
  }
  const before = await variablesState(p);
  const num = (await p.ok("CREATE_VARIABLE", { name: "num", collectionId: col.id, resolvedType: "FLOAT" })).variable;
  const after = await variablesState(p);
  for (const [type, bad] of [["COLOR", "#12"], ["COLOR", "rgb(300, 0, 0)"], ["COLOR", "red"], ["FLOAT", "wide"], ["FLOAT", true], ["BOOLEAN", "yes"], ["STRING", 5]]) {
    fail(await p.call("CREATE_VARIABLE", { name: "bad", collectionId: col.id, resolvedType: type, valuesByMode: { One: bad } }), "bad_params", new RegExp(type));
  }
  fail(await p.call("UPDATE_VARIABLE", { variableId: num.id, value: "#FFFFFF" }), "bad_params", /FLOAT/);
  assert.equal(await variablesState(p), after, "no refused value changed anything");
  assert.notEqual(before, after);
});

test("UPDATE_VARIABLE: previous value, aliases by id or reference, type and loop checks, library variables", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  const [light, dark] = col.modes.map((m) => m.modeId);
  const made = await p.ok("BATCH_CREATE_VARIABLES", {
    collectionId: col.id,
    variables: [
      { name: "color/blue/500", resolvedType: "COLOR", valuesByMode: { Light: "#1E88E5", Dark: "#90CAF9" } },
      { name: "color/primary", resolvedType: "COLOR", valuesByMode: { Light: "{color.blue.500}" } },
      { name: "space/4", resolvedType: "FLOAT", valuesByMode: { Light: 16 } },
    ],
  });
  const { "color/blue/500": blue, "color/primary": primary, "space/4": space } = made.created;
  const r = await p.ok("UPDATE_VARIABLE", { variableId: primary, modeId: dark, value: "{color/blue/500}" });
  assert.equal(r.previous, "#000000");
  assert.equal(r.value, blue);
  assert.deepEqual((await p.figma.variables.getVariableByIdAsync(primary)).valuesByMode[dark], { type: "VARIABLE_ALIAS", id: blue });
  const byId = await p.ok("UPDATE_VARIABLE", { variableId: primary, modeId: light, value: blue });
  assert.equal(byId.previous, blue);
  // A value and the description in one command, one undo step.
  const commits = p.control.undoCommits;
  const both = await p.ok("UPDATE_VARIABLE", { variableId: space, value: 24, description: "Gutter" });
  assert.deepEqual([both.previous, both.value, both.previousDescription], [16, 24, ""]);
  assert.equal((await p.figma.variables.getVariableByIdAsync(space)).description, "Gutter");
  const only = await p.ok("UPDATE_VARIABLE", { variableId: space, description: "Gap" });
  assert.deepEqual([only.previous, only.previousDescription], [undefined, "Gutter"]);
  assert.equal(p.control.undoCommits - commits, 2);
  fail(await p.call("UPDATE_VARIABLE", { variableId: space }), "bad_params", /'value'.*'description'/);

  const before = await variablesState(p);
  fail(await p.call("UPDATE_VARIABLE", { variableId: blue, modeId: light, value: "{color.primary}" }), "bad_params", /loop \(color\/blue\/500 → color\/primary → color\/blue\/500\)/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: blue, modeId: light, value: blue }), "bad_params", /loop/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: primary, value: space }), "bad_params", /FLOAT variable; a COLOR variable can only alias a COLOR/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: primary, value: "{color.missing}" }), "not_found", /no variable named 'color\/missing'/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: primary, value: "VariableID:999:1" }), "not_found", /design_get_variables/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: "VariableID:404:1", value: 1 }), "not_found", /design_get_variables/);
  fail(await p.call("UPDATE_VARIABLE", { variableId: primary, modeId: "Sepia", value: "#fff" }), "not_found", /Its modes/);
  const lib = p.control.addLibraryCollection("Brand", [{ name: "brand/red", resolvedType: "COLOR", value: { r: 1, g: 0, b: 0 } }]);
  fail(await p.call("UPDATE_VARIABLE", { variableId: lib.variables[0].id, value: "#000" }), "read_only", /library/);
  assert.equal(await variablesState(p), before);
  // A library variable can still be the target of an alias.
  assert.equal((await p.ok("UPDATE_VARIABLE", { variableId: primary, value: lib.variables[0].id })).value, lib.variables[0].id);
});

test("CREATE_VARIABLE, RENAME_VARIABLE, SET_VARIABLE_DESCRIPTION and DELETE_VARIABLE say what changed", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  const v = (await p.ok("CREATE_VARIABLE", { name: "radius/m", collectionId: col.id, resolvedType: "FLOAT", description: "Medium", scopes: ["CORNER_RADIUS"], valuesByMode: { Light: 8, [col.modes[1].modeId]: 12 } })).variable;
  assert.deepEqual(Object.values(v.valuesByMode), [8, 12]);
  const before = await variablesState(p);
  fail(await p.call("CREATE_VARIABLE", { name: "radius/m", collectionId: col.id, resolvedType: "FLOAT" }), "conflict", /already has a variable named 'radius\/m'/);
  fail(await p.call("CREATE_VARIABLE", { name: "x", collectionId: col.id, resolvedType: "FLOAT", valuesByMode: { Sepia: 1 } }), "not_found", /Its modes/);
  const other = (await p.ok("CREATE_VARIABLE", { name: "radius/l", collectionId: col.id, resolvedType: "FLOAT" })).variable;
  fail(await p.call("RENAME_VARIABLE", { variableId: other.id, newName: "radius/m" }), "conflict");
  await p.ok("DELETE_VARIABLE", { variableId: other.id });
  assert.equal(await variablesState(p), before);

  const renamed = await p.ok("RENAME_VARIABLE", { variableId: v.id, newName: "radius/md" });
  assert.deepEqual([renamed.oldName, renamed.newName], ["radius/m", "radius/md"]);
  const described = await p.ok("SET_VARIABLE_DESCRIPTION", { variableId: v.id, description: "Cards" });
  assert.equal(described.previousDescription, "Medium");
  const gone = await p.ok("DELETE_VARIABLE", { variableId: v.id });
  assert.deepEqual(gone.deleted, {
    id: v.id,
    name: "radius/md",
    resolvedType: "FLOAT",
    description: "Cards",
    scopes: ["CORNER_RADIUS"],
    hiddenFromPublishing: false,
    collectionId: col.id,
    valuesByMode: { [col.modes[0].modeId]: 8, [col.modes[1].modeId]: 12 },
  });
  assert.equal(await p.figma.variables.getVariableByIdAsync(v.id), null);
  // What DELETE_VARIABLE returns is a CREATE_VARIABLE call that makes it again.
  const again = (await p.ok("CREATE_VARIABLE", gone.deleted)).variable;
  assert.deepEqual([again.name, again.description, again.scopes, Object.values(again.valuesByMode)], ["radius/md", "Cards", ["CORNER_RADIUS"], [8, 12]]);
  const lib = p.control.addLibraryCollection("Brand", [{ name: "brand/size", resolvedType: "FLOAT", value: 2 }]);
  for (const [method, params] of [
    ["DELETE_VARIABLE", {}],
    ["RENAME_VARIABLE", { newName: "x" }],
    ["SET_VARIABLE_DESCRIPTION", { description: "x" }],
  ]) {
    fail(await p.call(method, Object.assign({ variableId: lib.variables[0].id }, params)), "read_only", /library/);
  }
  fail(await p.call("CREATE_VARIABLE", { name: "x", collectionId: lib.collection.id, resolvedType: "FLOAT" }), "read_only");
  fail(await p.call("DELETE_VARIABLE", { variableId: "VariableID:404:9" }), "not_found", /design_get_variables/);
});

test("collections and modes: name clashes, mode limits, and a deleted collection's recipe", async () => {
  const p = loadPlugin();
  const col = await collection(p, "Theme", ["Light", "Dark"]);
  fail(await p.call("CREATE_VARIABLE_COLLECTION", { name: "Theme" }), "conflict", /already exists/);
  fail(await p.call("CREATE_VARIABLE_COLLECTION", { name: "T2", initialModeName: "A", additionalModes: ["A"] }), "conflict", /given twice/);
  fail(await p.call("ADD_MODE", { collectionId: col.id, modeName: "Dark" }), "conflict", /already has a mode named 'Dark'/);
  fail(await p.call("RENAME_MODE", { collectionId: col.id, modeId: col.modes[0].modeId, newName: "Dark" }), "conflict");
  const before = await variablesState(p);
  p.control.setModeLimit(2);
  fail(await p.call("ADD_MODE", { collectionId: col.id, modeName: "HC" }), "plugin_api_error", /Limited to 2 modes/);
  assert.equal(await variablesState(p), before);
  p.control.setModeLimit(4);

  await p.ok("SETUP_DESIGN_TOKENS", {
    collectionName: "Seed",
    modes: ["Light", "Dark"],
    tokens: [
      { name: "color/base", resolvedType: "COLOR", values: { Light: "#FFFFFF", Dark: "#111111" }, description: "Canvas" },
      { name: "color/surface", resolvedType: "COLOR", values: { Light: "{color.base}", Dark: "#222222" } },
      { name: "flag", resolvedType: "BOOLEAN", values: { Light: true } },
    ],
  });
  const seed = (await p.figma.variables.getLocalVariableCollectionsAsync()).find((c) => c.name === "Seed");
  const surface = (await p.figma.variables.getLocalVariablesAsync()).find((v) => v.name === "color/surface");
  const added = await p.ok("ADD_MODE", { collectionId: seed.id, modeName: "HC" });
  assert.deepEqual(surface.valuesByMode[added.modeId], surface.valuesByMode[seed.defaultModeId], "a new mode starts from the default mode");
  const renamed = await p.ok("RENAME_MODE", { collectionId: seed.id, modeId: added.modeId, newName: "High contrast" });
  assert.deepEqual([renamed.oldName, renamed.newName], ["HC", "High contrast"]);

  const state = JSON.parse(await variablesState(p));
  const gone = await p.ok("DELETE_VARIABLE_COLLECTION", { collectionId: seed.id });
  assert.equal(gone.deleted.variableCount, 3);
  assert.equal(gone.deleted.recreate.omitted, 0);
  assert.equal((await p.figma.variables.getLocalVariablesAsync()).filter((v) => v.variableCollectionId === seed.id).length, 0);
  // The recipe is a SETUP_DESIGN_TOKENS call that makes the same collection again.
  const again = await p.ok("SETUP_DESIGN_TOKENS", gone.deleted.recreate);
  const rebuilt = JSON.parse(await variablesState(p));
  const shape = (s, cid) => {
    const vars = s.variables.filter((v) => v.collection === cid);
    const modes = s.collections.find((c) => c.id === cid).modes;
    const byName = Object.fromEntries(vars.map((v) => [v.id, v.name]));
    return vars.map((v) => [v.name, v.type, v.description, modes.map((m) => {
      const value = v.values[m.modeId];
      return value && value.type === "VARIABLE_ALIAS" ? "alias:" + byName[value.id] : value;
    })]);
  };
  assert.deepEqual(shape(rebuilt, again.collectionId), shape(state, seed.id));
  const lib = p.control.addLibraryCollection("Lib", []);
  fail(await p.call("DELETE_VARIABLE_COLLECTION", { collectionId: lib.collection.id }), "read_only");
  fail(await p.call("ADD_MODE", { collectionId: lib.collection.id, modeName: "X" }), "read_only");
  fail(await p.call("RENAME_MODE", { collectionId: "VariableCollectionId:404:0", modeId: "1:0", newName: "x" }), "not_found", /design_get_variables/);
});

test("BATCH_CREATE_VARIABLES checks every item before it changes anything", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  await p.ok("CREATE_VARIABLE", { name: "taken", collectionId: col.id, resolvedType: "FLOAT" });
  const ok = await p.ok("BATCH_CREATE_VARIABLES", {
    collectionId: col.id,
    variables: [
      { name: "color/link", resolvedType: "COLOR", valuesByMode: { Light: "{color.brand}", Dark: "{color.brand}" } },
      { name: "color/brand", resolvedType: "COLOR", description: "Brand", valuesByMode: { Light: "#1E88E5", Dark: "rgb(144, 202, 249)" } },
      { name: "space/gap", resolvedType: "FLOAT", valuesByMode: { Light: "{taken}" } },
    ],
  });
  assert.equal(ok.count, 3);
  const link = await p.figma.variables.getVariableByIdAsync(ok.created["color/link"]);
  assert.deepEqual(Object.values(link.valuesByMode), [{ type: "VARIABLE_ALIAS", id: ok.created["color/brand"] }, { type: "VARIABLE_ALIAS", id: ok.created["color/brand"] }]);

  const before = await variablesState(p);
  const many = Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({ name: "x" + i, resolvedType: "FLOAT" }));
  const refusals = [
    [{ variables: many }, "bad_params", new RegExp(MAX_BATCH + 1 + " items; the limit is " + MAX_BATCH)],
    [{ variables: [] }, "bad_params", /empty/],
    [{ variables: [{ name: "a", resolvedType: "FLOAT" }, { name: "a", resolvedType: "FLOAT" }] }, "conflict", /variables\[1\] \('a'\).*variables\[0\]/],
    [{ variables: [{ name: "taken", resolvedType: "FLOAT" }] }, "conflict", /already has a variable named 'taken'/],
    [{ variables: [{ name: "a", resolvedType: "DATE" }] }, "bad_params", /one of COLOR, FLOAT, STRING, BOOLEAN/],
    [{ variables: [{ name: "", resolvedType: "FLOAT" }] }, "bad_params", /variables\[0\]: 'name'/],
    [{ variables: [{ name: "a", resolvedType: "FLOAT", valuesByMode: { Light: "#fff" } }] }, "bad_params", /variables\[0\] \('a'\) in mode 'Light'.*FLOAT/],
    [{ variables: [{ name: "a", resolvedType: "FLOAT", valuesByMode: { Sepia: 1 } }] }, "not_found", /Sepia/],
    [{ variables: [{ name: "a", resolvedType: "COLOR", valuesByMode: { Light: "{nope}" } }] }, "not_found", /names no variable 'nope'/],
    [{ variables: [{ name: "a", resolvedType: "COLOR", valuesByMode: { Light: "{taken}" } }] }, "bad_params", /FLOAT variable; a COLOR variable/],
    [{ variables: [{ name: "a", resolvedType: "FLOAT", valuesByMode: { Light: "{b}" } }, { name: "b", resolvedType: "FLOAT", valuesByMode: { Light: "{a}" } }] }, "bad_params", /loop \(a → b → a\)/],
    [{ variables: [{ name: "a", resolvedType: "FLOAT", scopes: "ALL" }] }, "bad_params", /scopes/],
    [{ variables: ["a"] }, "bad_params", /variables\[0\] must be an object/],
    [{ variables: [{ name: "a", resolvedType: "FLOAT" }], collectionId: "VariableCollectionId:404:0" }, "not_found", /design_get_variables/],
  ];
  for (const [params, codeName, pattern] of refusals) {
    fail(await p.call("BATCH_CREATE_VARIABLES", Object.assign({ collectionId: col.id }, params)), codeName, pattern);
  }
  assert.equal(await variablesState(p), before);
});

test("BATCH_UPDATE_VARIABLES: before and after for each value, and refusals that change nothing", async () => {
  const p = loadPlugin();
  const col = await collection(p);
  const [light, dark] = col.modes.map((m) => m.modeId);
  const made = (await p.ok("BATCH_CREATE_VARIABLES", {
    collectionId: col.id,
    variables: [
      { name: "a", resolvedType: "FLOAT", valuesByMode: { Light: 1, Dark: 2 } },
      { name: "b", resolvedType: "FLOAT", valuesByMode: { Light: 3, Dark: 4 } },
      { name: "on", resolvedType: "BOOLEAN", valuesByMode: { Light: true } },
    ],
  })).created;
  const r = await p.ok("BATCH_UPDATE_VARIABLES", {
    updates: [
      { variableId: made.a, modeId: light, value: 10 },
      { variableId: made.a, modeId: "Dark", value: "{b}" },
      { variableId: made.on, value: false },
    ],
  });
  assert.deepEqual(r.changes, { [made.a]: { [light]: [1, 10], [dark]: [2, made.b] }, [made.on]: { [light]: [true, false] } });
  const before = await variablesState(p);
  const lib = p.control.addLibraryCollection("Lib", [{ name: "lib/x", resolvedType: "FLOAT", value: 1 }]);
  const refusals = [
    [[{ variableId: made.a, modeId: light, value: 1 }, { variableId: made.a, modeId: light, value: 2 }], "conflict", /updates\[1\] \('a'\).*updates\[0\]/],
    [[{ variableId: made.b, modeId: dark, value: "{a}" }], "bad_params", /loop \(b → a → b\)/],
    [[{ variableId: made.b, modeId: light, value: "x" }], "bad_params", /updates\[0\] \('b'\).*FLOAT/],
    [[{ variableId: made.b, modeId: light }], "bad_params", /'value' is required/],
    [[{ variableId: made.b, modeId: light, value: 1 }, { variableId: "VariableID:404:1", value: 1 }], "not_found", /updates\[1\]\.variableId.*design_get_variables/],
    [[{ variableId: lib.variables[0].id, value: 2 }], "read_only", /library/],
    [[{ variableId: made.b, modeId: "Sepia", value: 1 }], "not_found", /Its modes/],
    [Array.from({ length: MAX_BATCH + 1 }, () => ({ variableId: made.b, value: 1 })), "bad_params", new RegExp("limit is " + MAX_BATCH)],
  ];
  for (const [updates, codeName, pattern] of refusals) fail(await p.call("BATCH_UPDATE_VARIABLES", { updates }), codeName, pattern);
  assert.equal(await variablesState(p), before);
});

test("SETUP_DESIGN_TOKENS: modes, references in any order, chains, filled modes, and its refusals", async () => {
  const p = loadPlugin();
  const r = await p.ok("SETUP_DESIGN_TOKENS", {
    collectionName: "Semantic",
    modes: ["Light", "Dark", "HC"],
    tokens: [
      { name: "color/text/link", resolvedType: "COLOR", values: { Light: "{color.text.default}" } },
      { name: "color/text/default", resolvedType: "COLOR", values: { Light: "{color.blue.900}", Dark: "{color.blue.100}", HC: "#000" } },
      { name: "color/blue/900", resolvedType: "COLOR", description: "Darkest", values: { Light: "#0D47A1", Dark: "#0D47A1", HC: "#0D47A1" } },
      { name: "color/blue/100", resolvedType: "COLOR", values: { Light: "rgba(187, 222, 251, 1)", Dark: "#BBDEFB", HC: "#BBDEFB" } },
      { name: "size/body", resolvedType: "FLOAT", values: { Dark: 16 } },
    ],
  });
  assert.deepEqual(Object.keys(r.modes), ["Light", "Dark", "HC"]);
  assert.equal(r.count, 5);
  const col = await p.figma.variables.getVariableCollectionByIdAsync(r.collectionId);
  assert.deepEqual(col.modes.map((m) => m.name), ["Light", "Dark", "HC"]);
  const get = (name) => p.figma.variables.getVariableByIdAsync(r.created[name]);
  const link = await get("color/text/link");
  assert.deepEqual(Object.values(link.valuesByMode).map((v) => v.id), Array(3).fill(r.created["color/text/default"]), "modes without a value take the first mode's");
  const text = await get("color/text/default");
  assert.equal(text.valuesByMode[r.modes.Dark].id, r.created["color/blue/100"]);
  assert.deepEqual(Object.values((await get("size/body")).valuesByMode), [16, 16, 16], "with no first-mode value, the given one");
  assert.equal((await get("color/blue/900")).description, "Darkest");

  const before = await variablesState(p);
  const refusals = [
    [{ collectionName: "Semantic" }, "conflict", /already exists/],
    [{ modes: [] }, "bad_params", /'modes' is empty/],
    [{ modes: ["A", "A"] }, "conflict", /given twice/],
    [{ tokens: tokenList(501) }, "bad_params", /501 items; the limit is 500/],
    [{ tokens: [{ name: "a", resolvedType: "FLOAT", values: { Sepia: 1 } }] }, "not_found", /'Sepia' is not one of the modes given/],
    [{ tokens: [{ name: "a", resolvedType: "FLOAT", values: {} }] }, "bad_params", /at least one mode/],
    [{ tokens: [{ name: "a", resolvedType: "FLOAT", values: { Light: "{c}" } }, { name: "b", resolvedType: "FLOAT", values: { Light: "{a}" } }, { name: "c", resolvedType: "FLOAT", values: { Light: "{b}" } }] }, "bad_params", /loop \(a → c → b → a\)/],
    [{ tokens: [{ name: "a", resolvedType: "FLOAT", values: { Light: "{color.blue.950}" } }] }, "not_found", /names no variable/],
    [{ tokens: [{ name: "a", resolvedType: "FLOAT", values: { Light: "{color.blue.900}" } }] }, "bad_params", /COLOR variable; a FLOAT/],
    [{ tokens: [{ name: "a", resolvedType: "COLOR", values: { Light: r.created["size/body"] } }] }, "bad_params", /FLOAT variable; a COLOR/],
  ];
  for (const [over, codeName, pattern] of refusals) {
    fail(await p.call("SETUP_DESIGN_TOKENS", Object.assign({ collectionName: "New", modes: ["Light", "Dark"], tokens: [{ name: "a", resolvedType: "FLOAT", values: { Light: 1 } }] }, over)), codeName, pattern);
  }
  p.control.setModeLimit(2);
  fail(await p.call("SETUP_DESIGN_TOKENS", { collectionName: "Wide", modes: ["A", "B", "C"], tokens: [{ name: "a", resolvedType: "FLOAT", values: { A: 1 } }] }), "plugin_api_error", /Limited to 2 modes.*Nothing was kept.*try fewer modes/);
  assert.equal(await variablesState(p), before);
  // Another collection's variable can be the target, by id.
  const cross = await p.ok("SETUP_DESIGN_TOKENS", { collectionName: "Alias", modes: ["A"], tokens: [{ name: "x", resolvedType: "COLOR", values: { A: r.created["color/blue/900"] } }] });
  assert.equal((await p.figma.variables.getVariableByIdAsync(cross.created.x)).valuesByMode[cross.modes.A].id, r.created["color/blue/900"]);
});

test("SETUP_DESIGN_TOKENS aliases into other collections by unique name or qualified by collection, naming candidates when ambiguous", async () => {
  const p = loadPlugin();
  const prim = await p.ok("SETUP_DESIGN_TOKENS", {
    collectionName: "Primitives",
    modes: ["Value"],
    tokens: [
      { name: "blue/500", resolvedType: "COLOR", values: { Value: "#1E88E5" } },
      { name: "gray/900", resolvedType: "COLOR", values: { Value: "#212121" } },
    ],
  });
  const brand = await p.ok("SETUP_DESIGN_TOKENS", { collectionName: "Brand", modes: ["Value"], tokens: [{ name: "gray/900", resolvedType: "COLOR", values: { Value: "#111111" } }] });
  const semantic = await p.ok("SETUP_DESIGN_TOKENS", {
    collectionName: "Semantic",
    modes: ["Light", "Dark"],
    tokens: [
      { name: "color/action", resolvedType: "COLOR", values: { Light: "{Primitives.blue.500}", Dark: "{blue.500}" } },
      { name: "color/text", resolvedType: "COLOR", values: { Light: "{Brand.gray.900}", Dark: "{Primitives.gray.900}" } },
    ],
  });
  const action = await p.figma.variables.getVariableByIdAsync(semantic.created["color/action"]);
  assert.deepEqual(Object.values(action.valuesByMode).map((v) => v.id), [prim.created["blue/500"], prim.created["blue/500"]]);
  const text = await p.figma.variables.getVariableByIdAsync(semantic.created["color/text"]);
  assert.deepEqual(Object.values(text.valuesByMode).map((v) => v.id), [brand.created["gray/900"], prim.created["gray/900"]]);

  const before = await variablesState(p);
  const ambiguous = fail(await p.call("SETUP_DESIGN_TOKENS", { collectionName: "Other", modes: ["A"], tokens: [{ name: "t", resolvedType: "COLOR", values: { A: "{gray.900}" } }] }), "bad_params", /ambiguous/);
  assert.match(ambiguous.error, /\{Primitives\.gray\.900\}/);
  assert.match(ambiguous.error, /\{Brand\.gray\.900\}/);
  fail(await p.call("SETUP_DESIGN_TOKENS", { collectionName: "Other", modes: ["A"], tokens: [{ name: "t", resolvedType: "COLOR", values: { A: "{Nowhere.blue.500}" } }] }), "not_found", /names no variable/);
  assert.equal(await variablesState(p), before, "a refused setup leaves nothing behind");
});

// ---- components ----------------------------------------------------------------------------------------------------

test("component descriptions and properties: previous values, instances and library components refused", async () => {
  const p = loadPlugin();
  const set = await buttonSet(p, ["S"], ["Default", "Hover"]);
  const inst = (await p.ok("INSTANTIATE_COMPONENT", { nodeId: set.id })).instance;
  const lonely = await code(p, "const c = figma.createComponent(); c.name = 'Lonely'; return c.id");
  const desc = await p.ok("SET_NODE_DESCRIPTION", { nodeId: set.id, description: "Actions" });
  assert.deepEqual(desc.previous, { description: "", descriptionMarkdown: "" });
  assert.equal(p.figma.getNodeById(set.id).description, "Actions");
  const before = pageState(p);
  fail(await p.call("SET_NODE_DESCRIPTION", { nodeId: inst.id, description: "x" }), "wrong_node_type", new RegExp("main component 'Button' \\(" + set.id + "\\)"));
  fail(await p.call("ADD_COMPONENT_PROPERTY", { nodeId: inst.id, propertyName: "X", propertyType: "TEXT", defaultValue: "" }), "wrong_node_type", /instance/);
  fail(await p.call("ADD_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "X", propertyType: "TEXT", defaultValue: "a", description: "d" }), "bad_params", /only to SLOT/);
  fail(await p.call("ADD_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "X", propertyType: "BOOLEAN", defaultValue: true, preferredValues: [{ type: "COMPONENT", key: "k" }] }), "bad_params", /INSTANCE_SWAP and SLOT/);
  fail(await p.call("ADD_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "X", propertyType: "SLOT", preferredValues: [{ key: "k" }] }), "bad_params", /preferredValues/);
  fail(await p.call("DELETE_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "State" }), "bad_params", /VARIANT property/);
  fail(await p.call("EDIT_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "State", newValue: { colour: "red" } }), "bad_params", /not colour/);
  fail(await p.call("ADD_COMPONENT_PROPERTY", { nodeId: lonely, propertyName: "V", propertyType: "VARIANT", defaultValue: "a" }), "wrong_node_type", /component sets/);
  p.control.makeRemote(p.figma.getNodeById(lonely));
  fail(await p.call("SET_NODE_DESCRIPTION", { nodeId: lonely, description: "x" }), "read_only", /library/);
  p.figma.getNodeById(lonely).remote = false;
  assert.equal(pageState(p), before);

  const added = await p.ok("ADD_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "Label", propertyType: "TEXT", defaultValue: "OK" });
  const edited = await p.ok("EDIT_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "Label", newValue: { name: "Caption", defaultValue: "Go" } });
  assert.deepEqual(edited.previous, { type: "TEXT", defaultValue: "OK" });
  assert.deepEqual(edited.definition, { type: "TEXT", defaultValue: "Go" });
  assert.equal(edited.previousName, added.propertyName);
  const deleted = await p.ok("DELETE_COMPONENT_PROPERTY", { nodeId: set.id, propertyName: "Caption" });
  assert.deepEqual(deleted.deletedDefinition, { type: "TEXT", defaultValue: "Go" });
  assert.equal(p.figma.getNodeById(set.id).componentPropertyDefinitions[edited.propertyName], undefined);
  fail(await p.call("INSTANTIATE_COMPONENT", { nodeId: inst.id }), "wrong_node_type", /its main component is/);
  const removed = await p.ok("DELETE_NODE", { nodeId: inst.id });
  assert.deepEqual([removed.deleted.type, removed.deleted.mainComponent.id], ["INSTANCE", p.figma.getNodeById(set.id).children[0].id]);
});

test("SET_INSTANCE_PROPERTIES loads the fonts of the text it changes and checks every value first", async () => {
  const p = loadPlugin();
  const comp = await code(p, `
    const c = figma.createComponent(); c.name = 'Chip';
    await figma.loadFontAsync({family: 'Inter', style: 'Regular'});
    const t = figma.createText(); t.characters = 'OK'; c.appendChild(t);
    const label = c.addComponentProperty('Label', 'TEXT', 'OK');
    const shown = c.addComponentProperty('Icon', 'BOOLEAN', true);
    t.componentPropertyReferences = {characters: label};
    const odd = figma.createText(); odd.fontName = {family: 'Comic Zans', style: 'Regular'}; c.appendChild(odd);
    const note = c.addComponentProperty('Note', 'TEXT', '');
    odd.componentPropertyReferences = {characters: note};
    return c.id`);
  const inst = (await p.ok("INSTANTIATE_COMPONENT", { nodeId: comp })).instance;
  // A new session: nothing is loaded until the plugin asks.
  const Fonts = (await import("figma-api-stub/dist/fonts.js")).Fonts;
  Fonts.loadedFonts.length = 0;
  const r = await p.ok("SET_INSTANCE_PROPERTIES", { nodeId: inst.id, properties: { Label: "Buy", Icon: false } });
  const text = p.figma.getNodeById(inst.id).children[0];
  assert.equal(text.characters, "Buy");
  assert.deepEqual(Object.values(r.previous), ["OK", true]);
  const before = pageState(p);
  fail(await p.call("SET_INSTANCE_PROPERTIES", { nodeId: inst.id, properties: { Note: "hi" } }), "font_unavailable", /Comic Zans Regular/);
  fail(await p.call("SET_INSTANCE_PROPERTIES", { nodeId: inst.id, properties: { Label: 5 } }), "bad_params", /TEXT property/);
  fail(await p.call("SET_INSTANCE_PROPERTIES", { nodeId: inst.id, properties: { Label: "x", Icon: "no" } }), "bad_params", /BOOLEAN/);
  fail(await p.call("SET_INSTANCE_PROPERTIES", { nodeId: inst.id, properties: { Ghost: 1 } }), "not_found", /Its properties/);
  fail(await p.call("SET_INSTANCE_PROPERTIES", { nodeId: comp, properties: {} }), "wrong_node_type");
  assert.equal(pageState(p), before);

  const set = await buttonSet(p, ["S"], ["Default", "Hover"]);
  const variant = (await p.ok("INSTANTIATE_COMPONENT", { nodeId: set.id })).instance;
  fail(await p.call("SET_INSTANCE_PROPERTIES", { nodeId: variant.id, properties: { State: "Pressed" } }), "bad_params", /"Default", "Hover"/);
  assert.equal((await p.ok("SET_INSTANCE_PROPERTIES", { nodeId: variant.id, properties: { State: "Hover" } })).previous.State, "Default");
});

test("ARRANGE_COMPONENT_SET lays variants out in a labelled grid in place, and puts everything back on failure", async () => {
  const p = loadPlugin();
  const set = await buttonSet(p);
  const node = p.figma.getNodeById(set.id);
  node.x = 400;
  node.y = 300;
  const r = await p.ok("ARRANGE_COMPONENT_SET", { componentSetId: set.id, options: { gap: 10, cellPadding: 20 } });
  assert.equal(r.componentSet.id, set.id);
  assert.deepEqual([r.componentSet.x, r.componentSet.y], [400, 300]);
  assert.equal(r.grid.columnProperty, "State");
  assert.deepEqual(r.grid.columns, ["Default", "Hover"]);
  assert.deepEqual(r.grid.rows, ["S", "M", "L"]);
  // Columns as wide as their widest variant (S 60, M 80, L 100), rows 32 high.
  const at = Object.fromEntries(node.children.map((c) => [c.name, [c.x, c.y]]));
  assert.deepEqual(at["Size=S, State=Default"], [20, 20]);
  assert.deepEqual(at["Size=L, State=Hover"], [130, 104]);
  assert.deepEqual([node.width, node.height], [250, 156]);
  assert.equal(p.figma.getNodeById(set.id), node, "the same node");
  const labels = p.figma.getNodeById(r.labelsFrameId);
  assert.equal(labels.parent, node.parent);
  assert.deepEqual(labels.children.map((t) => t.characters), ["Default", "Hover", "S", "M", "L"]);
  for (const t of labels.children) {
    const x = labels.x + t.x;
    const y = labels.y + t.y;
    assert.ok(x + t.width <= node.x || y + t.height <= node.y, "label " + t.characters + " lies outside the set");
  }

  // Arranging again (by name, other columns) replaces the labels.
  const again = await p.ok("ARRANGE_COMPONENT_SET", { componentSetName: "Button", options: { columnProperty: "Size" } });
  assert.deepEqual(again.replacedLabelFrames, [r.labelsFrameId]);
  assert.ok(labels.removed);
  assert.deepEqual(again.grid.columns, ["S", "M", "L"]);
  assert.deepEqual(again.previous.positions[node.children[5].id], at["Size=L, State=Hover"]);

  const before = pageState(p);
  fail(await p.call("ARRANGE_COMPONENT_SET", { componentSetName: "Nope" }), "not_found", /design_search_components/);
  fail(await p.call("ARRANGE_COMPONENT_SET", { componentSetId: set.id, options: { columnProperty: "Colour" } }), "bad_params", /Its properties: Size, State/);
  fail(await p.call("ARRANGE_COMPONENT_SET", { componentSetId: set.id, options: { gap: -1 } }), "bad_params", /gap/);
  fail(await p.call("ARRANGE_COMPONENT_SET", { componentSetId: node.children[0].id }), "wrong_node_type", /COMPONENT_SET/);
  fail(await p.call("ARRANGE_COMPONENT_SET", {}), "bad_params", /componentSetId/);
  node.resizeWithoutConstraints = () => {
    throw new Error("Simulated resize failure");
  };
  fail(await p.call("ARRANGE_COMPONENT_SET", { componentSetId: set.id, options: { columnProperty: "State", gap: 50 } }), "plugin_api_error", /Simulated resize failure.*put back/);
  delete node.resizeWithoutConstraints;
  const listed = p.figma.listAvailableFontsAsync;
  p.figma.listAvailableFontsAsync = async () => [];
  fail(await p.call("ARRANGE_COMPONENT_SET", { componentSetId: set.id }), "font_unavailable", /Inter Regular/);
  p.figma.listAvailableFontsAsync = listed;
  assert.equal(pageState(p), before);
});

test("CREATE_COMPONENT_SET with autoArrange builds and arranges the set in one step", async () => {
  const p = loadPlugin();
  const base = await code(p, "const c = figma.createComponent(); c.name = 'Chip'; c.resize(50, 20); return c.id");
  const commits = p.control.undoCommits;
  const r = await p.ok("CREATE_COMPONENT_SET", { baseComponentId: base, properties: { Size: ["S", "M"], State: ["On", "Off"] }, autoArrange: true, arrangeOptions: { gap: 8, cellPadding: 8 } });
  assert.equal(p.control.undoCommits - commits, 1);
  assert.equal(r.arranged.componentSet.id, r.componentSet.id);
  assert.deepEqual(r.arranged.grid.columns, ["On", "Off"]);
  const set = p.figma.getNodeById(r.componentSet.id);
  assert.deepEqual([set.width, set.height], [8 + 50 + 8 + 50 + 8, 8 + 20 + 8 + 20 + 8]);
  assert.ok(p.figma.getNodeById(r.arranged.labelsFrameId));
  fail(await p.call("CREATE_COMPONENT_SET", { baseComponentId: base, properties: { A: ["1"] }, autoArrange: true, arrangeOptions: { gap: "wide" } }), "bad_params", /gap/);
  const odd = await p.ok("CREATE_COMPONENT_SET", { baseComponentId: await code(p, "return figma.createComponent().id"), properties: { A: ["1", "2"] }, autoArrange: true, arrangeOptions: { columnProperty: "B" } });
  assert.equal(odd.arrangeError.code, "bad_params");
  assert.equal(odd.componentSet.variants.length, 2, "the set stays when only arranging fails");
});

test("ARRANGE_COMPONENT_SET of 100 variants reports progress", async () => {
  const p = loadPlugin();
  const base = await code(p, "const c = figma.createComponent(); c.name = 'Tile'; return c.id");
  const set = (await p.ok("CREATE_COMPONENT_SET", { baseComponentId: base, properties: { Tone: ["a", "b", "c", "d", "e"], Size: ["1", "2", "3", "4"], State: ["x", "y", "z", "w", "v"] } })).componentSet;
  const r = await p.call("ARRANGE_COMPONENT_SET", { componentSetId: set.id });
  assert.equal(r.result.variantCount, 100);
  assert.deepEqual(r.result.grid.columns, ["x", "y", "z", "w", "v"]);
  assert.equal(r.result.grid.rows.length, 20);
  const progress = p.events("PROGRESS").filter((d) => d.id === r.id);
  assert.ok(progress.length >= 2 && progress.length <= 11, progress.length + " messages");
  assert.equal(progress.at(-1).progress, 100);
});

// ---- slots ---------------------------------------------------------------------------------------------------------

test("ADD_SLOT_PROPERTY binds a direct child frame; refusals leave the component as it was", async () => {
  const p = loadPlugin();
  const ids = await code(p, `
    const c = figma.createComponent(); c.name = 'Card';
    const body = figma.createFrame(); body.name = 'Body'; c.appendChild(body);
    const grid = figma.createFrame(); grid.name = 'Grid'; grid.layoutMode = 'GRID'; c.appendChild(grid);
    const deep = figma.createFrame(); body.appendChild(deep);
    const r = figma.createRectangle(); c.appendChild(r);
    const loose = figma.createFrame();
    return {c: c.id, body: body.id, grid: grid.id, deep: deep.id, r: r.id, loose: loose.id}`);
  const inst = (await p.ok("INSTANTIATE_COMPONENT", { nodeId: ids.c })).instance;
  const before = pageState(p);
  fail(await p.call("ADD_SLOT_PROPERTY", { nodeId: ids.c, propertyName: "Content", frameNodeId: ids.deep }), "bad_params", /not a direct child/);
  fail(await p.call("ADD_SLOT_PROPERTY", { nodeId: ids.c, propertyName: "Content", frameNodeId: ids.loose }), "bad_params", /not a direct child/);
  fail(await p.call("ADD_SLOT_PROPERTY", { nodeId: ids.c, propertyName: "Content", frameNodeId: ids.grid }), "bad_params", /GRID/);
  fail(await p.call("ADD_SLOT_PROPERTY", { nodeId: ids.c, propertyName: "Content", frameNodeId: ids.r }), "wrong_node_type", /RECTANGLE/);
  fail(await p.call("ADD_SLOT_PROPERTY", { nodeId: inst.id, propertyName: "Content", frameNodeId: ids.body }), "wrong_node_type", /instance/);
  fail(await p.call("ADD_SLOT_PROPERTY", { nodeId: ids.c, propertyName: "Content", frameNodeId: "7:7" }), "not_found", /look the node up again/);
  fail(await p.call("ADD_SLOT_PROPERTY", { nodeId: ids.c, frameNodeId: ids.body }), "bad_params", /propertyName/);
  assert.equal(pageState(p), before);

  const r = await p.ok("ADD_SLOT_PROPERTY", { nodeId: ids.c, propertyName: "Content", frameNodeId: ids.body, description: "Card body", preferredValues: [{ type: "COMPONENT", key: "abc" }] });
  assert.match(r.propertyName, /^Content#/);
  assert.deepEqual(r.definition, { type: "SLOT", defaultValue: "", description: "Card body", slotSettings: {}, preferredValues: [{ type: "COMPONENT", key: "abc" }] });
  assert.deepEqual(p.figma.getNodeById(ids.body).componentPropertyReferences, { slotContentId: r.propertyName });
  fail(await p.call("ADD_SLOT_PROPERTY", { nodeId: ids.c, propertyName: "Again", frameNodeId: ids.body }), "conflict", /already the content/);
});

test("slots: CREATE_SLOT, APPEND_TO_SLOT and RESET_SLOT say what they changed", async () => {
  const p = loadPlugin();
  const comp = await code(p, "const c = figma.createComponent(); c.name = 'Card'; return c.id");
  const slot = await p.ok("CREATE_SLOT", { nodeId: comp, name: "Body", width: 200, height: 80 });
  const defs = p.figma.getNodeById(comp).componentPropertyDefinitions;
  assert.equal(Object.keys(defs).filter((k) => defs[k].type === "SLOT").length, 1, "a slot comes with its property");
  const inst = (await p.ok("INSTANTIATE_COMPONENT", { nodeId: comp })).instance.id;
  const src = await code(p, "const r = figma.createRectangle(); r.name = 'Src'; return r.id");
  const moved = await p.ok("APPEND_TO_SLOT", { instanceId: inst, slotName: "Body", sourceNodeId: src, clone: false });
  assert.equal(moved.movedFrom.parentId, p.figma.currentPage.id);
  const slotNode = p.figma.getNodeById(moved.slot.id);
  assert.deepEqual(slotNode.children.map((c) => c.id), [src]);
  const before = pageState(p);
  fail(await p.call("APPEND_TO_SLOT", { instanceId: inst, slotName: "Body", nodeType: "TEXT", clearExisting: true, properties: { width: "wide", height: 1 } }), "bad_params");
  fail(await p.call("APPEND_TO_SLOT", { instanceId: inst, slotName: "Body", nodeType: "HEXAGON", clearExisting: true }), "bad_params", /FRAME/);
  fail(await p.call("CREATE_SLOT", { nodeId: inst }), "wrong_node_type", /main component/);
  fail(await p.call("CREATE_SLOT", { nodeId: comp, layoutMode: "GRID" }), "bad_params", /NONE, HORIZONTAL, VERTICAL/);
  assert.equal(pageState(p), before, "a refused append leaves the slot's content");
  const cleared = await p.ok("APPEND_TO_SLOT", { instanceId: inst, slotName: "Body", nodeType: "ELLIPSE", clearExisting: true });
  assert.equal(cleared.removedChildren, 1);
  assert.deepEqual(slotNode.children.map((c) => c.type), ["ELLIPSE"]);
  const reset = await p.ok("RESET_SLOT", { instanceId: inst, slotName: "Body" });
  assert.equal(reset.previousChildCount, 1);
  assert.equal(slotNode.children.length, 0);
  assert.equal(slot.componentId, comp);

  // A new text node gets its characters (its font loaded first); text is refused for any other kind, before a change.
  const label = await p.ok("APPEND_TO_SLOT", { instanceId: inst, slotName: "Body", nodeType: "TEXT", properties: { name: "Title", text: "Hello slot" } });
  assert.equal(label.appended.characters, "Hello slot");
  assert.deepEqual(slotNode.children.map((c) => [c.type, c.name, c.characters]), [["TEXT", "Title", "Hello slot"]]);
  const held = pageState(p);
  fail(await p.call("APPEND_TO_SLOT", { instanceId: inst, slotName: "Body", nodeType: "FRAME", properties: { text: "x" } }), "bad_params", /TEXT node/);
  assert.equal(pageState(p), held);
});

// ---- annotations ---------------------------------------------------------------------------------------------------

test("SET_ANNOTATIONS returns the annotations it replaced and refuses unknown categories", async () => {
  const p = loadPlugin();
  const id = (await p.ok("CREATE_CHILD_NODE", { parentId: p.figma.currentPage.id, nodeType: "RECTANGLE" })).node.id;
  await p.ok("SET_ANNOTATIONS", { nodeId: id, annotations: [{ label: "Tap target", categoryId: "cat:1" }] });
  const r = await p.ok("SET_ANNOTATIONS", { nodeId: id, annotations: [{ labelMarkdown: "**New**" }] });
  assert.deepEqual(r.previous, [{ label: "Tap target", categoryId: "cat:1" }]);
  assert.deepEqual(p.figma.getNodeById(id).annotations, [{ labelMarkdown: "**New**" }]);
  const before = pageState(p);
  fail(await p.call("SET_ANNOTATIONS", { nodeId: id, annotations: [{ label: "x", categoryId: "cat:9" }] }), "not_found", /design_get_annotation_categories/);
  fail(await p.call("SET_ANNOTATIONS", { nodeId: "5:5", annotations: [] }), "not_found");
  assert.equal(pageState(p), before);
});

// ---- nodes ---------------------------------------------------------------------------------------------------------

test("node writes answer with the previous values and change nothing when refused", async () => {
  const p = loadPlugin();
  const page = p.figma.currentPage.id;
  const frame = (await p.ok("CREATE_CHILD_NODE", { parentId: page, nodeType: "FRAME", properties: { name: "Card", width: 300, height: 200 } })).node.id;
  const id = (await p.ok("CREATE_CHILD_NODE", { parentId: frame, nodeType: "RECTANGLE", properties: { name: "Box", x: 5, y: 6, width: 40, height: 30, fills: "rgb(255, 0, 0)" } })).node.id;
  const box = p.figma.getNodeById(id);
  assert.deepEqual(plain(box.fills[0].color), { r: 1, g: 0, b: 0 });
  assert.deepEqual((await p.ok("RESIZE_NODE", { nodeId: id, width: 64, height: 48 })).previous, { width: 40, height: 30 });
  assert.deepEqual((await p.ok("MOVE_NODE", { nodeId: id, x: 1, y: 2 })).previous, { x: 5, y: 6 });
  assert.deepEqual((await p.ok("SET_NODE_FILLS", { nodeId: id, fills: [{ color: "#00F" }] })).previous, { fills: [{ type: "SOLID", color: "#FF0000" }] });
  assert.deepEqual((await p.ok("SET_NODE_STROKES", { nodeId: id, strokes: [{ color: "#000" }], strokeWeight: 3 })).previous, { strokes: [], strokeWeight: 1 });
  assert.deepEqual((await p.ok("SET_NODE_OPACITY", { nodeId: id, opacity: 0.5 })).previous, { opacity: 1 });
  assert.deepEqual((await p.ok("SET_NODE_CORNER_RADIUS", { nodeId: id, radius: 4 })).previous, { cornerRadius: 0 });
  const png = p.figma.base64Encode(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
  assert.deepEqual((await p.ok("SET_IMAGE_FILL", { nodeIds: [id], imageData: png })).previous.fills[id], [{ type: "SOLID", color: "#0000FF" }]);
  const renamed = await p.ok("RENAME_NODE", { nodeId: id, newName: "Tile" });
  assert.deepEqual([renamed.oldName, renamed.newName, box.name], ["Box", "Tile", "Tile"]);
  const copy = (await p.ok("CLONE_NODE", { nodeId: id })).node;
  assert.equal(p.figma.getNodeById(copy.id).name, "Tile");

  const before = pageState(p);
  fail(await p.call("RESIZE_NODE", { nodeId: id, width: 0, height: 5 }), "bad_params", /width/);
  fail(await p.call("MOVE_NODE", { nodeId: id, x: 3, y: "4" }), "bad_params", /'y'/);
  fail(await p.call("SET_NODE_FILLS", { nodeId: id, fills: [{ color: "#0F0" }, { color: "nope" }] }), "bad_params", /fills\[1\]/);
  fail(await p.call("SET_NODE_STROKES", { nodeId: id, strokes: [{ color: "#0F0" }], strokeWeight: -2 }), "bad_params", /strokeWeight/);
  fail(await p.call("SET_NODE_FILLS", { nodeId: id, fills: [{ variableId: "VariableID:404:1" }] }), "not_found");
  fail(await p.call("SET_IMAGE_FILL", { nodeIds: [id, "8:8"], imageData: png }), "not_found");
  fail(await p.call("CREATE_CHILD_NODE", { parentId: frame, nodeType: "FRAME", properties: { fills: [{ color: "nope" }] } }), "bad_params");
  fail(await p.call("CREATE_CHILD_NODE", { parentId: id, nodeType: "FRAME" }), "wrong_node_type");
  fail(await p.call("RENAME_NODE", { nodeId: id, newName: "" }), "bad_params");
  fail(await p.call("DELETE_NODE", { nodeId: "9:99999" }), "not_found", /design_get_file_data/);
  assert.equal(pageState(p), before);

  const deleted = await p.ok("DELETE_NODE", { nodeId: id });
  assert.deepEqual(
    Object.fromEntries(["id", "type", "name", "parentId", "parentName", "index", "x", "y", "width", "height", "opacity", "cornerRadius"].map((k) => [k, deleted.deleted[k]])),
    { id, type: "RECTANGLE", name: "Tile", parentId: frame, parentName: "Card", index: 0, x: 1, y: 2, width: 64, height: 48, opacity: 0.5, cornerRadius: 4 },
  );
  assert.deepEqual(deleted.deleted.strokes, [{ type: "SOLID", color: "#000000" }]);
  assert.ok(box.removed);
  assert.deepEqual(p.figma.getNodeById(frame).children.map((c) => c.id), [copy.id]);
});

test("text writes load fonts first and name a font that is missing", async () => {
  const p = loadPlugin();
  const page = p.figma.currentPage.id;
  const t = (await p.ok("CREATE_CHILD_NODE", { parentId: page, nodeType: "TEXT", properties: { text: "Hello", fontSize: 18 } })).node.id;
  const node = p.figma.getNodeById(t);
  assert.equal(node.characters, "Hello");
  const r = await p.ok("SET_TEXT_CONTENT", { nodeId: t, text: "Bye", fontFamily: "Roboto", fontStyle: "Bold" });
  assert.deepEqual(r.previous, { characters: "Hello", fontName: { family: "Inter", style: "Regular" }, fontSize: 18 });
  assert.equal(node.characters, "Bye");

  node.fontName = { family: "Comic Zans", style: "Regular" };
  const before = pageState(p);
  fail(await p.call("SET_TEXT_CONTENT", { nodeId: t, text: "x" }), "font_unavailable", new RegExp("Comic Zans Regular' used by text layer '" + node.name + "' \\(" + t + "\\)"));
  fail(await p.call("SET_TEXT_CONTENT", { nodeId: t, text: "x", fontFamily: "Papyrus Pro" }), "font_unavailable", /Papyrus Pro/);
  assert.equal(pageState(p), before);
  // Giving the layer an installed font repairs it.
  await p.ok("SET_TEXT_CONTENT", { nodeId: t, text: "Fixed", fontFamily: "Inter" });
  assert.deepEqual(plain([node.characters, node.fontName]), ["Fixed", { family: "Inter", style: "Regular" }]);

  const listed = p.figma.listAvailableFontsAsync;
  p.figma.listAvailableFontsAsync = async () => (await listed()).filter((f) => f.fontName.family !== "Inter");
  const count = p.figma.currentPage.children.length;
  fail(await p.call("CREATE_CHILD_NODE", { parentId: page, nodeType: "TEXT", properties: { text: "x" } }), "font_unavailable", /Inter Regular/);
  assert.equal(p.figma.currentPage.children.length, count, "the half-made text layer was removed");
});
