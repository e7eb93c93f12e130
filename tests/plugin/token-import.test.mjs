// APPLY_TOKEN_CHANGES on the stand-in editor: a token import's change set applied as one undo step, checked before
// anything changes, and taken back whole when the editor fails midway.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPlugin } from "./harness/sandbox.mjs";
import { slowVariableWrites } from "./harness/slow-editor.mjs";

/** Every local collection and variable with everything an import could change. */
async function state(p) {
  const cols = await p.figma.variables.getLocalVariableCollectionsAsync();
  const vars = await p.figma.variables.getLocalVariablesAsync();
  return JSON.stringify({
    collections: cols.map((c) => ({ id: c.id, name: c.name, modes: c.modes })),
    variables: vars.map((v) => ({ id: v.id, name: v.name, type: v.resolvedType, description: v.description, values: v.valuesByMode })),
  });
}

function fail(reply, code, pattern) {
  assert.equal(reply.result, undefined, "expected an error, got " + JSON.stringify(reply.result));
  if (code) assert.equal(reply.code, code, reply.error);
  if (pattern) assert.match(reply.error, pattern);
  return reply;
}

/** A file with collection Core (Light, Dark): blue, red (colours) and gap aliasing space/4 (floats). */
async function seeded(p) {
  await p.ok("APPLY_TOKEN_CHANGES", {
    collections: [{ ref: "c", name: "Core", modes: ["Light", "Dark"] }],
    variables: [
      { ref: "blue", collection: "c", name: "blue", type: "COLOR" },
      { ref: "red", collection: "c", name: "red", type: "COLOR" },
      { ref: "s4", collection: "c", name: "space/4", type: "FLOAT" },
      { ref: "gap", collection: "c", name: "gap", type: "FLOAT" },
    ],
    values: [
      { variable: "blue", mode: "Light", value: { r: 0, g: 0, b: 1, a: 1 } },
      { variable: "red", mode: "Light", value: { r: 1, g: 0, b: 0, a: 1 } },
      { variable: "s4", mode: "Light", value: 16 },
      { variable: "s4", mode: "Dark", value: 12 },
      { variable: "gap", mode: "Light", alias: "s4" },
      { variable: "gap", mode: "Dark", alias: "s4" },
    ],
    deletes: [],
  });
  const vars = await p.figma.variables.getLocalVariablesAsync();
  const coll = (await p.figma.variables.getLocalVariableCollectionsAsync())[0];
  const id = (name) => vars.find((v) => v.name === name).id;
  return { coll: coll, blue: id("blue"), red: id("red"), s4: id("space/4"), gap: id("gap") };
}

test("a new collection, a mode added, aliases across collections, names swapped and a delete: one undo step", async () => {
  const p = loadPlugin();
  const ids = await seeded(p);
  const commits = p.control.undoCommits;
  const r = await p.ok("APPLY_TOKEN_CHANGES", {
    collections: [
      { ref: "core", id: ids.coll.id, name: "Core", modes: ["Dim"] },
      { ref: "sem", name: "Semantic", modes: ["Light", "Dark"] },
    ],
    variables: [
      { ref: "blue", id: ids.blue, collection: "core", name: "red", type: "COLOR", description: "was blue" },
      { ref: "red", id: ids.red, collection: "core", name: "blue", type: "COLOR" },
      { ref: "bg", collection: "sem", name: "bg", type: "COLOR" },
      { ref: "fg", collection: "sem", name: "fg", type: "COLOR" },
    ],
    values: [
      { variable: "bg", mode: "Light", alias: "blue" },
      { variable: "bg", mode: "Dark", alias: "red" },
      { variable: "fg", mode: "Light", alias: "bg" },
      { variable: "red", mode: "Dim", value: { r: 0.5, g: 0, b: 0, a: 1 } },
    ],
    deletes: [ids.gap],
  });
  assert.equal(p.control.undoCommits - commits, 1);
  assert.deepEqual(r.counts, { collectionsCreated: 1, variablesCreated: 2, renamed: 2, values: 4, deleted: 1 });
  const blue = await p.figma.variables.getVariableByIdAsync(ids.blue);
  const red = await p.figma.variables.getVariableByIdAsync(ids.red);
  assert.equal(blue.name, "red");
  assert.equal(blue.description, "was blue");
  assert.equal(red.name, "blue");
  assert.equal(await p.figma.variables.getVariableByIdAsync(ids.gap), null);
  const bg = await p.figma.variables.getVariableByIdAsync(r.created.bg);
  const sem = await p.figma.variables.getVariableCollectionByIdAsync(r.collections.Semantic);
  assert.deepEqual(JSON.parse(JSON.stringify(bg.valuesByMode[sem.modes[0].modeId])), { type: "VARIABLE_ALIAS", id: ids.blue });
  const modes = (await p.figma.variables.getVariableCollectionByIdAsync(ids.coll.id)).modes.map((m) => m.name);
  assert.deepEqual(modes, ["Light", "Dark", "Dim"]);
});

test("refusals change nothing: unknown refs, type mismatches, loops through existing aliases, taken names, deleted targets", async () => {
  const p = loadPlugin();
  const ids = await seeded(p);
  const before = await state(p);
  const core = { ref: "core", id: ids.coll.id, name: "Core", modes: [] };
  const call = (over) => p.call("APPLY_TOKEN_CHANGES", Object.assign({ collections: [core], variables: [], values: [], deletes: [] }, over));
  fail(await call({ values: [{ variable: "nope", mode: "Light", value: 1 }] }), "not_found", /variable ref "nope"/);
  fail(
    await call({
      variables: [
        { ref: "gap", id: ids.gap, collection: "core", name: "gap", type: "FLOAT" },
        { ref: "blue", id: ids.blue, collection: "core", name: "blue", type: "COLOR" },
      ],
      values: [{ variable: "gap", mode: "Light", alias: "blue" }],
    }),
    "bad_params",
    /a FLOAT variable cannot alias 'blue', a COLOR/,
  );
  fail(
    await call({
      variables: [{ ref: "s4", id: ids.s4, collection: "core", name: "space/4", type: "FLOAT" }, { ref: "gap", id: ids.gap, collection: "core", name: "gap", type: "FLOAT" }],
      values: [{ variable: "s4", mode: "Light", alias: "gap" }],
    }),
    "bad_params",
    /loop \(space\/4 → gap → space\/4\)/,
  );
  fail(await call({ variables: [{ ref: "x", collection: "core", name: "red", type: "COLOR" }] }), "conflict", /'red' is also the name of variable/);
  fail(await call({ deletes: [ids.s4] }), "conflict", /'gap'.*aliases .*which this import deletes/);
  fail(await call({ values: [], variables: [{ ref: "b", id: ids.blue, collection: "core", name: "blue", type: "FLOAT" }] }), "bad_params", /is a COLOR, not a FLOAT/);
  fail(await call({ collections: [{ ref: "n", name: "Core", modes: ["A"] }] }), "conflict", /named 'Core' already exists/);
  assert.equal(await state(p), before);
});

test("a failure midway takes every step back: modes, renames, descriptions, values and new variables", async () => {
  const p = loadPlugin();
  const ids = await seeded(p);
  const before = await state(p);
  const commits = p.control.undoCommits;
  p.control.failOn("setValueForMode", 3, "Internal error in setValueForMode");
  const reply = fail(
    await p.call("APPLY_TOKEN_CHANGES", {
      collections: [{ ref: "core", id: ids.coll.id, name: "Core", modes: ["Dim"] }, { ref: "sem", name: "Semantic", modes: ["Light"] }],
      variables: [
        { ref: "blue", id: ids.blue, collection: "core", name: "red", type: "COLOR", description: "changed" },
        { ref: "red", id: ids.red, collection: "core", name: "blue", type: "COLOR" },
        { ref: "s4", id: ids.s4, collection: "core", name: "space/4", type: "FLOAT" },
        { ref: "bg", collection: "sem", name: "bg", type: "COLOR" },
      ],
      values: [
        { variable: "s4", mode: "Light", value: 99 },
        { variable: "s4", mode: "Dark", value: 98 },
        { variable: "bg", mode: "Light", alias: "blue" },
      ],
      deletes: [],
    }),
    "plugin_api_error",
    /Internal error in setValueForMode.*Nothing was kept/,
  );
  assert.equal(reply.rolledBack, true);
  assert.equal(await state(p), before);
  assert.equal(p.control.undoCommits - commits, 1);
});

test("a long import reports progress", async () => {
  const p = loadPlugin();
  // Progress goes out at the end of each slice of work (chunks.js): writes of a millisecond make several slices.
  slowVariableWrites(p, 1);
  const variables = Array.from({ length: 200 }, (_, i) => ({ ref: "v" + i, collection: "c", name: "space/" + i, type: "FLOAT" }));
  const values = variables.map((v, i) => ({ variable: v.ref, mode: "A", value: i }));
  const reply = await p.call("APPLY_TOKEN_CHANGES", { collections: [{ ref: "c", name: "Big", modes: ["A"] }], variables: variables, values: values, deletes: [] });
  assert.equal(reply.result.counts.variablesCreated, 200);
  assert.ok(p.events("PROGRESS").filter((d) => d.id === reply.id).length >= 2);
});
