// The shipped plugin code on a big document (big-document.mjs), answering bridge commands one JSON line at a time,
// so Python tests and benchmarks can run tools against it without a designd:
//   node big-plugin.mjs '{"layers": 10000, "variables": 500, "modes": 4, "select": 100}'
// stdin:  {"id": "1", "method": "READ_LAYERS", "params": {…}}  or  {"id": "2", "control": "select", "count": 5}
// stdout: {"ready": {…the document's counts…}} first, then per line {"id", "reply", "ms", "chars", "heap"}
import { createInterface } from "node:readline";
import { loadPlugin } from "./sandbox.mjs";
import { buildBigDocument } from "./big-document.mjs";

const options = JSON.parse(process.argv[2] || "{}");
let summary = null;
const started = performance.now();
const plugin = loadPlugin({ setup: (figma, control) => (summary = buildBigDocument(figma, control, options)) });
// Building the document leaves garbage a real file has not; collected now (node --expose-gc), no read pays for it.
if (typeof globalThis.gc === "function") globalThis.gc();
let pageLayers = 0;
let pageAnnotated = 0;
const count = (node) =>
  (node.children || []).forEach((c) => (pageLayers++, (pageAnnotated += c.annotations && c.annotations.length ? 1 : 0), count(c)));
count(plugin.figma.currentPage);
const counts = {
  layers: summary.layers,
  page: plugin.figma.currentPage.id,
  pageLayers: pageLayers,
  variables: summary.variables.length,
  selection: summary.selection.length,
  annotated: summary.annotated,
  pageAnnotated: pageAnnotated,
  buildMs: Math.round(performance.now() - started),
};
process.stdout.write(JSON.stringify({ ready: counts }) + "\n");

const input = createInterface({ input: process.stdin });
input.on("line", async (text) => {
  const line = JSON.parse(text);
  if (line.control === "select") {
    // Another selection: the first `count` screens.
    plugin.control.setSelection(summary.screens.slice(0, line.count));
    process.stdout.write(JSON.stringify({ id: line.id, reply: { success: true } }) + "\n");
    return;
  }
  const t0 = performance.now();
  const reply = await plugin.call(line.method, line.params || {});
  const ms = performance.now() - t0;
  const body = JSON.stringify(reply);
  process.stdout.write('{"id":' + JSON.stringify(line.id) + ',"ms":' + ms + ',"chars":' + body.length + ',"heap":' + process.memoryUsage().heapUsed + ',"reply":' + body + "}\n");
});
input.on("close", () => process.exit(0));
