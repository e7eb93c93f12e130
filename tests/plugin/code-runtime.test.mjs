// plugin/code.js behaviour around the methods: EXECUTE_CODE limits, CANCEL, console capture and editor events.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPlugin } from "./harness/sandbox.mjs";

function waitFor(predicate, ms = 3000) {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const value = predicate();
      if (value) return resolve(value);
      if (Date.now() - started > ms) return reject(new Error("condition not met within " + ms + " ms"));
      setTimeout(tick, 10);
    };
    tick();
  });
}

test("EXECUTE_CODE returns values serialised safely", async () => {
  const p = loadPlugin();
  const r = await p.ok("EXECUTE_CODE", {
    code: "const a = {name: 'a'}; a.self = a; return {a, big: 'x'.repeat(20000), list: Array.from({length: 500}, (_, i) => i), fn() {}, page: figma.currentPage, n: NaN}",
  });
  assert.equal(r.result.a.self, "[Circular]");
  assert.match(r.result.big, /more characters\]$/);
  assert.ok(r.result.big.length < 10100);
  assert.equal(r.result.list.length, 201);
  assert.equal(r.result.list[200], "… 300 more items");
  assert.equal(r.result.fn, "[Function fn]");
  assert.deepEqual(r.result.page, { id: p.figma.currentPage.id, type: "PAGE", name: "Page 1" });
  assert.equal(r.result.n, "NaN");
  assert.equal((await p.ok("EXECUTE_CODE", { code: "await new Promise(r => setTimeout(r, 5)); return 42" })).result, 42);
  assert.equal((await p.ok("EXECUTE_CODE", { code: "figma.currentPage.name" })).result, null, "a body without return yields null");
});

test("EXECUTE_CODE checks its input", async () => {
  const p = loadPlugin();
  let r = await p.call("EXECUTE_CODE", { code: 12 });
  assert.equal(r.code, "bad_params");
  r = await p.call("EXECUTE_CODE", { code: "x".repeat(200001) });
  assert.equal(r.code, "bad_params");
  assert.match(r.error, /Code is 200001 characters; the limit is 200000/);
  // Characters are code points, as designd counts them: these emoji are two UTF-16 units each.
  const emoji = await p.ok("EXECUTE_CODE", { code: "return '" + "\u{1F600}".repeat(149990) + "'.length" });
  assert.equal(emoji.result, 299980);
  r = await p.call("EXECUTE_CODE", { code: "return 1", timeout: -5 });
  assert.equal(r.code, "bad_params");
  r = await p.call("EXECUTE_CODE", { code: "return (" });
  assert.equal(r.code, "syntax_error");
  assert.match(r.error, /SyntaxError/);
});

test("EXECUTE_CODE reports the line of a throw", async () => {
  const p = loadPlugin();
  const r = await p.call("EXECUTE_CODE", { code: "const a = 1;\nconst b = 2;\nthrow new RangeError('too far');" });
  assert.equal(r.code, "execution_error");
  assert.equal(r.line, 3);
  assert.match(r.error, /RangeError: too far \(line 3, column \d+\)/);
  const thrown = await p.call("EXECUTE_CODE", { code: "throw {reason: 'plain object'}" });
  assert.match(thrown.error, /plain object/);
});

test("EXECUTE_CODE abandons a run after its timeout", async () => {
  const p = loadPlugin();
  const started = Date.now();
  const r = await p.call("EXECUTE_CODE", { code: "await new Promise(() => {}); return 1", timeout: 200 });
  assert.equal(r.code, "timeout");
  assert.match(r.error, /200 ms/);
  assert.ok(Date.now() - started < 2000);
  const capped = await p.call("EXECUTE_CODE", { code: "return 1", timeout: 999999 });
  assert.equal(capped.result.result, 1, "a timeout above the cap is clamped, not refused");
});

test("CANCEL abandons a command in flight on the same socket only", async () => {
  const p = loadPlugin();
  p.fromUi({ kind: "command", route: "a", command: { id: "slow", method: "EXECUTE_CODE", params: { code: "await new Promise(() => {})", timeout: 30000 } } });
  const other = await p.call("CANCEL", { target: "slow" }, "b");
  assert.equal(other.result.cancelled, false, "a CANCEL from another server does not touch it");
  p.fromUi({ kind: "command", route: "a", command: { id: "c1", method: "CANCEL", params: { target: "slow" } } });
  const ack = await p.next((m) => m.kind === "reply" && m.reply.id === "c1");
  assert.equal(ack.reply.result.cancelled, true);
  const abandoned = await p.next((m) => m.kind === "reply" && m.reply.id === "slow");
  assert.equal(abandoned.reply.code, "cancelled");
  const bad = await p.call("CANCEL", {});
  assert.equal(bad.code, "bad_params");
});

test("console calls become CONSOLE_CAPTURE events, capped and rate-limited", async () => {
  const p = loadPlugin();
  const cyclic = "const o = {k: 1}; o.o = o;";
  await p.ok("EXECUTE_CODE", { code: cyclic + "console.warn('careful', o); console.error(new Error('bad')); console.debug('x'.repeat(50000)); console.info(1, null, undefined)" });
  const logs = p.events("CONSOLE_CAPTURE");
  assert.deepEqual(logs.map((l) => l.level), ["warn", "error", "debug", "info"]);
  assert.equal(logs[0].message, 'careful {"k":1,"o":"[Circular]"}');
  assert.equal(logs[0].args[1].o, "[Circular]");
  assert.equal(logs[1].args[0].message, "bad");
  assert.ok(logs[2].message.length < 10100);
  assert.equal(logs[3].message, "1 null undefined");
  assert.ok(logs.every((l) => typeof l.timestamp === "number" && l.source === "design"));
  assert.equal(p.consoleOut.length, 4, "the original console still receives every call");

  await p.ok("EXECUTE_CODE", { code: "for (let i = 0; i < 1000; i++) console.log('spam', i)" });
  const captured = p.events("CONSOLE_CAPTURE").length - 4;
  assert.ok(captured <= 200, captured + " captured in one second");
  await new Promise((r) => setTimeout(r, 1050));
  await p.ok("EXECUTE_CODE", { code: "console.log('after')" });
  const tail = p.events("CONSOLE_CAPTURE").slice(-2);
  assert.match(tail[0].message, /console messages were dropped/);
  assert.equal(tail[1].message, "after");
});

test("the plugin's own diagnostics do not reach the console buffer", async () => {
  const p = loadPlugin();
  p.figma.loadAllPagesAsync = async () => {
    throw new Error("pages unavailable");
  };
  p.fromUi({ kind: "ui-ready" });
  await waitFor(() => p.consoleOut.some((c) => String(c.args[0]).includes("watching the current page only")));
  assert.deepEqual(p.events("CONSOLE_CAPTURE"), []);
  // With whole-document events unavailable, the current page's node changes are still reported.
  p.control.fireDocumentChange([{ type: "PROPERTY_CHANGE", id: "1:9", node: { id: "1:9", name: "n", type: "RECTANGLE", removed: false }, properties: ["name"] }]);
  await waitFor(() => p.events("DOCUMENT_CHANGE").length === 1);
});

test("ui-ready sends init, selection and variables; editor events follow", async () => {
  const p = loadPlugin();
  p.fromUi({ kind: "ui-ready" });
  await p.next((m) => m.kind === "init");
  await waitFor(() => p.events("VARIABLES_DATA").length === 1);
  assert.equal(p.events("SELECTION_CHANGE").length, 1);

  const nodes = [];
  for (let i = 0; i < 60; i++) nodes.push(p.figma.createRectangle());
  p.control.setSelection(nodes);
  const sel = await waitFor(() => p.events("SELECTION_CHANGE").find((e) => e.count === 60));
  assert.equal(sel.nodes.length, 50);
  assert.deepEqual(Object.keys(sel.nodes[0]).sort(), ["height", "id", "name", "type", "width"]);

  const page = p.figma.createPage();
  page.name = "Second";
  p.figma.currentPage = page;
  const change = await waitFor(() => p.events("PAGE_CHANGE")[0]);
  assert.equal(change.pageName, "Second");
  assert.equal(p.events("FILE_INFO").at(-1).currentPage, "Second");

  await waitFor(() => p.figma.root.findAllWithCriteria);
  const node = nodes[0];
  const changes = [];
  for (let i = 0; i < 70; i++) changes.push({ type: "PROPERTY_CHANGE", id: "n" + i, node: { id: "n" + i, removed: false, name: "x", type: "FRAME" }, properties: ["width"] });
  changes.push({ type: "PROPERTY_CHANGE", id: node.id, node: Object.assign(node, { description: "" }), properties: ["name"] });
  changes.push({ type: "STYLE_CREATE", id: "S:1" });
  p.control.fireDocumentChange(changes);
  const doc = await waitFor(() => p.events("DOCUMENT_CHANGE")[0]);
  assert.equal(doc.changeCount, 72);
  assert.equal(doc.changedNodeIds.length, 50);
  assert.equal(doc.hasStyleChanges, true);
  assert.equal(doc.hasNodeChanges, true);
  const meta = await waitFor(() => p.events("METADATA_CHANGE")[0]);
  assert.deepEqual(meta.changes.map((c) => [c.node_id, c.field, c.new_value]), [[node.id, "name", node.name]]);
});
