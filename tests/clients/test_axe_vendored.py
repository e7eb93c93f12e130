"""The copy of axe-core shipped in the package is the npm package's file of the version package-lock.json pins."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from design_console.clients.axe import AXE_SCRIPT

ROOT = Path(__file__).resolve().parents[2]
VENDORED = ROOT / "design_console" / "clients" / "axe-core"
INSTALLED = ROOT / "node_modules" / "axe-core"


def _locked_version() -> str:
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    return str(lock["packages"]["node_modules/axe-core"]["version"])


def test_the_package_runs_the_vendored_copy() -> None:
    assert Path(str(AXE_SCRIPT)) == VENDORED / "axe.min.js"
    assert "Mozilla Public License, version 2.0" in (VENDORED / "LICENSE").read_text(encoding="utf-8")


def test_the_vendored_copy_is_the_locked_version() -> None:
    header = (VENDORED / "axe.min.js").read_text(encoding="utf-8")[:200]
    found = re.match(r"/\*! axe v(\S+)", header)
    assert found, header
    assert found.group(1) == _locked_version(), "copy node_modules/axe-core/{axe.min.js,LICENSE} after `npm ci`"


def test_the_vendored_copy_equals_the_npm_package() -> None:
    if not (INSTALLED / "package.json").is_file():
        pytest.skip("npm packages are not installed")
    assert json.loads((INSTALLED / "package.json").read_text(encoding="utf-8"))["version"] == _locked_version()
    for name in ("axe.min.js", "LICENSE"):
        assert (VENDORED / name).read_bytes() == (INSTALLED / name).read_bytes(), f"{name} differs from npm's"
