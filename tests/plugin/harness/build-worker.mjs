// Bundles worker-entry.mjs (stand-in editor + message relay) for the browser; writes it to the path given.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

await build({
  entryPoints: [fileURLToPath(new URL("./worker-entry.mjs", import.meta.url))],
  bundle: true,
  format: "iife",
  platform: "browser",
  // figma-api-stub writes to Node's `global`.
  define: { global: "globalThis" },
  outfile: process.argv[2],
  logLevel: "error",
});
