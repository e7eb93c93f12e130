"""Giving memory back to the system once a big job is done.

A process that read 2 MB of JSON into objects stays that big after the objects are gone: their reference cycles wait
for a full collection, and the allocator keeps the freed pages (CPython's arenas sit on glibc's heap, which returns
little on its own). Measured on designd and the tokens worker through a 5,000-token × 4-mode import and export: they
stayed 17 % and 42 % above their idle size; a collection and a trim of the heap bring them back to within 10 %.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import sys
from collections.abc import Callable

import psutil

log = logging.getLogger("design_console.memory")

#: Growth since the last reclaim that earns a collection and a trim: 10 % of an idle designd (about 80 MiB). Below
#: it nothing runs, so small calls pay only a read of the resident size.
RECLAIM_BYTES = 8 * 2**20


def _heap_trimmer() -> Callable[[], None]:
    """glibc's malloc_trim, which hands free heap pages back to the system; nothing elsewhere (macOS and Windows
    return freed pages on their own, and musl has no such call)."""
    if not sys.platform.startswith("linux"):
        return lambda: None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return lambda: None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int

    def trim_heap() -> None:
        trim(0)

    return trim_heap


class Reclaimer:
    """Collects and trims once the process has grown by RECLAIM_BYTES since it last did (or since it started)."""

    def __init__(self) -> None:
        self._process = psutil.Process()
        self._trim = _heap_trimmer()
        self._floor = self._resident()

    def _resident(self) -> int:
        return int(self._process.memory_info().rss)

    def after_job(self) -> None:
        """Call when a job has let go of what it held: gives the memory back if the process grew by much."""
        before = self._resident()
        if before - self._floor < RECLAIM_BYTES:
            return
        gc.collect()
        self._trim()
        self._floor = self._resident()
        log.debug("gave back %.1f MiB after a big job", (before - self._floor) / 2**20)
