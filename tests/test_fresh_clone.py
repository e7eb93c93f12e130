"""The README's test command on a bare clone: the committed HEAD, cloned into an empty folder with nothing beside it.

Only fast suites run there (the plugin contract and the plugin's method tables, which read the protocol document; the
registry metadata and the README's configs), with this checkout's interpreter and npm packages: what is checked is
that the repository carries everything its tests read, not the install steps, which CI runs on its own clone. The
static plugin suite is left out: with the npm packages linked in rather than installed, esbuild names their real
folder in the bundle and its freshness check cannot hold.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Suites that read files beyond the Python package: the protocol document, the plugin sources, npm packages.
FAST_SUITES = [
    "tests/test_plugin_contract.py",
    "tests/test_bundles.py::test_server_json_has_the_registrys_fields_and_this_projects_facts",
    "tests/test_client_configs.py::test_the_readmes_configs_are_what_designctl_config_prints",
    "tests/plugin/test_plugin_node.py::test_node_suite[code-methods.test.mjs]",
    "tests/plugin/test_plugin_node.py::test_node_suite[code-writes.test.mjs]",
]


def _git(*args: str, cwd: Path) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=True)
    return proc.stdout.strip()


@pytest.mark.slow
@pytest.mark.packaging
def test_the_fast_suites_pass_on_a_clone_with_no_folder_beside_it(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    # The clone's parent holds the clone alone, so a test reading ../anything finds nothing.
    parent = tmp_path / "alone"
    clone = parent / "design-console-mcp"
    clone.mkdir(parents=True)
    _git("init", "--quiet", cwd=clone)
    _git("fetch", "--quiet", str(ROOT), "HEAD", cwd=clone)
    _git("checkout", "--quiet", "--detach", "FETCH_HEAD", cwd=clone)
    assert _git("rev-parse", "HEAD", cwd=clone) == _git("rev-parse", "HEAD", cwd=ROOT)
    assert sorted(p.name for p in parent.iterdir()) == ["design-console-mcp"]
    # npm packages are not in the repository: the clone borrows this checkout's, as `npm ci` would lay them out.
    (clone / "node_modules").symlink_to((ROOT / "node_modules").resolve(), target_is_directory=True)

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DESIGN_"))}
    env["PYTHONPATH"] = str(clone)
    env["HOME"] = str(tmp_path / "home")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout=300", *FAST_SUITES],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-5000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout, proc.stdout[-2000:]
    # The suites ran against the clone's package, not this checkout's editable install.
    where = subprocess.run(
        [sys.executable, "-c", "import design_console; print(design_console.__file__)"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(clone), where.stdout
