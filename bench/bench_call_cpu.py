"""CPU time per tool call of the shim and of designd (every thread of each, user + system), measured on this machine.

Run: ``.venv/bin/python bench/bench_call_cpu.py`` (``--before DIR`` also measures another checkout of ours, e.g.
``git archive main | tar -x -C DIR``, in alternating rounds). On a machine shared with other work, wall-clock figures
move with the load; the CPU a process spends per call moves much less, so this is the figure to compare builds by.
Each round starts its own designd in a throwaway HOME, a fake plugin with 1,000 console entries and one shim driven
with raw JSON-RPC lines, then reads each process's CPU time before and after ``--calls`` calls of ``design_execute``
and of ``design_get_console_logs``. Prints the lowest and the median of the rounds, with the wall-clock p50 beside
them, and stops everything it started.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CALLS = [["design_execute", {"code": "return 1"}], ["design_get_console_logs", {}]]

#: One round in a child process, so each build runs with its own sources first on the path.
ROUND = """
import json, os, statistics, sys, time
sys.path[:0] = [sys.argv[1] + "/tests", sys.argv[1] + "/bench"]
import psutil
from bench_spine import RawSession
from fakes.fake_plugin import FakePlugin
from procs import DaemonProcess, kill_all, make_env, processes_of

def cpu(proc):
    times = proc.cpu_times()
    return times.user + times.system

calls, transport = int(sys.argv[2]), sys.argv[3]
env = make_env(LOG_LEVEL="warn", DESIGN_IPC=transport)
daemon = DaemonProcess(env).start()
plugin = FakePlugin.start_in_thread(daemon.port, env.token, file_key="file0", file_name="File 0")
try:
    for n in range(1000):
        plugin.run(plugin.console("log", f"entry {n}"))
    session = RawSession(env.env)
    session.open()
    shim, designd = psutil.Process(session.proc.pid), psutil.Process(daemon.pid)
    for name, arguments in json.loads(sys.argv[4]):
        params = {"name": name, "arguments": arguments}
        for _ in range(calls // 10):
            session.request("tools/call", params)
        before = cpu(shim), cpu(designd)
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            session.request("tools/call", params)
            samples.append((time.perf_counter() - started) * 1000)
        print(json.dumps([name, (cpu(shim) - before[0]) / calls * 1e6, (cpu(designd) - before[1]) / calls * 1e6,
                          statistics.median(samples)]))
    session.close()
finally:
    plugin.stop()
    daemon.stop()
    kill_all(processes_of(env))
    env.cleanup()
"""


def one_round(source: Path, calls: int, transport: str) -> list[list[object]]:
    """The figures of one round of the checkout at ``source``: [tool, shim µs, designd µs, p50 ms] per tool."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    out = subprocess.run(
        [sys.executable, "-c", ROUND, str(source), str(calls), transport, json.dumps(CALLS)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("[")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--transports", default="ipc,tcp", help="the DESIGN_IPC values to measure, comma-separated")
    parser.add_argument("--before", type=Path, help="also measure this checkout of ours, in alternating rounds")
    opts = parser.parse_args()
    builds = [("this build", ROOT)] + ([("before", opts.before.resolve())] if opts.before else [])
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the start")
    for transport in opts.transports.split(","):
        figures: dict[tuple[str, str], list[list[object]]] = {}
        for _ in range(opts.rounds):
            for label, source in builds:
                for name, shim, designd, p50 in one_round(source, opts.calls, transport):
                    figures.setdefault((str(name), label), []).append([shim, designd, p50])
        print(f"DESIGN_IPC={transport}: CPU µs per call, lowest / median of {opts.rounds} rounds; wall p50 median")
        for (name, label), rows in figures.items():
            shim, designd, p50 = (sorted(float(str(row[i])) for row in rows) for i in range(3))
            print(
                f"  {name:<26} {label:<11} shim {shim[0]:5.0f} / {statistics.median(shim):5.0f}   "
                f"designd {designd[0]:5.0f} / {statistics.median(designd):5.0f}   p50 {statistics.median(p50):.2f} ms"
            )
    print(f"load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
