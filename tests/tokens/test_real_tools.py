"""Real tools read our exports: Style Dictionary builds the DTCG (legacy and 2025) and SD v3 files, sd-transforms
reads the Tokens Studio file, sass and lessc compile the SCSS and LESS (every variable used, so every alias must
resolve), TypeScript type-checks the module in strict mode and Tailwind v4 compiles the ``@theme`` stylesheet.
Driven by ``real_tools.mjs``; one shared export of a 100-token, 3-mode set."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from design_console import tokens
from design_console.tokens import ExportOptions
from tokens.gen import token_set

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("real_tools.mjs")
PACKAGES = {
    "style-dictionary-dtcg": "style-dictionary",
    "style-dictionary-dtcg-2025": "style-dictionary",
    "style-dictionary-v3": "style-dictionary",
    "sd-transforms": "@tokens-studio/sd-transforms",
    "sass": "sass",
    "less": "less",
    "typescript": "typescript",
    "tailwind-v4": "@tailwindcss/node",
}


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("token-exports")
    ts = token_set(100)
    for fmt in tokens.FORMATS:
        for name, text in tokens.export(ts, fmt, ExportOptions(base_name=fmt)).items():
            (out / name).write_text(text)
    for name, text in tokens.export(ts, "dtcg", ExportOptions(base_name="dtcg-2025", dtcg_dialect="2025")).items():
        (out / name).write_text(text)
    return out


@pytest.mark.parametrize("tool", list(PACKAGES))
def test_real_tool_reads_our_export(exports: Path, tool: str) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the real token tools run in node")
    assert (ROOT / "node_modules" / PACKAGES[tool]).is_dir(), "npm packages are missing: run `npm ci` in the repo root"
    run = subprocess.run(
        [node, str(SCRIPT), tool, str(exports)], capture_output=True, text=True, timeout=120, cwd=exports
    )
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    if "vars" in summary:
        # Every token became a CSS variable (Tokens Studio: one theme, the two collections' first modes).
        assert summary["vars"] == 100
