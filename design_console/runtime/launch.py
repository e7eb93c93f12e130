"""Start designd detached from the caller (a shim or designctl), so it is nobody's child and nobody's zombie.

A short-lived intermediate process starts designd in a new session and exits at once; the caller reaps the
intermediate, and designd is re-parented to init (or the user's subreaper).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from design_console.config import DETACHED_VAR, NOTIFY_SOCKET_VAR

#: What a detached designd runs: ``python -P -m DAEMON_MODULE --foreground``. ``-P`` keeps the caller's working
#: directory off ``sys.path``: a ``design_console`` folder there (a checkout) must not replace the installed code.
DAEMON_MODULE = "design_console.daemon.main"

_INTERMEDIATE = (
    "import os, subprocess, sys\n"
    "log = open(sys.argv[1], 'ab')\n"
    f"p = subprocess.Popen([sys.executable, '-P', '-m', '{DAEMON_MODULE}', '--foreground'],"
    " stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True, close_fds=True)\n"
    "print(p.pid)\n"
)


def spawn_detached(stderr_log: str) -> int:
    """Start ``designd --foreground`` detached; its stderr (start-up failures) goes to ``stderr_log``.

    Returns designd's pid. The daemon's own single-instance lock makes concurrent spawns safe: all but one exit.
    ``NOTIFY_SOCKET`` is dropped: a daemon started on demand is not the caller's service manager's to report to.
    """
    out = subprocess.run(
        [sys.executable, "-P", "-c", _INTERMEDIATE, stderr_log],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=True,
        env={**{k: v for k, v in os.environ.items() if k != NOTIFY_SOCKET_VAR}, DETACHED_VAR: "1"},
        timeout=30,
    )
    return int(out.stdout.strip())


def is_daemon_cmdline(cmdline: list[str]) -> bool:
    """A designd: run as a module, or through its ``designd`` console script (``python …/bin/designd``).

    Whole arguments are compared, never parts of one: any path may contain words like ours.
    """
    if DAEMON_MODULE in cmdline:
        return True
    return len(cmdline) >= 2 and "python" in Path(cmdline[0]).name and Path(cmdline[1]).name == "designd"
