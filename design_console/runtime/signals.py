"""Stopping on a signal in a way every asyncio loop allows."""

from __future__ import annotations

import asyncio
import signal

#: The signals that ask a process to stop: SIGBREAK exists only on Windows (Ctrl+Break, a console closing).
STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGBREAK")


def stop_on_signals(stopping: asyncio.Event) -> None:
    """Set ``stopping`` on SIGTERM, SIGINT (and SIGBREAK on Windows).

    ``signal.signal`` and ``call_soon_threadsafe`` work on every loop; Windows' default loop has no
    ``add_signal_handler``. Call from the running loop's thread (the main thread).
    """
    loop = asyncio.get_running_loop()

    def handler(signum: int, frame: object) -> None:
        loop.call_soon_threadsafe(stopping.set)

    for name in STOP_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), handler)
