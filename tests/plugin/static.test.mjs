// Checks on the shipped plugin files that need no editor: freshness of the generated files, lint, manifest, ui.html.
// The type checks are in types.test.mjs, a process of their own (tsc is the slowest of these checks).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { outputs } from "../../plugin/build.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PLUGIN = ROOT + "plugin/";
const read = (p) => readFileSync(ROOT + p, "utf8");

function run(bin, args) {
  try {
    return { code: 0, out: execFileSync(ROOT + "node_modules/.bin/" + bin, args, { cwd: PLUGIN, encoding: "utf8", stdio: "pipe" }) };
  } catch (err) {
    return { code: err.status, out: String(err.stdout) + String(err.stderr) };
  }
}

test("plugin/code.js and plugin/ui.html are what plugin/build.mjs generates from plugin/src", async () => {
  const files = await outputs();
  assert.deepEqual(files.map((f) => f.name), ["plugin/code.js", "plugin/ui.html"]);
  for (const file of files) {
    assert.ok(file.text === read(file.name), file.name + " is stale: run `node plugin/build.mjs` and commit it");
  }
});

test("ESLint passes on code.js and all plugin sources (Figma's rules on the sandbox code)", () => {
  const r = run("eslint", ["--max-warnings", "0", "code.js", "src"]);
  assert.equal(r.code, 0, r.out);
});

test("the lint catches a sync API that throws under dynamic-page", (t) => {
  // A scratch copy of the lint setup with one offending file, under node_modules so the packages resolve.
  const dir = mkdtempSync(ROOT + "node_modules/.plugin-lint-probe-");
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(dir + "/src/code", { recursive: true });
  writeFileSync(dir + "/eslint.config.mjs", read("plugin/eslint.config.mjs"));
  writeFileSync(dir + "/tsconfig.eslint.json", JSON.stringify({
    compilerOptions: { allowJs: true, checkJs: true, noEmit: true, lib: ["es2020"], typeRoots: [ROOT + "node_modules/@figma"], types: ["plugin-typings"] },
    include: ["src/code/**/*.js"],
  }));
  writeFileSync(dir + "/src/code/probe.js", "export function f(id) { return figma.getNodeById(id); }\n");
  let out = "";
  try {
    execFileSync(ROOT + "node_modules/.bin/eslint", ["src/code/probe.js"], { cwd: dir, encoding: "utf8", stdio: "pipe" });
  } catch (err) {
    out = String(err.stdout);
  }
  assert.match(out, /ban-deprecated-sync-methods/);
});

test("the plugin version equals design_console.PLUGIN_VERSION", () => {
  const py = read("design_console/__init__.py").match(/^PLUGIN_VERSION = "([^"]+)"/m);
  const js = read("plugin/src/code/version.js").match(/PLUGIN_VERSION = "([^"]+)"/);
  assert.ok(py && js);
  assert.equal(js[1], py[1]);
  assert.ok(read("plugin/code.js").includes('PLUGIN_VERSION = "' + py[1] + '"'));
});

test("manifest.json declares what the plugin needs and nothing more", () => {
  const m = JSON.parse(read("plugin/manifest.json"));
  assert.match(m.name, /design/i);
  assert.equal(m.api, "1.0.0");
  assert.equal(m.main, "code.js");
  assert.equal(m.ui, "ui.html");
  assert.deepEqual([...m.editorType].sort(), ["dev", "figjam", "figma", "slides"]);
  assert.equal(m.documentAccess, "dynamic-page");
  assert.equal(m.enablePrivatePluginApi, true);
  assert.deepEqual(m.permissions, ["teamlibrary"]);
  const expected = [];
  for (let port = 9223; port <= 9232; port++) expected.push("http://localhost:" + port, "ws://localhost:" + port);
  expected.push("https://__DESIGN_RELAY_HOST__", "wss://__DESIGN_RELAY_HOST__");
  assert.deepEqual([...m.networkAccess.allowedDomains].sort(), expected.sort());
  assert.equal(typeof m.networkAccess.reasoning, "string");
});

test("ui.html is self-contained, small, and carries the placeholders designd fills in", () => {
  const html = read("plugin/ui.html");
  assert.ok(Buffer.byteLength(html) <= 60 * 1024, "ui.html is " + Buffer.byteLength(html) + " bytes");
  assert.doesNotMatch(html, /<(script|link|img|iframe)[^>]+(src|href)=/i);
  assert.doesNotMatch(html, /@import|url\(/);
  assert.equal(html.split("__DESIGN_BRIDGE_TOKEN__").length, 2, "the token placeholder appears exactly once");
  assert.equal(html.split("__DESIGN_RELAY_URL__").length, 2, "the relay placeholder appears exactly once");
});
