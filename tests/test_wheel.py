"""The package as pipx, uv tool and uvx install it: sdist and wheel built from this checkout, the wheel installed into
a fresh virtual environment, and its commands run from there with nothing of the checkout on their path."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from procs import TestEnv, isolated, make_env, processes_of, wait_for

from design_console.daemon.plugin_sync import PLUGIN_FILES, TOKEN_PLACEHOLDER
from design_console.runtime.dirs import InstanceLock

pytestmark = [pytest.mark.slow, pytest.mark.packaging]

ROOT = Path(__file__).resolve().parents[1]
SERVICE_FILES = sorted(p.name for p in (ROOT / "systemd").iterdir())
BUILD_TIMEOUT = 300
WAIT = 30.0


class Dist:
    """The built sdist and wheel, and the bin folder of a fresh venv the wheel is installed in."""

    def __init__(self, sdist: Path, wheel: Path, bin_dir: Path) -> None:
        self.sdist = sdist
        self.wheel = wheel
        self.bin = bin_dir


def _run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{cmd} failed:\n{done.stdout}\n{done.stderr}"
    return done


#: What a checkout holds beyond its sources: a Python install needs none of it, npm packages included.
NOT_SOURCES = shutil.ignore_patterns("node_modules", ".venv", ".git", "*.egg-info", "__pycache__", "build", "dist")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dist]:
    """Build sdist and wheel (the wheel from the sdist, as ``python -m build`` does) from a copy of the checkout
    without node_modules, as pipx or uv build a clone that never ran npm, and install the wheel alone."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "design-console-mcp"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES, symlinks=True)
    out = root / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], timeout=BUILD_TIMEOUT)
    [sdist] = out.glob("*.tar.gz")
    [wheel] = out.glob("*.whl")
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], timeout=BUILD_TIMEOUT)
    _run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        timeout=BUILD_TIMEOUT,
        cwd=root,
    )
    yield Dist(sdist, wheel, venv / "bin")


def test_sdist_and_wheel_carry_the_plugin_and_service_files(dist: Dist) -> None:
    with tarfile.open(dist.sdist) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        names = set(sdist.getnames())
    for path in [*(f"plugin/{n}" for n in PLUGIN_FILES), *(f"systemd/{n}" for n in SERVICE_FILES), "setup.py"]:
        assert f"{top}/{path}" in names, f"the sdist lacks {path}"
    views = sorted(p.name for p in (ROOT / "design_console" / "tools" / "apps" / "app_ui").iterdir())
    for name in views:
        assert f"{top}/design_console/tools/apps/app_ui/{name}" in names, f"the sdist lacks the MCP App file {name}"
    with zipfile.ZipFile(dist.wheel) as wheel:
        for name in views:
            packaged = wheel.read(f"design_console/tools/apps/app_ui/{name}")
            assert packaged == (ROOT / "design_console" / "tools" / "apps" / "app_ui" / name).read_bytes()
        for folder, names_in in (("plugin", PLUGIN_FILES), ("systemd", SERVICE_FILES)):
            for name in names_in:
                packaged = wheel.read(f"design_console/_bundled/{folder}/{name}")
                assert packaged == (ROOT / folder / name).read_bytes(), f"{folder}/{name} differs from the checkout"
        # axe-core, for design_scan_code_accessibility, with its licence: users of the wheel have no node_modules.
        for name in ("axe.min.js", "LICENSE"):
            vendored = ROOT / "design_console" / "clients" / "axe-core" / name
            assert wheel.read(f"design_console/clients/axe-core/{name}") == vendored.read_bytes()
    assert not any("node_modules" in name for name in names), "the sdist carries npm packages"


@pytest.fixture
def wheel_env() -> Iterator[TestEnv]:
    """An isolated installation for the wheel's commands; fails the test if any of its processes outlives it."""
    yield from isolated(make_env())


def _ctl(dist: Dist, env: TestEnv, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """The wheel's designctl, run from the checkout: its code must still come from the venv, not from here."""
    return subprocess.run(
        [str(dist.bin / "designctl"), *args],
        env={**env.env, **extra},
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=90,
    )


async def test_installed_wheel_starts_designd_syncs_the_plugin_and_serves(dist: Dist, wheel_env: TestEnv) -> None:
    config = wheel_env.config
    shim = StdioServerParameters(command=str(dist.bin / "design-console-mcp"), env=dict(wheel_env.env), cwd=str(ROOT))
    try:
        # The shim starts designd on demand, as an AI app's first session does.
        async with Client(shim, mode="legacy") as client:
            tools = await asyncio.wait_for(client.list_tools(), WAIT)
            # The wheel's own copy of axe-core runs: this installation has no node_modules to fall back on.
            scan = await asyncio.wait_for(
                client.call_tool("design_scan_code_accessibility", {"html": '<img src="a.png">'}), WAIT
            )
        assert any(tool.name == "design_get_status" for tool in tools.tools)
        assert scan.is_error is False and '"image-alt"' in scan.content[0].text, scan.content[0].text

        status = json.loads(_ctl(dist, wheel_env, "status", "--json").stdout)
        assert status["pid"] == InstanceLock(config.lock_file).holder()["pid"]
        assert status["port"] in config.ports
        token = wheel_env.token
        for name in PLUGIN_FILES:
            assert (config.plugin_dir / name).is_file(), f"designd did not copy {name}"
        ui = (config.plugin_dir / "ui.html").read_text()
        assert token in ui and TOKEN_PLACEHOLDER not in ui and "__DESIGN_" not in ui

        doctor = _ctl(dist, wheel_env, "doctor", "--json")
        checks = json.loads(doctor.stdout)
        assert doctor.returncode == 0, checks
        assert any(c["check"].startswith("plugin copy up to date") for c in checks if c["status"] == "ok"), checks

        service = _ctl(dist, wheel_env, "service", "install", XDG_CONFIG_HOME=str(wheel_env.root / "config"), PATH="")
        assert service.returncode == 0, service.stderr
        unit = (wheel_env.root / "config" / "systemd" / "user" / "designd.service").read_text()
        assert str(dist.bin / "designd") in unit
    finally:
        _ctl(dist, wheel_env, "stop")
    wait_for(lambda: not processes_of(wheel_env), WAIT, "every process of the wheel's installation to exit")
