// Runs one real tool on our exports and fails (exit 1, message on stderr) on any error or warning.
// Usage: node real_tools.mjs <tool> <dir-with-exports>; prints a short JSON summary on success.
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(path.join(ROOT, "package.json"));
const [tool, dir] = process.argv.slice(2);
const read = (name) => readFile(path.join(dir, name), "utf8");

// Style Dictionary's css/variables output of one of our files; its warnings are errors.
async function styleDictionary(source) {
  const { default: StyleDictionary } = await import(require.resolve("style-dictionary"));
  const sd = new StyleDictionary({
    source: [path.join(dir, source)],
    log: { warnings: "error", verbosity: "verbose" },
    platforms: { css: { transformGroup: "css", buildPath: path.join(dir, "sd-out", path.sep), files: [{ destination: `${source}.css`, format: "css/variables" }] } },
  });
  const [out] = await sd.formatPlatform("css");
  return out.output;
}

// The stylesheet with a rule that uses every variable it declares, so that each one (and every alias chain) must
// evaluate.
function probe(text, sigil) {
  const names = [...text.matchAll(new RegExp(`^\\${sigil}([\\w-]+)\\s*:`, "gm"))].map((m) => m[1]);
  const uses = names.map((name, i) => `  p${i}: ${sigil}${name};`).join("\n");
  return `${text}\n.probe {\n${uses}\n}\n`;
}

const checks = {
  async "style-dictionary-dtcg"() {
    const css = await styleDictionary("dtcg.json");
    return { bytes: css.length, vars: (css.match(/--[\w-]+:/g) || []).length };
  },
  async "style-dictionary-dtcg-2025"() {
    const css = await styleDictionary("dtcg-2025.json");
    return { bytes: css.length, vars: (css.match(/--[\w-]+:/g) || []).length };
  },
  async "style-dictionary-v3"() {
    const css = await styleDictionary("style-dictionary-v3.json");
    return { bytes: css.length, vars: (css.match(/--[\w-]+:/g) || []).length };
  },
  async "sd-transforms"() {
    const { default: StyleDictionary } = await import(require.resolve("style-dictionary"));
    const { register } = await import(require.resolve("@tokens-studio/sd-transforms"));
    register(StyleDictionary);
    const data = JSON.parse(await read("tokens-studio.json"));
    // A Tokens Studio theme names the sets it uses; build the first one (the first collection's default mode
    // with the other collections' default sets as sources).
    const theme = data.$themes[0];
    const tokens = {};
    for (const [set, state] of Object.entries(theme.selectedTokenSets)) if (state !== "disabled") Object.assign(tokens, data[set]);
    const sd = new StyleDictionary({
      tokens,
      preprocessors: ["tokens-studio"],
      log: { warnings: "error", verbosity: "verbose" },
      platforms: { css: { transformGroup: "tokens-studio", transforms: ["name/kebab"], files: [{ destination: "ts.css", format: "css/variables" }] } },
    });
    const [out] = await sd.formatPlatform("css");
    return { bytes: out.output.length, vars: (out.output.match(/--[\w-]+:/g) || []).length };
  },
  async sass() {
    const sass = require("sass");
    const warnings = [];
    const result = sass.compileString(probe(await read("scss.scss"), "$"), { logger: { warn: (m) => warnings.push(m), debug: () => {} } });
    if (warnings.length) throw new Error(warnings.join("\n"));
    return { bytes: result.css.length };
  },
  async less() {
    const less = require("less");
    const result = await less.render(probe(await read("less.less"), "@"));
    return { bytes: result.css.length };
  },
  async typescript() {
    const ts = require("typescript");
    const file = path.join(dir, "ts-module.ts");
    const use = path.join(dir, "use.ts");
    await writeFile(use, 'import { tokens, type Tokens } from "./ts-module";\nconst t: Tokens = tokens;\nexport const first: string = Object.keys(t)[0];\n');
    const program = ts.createProgram([file, use], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler });
    const diags = ts.getPreEmitDiagnostics(program);
    if (diags.length) throw new Error(diags.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n"));
    return { files: 2 };
  },
  async "tailwind-v4"() {
    const { compile } = await import(require.resolve("@tailwindcss/node"));
    const css = await read("tailwind-v4.css");
    const compiler = await compile(css, { base: ROOT, onDependency: () => {} });
    // Ask for utilities of the first colour and spacing tokens, to see that the theme feeds Tailwind.
    const color = (css.match(/--color-([\w-]+):/) || [])[1];
    const out = compiler.build([`bg-${color}`, "p-4"]);
    if (!out.includes(`--color-${color}`)) throw new Error(`no bg-${color} utility in the build`);
    return { bytes: out.length };
  },
};

try {
  const result = await checks[tool]();
  process.stdout.write(JSON.stringify(result) + "\n");
} catch (err) {
  process.stderr.write(`${tool}: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
}
