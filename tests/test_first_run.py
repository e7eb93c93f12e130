"""A newcomer's first run: ``bash scripts/serve`` in a copy of the repository that never ran npm shows progress while
it installs, then the next steps with this copy's own paths, then runs designd, whose accessibility scan works
without Node."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from procs import TestEnv, isolated, make_env, processes_of, wait_for

from design_console.runtime.client_configs import TOKEN_SCOPES

pytestmark = [pytest.mark.slow, pytest.mark.packaging]

ROOT = Path(__file__).resolve().parents[1]
NOT_SOURCES = shutil.ignore_patterns("node_modules", ".venv", ".git", "*.egg-info", "__pycache__", "build", "dist")
#: Installing every dependency into a fresh venv, on a loaded 2-core machine.
INSTALL_WAIT = 900.0
START_WAIT = 60.0


@pytest.fixture
def env() -> Iterator[TestEnv]:
    yield from isolated(make_env())


def test_serve_shows_progress_then_the_next_steps_and_runs_designd(env: TestEnv, tmp_path: Path) -> None:
    clone = tmp_path / "design-console-mcp"
    shutil.copytree(ROOT, clone, ignore=NOT_SOURCES, symlinks=True)
    base_python = Path(getattr(sys, "_base_executable", sys.executable))
    run_env = {**env.env, "PYTHON": str(base_python), "PYTHONUNBUFFERED": "1"}
    serve = subprocess.Popen(
        ["bash", "scripts/serve"],
        cwd=clone,
        env=run_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    started = threading.Event()

    def read() -> None:
        assert serve.stdout is not None
        for line in serve.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("==> Starting designd"):
                started.set()
        started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    ctl = clone / ".venv" / "bin" / "designctl"
    try:
        assert started.wait(INSTALL_WAIT), "\n".join(lines[-50:])
        assert serve.poll() is None, "\n".join(lines[-80:])
        wait_for(
            lambda: subprocess.run([ctl, "status"], env=run_env, capture_output=True, timeout=30).returncode == 0,
            START_WAIT,
            "designd of scripts/serve to answer",
        )
        scan = subprocess.run(
            [ctl, "call", "design_scan_code_accessibility", 'html="<img src=a.png>"'],
            env=run_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(60)
        reader.join(10)
    wait_for(lambda: not processes_of(env), START_WAIT, "scripts/serve's designd to stop")

    text = "\n".join(lines)
    # Progress while installing: what pip fetches and installs, as it goes.
    assert "==> Installing design-console-mcp and its dependencies into .venv" in text
    assert any(line.startswith("    Collecting ") for line in lines), text[:3000]
    assert any(line.startswith("    Successfully installed ") for line in lines), text[:3000]
    # Then the next steps, with this copy's commands and this user's plugin copy.
    steps = text[text.index("Next steps:") : text.index("==> Starting designd")]
    assert str(Path(env.env["HOME"]) / ".design-console-mcp" / "plugin" / "manifest.json") in steps
    assert f'"command": "{clone / ".venv" / "bin" / "design-console-mcp"}"' in steps
    assert f"{ctl} config claude-code" in steps and f"{ctl} doctor" in steps
    assert all(scope in steps for scope in TOKEN_SCOPES)
    # axe-core ships in the package: the scan works in a copy that never ran npm (given a browser to run it in).
    if shutil.which("chromium"):
        assert scan.returncode == 0 and "image-alt" in scan.stdout, scan.stdout + scan.stderr
