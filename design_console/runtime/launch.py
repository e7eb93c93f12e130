"""Start designd detached from the caller (a shim or designctl), so it is nobody's child and nobody's zombie, and
no signal or job of the caller's reaches it (``runtime/platform/procs.py`` does it each OS's way).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from design_console.config import DETACHED_VAR, NOTIFY_SOCKET_VAR
from design_console.runtime.platform import procs

#: What a detached designd runs: ``python -P -m DAEMON_MODULE --foreground``. ``-P`` keeps the caller's working
#: directory off ``sys.path``: a ``design_console`` folder there (a checkout) must not replace the installed code.
DAEMON_MODULE = "design_console.daemon.main"
WORKER_MODULE = "design_console.workers.main"

#: designd gives each worker this variable: the installation (its runtime dir) and the designd (pid and start time)
#: the worker belongs to. The reaper knows workers by it, never by command-line text that anyone can type.
WORKER_OF_VAR = "DESIGN_CONSOLE_WORKER_OF"


def worker_of(runtime_dir: Path, pid: int, start_time: float) -> str:
    """The value of :data:`WORKER_OF_VAR` for a worker of the designd ``pid`` that started at ``start_time``."""
    return json.dumps([str(runtime_dir), pid, start_time])


def parse_worker_of(value: str | None) -> tuple[str, int, float] | None:
    """(runtime dir, designd pid, designd start time) from :data:`WORKER_OF_VAR`, or None when it is not ours."""
    if not value:
        return None
    try:
        runtime_dir, pid, start = json.loads(value)
    except (ValueError, TypeError):
        return None
    if not (isinstance(runtime_dir, str) and isinstance(pid, int) and isinstance(start, int | float)):
        return None
    return runtime_dir, pid, float(start)


def spawn_detached(stderr_log: str) -> int:
    """Start ``designd --foreground`` detached; its stderr (start-up failures) goes to ``stderr_log``.

    Returns the pid started (on Windows in a venv, the launcher's: designd's own pid is in the lock file). The
    daemon's own single-instance lock makes concurrent spawns safe: all but one exit. ``NOTIFY_SOCKET`` is dropped:
    a daemon started on demand is not the caller's service manager's to report to.
    """
    env = {**{k: v for k, v in os.environ.items() if k != NOTIFY_SOCKET_VAR}, DETACHED_VAR: "1"}
    return procs.spawn_detached([sys.executable, "-P", "-m", DAEMON_MODULE, "--foreground"], env, stderr_log)


def is_daemon_cmdline(cmdline: list[str]) -> bool:
    """A designd: run as a module, or through its ``designd`` console script (``python …/bin/designd``).

    Whole arguments are compared, never parts of one: any path may contain words like ours.
    """
    if DAEMON_MODULE in cmdline:
        return True
    return len(cmdline) >= 2 and "python" in Path(cmdline[0]).name and Path(cmdline[1]).name == "designd"
