// The AI app side of bench/bench_reference.py: the official MCP TypeScript SDK client over stdio, driving any
// MCP server command the same way. It prints one JSON line per step and waits for the driver's word (a line on
// stdin) where the driver measures memory or connects a fake plugin.
//
//   node bench/mcp_client.mjs <sdk-dir> <spec-json>
//
// spec: {command, args, env, mode: "start" | "sessions", runs, chats, calls, rounds, seconds, execute, console}

import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [sdkDir, specJson] = process.argv.slice(2);
const spec = JSON.parse(specJson);
const esm = join(sdkDir, "dist", "esm", "client");
const { Client } = await import(pathToFileURL(join(esm, "index.js")).href);
const { StdioClientTransport } = await import(pathToFileURL(join(esm, "stdio.js")).href);

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const say = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const waitWord = async () => (await lines.next()).value;

async function open() {
  const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: spec.env, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1.0.0" });
  const started = performance.now();
  await client.connect(transport);
  const listed = await client.listTools();
  if (!listed.tools.length) throw new Error("empty tool list");
  return { client, ms: performance.now() - started, pid: transport.pid };
}

async function call(client, tool) {
  const started = performance.now();
  const result = await client.callTool({ name: tool.name, arguments: tool.arguments });
  if (result.isError) throw new Error(`${tool.name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return performance.now() - started;
}

if (spec.mode === "start") {
  // Each run, when the driver says so: spawn → initialize → tools/list answered.
  for (let run = 0; run < spec.runs; run++) {
    await waitWord();
    const { client, ms } = await open();
    await client.close();
    say({ step: "start", ms });
  }
} else {
  const sessions = [];
  for (let n = 0; n < spec.chats; n++) sessions.push(await open());
  say({ step: "open", pids: sessions.map((s) => s.pid) });
  if (spec.chats === 1) {
    // In rounds, one per word of the driver, which gives other clients their turns in between.
    const { client } = sessions[0];
    for (let round = 0; round < (spec.rounds ?? 1); round++) {
      await waitWord(); // the fake plugin is connected now, and it is this client's turn
      if (round === 0) for (let n = 0; n < 50; n++) await call(client, spec.execute); // warm-up
      const execute = [];
      for (let n = 0; n < spec.calls; n++) execute.push(await call(client, spec.execute));
      const consoleReads = [];
      for (let n = 0; n < spec.calls; n++) consoleReads.push(await call(client, spec.console));
      say({ step: "calls", execute, console: consoleReads });
    }
  } else {
    await waitWord(); // the fake plugin is connected now
    await Promise.all(sessions.map(async ({ client }) => { for (let n = 0; n < 20; n++) await call(client, spec.execute); }));
    let count = 0;
    const started = performance.now();
    const until = started + spec.seconds * 1000;
    await Promise.all(
      sessions.map(async ({ client }) => {
        while (performance.now() < until) {
          await call(client, spec.execute);
          count++;
        }
      }),
    );
    say({ step: "concurrent", calls: count, seconds: (performance.now() - started) / 1000 });
  }
  await waitWord(); // memory measured
  await Promise.all(sessions.map(({ client }) => client.close()));
  say({ step: "closed" });
}
process.exit(0);
