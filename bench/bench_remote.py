"""Figures of Remote Mode beside its floor, in one run on one machine: ``tools/list`` over ``/mcp`` with 50
connections (requests/s against the floor's, and p99), ``tools/list`` over ``/sse`` (each connection its own session:
a POST, then its answer read off the session's stream), a design-API-backed read answered from the client's cache
against the floor's ``tools/list``, two instances behind one Redis against one, and the design platform refreshes
for 100 concurrent calls of one user.

The floor is ``bench/floor_app.py``: a bare Starlette app on the same uvicorn settings that checks a bearer token and
a session and returns the same ``tools/list`` body. Goals: ``tools/list`` at least 0.3 of the floor with p99 under
100 ms; the cached read at least 0.2 of the floor; two instances at least 1.7 times one (each pinned to a core of its
own when the machine has two; the load generator then shares them, so on a 2-core machine this is a lower bound).

Run: ``.venv/bin/python bench/bench_remote.py [--seconds 10] [--connections 50]``. It starts the fake design API, a
fake design platform OAuth server, redis-server, the floor and the installed ``design-console-remote`` instances on
free localhost ports, signs a user in through the real OAuth flow, prints the figures and stops everything. The load
comes from ``wrk`` in a process of its own (Debian/Ubuntu: ``apt-get install wrk``; macOS: ``brew install wrk``);
without it a Python load process stands in, which needs a core of its own to load the floor fully. ``/sse`` is always
loaded by the Python process: wrk cannot read an answer off another connection's stream.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import h11
import httpx
import httpx2
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import fakes.remote  # noqa: E402
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
from helpers import free_port_range  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

# A server starting on a machine busy with other work can take longer than the tests allow.
fakes.remote.START_TIMEOUT = 180.0

VERSION = "2025-11-25"
LIST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
READ = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "design_get_file_versions", "arguments": {"fileUrl": ENTERPRISE_KEY}},
    }
)


@dataclass
class Figures:
    """What one load run measured."""

    rate: float
    p99_ms: float
    failed: int
    #: The server's CPU time per request, in ms: what carries over to a machine with nothing else to do.
    cpu_ms: float = 0.0

    def __str__(self) -> str:
        failed = f", {self.failed} failed" if self.failed else ""
        cpu = f", {self.cpu_ms:4.2f} ms CPU/req" if self.cpu_ms else ""
        return f"{self.rate:7.0f} req/s, p99 {self.p99_ms:6.1f} ms{cpu}{failed}"


def _headers(token: str, session: str) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {token}",
        "Mcp-Session-Id": session,
        "Mcp-Protocol-Version": VERSION,
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }


def open_session(url: str, token: str) -> str:
    """A session opened as an MCP client opens one."""
    client = {"name": "bench", "version": "1"}
    opening = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": client},
    }
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    opened = httpx.post(f"{url}/mcp", json=opening, headers=headers, timeout=30)
    opened.raise_for_status()
    session = opened.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    headers |= {"Mcp-Session-Id": session, "Mcp-Protocol-Version": VERSION}
    httpx.post(f"{url}/mcp", json=initialized, headers=headers, timeout=30).raise_for_status()
    return session


def _check(url: str, headers: dict[str, str], body: str) -> None:
    """One request before the load: it must succeed, or the figures would measure a refusal."""
    answer = httpx.post(f"{url}/mcp", content=body, headers=headers, timeout=30)
    if answer.status_code != 200 or '"isError":true' in answer.text or '"error"' in answer.text[:200]:
        raise RuntimeError(f"{url}/mcp answered {answer.status_code}: {answer.text[:300]}")


def _wrk_script(folder: Path, headers: dict[str, str], body: str) -> Path:
    lines = ['wrk.method = "POST"', f"wrk.body = {json.dumps(body)}"]
    lines += [f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}" for name, value in headers.items()]
    script = folder / f"load-{time.monotonic_ns()}.lua"
    script.write_text("\n".join(lines) + "\n")
    return script


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _wrk_figures(output: str) -> Figures:
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE)
    failed = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if rate is None or p99 is None:
        raise RuntimeError(f"wrk said:\n{output}")
    socket_errors = sum(int(n) for n in errors.groups()) if errors else 0
    return Figures(
        float(rate.group(1)),
        float(p99.group(1)) * _UNITS[p99.group(2)],
        (int(failed.group(1)) if failed else 0) + socket_errors,
    )


def start_load(url: str, headers: dict[str, str], body: str, connections: int, seconds: float, folder: Path) -> Any:
    """A load process against ``url``/mcp: wrk, or this file's Python load loop without it."""
    if shutil.which("wrk"):
        script = _wrk_script(folder, headers, body)
        threads = str(max(1, min(2, connections)))
        command = ["wrk", "-t", threads, "-c", str(connections), "-d", f"{seconds:g}s", "--timeout", "30s", "--latency"]
        command += ["-s", str(script)]
        return subprocess.Popen([*command, f"{url}/mcp"], stdout=subprocess.PIPE, text=True)
    spec = json.dumps({"url": f"{url}/mcp", "headers": headers, "body": body, "connections": connections})
    command = [sys.executable, __file__, "--load", spec, "--seconds", str(seconds)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def start_sse_load(url: str, token: str, connections: int, seconds: float) -> Any:
    """A Python load process against ``url``/sse: each connection opens a session and asks ``tools/list`` over and
    over, timing each POST until its answer arrives on the stream."""
    spec = {"url": url, "token": token, "connections": connections, "sse": True}
    command = [sys.executable, __file__, "--load", json.dumps(spec), "--seconds", str(seconds)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def finish_load(proc: Any) -> Figures:
    output, _ = proc.communicate()
    if proc.args[0] == "wrk":
        return _wrk_figures(output)
    found = json.loads(output)
    return Figures(found["rate"], found["p99_ms"], found["failed"])


def load(
    url: str, headers: dict[str, str], body: str, connections: int, seconds: float, folder: Path, pid: int
) -> Figures:
    """One load run against ``url``, with the CPU time the server process ``pid`` spent per request."""
    return _measured(pid, seconds, lambda: start_load(url, headers, body, connections, seconds, folder))


def sse_load(url: str, token: str, connections: int, seconds: float, pid: int) -> Figures:
    """One load run against ``url``/sse, with the server's CPU time per request."""
    return _measured(pid, seconds, lambda: start_sse_load(url, token, connections, seconds))


def _measured(pid: int, seconds: float, start: Callable[[], Any]) -> Figures:
    server = psutil.Process(pid)
    before = sum(server.cpu_times()[:2])
    figures = finish_load(start())
    spent = sum(server.cpu_times()[:2]) - before
    figures.cpu_ms = spent * 1000 / max(1.0, figures.rate * seconds)
    return figures


# The Python load process (used without wrk) -----------------------------------------------------------------------


async def _connection(target: str, headers: list[tuple[str, str]], body: bytes, until: float, out: list[float]) -> int:
    parts = urlsplit(target)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    failed = 0
    conn = h11.Connection(h11.CLIENT)
    request = h11.Request(method="POST", target=parts.path, headers=[("Host", parts.netloc), *headers])
    while time.monotonic() < until:
        started = time.perf_counter()
        writer.write(conn.send(request) + conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage()))
        status = 0
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await reader.read(65536))
                continue
            if isinstance(event, h11.Response):
                status = event.status_code
            if isinstance(event, h11.EndOfMessage):
                break
        out.append(time.perf_counter() - started)
        failed += status != 200
        conn.start_next_cycle()
    writer.close()
    return failed


class _SseStream:
    """A session's event stream, read raw: h11 undoes the chunking, events end at a blank line. Only the head of a
    frame is looked at (its id comes first, in our frames and the SDK's): decoding each listing would make the load
    process, not the server, the bottleneck."""

    def __init__(self, reader: asyncio.StreamReader, conn: h11.Connection) -> None:
        self.reader = reader
        self.conn = conn
        self.pending = bytearray()

    async def event(self) -> tuple[bytes, bytes]:
        searched = 0
        while (end := self.pending.find(b"\r\n\r\n", searched)) < 0:
            searched = max(0, len(self.pending) - 3)
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                self.conn.receive_data(await self.reader.read(262144))
            elif isinstance(event, h11.Data):
                self.pending += event.data
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                raise RuntimeError("the stream ended")
        block = bytes(self.pending[:end])
        del self.pending[: end + 4]
        kind = block[len(b"event: ") : block.index(b"\r\n")] if block.startswith(b"event: ") else b""
        start = block.find(b"data: ")
        return kind, block[start + len(b"data: ") :] if start >= 0 else b""


_FRAME_ID = re.compile(rb'"id":\s*(\d+)')


async def _post(
    conn: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: h11.Request, body: bytes
) -> int:
    writer.write(conn.send(request) + conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage()))
    status = 0
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            conn.receive_data(await reader.read(65536))
        elif isinstance(event, h11.Response):
            status = event.status_code
        elif isinstance(event, h11.EndOfMessage):
            conn.start_next_cycle()
            return status


async def _sse_connection(spec: dict[str, Any], until: float, out: list[float]) -> int:
    parts = urlsplit(spec["url"])
    auth = [("Host", parts.netloc), ("Authorization", f"Bearer {spec['token']}")]
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    conn = h11.Connection(h11.CLIENT)
    writer.write(conn.send(h11.Request(method="GET", target="/sse", headers=[*auth, ("Accept", "text/event-stream")])))
    writer.write(conn.send(h11.EndOfMessage()))
    stream = _SseStream(reader, conn)
    kind, endpoint = await stream.event()
    assert kind == b"endpoint", kind
    post_reader, post_writer = await asyncio.open_connection(parts.hostname, parts.port)
    post_conn = h11.Connection(h11.CLIENT)
    failed = 0

    async def ask(message: dict[str, Any]) -> bool:
        body = json.dumps(message).encode()
        headers = [*auth, ("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        request = h11.Request(method="POST", target=endpoint.decode(), headers=headers)
        if await _post(post_conn, post_reader, post_writer, request, body) != 202:
            return False
        if "id" not in message:
            return True
        while True:
            kind, data = await stream.event()
            found = _FRAME_ID.search(data, 0, 64)
            if kind == b"message" and found is not None and int(found.group(1)) == message["id"]:
                return b'"error"' not in data[:200]

    client = {"name": "bench", "version": "1"}
    params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": client}
    if not await ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}):
        raise RuntimeError("/sse refused initialize")
    await ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
    asked = 0
    while time.monotonic() < until:
        asked += 1
        started = time.perf_counter()
        answered = await ask({"jsonrpc": "2.0", "id": asked, "method": "tools/list"})
        out.append(time.perf_counter() - started)
        failed += not answered
    post_writer.close()
    writer.close()
    return failed


async def _python_load(spec: dict[str, Any], seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    until = time.monotonic() + seconds
    started = time.monotonic()
    if spec.get("sse"):
        runs = [_sse_connection(spec, until, latencies) for _ in range(spec["connections"])]
    else:
        body = spec["body"].encode()
        headers = [*spec["headers"].items(), ("Content-Length", str(len(body)))]
        runs = [_connection(spec["url"], headers, body, until, latencies) for _ in range(spec["connections"])]
    failures = await asyncio.gather(*runs)
    took = time.monotonic() - started
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else 0.0
    return {"rate": len(latencies) / took, "p99_ms": p99 * 1000, "failed": sum(failures)}


# Processes ---------------------------------------------------------------------------------------------------------


def pin(pid: int, core: int) -> None:
    """Keep process ``pid`` on one core (as ``taskset -c``), where the OS allows it."""
    if hasattr(os, "sched_setaffinity") and core < (os.cpu_count() or 1):
        os.sched_setaffinity(pid, {core})


@contextmanager
def running_floor(env: dict[str, str], token: str, session: str) -> Iterator[tuple[str, int]]:
    port = free_port_range(1)
    command = [sys.executable, str(ROOT / "bench" / "floor_app.py"), str(port), token, session]
    proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.post(f"{url}/mcp", timeout=1)
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the floor app did not start") from None
                time.sleep(0.05)
        yield url, proc.pid
    finally:
        proc.terminate()
        proc.wait(10)


def _ratio(ours: Figures, floor: Figures) -> str:
    return f"{ours.rate / floor.rate:5.2f}" if floor.rate else "  n/a"


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


def main(seconds: float, connections: int) -> None:
    loader = "wrk" if shutil.which("wrk") else "a Python load process (install wrk for the real figures)"
    print(f"load: {loader}, {connections} connections, {seconds:g} s per figure, {os.cpu_count()} cores")
    with api_process() as api_url, fake_platform() as platform, tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        env = remote_env(folder / "one", api_url, LOG_LEVEL="warn", **oauth_env(platform))
        with running_remote(env) as server:
            pin(server.proc.pid, 0)
            token = sign_in(server, platform, "bench-0")[1]["access_token"]
            session = open_session(server.url, token)
            headers = _headers(token, session)
            _check(server.url, headers, LIST)
            _check(server.url, headers, READ)
            with running_floor(env, token, session) as (floor_url, floor_pid):
                pin(floor_pid, 0)
                _check(floor_url, headers, LIST)
                floor = load(floor_url, headers, LIST, connections, seconds, folder, floor_pid)
            ours = load(server.url, headers, LIST, connections, seconds, folder, server.proc.pid)
            read = load(server.url, headers, READ, connections, seconds, folder, server.proc.pid)
            sse = sse_load(server.url, token, connections, seconds, server.proc.pid)
            print(f"{'':44} {'figures':>56}  ratio to floor")
            print(f"{'floor: bare Starlette, tools/list':44} {floor!s:>56}")
            print(f"{'ours: tools/list (goal 0.3, p99 < 100 ms)':44} {ours!s:>56}  {_ratio(ours, floor)}")
            print(f"{'ours: cached design API read (goal 0.2)':44} {read!s:>56}  {_ratio(read, floor)}")
            print(f"{'ours: /sse tools/list, answer on the stream':44} {sse!s:>56}  {_ratio(sse, floor)}")
            asyncio.run(refresh_once(server, platform))
        sdk_env = remote_env(folder / "sdk", api_url, LOG_LEVEL="warn", DESIGN_REMOTE_LEAN="0", **oauth_env(platform))
        with running_remote(sdk_env) as sdk:
            pin(sdk.proc.pid, 0)
            token = sign_in(sdk, platform, "bench-sdk")[1]["access_token"]
            sdk_headers = _headers(token, open_session(sdk.url, token))
            reference = load(sdk.url, sdk_headers, LIST, connections, seconds, folder, sdk.proc.pid)
            print(f"{'SDK alone (DESIGN_REMOTE_LEAN=0): tools/list':44} {reference!s:>56}  {_ratio(reference, floor)}")
            sdk_sse = sse_load(sdk.url, token, connections, seconds, sdk.proc.pid)
            print(f"{'SDK alone: /sse tools/list':44} {sdk_sse!s:>56}  {_ratio(sdk_sse, floor)}")
        with redis_server() as redis_url:
            shared = {"DESIGN_REMOTE_STORE": redis_url, "LOG_LEVEL": "warn", **oauth_env(platform)}
            first_env = remote_env(folder / "a", api_url, **shared)
            second_env = remote_env(folder / "b", api_url, **shared)
            second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
            with running_remote(first_env) as first, running_remote(second_env) as second:
                pin(first.proc.pid, 0)
                pin(second.proc.pid, 1)
                token = sign_in(first, platform, "bench-1")[1]["access_token"]
                first_headers = _headers(token, open_session(first.url, token))
                second_headers = _headers(token, open_session(second.url, token))
                one = load(first.url, first_headers, LIST, connections, seconds, folder, first.proc.pid)
                half = max(1, connections // 2)
                both = [
                    start_load(first.url, first_headers, LIST, half, seconds, folder),
                    start_load(second.url, second_headers, LIST, half, seconds, folder),
                ]
                a, b = (finish_load(proc) for proc in both)
                two = Figures(a.rate + b.rate, max(a.p99_ms, b.p99_ms), a.failed + b.failed)
                print(f"{'one instance on Redis: tools/list':44} {one!s:>56}")
                print(f"{'two instances on Redis: tools/list (goal 1.7)':44} {two!s:>56}  {two.rate / one.rate:5.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--load", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.load:
        print(json.dumps(asyncio.run(_python_load(json.loads(opts.load), opts.seconds))))
    else:
        main(opts.seconds, opts.connections)
