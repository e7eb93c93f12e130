// Type checks of the plugin's sources with tsc: the sandbox code against the plugin typings without the DOM, the UI
// code against the DOM without the plugin API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PLUGIN = ROOT + "plugin/";

/** Runs a tool of node_modules/.bin in ``cwd`` without blocking, so independent checks share the machine's cores. */
async function runAsync(bin, args, cwd = PLUGIN) {
  try {
    const { stdout } = await promisify(execFile)(ROOT + "node_modules/.bin/" + bin, args, { cwd, encoding: "utf8" });
    return { code: 0, out: stdout };
  } catch (err) {
    return { code: err.code, out: String(err.stdout) + String(err.stderr) };
  }
}

test("tsc --checkJs passes on the sandbox sources (plugin typings, no DOM) and the UI sources (DOM)", async () => {
  const projects = ["tsconfig.src.json", "tsconfig.ui.json"];
  const results = await Promise.all(projects.map((project) => runAsync("tsc", ["-p", project])));
  results.forEach((r, i) => assert.equal(r.code, 0, projects[i] + ":\n" + r.out));
});

test("the sandbox code is type-checked without the DOM and the UI without the plugin API", async (t) => {
  const dirs = [];
  t.after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  /** Runs tsc with one of the plugin's projects on a probe file instead of the sources; returns what it reports. */
  const check = async (project, source) => {
    const dir = mkdtempSync(ROOT + "node_modules/.plugin-tsc-probe-");
    dirs.push(dir);
    writeFileSync(dir + "/probe.js", source);
    writeFileSync(dir + "/tsconfig.json", JSON.stringify({ extends: PLUGIN + project, include: ["probe.js"] }));
    const r = await runAsync("tsc", ["-p", dir], dir);
    return r.code === 0 ? "" : r.out;
  };
  const [noDom, sandbox, noFigma, ui] = await Promise.all([
    check("tsconfig.src.json", "export const t = document.title;\n"),
    check("tsconfig.src.json", "export const n = figma.root;\n"),
    check("tsconfig.ui.json", "export const n = figma.root;\n"),
    check("tsconfig.ui.json", "export const t = document.title;\n"),
  ]);
  assert.match(noDom, /Cannot find name 'document'/);
  assert.equal(sandbox, "");
  assert.match(noFigma, /Cannot find name 'figma'/);
  assert.equal(ui, "");
});
