"""``scripts/setup``, which ``scripts/serve`` and ``scripts/test`` start with: what it prints and what it skips."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: An interpreter too old for the project, as ``PYTHON`` may name one: answers ``--version`` and fails the check.
OLD_PYTHON = '#!/bin/sh\n[ "$1" = --version ] && echo "Python 3.9.7" && exit 0\nexit 1\n'


def test_a_too_old_python_is_named_so_that_its_path_pastes_into_a_shell(tmp_path: Path) -> None:
    python = tmp_path / "My Tools" / "old python" / "python3"
    python.parent.mkdir(parents=True)
    python.write_text(OLD_PYTHON)
    python.chmod(0o755)
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup")],
        env={"PATH": "/usr/bin:/bin", "PYTHON": str(python), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    head, _, named = done.stderr.strip().partition("needs Python 3.11 or newer; ")
    assert head == "design-console-mcp " and named.endswith(" is Python 3.9.7."), done.stderr
    assert shlex.split(named.removesuffix(" is Python 3.9.7.")) == [str(python)], done.stderr


#: A stand-in for .venv's pip: it notes each install and leaves the console scripts an install leaves.
FAKE_PIP = """#!/bin/sh
echo "$*" >> "$PIP_LOG"
echo "Successfully installed design-console-mcp-0.1.0"
for name in design-console-mcp designd designctl; do
  printf '#!/bin/sh\\n' > "$(dirname "$0")/$name" && chmod +x "$(dirname "$0")/$name"
done
"""


def _checkout(tmp_path: Path) -> Path:
    """What scripts/setup reads, in a folder of its own, with a .venv whose pip is :data:`FAKE_PIP`."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    for name in ("scripts/setup", "pyproject.toml", "setup.py"):
        (checkout / name).write_bytes((ROOT / name).read_bytes())
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(checkout / ".venv")], check=True, timeout=120)
    pip = checkout / ".venv" / "bin" / "pip"
    pip.write_text(FAKE_PIP)
    pip.chmod(0o755)
    return checkout


#: The programs scripts/setup and :data:`FAKE_PIP` run, and nothing else: without npm, ``--test`` stops right after
#: the Python install, before it would install Node packages or system ones.
TOOLS = ("bash", "sh", "cat", "rm", "mktemp", "tee", "dirname", "chmod")


def _setup(checkout: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run scripts/setup; returns its outcome and every pip install so far."""
    tools = checkout / "tools"
    if not tools.exists():
        tools.mkdir()
        for tool in TOOLS:
            found = shutil.which(tool)
            assert found is not None, tool
            (tools / tool).symlink_to(found)
    log = checkout / "pip.log"
    done = subprocess.run(
        [str(tools / "bash"), "scripts/setup", *args],
        cwd=checkout,
        env={"PATH": str(tools), "PIP_LOG": str(log), "PYTHON": sys.executable, "HOME": str(checkout)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done, log.read_text().splitlines() if log.exists() else []


def test_pip_runs_again_only_when_what_it_reads_changed(tmp_path: Path) -> None:
    checkout = _checkout(tmp_path)
    plain = "install --disable-pip-version-check --progress-bar off -e ."
    done, installs = _setup(checkout)
    assert done.returncode == 0 and installs == [plain], done.stdout + done.stderr
    # Nothing changed: no pip, and the script says why.
    done, installs = _setup(checkout)
    assert done.returncode == 0 and installs == [plain], done.stdout + done.stderr
    assert "==> .venv is up to date" in done.stdout and "==> .venv is ready" in done.stdout
    # The tests' extras were never installed: --test installs them, then finds them there.
    done, installs = _setup(checkout, "--test")
    assert installs == [plain, plain + "[test]"], done.stdout + done.stderr
    assert "The tests need Node.js" in done.stderr, done.stderr
    _, installs = _setup(checkout, "--test")
    assert installs == [plain, plain + "[test]"]
    # What --test installed covers a plain run.
    _, installs = _setup(checkout)
    assert len(installs) == 2
    # A changed pyproject.toml (a new dependency, say) is installed again.
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n# changed\n")
    _, installs = _setup(checkout)
    assert installs[2:] == [plain]
    # A removed console script (a half-undone install) is installed again too.
    (checkout / ".venv" / "bin" / "designctl").unlink()
    _, installs = _setup(checkout)
    assert installs[3:] == [plain]
    _, installs = _setup(checkout)
    assert len(installs) == 4


def test_a_failed_install_is_not_taken_for_a_done_one(tmp_path: Path) -> None:
    checkout = _checkout(tmp_path)
    pip = checkout / ".venv" / "bin" / "pip"
    working = pip.read_text()
    assert _setup(checkout)[0].returncode == 0
    (checkout / "setup.py").write_text((checkout / "setup.py").read_text() + "\n# changed\n")
    pip.write_text('#!/bin/sh\necho "$*" >> "$PIP_LOG"\necho "ERROR: no network"\nexit 1\n')
    done, installs = _setup(checkout)
    assert done.returncode == 1 and "Installing into .venv failed" in done.stderr and len(installs) == 2
    pip.write_text(working)
    _, installs = _setup(checkout)
    assert len(installs) == 3, "the failed install must run again"
