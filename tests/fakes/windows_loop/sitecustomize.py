"""designd and its workers on a loop with the limits of Windows' default (Proactor) loop, on any system.

Python imports this module at the start of every process of a test installation made while ``DESIGN_TEST_LOOP`` is
``windows`` (``tests/procs.py`` puts its folder on ``PYTHONPATH``). In designd and its workers, asyncio's selector
loops then refuse ``add_reader``, ``add_writer`` and ``add_signal_handler`` the way the Proactor loop does, so both
take the code paths they take on Windows: every ZeroMQ socket driven by a thread of its own, and stop signals caught
without the loop's help. Shims and designctl run no event loop and are left as they are.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

#: The modules and console script of the processes that run an event loop.
LOOP_PROCESSES = ("design_console.daemon.main", "design_console.workers.main", "designd")


def _runs_a_loop() -> bool:
    # sys.orig_argv: sys.argv is not set yet while site runs. On Windows the real loop has these limits already.
    return sys.platform != "win32" and any(os.path.basename(arg) in LOOP_PROCESSES for arg in sys.orig_argv[1:])


def _refuse(name: str) -> Callable[..., None]:
    def refuse(*args: object, **kwargs: object) -> None:
        raise NotImplementedError(f"{name}: not on this loop (as on Windows' Proactor loop)")

    return refuse


def lose_what_proactor_lacks() -> None:
    """Make asyncio's selector loops refuse what the Proactor loop does not offer."""
    import asyncio.selector_events
    import asyncio.unix_events

    for name in ("add_reader", "add_writer"):
        setattr(asyncio.selector_events.BaseSelectorEventLoop, name, _refuse(name))
    asyncio.unix_events._UnixSelectorEventLoop.add_signal_handler = _refuse("add_signal_handler")


if _runs_a_loop():
    lose_what_proactor_lacks()
