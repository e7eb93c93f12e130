"""Thread placement: designd's loop, the ZeroMQ I/O threads and the shims that talk to it share one CPU.

A call from an AI app changes threads ten times on its way through a shim and designd and back: each process hands
every frame between the thread that uses the ZeroMQ socket and the context's I/O thread, and the shim and designd
hand it to each other. Each hand-off wakes the thread it goes to. Woken on another, idle CPU, that costs an
inter-processor interrupt and the CPU's way out of idle (tens of microseconds, more on a virtual machine); on the
same CPU it is a plain context switch. So designd pins itself to the CPU it runs on before its context starts the
I/O thread (which inherits its creator's CPUs), and each shim moves its threads to that CPU once it knows designd's
pid (:func:`join`). ``bench/bench_spine.py`` prints the round trips with and without (``DESIGN_PIN_THREADS=0``).

What must not share that one CPU gets the CPUs the process had before: the programs it starts (a child inherits the
CPUs of the thread that starts it, so :func:`spawning` lends them back around the start) and the threads of
designd's pool (:func:`release_thread`), which run the heavy work off the loop. Workers are not pinned.

Only Linux places threads this way. macOS has no call for it, and on Windows a new thread takes the process's CPUs
rather than its creator's; there nothing is pinned.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

#: The CPUs this process had before it pinned its threads; None while nothing is pinned.
_before: frozenset[int] | None = None
#: The one CPU pinned to.
_cpu: int | None = None
#: Per thread: how deep its starts are nested (the starts of one loop overlap) and the CPUs it had before them.
_lending = threading.local()
_lock = threading.Lock()


if sys.platform == "linux":

    def _cpu_now() -> int | None:
        """The CPU the calling thread runs on (field 39 of its stat: the fields after the command name's ``)``)."""
        try:
            with open("/proc/thread-self/stat", "rb") as stat:
                return int(stat.read().rsplit(b")", 1)[1].split()[36])
        except (OSError, IndexError, ValueError):
            return None

    def pin_here() -> int | None:
        """Pin the calling thread, and every thread it starts from now on, to the CPU it runs on.

        Returns that CPU, or None when nothing was pinned: the process may use one CPU only already, or the OS
        refused. Call it before the ZeroMQ context creates its first socket (which starts the I/O thread).
        """
        global _before, _cpu
        with _lock:
            if _before is not None:
                return _cpu
            allowed = frozenset(os.sched_getaffinity(0))
            cpu = _cpu_now()
            if len(allowed) < 2 or cpu not in allowed:
                return None
            try:
                os.sched_setaffinity(0, {cpu})
            except OSError:
                return None
            _before, _cpu = allowed, cpu
            return cpu

    def join(pid: int) -> int | None:
        """Move every thread of this process to the one CPU process ``pid`` (designd) pinned itself to.

        Returns that CPU, or None when ``pid`` is not on one CPU (it did not pin itself, or it is gone) or this
        process may not run there. A new designd, after a restart, may be on another CPU: join it again.
        """
        global _before, _cpu
        try:
            target = frozenset(os.sched_getaffinity(pid))
            mine = _before if _before is not None else frozenset(os.sched_getaffinity(0))
        except OSError:
            return None
        if len(target) != 1 or not target <= mine:
            return None
        with _lock:
            for task in os.listdir("/proc/self/task"):
                with contextlib.suppress(OSError):  # a thread that ended meanwhile
                    os.sched_setaffinity(int(task), target)
            _before, _cpu = mine, next(iter(target))
            return _cpu

    def release_thread() -> None:
        """Give the calling thread the CPUs the process had before pinning (a pool thread's initializer)."""
        if _before is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, _before)

    @contextlib.contextmanager
    def spawning() -> Iterator[None]:
        """Start child processes inside this: they get the CPUs this process had before pinning, not its one CPU.

        The calling thread runs on those CPUs meanwhile, and gets its own back when its outermost start ends.
        """
        if _before is None:
            yield
            return
        depth: int = getattr(_lending, "depth", 0)
        if depth == 0:
            _lending.mask = os.sched_getaffinity(0)
            os.sched_setaffinity(0, _before)
        _lending.depth = depth + 1
        try:
            yield
        finally:
            _lending.depth -= 1
            if _lending.depth == 0:
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(0, _lending.mask)

else:

    def pin_here() -> int | None:
        """Nothing to pin: see the module's docstring."""
        return None

    def join(pid: int) -> int | None:
        """Nothing to join: see the module's docstring."""
        return None

    def release_thread() -> None:
        """Nothing was pinned."""

    @contextlib.contextmanager
    def spawning() -> Iterator[None]:
        """Nothing was pinned: children start as they would."""
        yield
