"""``scripts/setup``, which ``scripts/serve`` and ``scripts/test`` start with: what it prints and what it skips."""

from __future__ import annotations

import shlex
import subprocess
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
