"""Figures of Remote Mode: ``/mcp`` tools/list and a design API tool call with 50 concurrent clients, on one instance
(SQLite) and on two behind one Redis; and the design platform refreshes for 100 concurrent calls of one user.

Run: ``.venv/bin/python bench/bench_remote.py [--seconds 10] [--clients 50]``. It starts the fake design API (a
process), a fake design platform OAuth server, redis-server and the installed ``design-console-remote`` instances on
free localhost ports, signs users in through the real OAuth flow, prints the figures and stops everything. The load
comes from this one process (the SDK's client), so on a small machine it competes with the servers for CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import os
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
from fakes.design_api import ENTERPRISE_KEY  # noqa: E402
from fakes.remote import (  # noqa: E402
    FakePlatform,
    RemoteServer,
    fake_platform,
    oauth_env,
    redis_server,
    remote_env,
    running_remote,
    sign_in,
)
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


def _figures(name: str, latencies: list[float], seconds: float) -> str:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"{name}: {len(ordered) / seconds:7.0f} req/s, p50 {statistics.median(ordered) * 1000:6.1f} ms, "
        f"p99 {p99 * 1000:6.1f} ms ({len(ordered)} calls)"
    )


async def _client(url: str, token: str, until: float, lists: list[float], calls: list[float]) -> None:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy") as client:
        while time.monotonic() < until:
            started = time.perf_counter()
            await client.list_tools()
            lists.append(time.perf_counter() - started)
            started = time.perf_counter()
            result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
            calls.append(time.perf_counter() - started)
            if result.is_error:
                raise RuntimeError(result.content[0].text)  # type: ignore[union-attr]


async def load(label: str, servers: list[RemoteServer], tokens: list[str], clients: int, seconds: float) -> None:
    lists: list[float] = []
    calls: list[float] = []
    procs = [psutil.Process(server.proc.pid) for server in servers]
    me = psutil.Process()
    cpu_before = [_cpu(proc) for proc in procs], _cpu(me)
    until = time.monotonic() + seconds
    started = time.monotonic()
    await asyncio.gather(
        *(_client(servers[i % len(servers)].url, tokens[i % len(tokens)], until, lists, calls) for i in range(clients))
    )
    took = time.monotonic() - started
    servers_cpu = sum(_cpu(proc) - before for proc, before in zip(procs, cpu_before[0], strict=True))
    print(f"{label}, {clients} clients:")
    print("  " + _figures("tools/list          ", lists, took))
    print("  " + _figures("design API tool call", calls, took))
    generator_cpu = _cpu(me) - cpu_before[1]
    print(
        f"  CPU: servers {servers_cpu / took * 100:.0f} %, load generator {generator_cpu / took * 100:.0f} %"
        f" (of one core; machine load average {os.getloadavg()[0]:.1f})"
    )


def _cpu(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return float(times.user + times.system)


async def refresh_once(server: RemoteServer, platform: FakePlatform) -> None:
    platform.expires_in = 5
    _, tokens = sign_in(server, platform, "bench-refresh")
    platform.expires_in = 3600
    before = platform.refreshes
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=60)
    target = streamable_http_client(f"{server.url}/mcp", http_client=http)
    async with http, Client(target, mode="legacy") as client:
        started = time.perf_counter()
        results = await asyncio.gather(
            *(client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY}) for _ in range(100))
        )
        took = time.perf_counter() - started
    failed = sum(1 for r in results if r.is_error)
    print(
        f"token refresh: 100 concurrent calls of one user with an expiring platform token: "
        f"{platform.refreshes - before} upstream refresh(es), {failed} failed, all answered in {took * 1000:.0f} ms"
    )


async def main(seconds: float, clients: int) -> None:
    with api_process() as api_url, fake_platform() as platform, tempfile.TemporaryDirectory() as root:
        env = remote_env(Path(root) / "one", api_url, LOG_LEVEL="warn", **oauth_env(platform))
        with running_remote(env) as server:
            tokens = [sign_in(server, platform, f"bench-{i}")[1]["access_token"] for i in range(5)]
            await load("one instance, SQLite store", [server], tokens, clients, seconds)
            await refresh_once(server, platform)
        with redis_server() as redis_url:
            shared = {"DESIGN_REMOTE_STORE": redis_url, "LOG_LEVEL": "warn", **oauth_env(platform)}
            first_env = remote_env(Path(root) / "a", api_url, **shared)
            second_env = remote_env(Path(root) / "b", api_url, **shared)
            second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
            with running_remote(first_env) as first, running_remote(second_env) as second:
                tokens = [sign_in(first, platform, f"bench-{i}")[1]["access_token"] for i in range(5)]
                await load("two instances, one Redis", [first, second], tokens, clients, seconds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=50)
    opts = parser.parse_args()
    asyncio.run(main(opts.seconds, opts.clients))
