// The CSS Tailwind v4 (the project's @tailwindcss/node) builds for {classes, theme} given as JSON on stdin: what a
// user's build makes of the classes our React code uses, with the user's theme (CSS such as our Tailwind v4 token
// export). Prints the stylesheet.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const require = createRequire(path.join(ROOT, "package.json"));
const { compile } = await import(require.resolve("@tailwindcss/node"));

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { classes, theme } = JSON.parse(input);
const compiler = await compile(`@import "tailwindcss/theme";\n@import "tailwindcss/utilities";\n${theme}`, {
  base: ROOT,
  onDependency: () => {},
});
process.stdout.write(compiler.build(classes));
