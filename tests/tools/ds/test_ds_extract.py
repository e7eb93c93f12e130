"""The design_ds tools on real open-source front-end code from npm (devDependencies, installed by ``npm ci``):

- a shadcn/ui React app (Vite, Tailwind v4, ``components/ui``, an oklch theme with a dark mode): the template
  ``@salesforce/webapp-template-feature-react-shadcn-experimental``;
- Bootstrap's SCSS sources (``bootstrap/scss``);
- the Vue starter of ``create-vue`` (single-file components, a theme with ``prefers-color-scheme: dark``);
- Tailwind v4's own theme (``tailwindcss/theme.css``);
- Tailwind v3's full default config (``stubs/config.full.js`` of ``tailwindcss@3.4.17``, installed beside v4 under the
  npm alias ``tailwindcss-v3``).

Each is copied into a project folder that is the AI app's working directory and its one root. The expected inventory
and token counts were checked by hand against the sources once (grep for the tags and declarations) and are pinned.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, get_args

import pytest
from fakes.codebases import (
    BOOTSTRAP_SCSS,
    FRESH_MAIN,
    FRESH_PREVIEW,
    ROOT,
    SHADCN_APP,
    TAILWIND_THEME,
    TAILWIND_V3_CONFIG,
    VUE_TEMPLATE,
)
from fakes.context import FakeContext

from design_console.codebase.analyze import path_aliases
from design_console.codebase.component import describe
from design_console.codebase.source import blank, scan_script
from design_console.codebase.tailwind_config import theme_values
from design_console.codebase.walk import walk
from design_console.config import load_config
from design_console.engines.ds_package import OutFormat
from design_console.errors import DesignError, ErrorCode
from design_console.runtime.user_files import FileScope


@pytest.fixture(scope="session")
def tailwind_v3_config() -> str:
    """``stubs/config.full.js`` of Tailwind v3."""
    assert TAILWIND_V3_CONFIG.exists(), "npm packages are missing: run `npm ci` in the repo root"
    return TAILWIND_V3_CONFIG.read_text()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for source in (SHADCN_APP, BOOTSTRAP_SCSS, TAILWIND_THEME, VUE_TEMPLATE):
        assert source.exists(), "npm packages are missing: run `npm ci` in the repo root"
    shutil.copytree(SHADCN_APP, tmp_path / "app")
    shutil.copytree(BOOTSTRAP_SCSS, tmp_path / "bootstrap-scss")
    (tmp_path / "tw").mkdir()
    shutil.copy(TAILWIND_THEME, tmp_path / "tw" / "theme.css")
    shutil.copytree(VUE_TEMPLATE / "code" / "typescript-default", tmp_path / "vue")
    shutil.copytree(VUE_TEMPLATE / "base" / "src", tmp_path / "vue" / "src", dirs_exist_ok=True)
    return tmp_path


@pytest.fixture
def ctx(project: Path) -> FakeContext:
    return FakeContext(load_config({}), file_scope=FileScope(cwd=project, roots=(project,)))


def typescript_syntax_errors(*paths: Path) -> list[str]:
    """What TypeScript's own parser (npm ``typescript``) finds wrong in the syntax of written files."""
    script = (
        "const ts = require('typescript'); const fs = require('fs');"
        "const out = [];"
        "for (const f of process.argv.slice(1)) {"
        "  const r = ts.transpileModule(fs.readFileSync(f, 'utf8'), {fileName: f, reportDiagnostics: true,"
        "    compilerOptions: {jsx: ts.JsxEmit.Preserve}});"
        "  for (const d of r.diagnostics) out.push(f + ': ' + ts.flattenDiagnosticMessageText(d.messageText, ' '));"
        "}"
        "console.log(JSON.stringify(out));"
    )
    done = subprocess.run(
        ["node", "-e", script, *map(str, paths)], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    errors: list[str] = json.loads(done.stdout)
    return errors


async def run(ctx: FakeContext, name: str, args: dict[str, Any]) -> Any:
    out = await ctx.run(name, args)
    assert out.is_error is False
    return json.loads(out.content[0].text)


async def refusal(ctx: FakeContext, name: str, args: dict[str, Any]) -> DesignError:
    with pytest.raises(DesignError) as caught:
        await ctx.run(name, args)
    return caught.value


# The shadcn app ------------------------------------------------------------------------------------------------------


async def test_analysis_of_a_shadcn_app(ctx: FakeContext, project: Path) -> None:
    result = await run(ctx, "design_ds_analyze", {"targets": ["app"], "outDir": "ds"})
    assert result["frameworks"] == ["react", "react-router", "vite"]
    assert set(result["styling"]) >= {"tailwind", "shadcn", "cva", "css"}
    layers = result["vendorLayers"]
    assert layers[0] == {"kind": "shadcn-ui", "path": "src/components/ui", "components": 66}
    assert {"kind": "package", "package": "radix-ui", "importingFiles": 6} in layers
    top = result["components"]["top"]
    # <Link> of react-router: 5 elements in navigationMenu, appLayout and NotFound; <Button>: pagination and dialog.
    assert top[0] == {"name": "Link", "uses": 5, "files": 3, "package": "react-router"}
    assert top[1]["name"] == "Button" and (top[1]["uses"], top[1]["files"]) == (3, 2)
    assert top[1]["defined"] == "src/components/ui/button.tsx:44"
    # Radix's Dialog.Close, imported `as DialogPrimitive`: once after `return`, twice inside other elements.
    assert top[2] == {"name": "DialogPrimitive.Close", "uses": 3, "files": 1, "package": "radix-ui"}
    assert top[3]["name"] == "PaginationLink" and top[3]["uses"] == 2
    # routes.tsx renders `<AppLayout>` imported from "@/appLayout": tsconfig's paths say "@/*" is "./src/*".
    layout = next(c for c in top if c["name"] == "AppLayout")
    assert (layout["uses"], layout["defined"]) == (1, "src/appLayout.tsx:5")
    assert result["architecture"]["roles"]["routes"] == ["src/pages"]
    assert result["architecture"]["monorepo"] is False
    saved = json.loads((project / "ds" / ".extraction" / "analysis.json").read_text())
    assert saved["targets"] == [str(project / "app")] and len(saved["components"]) == result["components"]["total"]


async def test_tokens_of_a_shadcn_theme_with_dark_mode_and_provenance(ctx: FakeContext, project: Path) -> None:
    await run(ctx, "design_ds_analyze", {"targets": ["app"], "outDir": "ds"})
    result = await run(ctx, "design_ds_extract_tokens", {"outDir": "ds", "formats": ["dtcg", "css-vars", "scss"]})
    assert result["byType"] == {"color": 62, "dimension": 2}
    assert result["collections"] == {
        "tailwind": {"tokens": 32, "modes": ["default"]},
        "css": {"tokens": 32, "modes": ["default", "dark"]},
    }
    # --color-destructive-foreground points at --destructive-foreground, which the theme never sets.
    assert result["unresolved"] == {
        "count": 1,
        "first": ["tailwind/color-destructive-foreground → --destructive-foreground"],
    }
    # bg-destructive, text-destructive, ring-destructive… in the components.
    assert result["mostUsed"][0] == {
        "token": "tailwind/color-destructive",
        "frequency": 24,
        "at": "app/src/styles/global.css:35",
    }
    dtcg = json.loads((project / "ds" / "tokens" / "dtcg.json").read_text())
    primary = dtcg["css"]["primary"]
    assert primary["$type"] == "color" and primary["$value"] == "#171717"
    facts = primary["$extensions"]["com.design-console"]
    assert facts["modes"]["dark"] == "#E5E5E5"
    # Referred to once: by `--color-primary: var(--primary)` of the @theme block.
    places = ["app/src/styles/global.css:67", "app/src/styles/global.css:101"]
    assert facts["provenance"] == {"places": places, "frequency": 1}
    assert dtcg["tailwind"]["color-primary"]["$value"] == "{css.primary}"
    css = (project / "ds" / "tokens" / "css-vars.css").read_text()
    assert "--color-primary: var(--primary);" in css and '[data-theme="dark"]' in css
    assert "$radius: 10px;" in (project / "ds" / "tokens" / "scss.scss").read_text()


async def test_a_whole_package_from_extraction_to_verification(ctx: FakeContext, project: Path) -> None:
    ds = project / "ds"
    await run(ctx, "design_ds_analyze", {"targets": ["app"], "outDir": "ds"})
    await run(ctx, "design_ds_extract_tokens", {"outDir": "ds"})
    made = await run(
        ctx,
        "design_ds_scaffold",
        {"outDir": "ds", "packageName": "@acme/ds", "formats": ["dtcg", "css-vars", "tailwind-v4"]},
    )
    assert made["framework"] == "react"
    assert json.loads((ds / "package.json").read_text())["peerDependencies"] == {"react": ">=18"}
    assert sorted(p.name for p in (ds / "docs").iterdir()) == ["Colors.mdx", "Introduction.mdx", "Sizes.mdx"]
    assert 'ColorItem title="css/primary"' in (ds / "docs" / "Colors.mdx").read_text()

    (ds / ".storybook").mkdir()
    (ds / ".storybook" / "main.ts").write_text(FRESH_MAIN)
    (ds / ".storybook" / "preview.tsx").write_text(FRESH_PREVIEW)
    await run(ctx, "design_ds_setup_storybook", {"outDir": "ds"})
    preview = (ds / ".storybook" / "preview.tsx").read_text()
    assert preview.startswith(
        '// design-system tokens\nimport "../tokens/css-vars.css";\nimport "../tokens/fonts.css";\n'
    )
    # The theme's dark mode gets a toolbar switch that sets data-theme, the scope of the CSS export's modes.
    head, _, tail = FRESH_PREVIEW.partition("const preview: Preview = {")
    assert preview.endswith(tail) and head in preview
    assert 'items: ["default", "dark"]' in preview and "dataset.theme = context.globals.theme" in preview
    assert '[data-theme="dark"]' in (ds / "tokens" / "css-vars.css").read_text()
    main = (ds / ".storybook" / "main.ts").read_text()
    assert '"stories": [\n    "../docs/**/*.mdx",\n    "../stories/**/*.mdx",' in main
    again = await run(ctx, "design_ds_setup_storybook", {"outDir": "ds"})
    assert {f["action"] for f in again["files"]} == {"unchanged"}

    manifest = await run(ctx, "design_ds_extract_component", {"outDir": "ds", "component": "button"})
    assert manifest["component"] == "Button" and manifest["source"]["bytes"] == len(
        (project / "app/src/components/ui/button.tsx").read_bytes()
    )
    assert manifest["variants"]["variant"] == ["default", "outline", "secondary", "ghost", "destructive", "link"]
    assert manifest["variants"]["size"][:4] == ["default", "xs", "sm", "lg"]
    assert manifest["defaultVariants"] == {"variant": "default", "size": "default"}
    assert set(manifest["props"]) == {"className", "variant", "size", "asChild"}
    assert manifest["usage"] == {
        "uses": 3,
        "files": 2,
        "in": ["src/components/ui/dialog.tsx", "src/components/ui/pagination.tsx"],
    }
    story = (ds / "src/components/Button/Button.stories.tsx").read_text()
    assert typescript_syntax_errors(ds / ".storybook" / "preview.tsx", ds / ".storybook" / "main.ts") == []
    assert typescript_syntax_errors(ds / "src/components/Button/Button.stories.tsx") == []
    assert story.startswith('import type { Meta, StoryObj } from "@storybook/react-vite";\n')
    assert 'import { Button } from "../../../../app/src/components/ui/button";' in story
    assert 'export const Destructive: Story = { args: { "variant": "destructive" } };' in story

    checked = await run(ctx, "design_ds_verify", {"outDir": "ds"})
    assert checked["ok"] is True, checked
    assert [c["check"] for c in checked["checks"]] == [
        "token-files-parse",
        "references-resolve",
        "dtcg-matches-extraction",
        "docs-present",
        "package-json",
        "manifests-consistent",
    ]

    status = await run(
        ctx, "design_ds_status", {"outDir": "ds", "update": {"component": "Button", "status": "ported", "notes": "ok"}}
    )
    assert status["counts"] == {"ported": 1}
    assert status["components"]["Button"]["storyFile"] == "src/components/Button/Button.stories.tsx"

    # The source moved on and a doc went missing: verify says which, deterministically.
    source = project / "app/src/components/ui/button.tsx"
    source.write_text(source.read_text() + "\n// changed\n")
    (ds / "docs" / "Sizes.mdx").unlink()
    shipped = json.loads((ds / "tokens" / "dtcg.json").read_text())
    shipped["css"]["primary"]["$value"] = "#ff0000"
    del shipped["css"]["ring"]
    (ds / "tokens" / "dtcg.json").write_text(json.dumps(shipped))
    failed = await run(ctx, "design_ds_verify", {"outDir": "ds"})
    assert failed["ok"] is False
    problems = {c["check"]: c.get("problems") for c in failed["checks"]}
    assert problems["docs-present"] == ["docs/Sizes.mdx"]
    assert problems["dtcg-matches-extraction"] == ["missing css/ring", "changed css/primary"]
    # tailwind/color-ring aliases the ring that is gone.
    assert problems["references-resolve"] == ["tokens/dtcg.json: tailwind/color-ring (default) → css/ring"]
    assert problems["manifests-consistent"] == ["Button.json: source changed since extraction"]
    assert failed == await run(ctx, "design_ds_verify", {"outDir": "ds"})


@pytest.mark.parametrize("dialect", ["legacy", "2025"])
async def test_every_format_is_written_and_verified(ctx: FakeContext, project: Path, dialect: str) -> None:
    formats = list(get_args(OutFormat))
    for target in ("app", "bootstrap-scss"):
        out = f"all-{target}"
        made = await run(ctx, "design_ds_extract_tokens", {"targets": [target], "outDir": out, "formats": formats})
        assert len(made["files"]) == len(formats)
        await run(ctx, "design_ds_scaffold", {"outDir": out, "formats": formats, "dtcgDialect": dialect, "force": True})
        checked = await run(ctx, "design_ds_verify", {"outDir": out})
        assert checked["ok"] is True, checked
        assert checked["checks"][0] == {"check": "token-files-parse", "ok": True, "detail": f"{len(formats)} formats"}


async def test_a_package_inside_its_target_is_not_read_back_as_source(ctx: FakeContext, project: Path) -> None:
    args = {"targets": ["app"], "outDir": "app/design-system", "formats": ["css-vars", "tailwind-v4", "scss"]}
    first = await run(ctx, "design_ds_extract_tokens", args)
    await run(ctx, "design_ds_scaffold", {"outDir": "app/design-system"})
    assert (project / "app/design-system/tokens/tailwind-v4.css").is_file()
    again = await run(ctx, "design_ds_extract_tokens", args)
    assert again["tokens"] == first["tokens"] == 64
    assert {f["action"] for f in again["files"]} == {"unchanged"}
    analysed = await run(ctx, "design_ds_analyze", {"targets": ["app"], "outDir": "app/design-system"})
    # 36: sources, stylesheets, package.json, components.json, tsconfig.json and tsconfig.node.json.
    assert analysed["files"] == 36


async def test_names_two_sources_share_get_a_file_per_collection(ctx: FakeContext, project: Path) -> None:
    """shadcn's `--primary` and Bootstrap's `$primary` are one `--primary` in CSS: each collection gets its file."""
    mix = project / "mix"
    args = {"targets": ["app", "bootstrap-scss"], "outDir": "mix", "formats": ["dtcg", "css-vars", "scss"]}
    made = await run(ctx, "design_ds_extract_tokens", args)
    assert sorted(Path(f["path"]).relative_to(mix).as_posix() for f in made["files"]) == [
        "tokens/css-vars/css.css",
        "tokens/css-vars/literals.css",
        "tokens/css-vars/scss.css",
        "tokens/css-vars/tailwind.css",
        "tokens/dtcg.json",
        "tokens/scss/css.scss",
        "tokens/scss/literals.scss",
        "tokens/scss/scss.scss",
        "tokens/scss/tailwind.scss",
    ]
    await run(ctx, "design_ds_scaffold", {"outDir": "mix", "formats": ["dtcg", "css-vars", "scss"]})
    (mix / ".storybook").mkdir()
    (mix / ".storybook" / "main.ts").write_text(FRESH_MAIN)
    (mix / ".storybook" / "preview.tsx").write_text(FRESH_PREVIEW)
    await run(ctx, "design_ds_setup_storybook", {"outDir": "mix"})
    preview = (mix / ".storybook" / "preview.tsx").read_text()
    assert preview.startswith(
        "// design-system tokens\n"
        + "".join(f'import "../tokens/css-vars/{c}.css";\n' for c in ("css", "literals", "scss", "tailwind"))
        + 'import "../tokens/fonts.css";\n'
    )
    checked = await run(ctx, "design_ds_verify", {"outDir": "mix"})
    assert checked["ok"] is True, checked
    assert checked["checks"][0]["detail"] == "3 formats"


async def test_edited_files_are_never_replaced_silently(ctx: FakeContext, project: Path) -> None:
    ds = project / "ds"
    await run(ctx, "design_ds_extract_tokens", {"outDir": "ds", "targets": ["app"]})
    await run(ctx, "design_ds_scaffold", {"outDir": "ds"})
    # What the tools wrote themselves may be written again.
    assert {f["action"] for f in (await run(ctx, "design_ds_scaffold", {"outDir": "ds"}))["files"]} == {"unchanged"}
    (ds / "README.md").write_text("# mine\n")
    err = await refusal(ctx, "design_ds_scaffold", {"outDir": "ds", "packageName": "other"})
    assert err.code == ErrorCode.FILE_EXISTS and "README.md" in err.message and "force" in err.hint
    assert (ds / "README.md").read_text() == "# mine\n"
    assert json.loads((ds / "package.json").read_text())["name"] == "ds"
    await run(ctx, "design_ds_scaffold", {"outDir": "ds", "packageName": "other", "force": True})
    assert (ds / "README.md").read_text().startswith("# other")

    (ds / "tokens" / "css-vars.css").write_text(":root { --mine: 1px; }\n")
    extracted = (ds / ".extraction" / "tokens.json").read_bytes()
    err = await refusal(ctx, "design_ds_extract_tokens", {"outDir": "ds", "targets": ["tw"]})
    assert err.code == ErrorCode.FILE_EXISTS and "tokens/css-vars.css" in err.message
    # The extraction itself did not move on without its files.
    assert (ds / ".extraction" / "tokens.json").read_bytes() == extracted


# A Vue app ---------------------------------------------------------------------------------------------------------


async def test_a_vue_app_with_a_system_dark_theme(ctx: FakeContext, project: Path) -> None:
    analysed = await run(ctx, "design_ds_analyze", {"targets": ["vue"], "outDir": "vds"})
    assert analysed["frameworks"][0] == "vue"
    top = analysed["components"]["top"]
    # Five <WelcomeItem> in TheWelcome.vue; the icons are imported under other names (`DocumentationIcon`).
    assert top[0] == {
        "name": "WelcomeItem",
        "uses": 5,
        "files": 1,
        "defined": "src/components/WelcomeItem.vue:1",
        "path": str(project / "vue/src/components/WelcomeItem.vue"),
    }
    assert {c["name"]: c["uses"] for c in top}["IconDocumentation"] == 1
    tokens = await run(ctx, "design_ds_extract_tokens", {"outDir": "vds"})
    # …and 2rem, written 5 times (App.vue, main.css, WelcomeItem.vue).
    assert tokens["collections"] == {
        "css": {"tokens": 23, "modes": ["default", "dark"]},
        "literals": {"tokens": 1, "modes": ["default"]},
    }
    tree = json.loads((project / "vds" / ".extraction" / "tokens.json").read_text())
    background = tree["css"]["color-background"]
    assert background["$value"] == "{css.vt-c-white}"
    assert background["$extensions"]["com.design-console"]["modes"] == {"dark": "{css.vt-c-black}"}
    # Sizes repeated in the components' <style> blocks, at their lines in the .vue files.
    repeated = await run(ctx, "design_ds_extract_tokens", {"targets": ["vue/src/components"], "minFrequency": 2})
    assert {t["token"]: (t["frequency"], t["at"]) for t in repeated["mostUsed"]} == {
        "literals/size-0-4rem": (2, "vue/src/components/WelcomeItem.vue:40"),
        "literals/size-1-2rem": (2, "vue/src/components/HelloWorld.vue:27"),
        "literals/size-1rem": (2, "vue/src/components/WelcomeItem.vue:24"),
    }
    manifest = await run(ctx, "design_ds_extract_component", {"outDir": "vds", "component": "WelcomeItem"})
    assert manifest["story"]["file"] == "src/components/WelcomeItem/WelcomeItem.stories.ts"
    assert manifest["story"]["text"].startswith(
        'import type { Meta, StoryObj } from "@storybook/vue3";\n'
        'import WelcomeItem from "../../../../vue/src/components/WelcomeItem.vue";\n'
    )


# Bootstrap's SCSS and Tailwind's theme -----------------------------------------------------------------------------


async def test_tokens_of_bootstrap_scss(ctx: FakeContext) -> None:
    result = await run(ctx, "design_ds_extract_tokens", {"targets": ["bootstrap-scss"]})
    assert result["byType"] == {"boolean": 21, "color": 125, "dimension": 162, "number": 77, "string": 107}
    assert result["collections"]["scss"] == {"tokens": 491, "modes": ["default"]}
    # `$h1-font-size: $font-size-base * 2.5`, `tint-color($blue, 80%)`, maps…: need Sass to be known.
    assert result["skippedComputed"] == 422
    # …and what aliases them is left out too: `$input-btn-font-size-sm: $font-size-sm` (which is `… * .875`).
    # 68 name a computed variable (`$mark-bg-dark: $yellow-800`, itself `shade-color(…)`), 14 name one of those.
    assert result["unresolved"]["count"] == 82
    assert "scss/gutters → $spacers" in result["unresolved"]["first"]
    used = {t["token"]: t for t in result["mostUsed"]}
    assert used["scss/blue"] == {"token": "scss/blue", "frequency": 14, "at": "bootstrap-scss/_variables.scss:39"}
    assert used["scss/spacer"]["at"] == "bootstrap-scss/_variables.scss:410"
    assert "files" not in result  # no outDir: nothing written

    await run(ctx, "design_ds_extract_tokens", {"targets": ["bootstrap-scss"], "outDir": "bs", "formats": ["scss"]})
    await run(ctx, "design_ds_scaffold", {"outDir": "bs", "formats": ["dtcg", "scss", "ts-module"]})
    checked = await run(ctx, "design_ds_verify", {"outDir": "bs"})
    assert checked["ok"] is True, checked


async def test_tokens_of_the_tailwind_v4_theme(ctx: FakeContext) -> None:
    result = await run(ctx, "design_ds_extract_tokens", {"targets": ["tw/theme.css"]})
    assert result["byType"] == {"color": 275, "dimension": 54, "number": 19, "string": 51}
    assert result["collections"] == {"tailwind": {"tokens": 399, "modes": ["default"]}}


async def test_tokens_of_a_tailwind_v3_config(ctx: FakeContext, project: Path, tailwind_v3_config: str) -> None:
    (project / "tw3").mkdir()
    (project / "tw3" / "tailwind.config.js").write_text(tailwind_v3_config)
    result = await run(
        ctx, "design_ds_extract_tokens", {"targets": ["tw3"], "outDir": "tw3ds", "formats": ["tailwind-v4"]}
    )
    # Literal groups only: `colors: ({ colors }) => …` and the other functions need the config to run.
    assert result["byType"] == {"dimension": 77, "number": 43, "string": 26}
    by_name = {v.name: v for v in theme_values(tailwind_v3_config)}
    assert (by_name["radius"].value, by_name["radius"].line) == ("0.25rem", 90)
    assert by_name["spacing-0_5"].value == "0.125rem" and by_name["text-xs"].value == "0.75rem"
    assert by_name["font-mono"].value.startswith(
        'ui-monospace, SFMono-Regular, Menlo, Monaco, Consolas, "Liberation Mono"'
    )
    assert "colors" not in {v.name.split("-")[0] for v in by_name.values()}
    theme = (project / "tw3ds" / "tokens" / "tailwind-v4.css").read_text()
    assert "--radius: 4px;" in theme and "--spacing-0-5: 2px;" in theme


async def test_shadcn_v3_channels_and_hsl_references(ctx: FakeContext, project: Path) -> None:
    """The older shadcn theme: bare HSL channels in CSS, ``hsl(var(--x))`` in the Tailwind v3 config."""
    (project / "v3").mkdir()
    (project / "v3" / "globals.css").write_text(
        ":root { --primary: 222.2 47.4% 11.2%; }\n.dark { --primary: 210 40% 98%; }\n"
    )
    (project / "v3" / "tailwind.config.ts").write_text(
        "export default { theme: { extend: { colors: {\n"
        "  primary: { DEFAULT: 'hsl(var(--primary))', foreground: `rgb(var(--missing) / <alpha-value>)` },\n"
        "}, borderRadius: { lg: 'var(--radius)' } } } } satisfies Config;\n"
    )
    result = await run(ctx, "design_ds_extract_tokens", {"targets": ["v3"], "outDir": "v3ds", "formats": ["dtcg"]})
    assert result["collections"] == {
        "css": {"tokens": 1, "modes": ["default", "dark"]},
        "tailwind": {"tokens": 1, "modes": ["default"]},
    }
    assert sorted(result["unresolved"]["first"]) == [
        "tailwind/color-primary-foreground → --missing",
        "tailwind/radius-lg → --radius",
    ]
    tree = json.loads((project / "v3ds" / "tokens" / "dtcg.json").read_text())
    assert tree["css"]["primary"]["$value"] == "#0F172A"
    assert tree["tailwind"]["color-primary"]["$value"] == "{css.primary}"
    assert tree["tailwind"]["color-primary"]["$extensions"]["com.design-console"]["provenance"]["places"] == [
        "v3/tailwind.config.ts:2"
    ]


async def test_repeated_literals_become_tokens_from_min_frequency(ctx: FakeContext, project: Path) -> None:
    styles = project / "plain"
    styles.mkdir()
    rules = "\n".join(f".c{i} {{ color: #336699; padding: 12px; margin: {i + 1}px; }}" for i in range(5))
    (styles / "site.css").write_text(rules + "\n")
    at_five = await run(ctx, "design_ds_extract_tokens", {"targets": ["plain"], "minFrequency": 5})
    assert at_five["collections"] == {"literals": {"tokens": 2, "modes": ["default"]}}
    assert {t["token"]: t["frequency"] for t in at_five["mostUsed"]} == {
        "literals/color-336699": 5,
        "literals/size-12px": 5,
    }
    assert (await run(ctx, "design_ds_extract_tokens", {"targets": ["plain"], "minFrequency": 6}))["tokens"] == 0


async def test_long_scans_report_progress_and_stop_at_max_files(ctx: FakeContext, project: Path) -> None:
    many = project / "many"
    many.mkdir()
    for i in range(1_100):
        (many / f"c{i:04}.css").write_text(f".c{i} {{ color: #102030; }}\n")
    result = await run(ctx, "design_ds_analyze", {"targets": ["many"], "maxFiles": 1_050})
    assert result["files"] == 1_050 and "maxFiles" in result["note"]
    assert ctx.progress_reports == [(500, None, "read 500 files"), (1000, None, "read 1000 files")]
    literals = await run(ctx, "design_ds_extract_tokens", {"targets": ["many"], "minFrequency": 100})
    assert literals["mostUsed"] == [{"token": "literals/color-102030", "frequency": 1_100, "at": "many/c0000.css:1"}]


# Refusals ------------------------------------------------------------------------------------------------------------


async def test_refusals(ctx: FakeContext, project: Path) -> None:
    outside = await refusal(ctx, "design_ds_analyze", {"targets": ["../elsewhere"]})
    assert outside.code == ErrorCode.PATH_NOT_ALLOWED
    assert (await refusal(ctx, "design_ds_analyze", {"targets": ["missing"]})).code == ErrorCode.NOT_FOUND
    assert (await refusal(ctx, "design_ds_analyze", {"targets": []})).code == ErrorCode.BAD_ARGUMENT
    assert (
        await refusal(ctx, "design_ds_analyze", {"targets": ["app"], "maxFiles": 50})
    ).code == ErrorCode.BAD_ARGUMENT
    no_targets = await refusal(ctx, "design_ds_extract_tokens", {"outDir": "ds"})
    assert no_targets.code == ErrorCode.BAD_ARGUMENT and "design_ds_analyze" in no_targets.hint
    bad = await refusal(ctx, "design_ds_extract_tokens", {"targets": ["app"], "formats": ["less"]})
    assert bad.code == ErrorCode.BAD_ARGUMENT
    assert (await refusal(ctx, "design_ds_scaffold", {"outDir": "ds"})).code == ErrorCode.NOT_FOUND
    assert (await refusal(ctx, "design_ds_verify", {"outDir": "ds"})).code == ErrorCode.NOT_FOUND

    await run(ctx, "design_ds_analyze", {"targets": ["app"], "outDir": "ds"})
    await run(ctx, "design_ds_extract_tokens", {"outDir": "ds"})
    no_storybook = await refusal(ctx, "design_ds_setup_storybook", {"outDir": "ds"})
    assert no_storybook.code == ErrorCode.NOT_FOUND and "npm create storybook" in no_storybook.hint
    unknown = await refusal(ctx, "design_ds_extract_component", {"outDir": "ds", "component": "Trigger"})
    assert unknown.code == ErrorCode.NOT_FOUND and "DialogTrigger" in unknown.hint
    wrong = await refusal(
        ctx, "design_ds_status", {"outDir": "ds", "update": {"component": "Nope", "status": "ported"}}
    )
    assert wrong.code == ErrorCode.NOT_FOUND
    bad_status = await refusal(
        ctx, "design_ds_status", {"outDir": "ds", "update": {"component": "Button", "status": "done"}}
    )
    assert bad_status.code == ErrorCode.BAD_ARGUMENT
    long_notes = await refusal(
        ctx, "design_ds_status", {"outDir": "ds", "update": {"component": "Button", "notes": "x" * 3000}}
    )
    assert long_notes.code == ErrorCode.BAD_ARGUMENT
    bad_name = await refusal(ctx, "design_ds_scaffold", {"outDir": "ds", "packageName": "Not A Name"})
    assert bad_name.code == ErrorCode.BAD_ARGUMENT and "@acme/design-system" in bad_name.hint
    (project / "file.txt").write_text("x")
    assert (await refusal(ctx, "design_ds_status", {"outDir": "file.txt"})).code == ErrorCode.BAD_ARGUMENT


# The engine ----------------------------------------------------------------------------------------------------------


def test_walk_skips_dependencies_and_build_output_and_stops_at_max_files(project: Path) -> None:
    (project / "app" / "node_modules" / "x").mkdir(parents=True)
    (project / "app" / "node_modules" / "x" / "index.js").write_text("export const A = 1;\n")
    (project / "app" / "dist").mkdir()
    (project / "app" / "dist" / "bundle.js").write_text("var a;\n")
    seen: list[int] = []
    found = walk([project / "app"], max_files=5000, progress=lambda n, _m: seen.append(n))
    paths = {f.path for f in found.files}
    assert not any(p.startswith(("node_modules/", "dist/")) for p in paths) and not found.truncated
    assert "src/components/ui/button.tsx" in paths and "package.json" in paths
    capped = walk([project / "bootstrap-scss"], max_files=10)
    assert len(capped.files) == 10 and capped.truncated
    only = walk([project / "app"], include=["*.tsx"], exclude=["src/pages/*"], max_files=5000)
    assert all(f.path.endswith(".tsx") and not f.path.startswith("src/pages/") for f in only.files)


def test_the_jsx_scan_tells_elements_from_comparisons_and_type_arguments() -> None:
    code = (
        'import { Card as C, type Props } from "./card";\n'
        "// <Commented />\n"
        'const s = "<Quoted>";\n'
        "const x = a<B && c > d;\n"
        "const [v] = useState<Value>(null);\n"
        "export function Panel() { return cond ? <C.Header /> : (<Item>{n < Max ? <Badge/> : null}</Item>); }\n"
        "const Solo = () => { if (x) return <Alone />; return count<Limit; };\n"
    )
    scan = scan_script(code, ".tsx")
    assert [u.tag for u in scan.usages] == ["C.Header", "Item", "Badge", "Alone"]
    assert [u.line for u in scan.usages] == [6, 6, 6, 7]
    assert scan.imports == {"C": "./card", "Props": "./card"}
    assert [(d.name, d.line) for d in scan.definitions] == [("Panel", 6)]
    assert blank("a /* b */ 'c' / x = /d/g", strings=True) == "a         ' ' / x = / /g"


def test_props_and_variants_of_a_component_typed_with_an_interface() -> None:
    source = (
        "export interface BadgeProps extends HTMLAttributes<HTMLSpanElement> {\n"
        '  tone?: "neutral" | "info" | "danger";\n'
        "  count: number;\n"
        "  // a comment: not a prop\n"
        "  onClose?: (event: MouseEvent) => void;\n"
        "}\n"
        "export function Badge({ tone = 'neutral', count, ...rest }: BadgeProps) { return null; }\n"
    )
    facts = describe(source, "Badge")
    assert facts["props"] == {
        "tone": {"type": '"neutral" | "info" | "danger"', "optional": True, "options": ["neutral", "info", "danger"]},
        "count": {"type": "number", "optional": False},
        "onClose": {"type": "(event: MouseEvent) => void", "optional": True},
    }
    assert facts["variants"] == {"tone": ["neutral", "info", "danger"]}


def test_import_aliases_come_from_tsconfig_paths(project: Path) -> None:
    found = walk([project / "app"], max_files=5000).files
    # The app's tsconfig.json (with /* comments */): "@/*" → "./src/*", "@components/*" → "./src/components/*" …
    assert path_aliases(found) == {
        "@components": "src/components",
        "@styles": "src/styles",
        "@assets": "src/assets",
        "@utils": "src/utils",
        "@api": "src/api",
        "@": "src",
        "~": "src",
    }
