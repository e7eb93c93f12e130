"""Application codebases the design-system extraction is tried on: real packages installed in node_modules (an
shadcn app, Bootstrap's SCSS, Tailwind's themes, the create-vue template) and a fresh Storybook setup."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / "node_modules"
SHADCN_APP = (
    MODULES
    / "@salesforce/webapp-template-feature-react-shadcn-experimental/dist/force-app/main/default/webapplications"
    / "feature-react-shadcn"
)
BOOTSTRAP_SCSS = MODULES / "bootstrap" / "scss"
TAILWIND_THEME = MODULES / "tailwindcss" / "theme.css"
VUE_TEMPLATE = MODULES / "create-vue" / "template"
TAILWIND_V3_CONFIG = MODULES / "tailwindcss-v3" / "stubs" / "config.full.js"

#: The .storybook/main.ts and preview.tsx that `npx create-storybook` (Storybook 10.6.2) wrote for a React + Vite app:
#: running it in the test would take minutes and fetch browsers, so its output is kept here as it came.
FRESH_MAIN = """import type { StorybookConfig } from '@storybook/react-vite';

const config: StorybookConfig = {
  "stories": [
    "../stories/**/*.mdx",
    "../stories/**/*.stories.@(js|jsx|mjs|ts|tsx)"
  ],
  "addons": [
    "@chromatic-com/storybook",
    "@storybook/addon-vitest",
    "@storybook/addon-a11y",
    "@storybook/addon-docs",
    "@storybook/addon-mcp"
  ],
  "framework": "@storybook/react-vite"
};
export default config;"""
FRESH_PREVIEW = """import type { Preview } from '@storybook/react-vite'

const preview: Preview = {
  parameters: {
    controls: {
      matchers: {
       color: /(background|color)$/i,
       date: /Date$/i,
      },
    },
  },
};

export default preview;"""
