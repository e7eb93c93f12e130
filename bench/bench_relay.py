"""Figures of the Remote Mode relay beside designd's local bridge: the round trip of ``design_execute`` with the real
plugin (1) on designd's bridge, called through the stdio server, (2) through the relay with the plugin on the AI
client's instance and (3) on the other one (the call then crosses Redis pub/sub twice); then the pairing redemption
race (100 sockets presenting one code at once, half on each instance).

Run: ``.venv/bin/python bench/bench_relay.py [--calls 300] [--races 5]``. It starts designd with the plugin in a
throwaway HOME, then the fake design API, a fake design platform, redis-server, two ``design-console-remote``
instances and the shipped plugin (ui.html in jsdom, code.js in node) on free localhost ports, signs a user in through
the real OAuth flow, prints the figures side by side and stops everything.

Every process of a round trip runs on this machine, so each row's time includes the CPU of the AI client, the
serving side and the plugin, however loaded the machine is: a second table gives each one's CPU time per call (the
serving side is the stdio server, designd and its workers for the local bridge, the instances for the relay), which
a shared machine's load does not skew.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx2
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.api_server import api_process  # noqa: E402
from fakes.real_plugin import RealPlugin, installation_with_plugin  # noqa: E402
from fakes.relay_client import redeem  # noqa: E402
from fakes.remote import (  # noqa: E402
    RemoteServer,
    fake_platform,
    oauth_env,
    redis_server,
    remote_env,
    running_remote,
    sign_in,
)
from helpers import free_port_range  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from procs import BIN, processes_of  # noqa: E402

from design_console.daemon.plugin_sync import render_plugin_file  # noqa: E402

WARM_UP = 10
CODE = "return figma.currentPage.name;"


def _p50_p99(latencies: list[float]) -> tuple[float, float]:
    ordered = sorted(latencies)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000


def _figures(name: str, latencies: list[float]) -> str:
    p50, p99 = _p50_p99(latencies)
    return f"{name}: p50 {p50:6.1f} ms, p99 {p99:6.1f} ms ({len(latencies)} calls)"


#: CPU milliseconds per call of the AI client (this process), the serving side and the plugin, by row label.
CPU: dict[str, tuple[float, float, float]] = {}


def _cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            times = proc.cpu_times()
            total += times.user + times.system
    return total


def _plugins() -> list[psutil.Process]:
    """The plugin windows this bench started (node processes)."""
    return [proc for proc in psutil.Process().children(recursive=True) if proc.name().startswith("node")]


async def _timed(client: Client, calls: int, label: str, serving: list[psutil.Process]) -> list[float]:
    latencies: list[float] = []
    plugins = _plugins()
    for number in range(calls + WARM_UP):
        if number == WARM_UP:  # the first calls warm the session and the connections
            before = (time.process_time(), _cpu_seconds(serving), _cpu_seconds(plugins))
        started = time.perf_counter()
        result = await client.call_tool("design_execute", {"code": CODE})
        if result.is_error:
            raise RuntimeError(result.content[0].text)  # type: ignore[union-attr]
        if number >= WARM_UP:
            latencies.append(time.perf_counter() - started)
    after = (time.process_time(), _cpu_seconds(serving), _cpu_seconds(plugins))
    client_ms, serving_ms, plugin_ms = ((end - start) * 1000 / calls for start, end in zip(before, after, strict=True))
    CPU[label] = (client_ms, serving_ms, plugin_ms)
    return latencies


async def local_round_trips(calls: int, label: str) -> list[float]:
    """``design_execute`` through the stdio server, designd and its bridge, to the same shipped plugin."""
    with installation_with_plugin(file_key="benchFile", file_name="Bench File") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client:
            # The stdio server is up once the session is: it, designd and the workers are the serving side.
            return await _timed(client, calls, label, processes_of(env))


def side_by_side(rows: list[tuple[str, list[float]]]) -> None:
    """The round trips in one table; each relay row also says how much it adds to the local bridge's p50."""
    local = _p50_p99(rows[0][1])[0]
    print(f"{'design_execute round trip':<44} {'p50':>8} {'p99':>8} {'p50 vs local':>13}")
    for label, latencies in rows:
        p50, p99 = _p50_p99(latencies)
        extra = "" if label == rows[0][0] else f"{p50 - local:+10.1f} ms"
        print(f"{label:<44} {p50:5.1f} ms {p99:5.1f} ms {extra:>13}")


def cpu_table() -> None:
    """The CPU time per call of each process of the round trips, by row."""
    print(f"{'CPU time per call':<44} {'AI client':>10} {'serving':>10} {'plugin':>10}")
    for label, (client_ms, serving_ms, plugin_ms) in CPU.items():
        print(f"{label:<44} {client_ms:7.2f} ms {serving_ms:7.2f} ms {plugin_ms:7.2f} ms")


async def _pair_code(server: RemoteServer, token: str) -> str:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as client:
        result = await client.call_tool("design_pair_plugin", {})
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text.split('"code":"', 1)[1][:6]


async def round_trips(
    server: RemoteServer, token: str, calls: int, label: str, instances: tuple[RemoteServer, ...]
) -> list[float]:
    """``design_execute`` over ``/mcp`` of ``server`` through the relay to the paired plugin (``instances``: the
    serving side)."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as client:
        return await _timed(client, calls, label, [psutil.Process(each.proc.pid) for each in instances])


async def _attempt(server: RemoteServer, code: str) -> tuple[str, float]:
    started = time.perf_counter()
    answer = await redeem(server.url, code)
    return answer["type"], time.perf_counter() - started


async def races(servers: tuple[RemoteServer, RemoteServer], token: str, count: int) -> None:
    walls: list[float] = []
    attempts: list[float] = []
    for _ in range(count):
        code = await _pair_code(servers[0], token)

        started = time.perf_counter()
        results = await asyncio.gather(*(_attempt(servers[i % 2], code) for i in range(100)))
        walls.append(time.perf_counter() - started)
        attempts += [seconds for _, seconds in results]
        winners = sum(1 for kind, _ in results if kind == "PAIRED")
        if winners != 1:
            raise RuntimeError(f"{winners} redemptions of one code succeeded")
    print(
        f"redemption race, 100 sockets on two instances, {count} races: exactly 1 winner each; "
        f"all 100 answered in p50 {statistics.median(walls) * 1000:.0f} ms (max {max(walls) * 1000:.0f} ms)"
    )
    print(_figures("  one attempt (connect, redeem or refuse, close)", attempts))


async def main(calls: int, race_count: int) -> None:
    local = "local bridge (stdio server, designd)"
    rows = [(local, await local_round_trips(calls, local))]
    with (
        api_process() as api_url,
        fake_platform() as platform,
        redis_server() as redis_url,
        tempfile.TemporaryDirectory(prefix="dc-bench-relay-") as tmp,
    ):
        root = Path(tmp)
        # Warnings only: the servers' stderr is a pipe nobody reads while the bench runs, and a line per socket of a
        # few hundred races would fill it.
        shared = {
            **oauth_env(platform),
            "DESIGN_REMOTE_STORE": redis_url,
            "DESIGN_RELAY_PAIR_ATTEMPTS": "100000",
            "LOG_LEVEL": "warning",
        }
        first_env = remote_env(root / "a", api_url, **shared)
        second_env = remote_env(root / "b", api_url, **shared)
        second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
        with running_remote(first_env) as first, running_remote(second_env) as second:
            _, tokens = sign_in(first, platform, "4242")
            token = tokens["access_token"]
            first_port = free_port_range(10)
            ports = range(first_port, first_port + 10)
            html = root / "ui.html"
            source = (ROOT / "plugin" / "ui.html").read_text(encoding="utf-8")
            relay_url = first.url.replace("http://", "ws://")
            html.write_text(render_plugin_file("ui.html", source, token="x" * 43, relay_url=relay_url, ports=ports))
            plugin = RealPlugin.open(html, ports, "figma", "benchFile", "Bench File")
            try:
                plugin.pair(await _pair_code(first, token))
                plugin.wait_window(lambda w: w["cloud"]["state"] == "paired", "pair")
                same, other = "relay, plugin on the same instance", "relay, plugin on the other instance (Redis)"
                rows.append((same, await round_trips(first, token, calls, same, (first,))))
                rows.append((other, await round_trips(second, token, calls, other, (first, second))))
            finally:
                plugin.stop()
            side_by_side(rows)
            cpu_table()
            await races((first, second), token, race_count)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--races", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(main(options.calls, options.races))
