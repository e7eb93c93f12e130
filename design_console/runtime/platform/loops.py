"""What an asyncio loop can do on this system: selector loops (Linux, macOS) watch descriptors themselves; Windows'
default Proactor loop cannot, so callers drive such sockets from a thread of their own there."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


def watch_readable(loop: asyncio.AbstractEventLoop, fd: int, callback: Callable[[], None]) -> bool:
    """Have ``loop`` call ``callback`` whenever ``fd`` is readable; False when the loop cannot (Windows' Proactor)."""
    try:
        loop.add_reader(fd, callback)
    except NotImplementedError:
        return False
    return True
