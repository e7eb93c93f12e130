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

Each path is driven by two AI clients: the MCP SDK's ``Client`` (over stdio, and over Streamable HTTP), and a lean
client that writes each JSON-RPC request and reads its answer with nothing in between (a line on the stdio server's
pipes; a prepared HTTP/1.1 POST on one kept-alive connection, its answer read by its Content-Length). The SDK's
Streamable HTTP client costs several times the CPU of its stdio client per call, which the first rows charge to the
relay; the lean rows show what the serving side adds. A lean row with a connection per call shows what a client
that cannot keep its connection costs the serving side (the SDK's client drops it after every event-stream answer,
which it leaves before the end of the body; the lean path answers it in JSON instead).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

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


#: One call of ``design_execute`` by some AI client; raises when the tool answered an error.
Call = Callable[[], Awaitable[None]]

#: The lean clients' request, the same every time (ids need not differ: one request is in flight at once).
REQUEST = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "design_execute", "arguments": {"code": CODE}},
}
REQUEST_BYTES = json.dumps(REQUEST).encode()
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def sdk_call(client: Client) -> Call:
    """``design_execute`` through the MCP SDK's client."""

    async def call() -> None:
        result = await client.call_tool("design_execute", {"code": CODE})
        if result.is_error:
            raise RuntimeError(result.content[0].text)  # type: ignore[union-attr]

    return call


def _checked(answer: dict[str, Any]) -> None:
    if "error" in answer or answer["result"].get("isError"):
        raise RuntimeError(json.dumps(answer)[:300])


async def _timed(call: Call, calls: int, label: str, serving: list[psutil.Process]) -> list[float]:
    latencies: list[float] = []
    plugins = _plugins()
    for number in range(calls + WARM_UP):
        if number == WARM_UP:  # the first calls warm the session and the connections
            before = (time.process_time(), _cpu_seconds(serving), _cpu_seconds(plugins))
        started = time.perf_counter()
        await call()
        if number >= WARM_UP:
            latencies.append(time.perf_counter() - started)
    after = (time.process_time(), _cpu_seconds(serving), _cpu_seconds(plugins))
    client_ms, serving_ms, plugin_ms = ((end - start) * 1000 / calls for start, end in zip(before, after, strict=True))
    CPU[label] = (client_ms, serving_ms, plugin_ms)
    return latencies


async def local_round_trips(calls: int, labels: tuple[str, str]) -> list[tuple[str, list[float]]]:
    """``design_execute`` through the stdio server, designd and its bridge, to the same shipped plugin: with the
    SDK's client, then with the lean one."""
    with installation_with_plugin(file_key="benchFile", file_name="Bench File") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client:
            # The stdio server is up once the session is: it, designd and the workers are the serving side.
            sdk = await _timed(sdk_call(client), calls, labels[0], processes_of(env))
        shim = await asyncio.create_subprocess_exec(
            str(BIN / "design-console-mcp"),
            env=dict(env.env),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert shim.stdin is not None and shim.stdout is not None
        reader, writer = shim.stdout, shim.stdin

        async def exchange(message: bytes) -> dict[str, Any]:
            writer.write(message + b"\n")
            return json.loads(await reader.readline())  # type: ignore[no-any-return]

        async def call() -> None:
            _checked(await exchange(REQUEST_BYTES))

        try:
            await exchange(json.dumps(INITIALIZE).encode())
            writer.write(json.dumps(INITIALIZED).encode() + b"\n")
            lean = await _timed(call, calls, labels[1], processes_of(env))
        finally:
            writer.close()
            await shim.wait()
        return [(labels[0], sdk), (labels[1], lean)]


def side_by_side(rows: list[tuple[str, list[float]]]) -> None:
    """The round trips in one table, a block per AI client; each relay row also says how much it adds to the local
    bridge's p50 with the same client."""
    print(f"{'design_execute round trip':<68} {'p50':>8} {'p99':>8} {'p50 vs local':>13}")
    local = 0.0
    for label, latencies in rows:
        p50, p99 = _p50_p99(latencies)
        if label.startswith("local"):
            local = p50
        extra = "" if label.startswith("local") else f"{p50 - local:+10.1f} ms"
        print(f"{label:<68} {p50:5.1f} ms {p99:5.1f} ms {extra:>13}")


def cpu_table() -> None:
    """The CPU time per call of each process of the round trips, by row."""
    print(f"{'CPU time per call':<68} {'AI client':>10} {'serving':>10} {'plugin':>10}")
    for label, (client_ms, serving_ms, plugin_ms) in CPU.items():
        print(f"{label:<68} {client_ms:7.2f} ms {serving_ms:7.2f} ms {plugin_ms:7.2f} ms")


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
        return await _timed(sdk_call(client), calls, label, [psutil.Process(each.proc.pid) for each in instances])


def _answer(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC answer of a POST, sent as JSON or as one event of an event stream."""
    response.raise_for_status()
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = next(line for line in response.text.splitlines() if line.startswith("data:"))
        return json.loads(data[5:])  # type: ignore[no-any-return]
    return response.json()  # type: ignore[no-any-return]


async def lean_round_trips(
    server: RemoteServer,
    token: str,
    calls: int,
    label: str,
    instances: tuple[RemoteServer, ...],
    *,
    fresh: bool = False,
) -> list[float]:
    """``design_execute`` over ``/mcp`` of ``server`` by a client that writes each POST on one kept-alive connection
    and reads its answer, with no HTTP library on the way of a call (the session is opened with one). ``fresh``: a
    new connection for each call, as the SDK's client has after an event-stream answer (it closes one as soon as it
    holds the result, before the end of the body, so its HTTP library drops the connection)."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(base_url=server.url, headers=headers, timeout=60) as http:
        opened = await http.post("/mcp", json=INITIALIZE)
        _answer(opened)
        session = opened.headers["mcp-session-id"]
        version = INITIALIZE["params"]["protocolVersion"]  # type: ignore[index]
        (await http.post("/mcp", json=INITIALIZED, headers={"mcp-session-id": session})).raise_for_status()
    url = httpx2.URL(server.url)
    post = (
        f"POST /mcp HTTP/1.1\r\nHost: {url.host}:{url.port}\r\nAuthorization: Bearer {token}\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
        f"mcp-session-id: {session}\r\nmcp-protocol-version: {version}\r\n"
        f"Content-Length: {len(REQUEST_BYTES)}\r\n\r\n"
    ).encode() + REQUEST_BYTES
    reader, writer = await asyncio.open_connection(url.host, url.port)

    async def call() -> None:
        nonlocal reader, writer
        if fresh:
            writer.close()
            reader, writer = await asyncio.open_connection(url.host, url.port)
        writer.write(post)
        head = await reader.readuntil(b"\r\n\r\n")
        status, *lines = head.decode("latin-1").split("\r\n")
        fields = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines if line)}
        if " 200 " not in status or "content-length" not in fields:
            raise RuntimeError(f"{status} {fields}: expected one answer of known length")
        body = await reader.readexactly(int(fields["content-length"]))
        if fields.get("content-type", "").startswith("text/event-stream"):
            body = next(line for line in body.splitlines() if line.startswith(b"data:"))[5:]
        _checked(json.loads(body))

    try:
        return await _timed(call, calls, label, [psutil.Process(each.proc.pid) for each in instances])
    finally:
        writer.close()


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
    local = ("local bridge (stdio server, designd), SDK client", "local bridge (stdio server, designd), lean client")
    sdk_rows, lean_rows = ([row] for row in await local_round_trips(calls, local))
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
                sdk_rows.append((same, await round_trips(first, token, calls, same, (first,))))
                sdk_rows.append((other, await round_trips(second, token, calls, other, (first, second))))
                lean_same, lean_other = f"{same}, lean client", f"{other}, lean client"
                lean_rows.append((lean_same, await lean_round_trips(first, token, calls, lean_same, (first,))))
                fresh_same = f"{same}, lean client, a connection per call"
                lean_rows.append(
                    (fresh_same, await lean_round_trips(first, token, calls, fresh_same, (first,), fresh=True))
                )
                lean_rows.append(
                    (lean_other, await lean_round_trips(second, token, calls, lean_other, (first, second)))
                )
            finally:
                plugin.stop()
            side_by_side(sdk_rows + lean_rows)
            cpu_table()
            await races((first, second), token, race_count)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--races", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(main(options.calls, options.races))
