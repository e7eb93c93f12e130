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

A CPU pinned to stays a good one only while other programs leave it mostly free: one that keeps it busy (a build
step, say) makes every wake-up of ours wait for its time slice, milliseconds at the tail. So designd looks every few
seconds at how much of its CPU went to programs other than itself and its shims (:func:`settle`) and moves to the
quietest CPU when that share is high; the shims follow at their next ping.

Only Linux places threads this way. macOS has no call for it, and on Windows a new thread takes the process's CPUs
rather than its creator's; there nothing is pinned.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterable, Iterator

#: The CPUs this process had before it pinned its threads; None while nothing is pinned.
_before: frozenset[int] | None = None
#: The one CPU pinned to.
_cpu: int | None = None
#: The share of a CPU that programs other than ours may take before designd moves (:func:`settle`) ...
CROWDED = 0.5
#: ... to a CPU busy at least this much less than that share.
QUIETER_BY = 0.25
#: Per thread: how deep its starts are nested (the starts of one loop overlap) and the CPUs it had before them.
_lending = threading.local()
_lock = threading.Lock()


def quietest(busy: dict[int, float], ours: float, current: int, allowed: frozenset[int]) -> int | None:
    """The CPU to move to, or None to stay: ``busy`` is each CPU's busy share of the last interval, ``ours`` the
    share of ``current`` that our own threads took."""
    others = busy.get(current, 0.0) - ours
    candidates = [cpu for cpu in sorted(allowed) if cpu != current and cpu in busy]
    if others < CROWDED or not candidates:
        return None
    target = min(candidates, key=lambda cpu: busy[cpu])
    return target if busy[target] <= others - QUIETER_BY else None


if sys.platform == "linux":

    def _stat_fields(path: str, *indexes: int) -> list[int] | None:
        """Fields of a process's or thread's /proc stat, counted from the one after the command name's ``)``
        (field 3 of proc(5) is index 0); None when it is gone."""
        try:
            with open(path, "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            return [int(fields[index]) for index in indexes]
        except (OSError, IndexError, ValueError):
            return None

    def _cpu_now() -> int | None:
        """The CPU the calling thread runs on (field 39, "processor")."""
        found = _stat_fields("/proc/thread-self/stat", 36)
        return None if found is None else found[0]

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
        process may not run there. designd moves (:func:`settle`), and a new one after a restart may be elsewhere:
        call it again now and then; it costs one system call while designd stays.
        """
        global _before, _cpu
        try:
            target = frozenset(os.sched_getaffinity(pid))
            mine = _before if _before is not None else frozenset(os.sched_getaffinity(0))
        except OSError:
            return None
        if len(target) != 1 or not target <= mine:
            return None
        cpu = next(iter(target))
        if cpu == _cpu:
            return cpu
        with _lock:
            for task in os.listdir("/proc/self/task"):
                with contextlib.suppress(OSError):  # a thread that ended meanwhile
                    os.sched_setaffinity(int(task), target)
            _before, _cpu = mine, cpu
            return cpu

    #: At the last look: each CPU's (busy, total) clock ticks since boot, and our threads' ticks by /proc path.
    _last_look: tuple[dict[int, tuple[int, int]], dict[str, int]] | None = None

    def _cpu_ticks() -> dict[int, tuple[int, int]]:
        """Each CPU's busy and total clock ticks since boot (/proc/stat; idle and iowait are not busy)."""
        found = {}
        with open("/proc/stat", "rb") as stat:
            for line in stat:
                if line.startswith(b"cpu") and line[3:4].isdigit():
                    name, *fields = line.split()
                    values = [int(value) for value in fields[:8]]
                    found[int(name[3:])] = (sum(values) - values[3] - values[4], sum(values))
        return found

    def _run_ticks(path: str) -> int | None:
        """utime + stime of a process or thread (fields 14 and 15), None when it is gone."""
        found = _stat_fields(path, 11, 12)
        return None if found is None else sum(found)

    def _move(source: int, target: int) -> None:
        """Move every thread of this process that runs on ``source`` only to ``target``."""
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError):  # a thread that ended meanwhile
                if os.sched_getaffinity(int(task)) == {source}:
                    os.sched_setaffinity(int(task), {target})

    def settle(partners: Iterable[int]) -> int | None:
        """Move this process's pinned threads to a quieter CPU when programs other than ours crowd theirs.

        ``partners``: the pids that joined this CPU (the shims), whose time counts as ours. Call it every few
        seconds; the first call only takes the first look. Returns the CPU moved to, or None.
        """
        global _cpu, _last_look
        if _before is None or _cpu is None:
            return None
        cpus = _cpu_ticks()
        paths = [f"/proc/self/task/{task}/stat" for task in os.listdir("/proc/self/task")]
        paths += [f"/proc/{pid}/stat" for pid in partners]
        runs = {path: ticks for path in paths if (ticks := _run_ticks(path)) is not None}
        last, _last_look = _last_look, (cpus, runs)
        if last is None or _cpu not in cpus or _cpu not in last[0]:
            return None
        span = {cpu: total - last[0][cpu][1] for cpu, (_, total) in cpus.items() if cpu in last[0]}
        busy = {cpu: (cpus[cpu][0] - last[0][cpu][0]) / span[cpu] for cpu in span if span[cpu] > 0}
        # Pool threads run anywhere and are counted here too: that errs towards staying.
        ours = sum(ticks - last[1][path] for path, ticks in runs.items() if path in last[1])
        target = quietest(busy, ours / span[_cpu] if span.get(_cpu) else 0.0, _cpu, _before)
        if target is None:
            return None
        with _lock:
            _move(_cpu, target)
            _cpu, _last_look = target, None
        return target

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
            # A pinned thread goes back to the pinned CPU as it is when the start ends: settle() may move it meanwhile.
            mask = os.sched_getaffinity(0)
            _lending.mask = None if mask == {_cpu} else mask
            os.sched_setaffinity(0, _before)
        _lending.depth = depth + 1
        try:
            yield
        finally:
            _lending.depth -= 1
            if _lending.depth == 0:
                restore = _lending.mask if _lending.mask is not None or _cpu is None else {_cpu}
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(0, restore)

else:

    def pin_here() -> int | None:
        """Nothing to pin: see the module's docstring."""
        return None

    def join(pid: int) -> int | None:
        """Nothing to join: see the module's docstring."""
        return None

    def settle(partners: Iterable[int]) -> int | None:
        """Nothing was pinned."""
        return None

    def release_thread() -> None:
        """Nothing was pinned."""

    @contextlib.contextmanager
    def spawning() -> Iterator[None]:
        """Nothing was pinned: children start as they would."""
        yield
