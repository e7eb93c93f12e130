// Big variable batches in the plugin, ours beside the reference's, on the same stand-in editor and big document
// (tests/plugin/harness/big-document.mjs). bench/bench_big_files.py runs it and prints the figures.
//
//   node bench/big_writes.mjs '{"side": "ours" | "reference", "writes": 2000, "writeMs": 0}'
//
// Ours: one BATCH_UPDATE_VARIABLES of every update. The reference: the script its figma_batch_update_variables tool
// sends through EXECUTE_CODE, in calls of at most 100 updates (its limit). `writeMs` makes each setValueForMode of
// the stand-in hold the thread that long, as writes to variables that many layers use do in the design tool.
// Prints one JSON line: total ms, calls, the chunks (ours: progress reports, one per slice of work; the reference:
// its calls), the longest stretch the plugin held the thread (CPU ms between two timer turns), undo steps committed,
// heap after, values set.
import vm from "node:vm";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createDesignEnv } from "../tests/plugin/harness/figma-env.mjs";
import { buildBigDocument } from "../tests/plugin/harness/big-document.mjs";
import { slowVariable } from "../tests/plugin/harness/slow-editor.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const REFERENCE_CODE = ROOT + "bench/.reference/node_modules/figma-console-mcp/figma-desktop-bridge/code.js";
/** The most updates the reference's figma_batch_update_variables takes in one call. */
const REFERENCE_BATCH = 100;

const options = JSON.parse(process.argv[2] || "{}");
const writes = options.writes || 100;
const side = options.side || "ours";

/** Loads a plugin's code.js on a fresh stand-in holding `writes` variables in 2 modes; replies come to `onReply`. */
function load(code, onMessage) {
  const { figma, control } = createDesignEnv({});
  const summary = buildBigDocument(figma, control, { layers: 500, variables: writes, modes: 2, collections: 1 });
  figma.showUI = () => undefined;
  figma.ui.postMessage = (message) => onMessage(structuredClone(message));
  if (!figma.clientStorage) figma.clientStorage = {};
  figma.clientStorage.getAsync = async () => undefined;
  figma.clientStorage.setAsync = async () => undefined;
  const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {} };
  const context = vm.createContext({ figma, __html__: "<html></html>", console: quiet, setTimeout, clearTimeout, setInterval, clearInterval });
  vm.runInContext(code, context, { filename: "code.js" });
  return { figma, control, summary };
}

/** A plain value of the variable's type, different for each `i`, as callers write them. */
function valueOf(v, i) {
  if (v.resolvedType === "FLOAT") return i;
  if (v.resolvedType === "STRING") return "s" + i;
  if (v.resolvedType === "BOOLEAN") return i % 2 === 0;
  return "#" + (i % 4096).toString(16).toUpperCase().padStart(3, "0") + "ABC";
}

/** The reference's batch script for `updates`, as its server writes it (dist/core/write-tools.js). */
function referenceScript(updates) {
  return `
const results = [];
const updates = ${JSON.stringify(updates)};
function hexToRgba(hex) {
  hex = hex.replace('#', '');
  if (hex.length === 3) hex = hex.split('').map(c => c + c).join('');
  return { r: parseInt(hex.substring(0, 2), 16) / 255, g: parseInt(hex.substring(2, 4), 16) / 255,
    b: parseInt(hex.substring(4, 6), 16) / 255, a: hex.length === 8 ? parseInt(hex.substring(6, 8), 16) / 255 : 1 };
}
for (const u of updates) {
  try {
    const variable = await figma.variables.getVariableByIdAsync(u.variableId);
    if (!variable) throw new Error('Variable not found: ' + u.variableId);
    const isColor = variable.resolvedType === 'COLOR';
    const processed = isColor && typeof u.value === 'string' ? hexToRgba(u.value) : u.value;
    variable.setValueForMode(u.modeId, processed);
    results.push({ success: true, variableId: u.variableId, name: variable.name });
  } catch (err) {
    results.push({ success: false, variableId: u.variableId, error: String(err) });
  }
}
return { updated: results.filter(r => r.success).length, failed: results.filter(r => !r.success).length, results };`;
}

/** CPU milliseconds this process has used. */
function cpu() {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

async function main() {
  const waiting = new Map();
  let chunks = 0;
  const onMessage = (message) => {
    if (message.kind === "reply" && waiting.has(message.reply.id)) waiting.get(message.reply.id)(message.reply);
    if (message.kind === "event" && message.event.type === "PROGRESS") chunks++;
    if (message.type === "EXECUTE_CODE_RESULT" && waiting.has(message.requestId)) waiting.get(message.requestId)(message);
  };
  const code = side === "ours" ? readFileSync(ROOT + "plugin/code.js", "utf8") : readFileSync(REFERENCE_CODE, "utf8");
  const { figma, control } = load(code, onMessage);
  const collection = (await figma.variables.getLocalVariableCollectionsAsync())[0];
  const variables = await figma.variables.getLocalVariablesAsync();
  if (options.writeMs) variables.forEach((v) => slowVariable(v, options.writeMs));
  const updates = variables.map((v, i) => ({ variableId: v.id, modeId: collection.modes[1].modeId, value: valueOf(v, i) }));
  const commits = control.undoCommits;

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
  const send = (id, message) =>
    new Promise((resolve) => {
      waiting.set(id, resolve);
      figma.ui.onmessage(structuredClone(message), { origin: "null" });
    });

  const started = performance.now();
  let calls = 0;
  let set = 0;
  if (side === "ours") {
    const reply = await send("w1", { kind: "command", route: "bench", command: { id: "w1", method: "BATCH_UPDATE_VARIABLES", params: { updates } } });
    calls = 1;
    if (reply.error) throw new Error(reply.error);
    set = reply.result.count;
  } else {
    for (let i = 0; i < updates.length; i += REFERENCE_BATCH) {
      const part = updates.slice(i, i + REFERENCE_BATCH);
      const id = "r" + i;
      // Each call is a round trip through the UI: the editor runs between two calls.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const reply = await send(id, { type: "EXECUTE_CODE", requestId: id, code: referenceScript(part), timeout: 30000 });
      calls++;
      if (!reply.success) throw new Error(reply.error);
      set += reply.result.updated;
    }
    // The reference yields only between its calls.
    chunks = calls;
  }
  const ms = performance.now() - started;
  running = false;
  longest = Math.max(longest, cpu() - last);
  const heap = process.memoryUsage().heapUsed;
  process.stdout.write(
    JSON.stringify({ side, writes, ms, calls, chunks, longest, undoSteps: control.undoCommits - commits, heapMiB: heap / 2 ** 20, set }) + "\n",
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
    process.exit(1);
  },
);
