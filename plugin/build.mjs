// Generates the shipped plugin files from plugin/src: code.js (the sandbox code, bundled from src/code) and ui.html
// (src/ui/ui.template.html with src/ui/main.js bundled inline, as the plugin UI must be one file).
// Run: node plugin/build.mjs [--check]
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const UI_TEMPLATE = join(here, "src", "ui", "ui.template.html");
const UI_SCRIPT_TAG = '<script src="main.js"></script>';
const DOCTYPE = "<!doctype html>\n";

/** @param {string} entry @param {string} banner */
async function bundleScript(entry, banner) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "iife",
    // The plugin sandbox has lagged behind browsers; ES2017 keeps async/await and avoids newer syntax.
    target: "es2017",
    charset: "utf8",
    legalComments: "none",
    banner: { js: banner },
  });
  return result.outputFiles[0].text;
}

/** Returns the bundle text that plugin/code.js must contain. */
export async function bundle() {
  return bundleScript(
    join(here, "src", "code", "main.js"),
    "// Design Desktop Bridge: plugin sandbox code. Generated from plugin/src/code by plugin/build.mjs; do not edit.",
  );
}

/** Returns the text that plugin/ui.html must contain: the template with the UI script inlined. */
export async function renderUi() {
  const template = readFileSync(UI_TEMPLATE, "utf8");
  if (!template.startsWith(DOCTYPE) || template.split(UI_SCRIPT_TAG).length !== 2) {
    throw new Error(UI_TEMPLATE + " must start with " + JSON.stringify(DOCTYPE) + " and hold " + UI_SCRIPT_TAG + " once");
  }
  const script = await bundleScript(
    join(here, "src", "ui", "main.js"),
    "// Design Desktop Bridge: plugin UI. Generated from plugin/src/ui by plugin/build.mjs; do not edit.",
  );
  // Inline, "</script" would end the element early; and the placeholders designd replaces (__DESIGN_…__) and the
  // port range it rewrites must occur only in the template's #bridge-config, never in the script.
  for (const [pattern, why] of [
    [/<\/script/i, "would end the inline script"],
    [/__DESIGN_/, "would be replaced by designd"],
    [/"firstPort"/, "would be rewritten by designd"],
  ]) {
    if (pattern.test(script)) throw new Error("the UI bundle contains " + pattern + ", which " + why);
  }
  const banner = "<!-- Design Desktop Bridge: plugin UI. Generated from plugin/src/ui by plugin/build.mjs; do not edit. -->\n";
  return DOCTYPE + banner + template.slice(DOCTYPE.length).replace(UI_SCRIPT_TAG, () => "<script>\n" + script + "</script>");
}

/** Every generated file: its path and the text it must hold. */
export async function outputs() {
  const [code, ui] = await Promise.all([bundle(), renderUi()]);
  return [
    { path: join(here, "code.js"), name: "plugin/code.js", text: code },
    { path: join(here, "ui.html"), name: "plugin/ui.html", text: ui },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const file of await outputs()) {
    if (!check) {
      writeFileSync(file.path, file.text);
    } else if (readFileSync(file.path, "utf8") !== file.text) {
      console.error(file.name + " is stale: run `node plugin/build.mjs` and commit the result.");
      stale += 1;
    }
  }
  if (stale) process.exit(1);
}
