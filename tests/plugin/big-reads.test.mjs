// READ_LAYERS and READ_VARIABLES on big generated documents, in node:vm against the stand-in editor: pages resume
// where the last stopped, cover everything once, stay under the reply bound, and refuse a position that no longer fits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPlugin } from "./harness/sandbox.mjs";
import { buildBigDocument } from "./harness/big-document.mjs";

// READ_MAX_CHARS of plugin/src/code/methods/layers.js, plus one record and the reply's envelope.
const BOUND = 256 * 1024 + 4096;

function big(options) {
  let summary = null;
  const p = loadPlugin({ setup: (figma, control) => (summary = buildBigDocument(figma, control, options)) });
  return { p, summary };
}

/** Every layer under `node` in document order, each with the chain of its ancestors' ids. */
function documentOrder(node, ancestors = [], out = []) {
  for (const child of node.children || []) {
    out.push({ id: child.id, ancestors });
    documentOrder(child, ancestors.concat(child.id), out);
  }
  return out;
}

test("a paged READ_LAYERS walk reads every layer of a 20k page once, in order, in bounded replies", async () => {
  const { p } = big({ layers: 20000 });
  const expected = documentOrder(p.figma.currentPage);
  const seen = [];
  let start;
  let pages = 0;
  do {
    const reply = await p.call("READ_LAYERS", { depth: 50, maxNodes: 700, start });
    assert.equal(reply.error, undefined, reply.error);
    assert.ok(JSON.stringify(reply).length < BOUND);
    const page = reply.result;
    // A page that starts deep names the layers above its first one.
    assert.deepEqual(page.ancestors.map((a) => a.id), expected[seen.length].ancestors);
    page.ancestors.forEach((a, depth) => assert.equal(a.d, depth));
    seen.push(...page.nodes.map((n) => n.id));
    start = page.next;
    pages++;
  } while (start);
  assert.deepEqual(seen, expected.map((e) => e.id));
  assert.ok(pages >= 28, "pages: " + pages);
});

test("a page stops at the size bound whatever maxNodes asks", async () => {
  const { p } = big({ layers: 10000 });
  const page = await p.ok("READ_LAYERS", { depth: 50, maxNodes: 5000 });
  assert.ok(page.nodes.length < 5000 && page.next, "cut by size, not count: " + page.nodes.length);
  assert.ok(JSON.stringify(page).length < BOUND);
});

test("a position or roots that no longer fit are refused with how to start again", async () => {
  const { p, summary } = big({ layers: 2000, select: 30 });
  const first = await p.ok("READ_LAYERS", { depth: 0, maxNodes: 10 });
  assert.equal(first.scope, "selection");
  assert.deepEqual(first.next, [10]);
  p.control.setSelection(summary.selection.slice(0, 5));
  const moved = await p.call("READ_LAYERS", { depth: 0, maxNodes: 10, start: first.next, rootsKey: first.rootsKey });
  assert.equal(moved.code, "stale_cursor");
  assert.match(moved.error, /without a cursor/);
  const past = await p.call("READ_LAYERS", { depth: 0, start: [6] });
  assert.equal(past.code, "stale_cursor");
  const deep = await p.call("READ_LAYERS", { depth: 3, start: [0, 99, 0] });
  assert.equal(deep.code, "stale_cursor");
  const bad = await p.call("READ_LAYERS", { start: ["x"] });
  assert.equal(bad.code, "bad_params");
  const none = await p.ok("READ_LAYERS", { scope: "selection", depth: 0 });
  assert.equal(none.roots, 5);
});

test("READ_VARIABLES pages 2,000 variables in 4 modes once each, in bounded replies", async () => {
  const { p, summary } = big({ layers: 100, variables: 2000, modes: 4, collections: 2 });
  const ids = [];
  let offset = 0;
  let collections = null;
  while (offset !== null) {
    const reply = await p.call("READ_VARIABLES", { offset: offset, maxItems: 5000 });
    assert.ok(JSON.stringify(reply).length < BOUND);
    const page = reply.result;
    if (offset === 0) collections = page.variableCollections;
    else assert.equal(page.variableCollections, undefined);
    assert.equal(page.total, 2000);
    ids.push(...page.variables.map((v) => v.id));
    assert.ok(page.next === null || page.next > offset);
    offset = page.next;
  }
  assert.deepEqual(ids, summary.variables.map((v) => v.id));
  assert.deepEqual(collections.map((c) => [c.name, c.variableCount, c.variableIds]), [["Tokens 1", 1000, undefined], ["Tokens 2", 1000, undefined]]);
});

test("GET_LOCAL_COMPONENTS pages 500 component sets in bounded replies, and answers all at once when asked without offset", async () => {
  const { p } = big({ layers: 6000, componentSets: 500 });
  const whole = await p.ok("GET_LOCAL_COMPONENTS", {});
  assert.equal(whole.next, null);
  const names = [];
  let offset = 0;
  let pages = 0;
  while (offset !== null) {
    const reply = await p.call("GET_LOCAL_COMPONENTS", { offset: offset });
    assert.ok(JSON.stringify(reply).length < BOUND);
    names.push(...reply.result.componentSets.map((c) => c.name), ...reply.result.components.map((c) => c.name));
    offset = reply.result.next;
    pages++;
  }
  const expected = whole.componentSets.map((c) => c.name).concat(whole.components.map((c) => c.name));
  assert.deepEqual(names.sort(), expected.sort());
  assert.equal(names.length, 503);
  assert.ok(pages > 1, "pages: " + pages);
});
