"""Ours beside the reference (figma-console-mcp 1.40.4), measured in one run on this machine, as ratios.

Run: ``.venv/bin/python bench/bench_reference.py`` (``--quick`` for fewer samples). The reference is installed from
npm into ``bench/.reference/`` on first use (not a dependency of the project). Both sides are driven the same way: the
official MCP TypeScript SDK client over stdio (``bench/mcp_client.mjs``), and a fake plugin that answers every command
at once (ours: ``tests/fakes/fake_plugin.py``; the reference: :class:`ReferencePlugin` below, which speaks its bridge
protocol as read from its shipped ``websocket-server.js``). Each side has 1,000 console entries buffered. Memory is
the resident set (RSS) of every process of a side: the shims, designd and its workers for ours, the server processes
for the reference. ``--before DIR`` also measures another checkout of ours (``git archive <rev> | tar -x -C DIR``),
e.g. the build before a change, in the same run. Ratios are "times better than the reference" (above 1: better).
Our sources are compiled to bytecode first, as an install does (an environment with PYTHONDONTWRITEBYTECODE would
otherwise recompile them on every start).
Starts everything in throwaway homes and stops all it started.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers import free_port_range  # noqa: E402
from procs import BIN, kill_all, make_env, processes_of, wait_for  # noqa: E402
from websockets.asyncio.client import connect as ws_connect  # noqa: E402

from design_console import PLUGIN_VERSION  # noqa: E402
from design_console.plugin_contract import BRIDGE_PROTOCOL, bridge_proof  # noqa: E402
from design_console.runtime.dirs import InstanceLock  # noqa: E402

REFERENCE = "figma-console-mcp"
REFERENCE_VERSION = "1.40.4"
REF_DIR = ROOT / "bench" / ".reference"
SDK_DIR = REF_DIR / "node_modules" / "@modelcontextprotocol" / "sdk"
CLIENT = ROOT / "bench" / "mcp_client.mjs"
CONSOLE_ENTRIES = 1000
#: The lines of /proc/<pid>/task/<tid>/status that count a thread's context switches.
SWITCH_FIELDS = ("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")


def install_reference() -> None:
    """npm-install the pinned reference into bench/.reference unless that version is already there."""
    installed = REF_DIR / "node_modules" / REFERENCE / "package.json"
    if installed.exists() and json.loads(installed.read_text())["version"] == REFERENCE_VERSION:
        return
    REF_DIR.mkdir(exist_ok=True)
    (REF_DIR / "package.json").write_text('{"private": true}\n')
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(REF_DIR), f"{REFERENCE}@{REFERENCE_VERSION}"],
        check=True,
        stdout=subprocess.DEVNULL,
    )


class ReferencePlugin:
    """The reference's Desktop Bridge as far as the figures need it: FILE_INFO on connect, console entries pushed,
    and every command answered at once (``EXECUTE_CODE`` with the plugin's ``{success, result}`` shape)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def connect(self, port: int, file_key: str) -> None:
        ready = threading.Event()
        asyncio.run_coroutine_threadsafe(self._serve(port, file_key, ready), self.loop)
        if not ready.wait(20):
            raise RuntimeError(f"the plugin could not connect to port {port}")

    async def _serve(self, port: int, file_key: str, ready: threading.Event) -> None:
        async with ws_connect(f"ws://localhost:{port}", max_size=None, compression=None) as ws:
            await self._open(ws, port)
            info = {"fileKey": file_key, "fileName": file_key, "currentPage": "Page 1", "editorType": "figma"}
            await ws.send(json.dumps({"type": "FILE_INFO", "data": info}))
            for n in range(CONSOLE_ENTRIES):
                entry = {"level": "log", "message": f"entry {n}", "args": [], "timestamp": int(time.time() * 1000)}
                await ws.send(json.dumps({"type": "CONSOLE_CAPTURE", "data": entry}))
            ready.set()
            pending: set[asyncio.Future[None]] = set()
            async for raw in ws:
                message = json.loads(raw)
                if isinstance(message, dict) and "id" in message and "method" in message:
                    answer = asyncio.ensure_future(self._answer(ws, message))
                    pending.add(answer)
                    answer.add_done_callback(pending.discard)

    async def _open(self, ws: Any, port: int) -> None:
        """What the plugin says before FILE_INFO: nothing, on the reference's unauthenticated bridge."""

    async def _answer(self, ws: Any, command: dict[str, Any]) -> None:
        result: Any = {"success": True, "result": 1} if command["method"] == "EXECUTE_CODE" else {}
        await ws.send(json.dumps({"id": command["id"], "result": result}))

    def stop(self) -> None:
        async def shutdown() -> None:
            running = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


class OurPlugin(ReferencePlugin):
    """Our Desktop Bridge as far as the figures need it, doing per command exactly what :class:`ReferencePlugin`
    does: the protocol-3 handshake (HELLO with its proof, SERVER_PROOF checked), FILE_INFO, console entries pushed,
    and every command answered at once. (The tests' FakePlugin keeps a document, records every command and parses
    the code it is sent: work the reference's fake does not do, which would be charged to us.)"""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    async def _open(self, ws: Any, port: int) -> None:
        """The protocol-3 handshake: HELLO with the plugin's proof, then designd's SERVER_PROOF checked."""
        server_nonce = json.loads(await ws.recv())["data"]["nonce"]
        nonce = secrets.token_hex(16)
        proof = bridge_proof(self.token, "plugin", port, server_nonce, nonce)
        hello = {"pluginVersion": PLUGIN_VERSION, "protocol": BRIDGE_PROTOCOL, "nonce": nonce, "proof": proof}
        await ws.send(json.dumps({"type": "HELLO", "data": hello}))
        answer = json.loads(await ws.recv())
        if answer["data"]["proof"] != bridge_proof(self.token, "server", port, nonce, server_nonce):
            raise RuntimeError("designd's SERVER_PROOF does not verify")


@dataclass
class Side:
    """One server under test and what differs in driving it."""

    name: str
    command: str
    args: list[str]
    env: dict[str, str]
    execute: dict[str, Any]
    console: dict[str, Any]
    processes: Callable[[psutil.Process], list[psutil.Process]]
    connect_plugins: Callable[[int], Callable[[], None]]
    stop_daemon: Callable[[], None] = lambda: None
    cleanup: list[Callable[[], None]] = field(default_factory=list)


def ours(source: Path | None, name: str = "ours") -> Side:
    env = make_env(LOG_LEVEL="warn")
    if source is not None:
        env.env["PYTHONPATH"] = str(source)
    # As installed (pip and pipx compile bytecode at install): a start must not pay for compiling our sources.
    env.env.pop("PYTHONDONTWRITEBYTECODE", None)
    package = (source or ROOT) / "design_console"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True, stdout=subprocess.DEVNULL)
    config = env.config

    def stop_daemon() -> None:
        subprocess.run([str(BIN / "designctl"), "stop"], env=env.env, capture_output=True, timeout=60)
        wait_for(lambda: not processes_of(env), 20, "designd to stop")

    def connect_plugins(chats: int) -> Callable[[], None]:
        wait_for(lambda: "port" in InstanceLock(config.lock_file).holder(), 20, "designd's port")
        port = int(InstanceLock(config.lock_file).holder()["port"])
        plugin = OurPlugin(env.token)
        plugin.connect(port, "file0")
        time.sleep(0.5)  # designd takes the console entries off its socket, as the reference's servers do
        return plugin.stop

    def cleanup() -> None:
        stop_daemon()
        kill_all(processes_of(env))
        env.cleanup()

    return Side(
        name=name,
        command=str(BIN / "design-console-mcp"),
        args=[],
        env=env.env,
        execute={"name": "design_execute", "arguments": {"code": "return 1"}},
        console={"name": "design_get_console_logs", "arguments": {}},
        processes=lambda client: processes_of(env),
        connect_plugins=connect_plugins,
        stop_daemon=stop_daemon,
        cleanup=[cleanup],
    )


def floor(*, bridged: bool = False) -> Side:
    """The client against bench/instant_server.py: what the harness itself costs per call; ``bridged``: with the
    reference's fake plugin answering each call over a WebSocket, the least any server with a plugin can cost."""
    port = free_port_range(1) if bridged else 0

    def connect_plugins(chats: int) -> Callable[[], None]:
        if not bridged:
            return lambda: None
        plugin = ReferencePlugin()
        plugin.connect(port, "file0")
        return plugin.stop

    return Side(
        name="floor with a plugin" if bridged else "floor",
        command=sys.executable,
        args=[str(ROOT / "bench" / "instant_server.py"), *(["--bridge", str(port)] if bridged else [])],
        env={},
        execute={"name": "design_execute", "arguments": {"code": "return 1"}},
        console={"name": "design_get_console_logs", "arguments": {}},
        processes=lambda client: [],
        connect_plugins=connect_plugins,
    )


def reference() -> Side:
    home = Path(tempfile.mkdtemp(prefix="ref-", dir="/tmp"))
    port = free_port_range(10)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FIGMA_", "DESIGN_", "ENABLE_MCP"))}
    env.update(HOME=str(home), TMPDIR=str(home), FIGMA_WS_PORT=str(port), NODE_ENV="production")

    def listening() -> list[int]:
        found = []
        for candidate in range(port, port + 10):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", candidate)) == 0:
                    found.append(candidate)
        return found

    def connect_plugins(chats: int) -> Callable[[], None]:
        wait_for(lambda: len(listening()) >= chats, 30, f"{chats} reference servers to listen")
        plugin = ReferencePlugin()
        for n, bound in enumerate(listening()):
            plugin.connect(bound, f"file{n}")
        time.sleep(0.5)  # the servers take the FILE_INFO and console entries off their sockets
        return plugin.stop

    def tree(client: psutil.Process) -> list[psutil.Process]:
        return client.children(recursive=True)

    return Side(
        name="reference",
        command="node",
        args=[str(REF_DIR / "node_modules" / REFERENCE / "dist" / "local.js")],
        env=env,
        execute={"name": "figma_execute", "arguments": {"code": "return 1"}},
        console={"name": "figma_get_console_logs", "arguments": {}},
        processes=tree,
        connect_plugins=connect_plugins,
        cleanup=[lambda: shutil.rmtree(home, ignore_errors=True)],
    )


class Driver:
    """One run of bench/mcp_client.mjs against a side."""

    def __init__(self, side: Side, **spec: Any) -> None:
        full = {"command": side.command, "args": side.args, "env": side.env, **spec}
        self.proc = subprocess.Popen(
            ["node", str(CLIENT), str(SDK_DIR), json.dumps(full)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the MCP client exited ({self.proc.wait()})")
        return json.loads(line)

    def go(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def finish(self) -> None:
        self.proc.wait(60)


def rss_mib(procs: list[psutil.Process]) -> float:
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total / 2**20


def switches(procs: list[psutil.Process]) -> int:
    """Context switches so far of every thread of ``procs`` (Linux; 0 elsewhere): each is a thread that blocked
    or was put aside, the wake-ups a call's hops cost beside its CPU time."""
    total = 0
    for proc in procs:
        for status in Path(f"/proc/{proc.pid}/task").glob("*/status"):
            try:
                lines = status.read_text().splitlines()
            except OSError:
                continue
            total += sum(int(line.split()[1]) for line in lines if line.startswith(SWITCH_FIELDS))
    return total


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def starts(side: Side, runs: int, *, cold: bool) -> list[float]:
    """spawn → tools/list answered, ``runs`` times; ``cold`` stops any daemon before each run."""
    times = []
    driver = Driver(side, mode="start", runs=runs + 1)
    for run in range(runs + 1):
        if cold:
            side.stop_daemon()
        driver.go()
        ms = driver.read()["ms"]
        if run:  # the first run only warms the disk cache (and, warm, starts designd)
            times.append(ms)
    driver.finish()
    return times


def one_chat(sides: list[Side], calls: int, rounds: int) -> dict[str, dict[str, Any]]:
    """One chat per side, all open at once; ``calls`` execute and console calls per side, in ``rounds`` turns.

    The sides take turns (the order flips every round), so a change in the machine's load during the run falls on
    every side alike instead of on whichever ran second.
    """
    per_round = max(1, calls // rounds)
    drivers: list[tuple[Side, Driver]] = []
    stops = []
    figures: dict[str, dict[str, Any]] = {}
    try:
        for side in sides:
            driver = Driver(
                side,
                mode="sessions",
                chats=1,
                calls=per_round,
                rounds=rounds,
                execute=side.execute,
                console=side.console,
            )
            drivers.append((side, driver))
            driver.read()
            stops.append(side.connect_plugins(1))
            figures[side.name] = {"execute": [], "console": []}
        for side, _ in drivers:
            figures[side.name]["switches"] = 0
        for turn in range(rounds):
            for side, driver in drivers if turn % 2 == 0 else drivers[::-1]:
                procs = side.processes(psutil.Process(driver.proc.pid))
                before = switches(procs)
                driver.go()
                taken = driver.read()
                if turn or rounds == 1:  # the first of several rounds also warms up
                    figures[side.name]["switches"] += switches(procs) - before
                figures[side.name]["execute"] += taken["execute"]
                figures[side.name]["console"] += taken["console"]
        counted = 2 * per_round * max(1, rounds - 1)
        for side, _ in drivers:
            figures[side.name]["switches"] /= counted
        for side, driver in drivers:
            figures[side.name]["rss"] = rss_mib(side.processes(psutil.Process(driver.proc.pid)))
        for _, driver in drivers:
            driver.go()
            driver.read()
            driver.finish()
    finally:
        for stop in stops:
            stop()
    return figures


def many_chats(side: Side, chats: int, seconds: float) -> dict[str, Any]:
    driver = Driver(side, mode="sessions", chats=chats, seconds=seconds, execute=side.execute, console=side.console)
    driver.read()
    stop_plugin = side.connect_plugins(chats)
    driver.go()
    figures = driver.read()
    memory = rss_mib(side.processes(psutil.Process(driver.proc.pid)))
    driver.go()
    driver.read()
    driver.finish()
    stop_plugin()
    return {"rate": figures["calls"] / figures["seconds"], "rss": memory}


def table(figures: dict[str, dict[str, Any]]) -> list[tuple[str, str, str, dict[str, float]]]:
    """Each figure per side: (name, unit, which way is better, {side: value})."""
    median = statistics.median

    def each(pick: Callable[[dict[str, Any]], float]) -> dict[str, float]:
        return {side: pick(values) for side, values in figures.items()}

    return [
        ("spawn → tools/list, daemon running, p50", "ms", "lower", each(lambda f: median(f["warm"]))),
        ("spawn → tools/list, nothing running, p50", "ms", "lower", each(lambda f: median(f["cold"]))),
        ("execute round trip, one chat, p50", "ms", "lower", each(lambda f: pct(f["one"]["execute"], 0.5))),
        ("execute round trip, one chat, p99", "ms", "lower", each(lambda f: pct(f["one"]["execute"], 0.99))),
        (
            "console logs (newest 100 of 1000), one chat, p50",
            "ms",
            "lower",
            each(lambda f: pct(f["one"]["console"], 0.5)),
        ),
        ("8 chats calling execute at once", "call/s", "higher", each(lambda f: f["eight"]["rate"])),
        ("resident memory, 1 chat (all processes)", "MiB", "lower", each(lambda f: f["one"]["rss"])),
        ("resident memory, 8 chats (all processes)", "MiB", "lower", each(lambda f: f["eight"]["rss"])),
        (
            "context switches per call, one chat (server processes)",
            "",
            "lower",
            each(lambda f: f["one"]["switches"]),
        ),
    ]


def ratio(ref: float, value: float, better: str) -> float:
    """How many times better than the reference (above 1: better)."""
    if not ref or not value:
        return float("nan")
    return ref / value if better == "lower" else value / ref


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    parser.add_argument(
        "--before", type=Path, help="also measure this checkout of ours (e.g. the build before a change)"
    )
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    opts = parser.parse_args()
    runs, calls, rounds, seconds = (3, 200, 2, 3.0) if opts.quick else (10, 2000, 10, 10.0)
    install_reference()
    sides = [reference(), ours(None)]
    if opts.before is not None:
        sides.insert(1, ours(opts.before.resolve(), "ours before"))
    figures: dict[str, dict[str, Any]] = {side.name: {} for side in sides}
    try:
        # Each figure is taken for both sides back to back, so both see the same load on this machine.
        for side in sides:
            figures[side.name]["warm"] = starts(side, runs, cold=False)
        for side in sides:
            figures[side.name]["cold"] = starts(side, runs, cold=True)
        for name, taken in one_chat(sides, calls, rounds).items():
            figures[name]["one"] = taken
        for side in sides:
            side.stop_daemon()
        for side in sides:
            figures[side.name]["eight"] = many_chats(side, 8, seconds)
            side.stop_daemon()
        floors = one_chat([floor(), floor(bridged=True)], calls, rounds)
        harness, plugin_hop = (taken["execute"] for taken in floors.values())
    finally:
        for side in sides:
            for step in side.cleanup:
                step()
    others = [side.name for side in sides if side.name != "reference"]
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; reference {REFERENCE} {REFERENCE_VERSION}")
    print(f"{'figure':<50} {'unit':<6} {'reference':>10}" + "".join(f" {name:>12} {'× ref':>6}" for name in others))
    for name, unit, better, values in table(figures):
        cells = "".join(
            f" {values[other]:>12.4g} {ratio(values['reference'], values[other], better):>6.2f}" for other in others
        )
        print(f"{name:<50} {unit:<6} {values['reference']:>10.4g}{cells}")
    print(
        f"harness floor (the same client against a stdio server that answers at once, bench/instant_server.py): "
        f"execute p50 {pct(harness, 0.5):.3g} ms, p99 {pct(harness, 0.99):.3g} ms; "
        f"relaying each call to the reference's fake plugin (--bridge): "
        f"p50 {pct(plugin_hop, 0.5):.3g} ms, p99 {pct(plugin_hop, 0.99):.3g} ms"
    )
    if opts.json:
        opts.json.write_text(json.dumps(figures))


if __name__ == "__main__":
    main()
