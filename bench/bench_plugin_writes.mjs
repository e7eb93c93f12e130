// Times the plugin's long writes through the real plugin/code.js in node:vm on the stand-in editor: what our own
// code costs per call (checks, aliases, rollback bookkeeping, progress and its yields), not the design tool's
// work. Run: node bench/bench_plugin_writes.mjs [rounds]
import { loadPlugin } from "../tests/plugin/harness/sandbox.mjs";

const ROUNDS = Number(process.argv[2] || 10);

async function time(label, rounds, setup, run) {
  const samples = [];
  for (let i = 0; i < rounds; i++) {
    const state = await setup(i);
    const started = process.hrtime.bigint();
    const reply = await run(state, i);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (reply.error !== undefined) throw new Error(label + ": " + reply.error);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  console.log(
    label.padEnd(48) + "median " + samples[samples.length >> 1].toFixed(1).padStart(7) + " ms   mean " + mean.toFixed(1).padStart(7) +
      " ms   min " + samples[0].toFixed(1).padStart(7) + " ms   max " + samples[samples.length - 1].toFixed(1).padStart(7) + " ms",
  );
}

const plugin = loadPlugin();

await time(
  "BATCH_CREATE_VARIABLES, 100 variables x 3 modes",
  ROUNDS,
  async (i) => (await plugin.ok("CREATE_VARIABLE_COLLECTION", { name: "Batch " + i, initialModeName: "Light", additionalModes: ["Dark", "HC"] })).collection,
  (col) =>
    plugin.call("BATCH_CREATE_VARIABLES", {
      collectionId: col.id,
      variables: Array.from({ length: 100 }, (_, j) => ({
        name: "color/c" + j,
        resolvedType: "COLOR",
        valuesByMode: j > 0 && j % 4 === 0 ? { Light: "{color.c" + (j - 1) + "}", Dark: "#223344", HC: "#000000" } : { Light: "#1E88E5", Dark: "rgb(144, 202, 249)", HC: "#000" },
      })),
    }),
);

await time(
  "SETUP_DESIGN_TOKENS, 300 tokens x 3 modes",
  ROUNDS,
  async () => undefined,
  (_, i) =>
    plugin.call("SETUP_DESIGN_TOKENS", {
      collectionName: "Theme " + i,
      modes: ["Light", "Dark", "HC"],
      tokens: Array.from({ length: 300 }, (_, j) =>
        j < 100
          ? { name: "color/base/" + j, resolvedType: "COLOR", values: { Light: "#FFFFFF", Dark: "#111111", HC: "#000000" } }
          : j < 200
            ? { name: "color/semantic/" + j, resolvedType: "COLOR", values: { Light: "{color.base." + (j - 100) + "}", Dark: "{color.base." + (199 - j) + "}", HC: "#FFFF00" } }
            : { name: "space/" + j, resolvedType: "FLOAT", description: "Spacing step", values: { Light: j, Dark: j, HC: j * 2 } },
      ),
    }),
);

await time(
  "ARRANGE_COMPONENT_SET, 64 variants",
  ROUNDS,
  async () => {
    const base = (await plugin.ok("EXECUTE_CODE", { code: "const c = figma.createComponent(); c.name = 'Tile'; c.resize(80, 40); return c.id" })).result;
    const set = await plugin.ok("CREATE_COMPONENT_SET", { baseComponentId: base, properties: { Size: ["XS", "S", "M", "L"], Tone: ["a", "b", "c", "d"], State: ["Default", "Hover", "Pressed", "Disabled"] } });
    return set.componentSet.id;
  },
  (id) => plugin.call("ARRANGE_COMPONENT_SET", { componentSetId: id, options: { gap: 16, cellPadding: 24 } }),
);

// The harness keeps a 40 s reply timer per call; do not wait for them.
process.exit(0);
