"""Figures for the spine's budgets (ARCHITECTURE.md "Performance budgets"), measured on this machine.

Run: ``.venv/bin/python bench/bench_spine.py`` (add ``--under-load`` to also measure console reads while the api
worker shapes a 50 MB file served by the fake design API). Prints one line per figure with its budget beside it, for
each control transport (``DESIGN_IPC=ipc`` and ``=tcp``; ``--transports`` picks). Starts its own designd in a
throwaway HOME for each and stops everything it started. ``--windows-loop`` runs designd and its workers on a loop
with the limits of Windows' default one, so their sockets are driven by a thread as they are there (use it with
``--transports tcp``, Windows' transport).

The shim start figure depends on how the shim is installed: this checkout's development install loads setuptools'
editable-import finder at every start, which an installed wheel does not. The output names the install measured;
``--shim PATH`` measures another ``design-console-mcp``, for example one from a wheel::

    .venv/bin/python -m pip wheel --no-deps . -w /tmp/dcm-wheel
    python3 -m venv /tmp/dcm-venv && /tmp/dcm-venv/bin/pip install /tmp/dcm-wheel/design_console_mcp-*.whl
    .venv/bin/python bench/bench_spine.py --shim /tmp/dcm-venv/bin/design-console-mcp
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.fake_plugin import FakePlugin  # noqa: E402
from procs import BIN, DaemonProcess, TestEnv, kill_all, make_env, processes_of  # noqa: E402

from design_console.tools import catalog  # noqa: E402
from design_console.tools.wire.mcp import tool_definitions  # noqa: E402

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


#: The shim measured: this venv's unless ``--shim`` names another.
SHIM = BIN / "design-console-mcp"


def describe_install(shim: Path) -> str:
    """Which install of design_console ``shim`` runs: this checkout's editable one, or a package installed elsewhere."""
    interpreter = shim.read_text(errors="replace").splitlines()[0].removeprefix("#!").strip()
    probe = "import design_console, sys; print(design_console.__file__)"
    # -P: the bench's working directory (often this checkout) must not stand in for what the shim imports.
    probe_run = subprocess.run([interpreter, "-P", "-c", probe], capture_output=True, text=True, check=True)
    found = Path(probe_run.stdout.strip())
    if found.is_relative_to(ROOT):
        return f"{shim}: editable install of this checkout (its import finder runs at each start; a wheel has none)"
    return f"{shim}: installed package at {found.parent}"


class RawSession:
    """A shim driven with raw JSON-RPC lines, so the figures hold no client library overhead."""

    def __init__(self, env: dict[str, str], shim: Path = SHIM) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([str(shim)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 1

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        assert self.proc.stdout is not None
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                return reply

    def open(self) -> None:
        self.send(INIT)
        assert self.proc.stdout is not None
        json.loads(self.proc.stdout.readline())
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(5)


@contextlib.contextmanager
def daemon_with_plugin(env: TestEnv, file_key: str = "file0", file_name: str = "File 0") -> Iterator[DaemonProcess]:
    """designd in ``env`` with a fake plugin connected whose console holds 1,000 entries; everything stops after,
    and ``env`` is cleaned up."""
    daemon = DaemonProcess(env).start()
    plugin = FakePlugin.start_in_thread(daemon.port, env.token, file_key=file_key, file_name=file_name)
    try:
        for n in range(1000):
            plugin.run(plugin.console("log", f"entry {n}"))
        yield daemon
    finally:
        plugin.stop()
        daemon.stop()
        kill_all(processes_of(env))
        env.cleanup()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(name: str, value: str, budget: str) -> None:
    print(f"{name:<58} {value:>18}   budget {budget}")


def import_floor(python: Path) -> tuple[float, float]:
    """What any shim built on the card's two libraries pays before its own first line runs: the wall time, in ms,
    from spawning ``python`` to its having imported pyzmq and msgspec, and its CPU time to its exit (which the
    shim's CPU figure includes too)."""
    started = time.perf_counter()
    code = "import zmq, msgspec, sys; sys.stdout.write('.'); sys.stdout.flush()"
    proc = subprocess.Popen([str(python), "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.read(1)
    wall = (time.perf_counter() - started) * 1000
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def bench_start_and_memory(env: dict[str, str], runs: int, shim: Path) -> None:
    times, cpu, rss = [], [], []
    floor_times, floor_cpu = [], []
    python = shim.parent / "python"
    for _ in range(runs):
        wall, used = import_floor(python if python.exists() else Path(sys.executable))
        floor_times.append(wall)
        floor_cpu.append(used)
        session = RawSession(env, shim)
        session.open()
        listed = session.request("tools/list")
        times.append((time.perf_counter() - session.started) * 1000)
        assert listed["result"]["tools"]
        rss.append(psutil.Process(session.proc.pid).memory_info().rss / 2**20)
        assert session.proc.stdin is not None
        session.proc.stdin.close()
        # The shim's own CPU time (to its exit, which follows at once): unlike the wall time, other processes'
        # load on the machine barely moves it.
        _, status, usage = os.wait4(session.proc.pid, 0)
        session.proc.returncode = os.waitstatus_to_exitcode(status)
        cpu.append((usage.ru_utime + usage.ru_stime) * 1000)
    row("shim start to tools/list answered (daemon running), p50", f"{statistics.median(times):.1f} ms", "≤ 100 ms")
    row("  … min / max", f"{min(times):.1f} / {max(times):.1f} ms", "")
    row("  … the shim's own CPU time (start to exit), p50", f"{statistics.median(cpu):.1f} ms", "")
    floor = f"{statistics.median(floor_times):.1f} / {statistics.median(floor_cpu):.1f} ms"
    row("  … floor: Python importing pyzmq + msgspec, p50 wall / CPU", floor, "")
    row("shim resident memory (RSS), median", f"{statistics.median(rss):.1f} MB", "≤ 25 MB")


def bench_round_trips(env: dict[str, str], calls: int) -> None:
    session = RawSession(env)
    session.open()
    for name, args in (
        ("design_execute round trip (shim→daemon→plugin→back)", {"code": "return 1"}),
        ("design_get_console_logs (1000 buffered, newest 100)", {}),
    ):
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            reply = session.request("tools/call", {"name": name.split()[0], "arguments": args})
            samples.append((time.perf_counter() - started) * 1000)
            assert not reply["result"].get("isError"), reply
        budget = "p50 ≤ 1 ms, p99 ≤ 5 ms" if "execute" in name else "p50 ≤ 2 ms"
        row(name + ", p50 / p99", f"{pct(samples, 0.5):.2f} / {pct(samples, 0.99):.2f} ms", budget)
    session.close()


def bench_daemon_memory(env: dict[str, str], daemon: DaemonProcess, port: int, token: str) -> None:
    sessions = [RawSession(env) for _ in range(10)]
    for session in sessions:
        session.open()
        session.request("tools/list")
    plugins = [FakePlugin.start_in_thread(port, token, file_key=f"file{n}", file_name=f"File {n}") for n in (1, 2)]
    try:
        for session in sessions:
            session.request("tools/call", {"name": "design_get_status", "arguments": {}})
        daemon_rss = psutil.Process(daemon.pid).memory_info().rss / 2**20
        children = psutil.Process(daemon.pid).children()
        workers = sum(p.memory_info().rss for p in children) / 2**20
        row("designd resident memory, 10 shims + 3 files connected", f"{daemon_rss:.1f} MB", "≤ 120 MB")
        row(f"  … plus its {len(children)} worker processes", f"{workers:.1f} MB", "(not budgeted)")
    finally:
        for plugin in plugins:
            plugin.stop()
        for session in sessions:
            session.close()


def bench_tool_list() -> None:
    """The tools/list result as designd sends it: compact JSON."""
    listing = types.ListToolsResult(tools=tool_definitions(catalog().values()))
    size = len(listing.model_dump_json(by_alias=True, exclude_none=True))
    row(f"tools/list payload as sent ({len(catalog())} tools)", f"{size:,} bytes", "≤ 60,000 bytes")


def bench_console_under_load(calls: int) -> None:
    from fakes.api_server import api_process
    from fakes.design_api import HUGE_KEY, PERSONAL_TOKEN

    with api_process(huge_mb=50) as url:
        env = make_env(DESIGN_API_URL=url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN, LOG_LEVEL="warn")
        with daemon_with_plugin(env, file_key="fileA", file_name="A"):
            idle = RawSession(env.env)
            idle.open()
            heavy = RawSession(env.env)
            heavy.open()
            base = []
            for _ in range(calls):
                started = time.perf_counter()
                idle.request("tools/call", {"name": "design_get_console_logs", "arguments": {}})
                base.append((time.perf_counter() - started) * 1000)
            done = threading.Event()
            shaped: dict[str, Any] = {}

            def big() -> None:
                started = time.perf_counter()
                shaped.update(
                    heavy.request(
                        "tools/call", {"name": "design_get_file_data", "arguments": {"fileUrl": HUGE_KEY, "depth": 3}}
                    )
                )
                shaped["ms"] = (time.perf_counter() - started) * 1000
                done.set()

            threading.Thread(target=big, daemon=True).start()
            loaded = []
            while not done.is_set() and len(loaded) < 100_000:
                started = time.perf_counter()
                idle.request("tools/call", {"name": "design_get_console_logs", "arguments": {}})
                loaded.append((time.perf_counter() - started) * 1000)
            done.wait(300)
            row("design_get_console_logs p50, idle", f"{pct(base, 0.5):.2f} ms", "p50 ≤ 2 ms")
            row(
                f"design_get_console_logs p50 / p99 while the api worker shapes 50 MB ({len(loaded)} reads)",
                f"{pct(loaded, 0.5):.2f} / {pct(loaded, 0.99):.2f} ms",
                "stays near idle",
            )
            row("  … the 50 MB read itself (first part, download included)", f"{shaped.get('ms', 0):.0f} ms", "")
            idle.close()
            heavy.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--under-load", action="store_true")
    parser.add_argument("--transports", default="ipc,tcp", help="the DESIGN_IPC values to measure, comma-separated")
    parser.add_argument("--shim", type=Path, default=SHIM, help="the design-console-mcp whose start is measured")
    parser.add_argument("--windows-loop", action="store_true", help="designd on a loop like Windows' default one")
    opts = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}")
    print(f"shim measured: {describe_install(opts.shim)}")
    if opts.windows_loop:
        os.environ["DESIGN_TEST_LOOP"] = "windows"  # read by make_env
        print("designd and its workers on a loop like Windows' default one: every socket driven by a thread")
    bench_tool_list()
    for transport in opts.transports.split(","):
        print(f"DESIGN_IPC={transport}")
        env = make_env(LOG_LEVEL="warn", DESIGN_IPC=transport)
        with daemon_with_plugin(env) as daemon:
            bench_start_and_memory(env.env, opts.runs, opts.shim)
            bench_round_trips(env.env, opts.calls)
            bench_daemon_memory(env.env, daemon, daemon.port, env.token)
    if opts.under_load:
        bench_console_under_load(200)


if __name__ == "__main__":
    main()
