"""Runs the plugin's Node test suites (node:vm, static checks, jsdom) under pytest, one test per suite file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITES = sorted(p.name for p in (ROOT / "tests" / "plugin").glob("*.test.mjs"))


@pytest.mark.parametrize("suite", SUITES)
def test_node_suite(suite: str) -> None:
    """One `node --test` run; its own report is shown when it fails."""
    node = shutil.which("node")
    assert node, "Node.js 20 is needed for the plugin tests (apt-get install nodejs)"
    packages = ROOT / "node_modules" / "figma-api-stub"
    assert packages.is_dir(), "npm packages are missing: run `npm ci` in the repo root"
    proc = subprocess.run(
        [node, "--test", "--test-reporter=tap", f"tests/plugin/{suite}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-5000:]
