// Bundles plugin/src/code/*.js into the shipped plugin/code.js. Run: node plugin/build.mjs [--check]
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
export const OUTPUT = join(here, "code.js");

/** Returns the bundle text that plugin/code.js must contain. */
export async function bundle() {
  const result = await build({
    entryPoints: [join(here, "src", "code", "main.js")],
    bundle: true,
    write: false,
    format: "iife",
    // The plugin sandbox has lagged behind browsers; ES2017 keeps async/await and avoids newer syntax.
    target: "es2017",
    charset: "utf8",
    legalComments: "none",
    banner: { js: "// Design Desktop Bridge: plugin sandbox code. Generated from plugin/src/code by plugin/build.mjs; do not edit." },
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await bundle();
  if (process.argv.includes("--check")) {
    if (readFileSync(OUTPUT, "utf8") !== text) {
      console.error("plugin/code.js is stale: run `node plugin/build.mjs` and commit the result.");
      process.exit(1);
    }
  } else {
    writeFileSync(OUTPUT, text);
  }
}
