// Lints the plugin sandbox code with Figma's plugin rules (they flag sync APIs that throw under dynamic-page), and the
// plugin UI, which runs in the design tool's browser iframe, with the browser's globals instead of the sandbox's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import * as figmaPlugin from "@figma/eslint-plugin-figma-plugins";

export default [
  js.configs.recommended,
  {
    files: ["src/code/**/*.js", "src/shared/**/*.js", "code.js"],
    languageOptions: {
      ecmaVersion: 2017,
      sourceType: "module",
      parser: tseslint.parser,
      parserOptions: { project: "./tsconfig.eslint.json", tsconfigRootDir: import.meta.dirname },
      globals: { figma: "readonly", __html__: "readonly", console: "readonly", setTimeout: "readonly", clearTimeout: "readonly" },
    },
    plugins: { "@figma/figma-plugins": figmaPlugin },
    rules: Object.assign({}, figmaPlugin.flatConfigs.recommended.rules, {
      // Advice rules (warnings) about loadAllPagesAsync: events.js and GET_LOCAL_COMPONENTS await it before use.
      "@figma/figma-plugins/dynamic-page-documentchange-event-advice": "off",
      "@figma/figma-plugins/dynamic-page-find-method-advice": "off",
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    }),
  },
  { files: ["code.js"], languageOptions: { sourceType: "script" } },
  {
    files: ["src/ui/**/*.js"],
    languageOptions: {
      ecmaVersion: 2017,
      sourceType: "module",
      globals: {
        window: "readonly",
        document: "readonly",
        WebSocket: "readonly",
        XMLHttpRequest: "readonly",
        console: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
    rules: { "no-unused-vars": ["error", { caughtErrors: "none" }] },
  },
];
