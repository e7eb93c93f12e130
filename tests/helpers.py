"""Small helpers shared by tests: free port ranges, waiting for a condition, raw HTTP requests, compiling React."""

from __future__ import annotations

import asyncio
import http.client
import random
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

WAIT_SECONDS = 10.0
#: The project's esbuild (an npm dev dependency): generated React code is compiled with it, as a user's bundler would.
ESBUILD = Path(__file__).resolve().parents[1] / "node_modules" / ".bin" / "esbuild"
#: Debian's chromium, as the browser tests run it (never a browser download of Playwright's own).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _loopbacks() -> list[tuple[socket.AddressFamily, str]]:
    families = [(socket.AF_INET, "127.0.0.1")]
    if socket.has_ipv6:
        try:
            with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
                probe.bind(("::1", 0))
            families.append((socket.AF_INET6, "::1"))
        except OSError:
            pass
    return families


def _port_free(port: int, loopbacks: list[tuple[socket.AddressFamily, str]]) -> bool:
    for family, address in loopbacks:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((address, port))
            except OSError:
                return False
    return True


def _ephemeral_start() -> int:
    """The first port the kernel hands to outgoing connections (Linux's setting; 32768 elsewhere, below macOS's)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as setting:
            return int(setting.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def free_port_range(n: int = 10) -> int:
    """The first of ``n`` consecutive TCP ports that are free on both loopbacks right now.

    Picked below the ephemeral range: a port a test binds again later (a server restarted on the same port) could
    otherwise be taken meanwhile as the local end of any outgoing connection on the machine.
    """
    loopbacks = _loopbacks()
    below = max(_ephemeral_start(), 10_000 + 2 * n) - n
    rng = random.Random()
    for _ in range(500):
        start = rng.randrange(10_000, below)
        if all(_port_free(port, loopbacks) for port in range(start, start + n)):
            return start
    raise RuntimeError(f"found no {n} consecutive free ports on the loopbacks")


async def wait_until(predicate: Callable[[], bool], timeout: float = WAIT_SECONDS, what: str = "") -> None:
    """Poll ``predicate`` until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        await asyncio.sleep(0.005)


def http_request(
    port: int, method: str = "GET", path: str = "/health", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP request to 127.0.0.1:port; returns (status, headers with lower-case names, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_SECONDS)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


async def http_request_async(
    port: int, method: str = "GET", path: str = "/health", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """:func:`http_request` off the event loop."""
    return await asyncio.to_thread(http_request, port, method, path, headers)


def compile_react(code: str, source: Path, *, module_format: str = "esm") -> str:
    """Write the React module ``code`` to ``source`` (``.tsx``), compile it with esbuild to ``module_format`` (``esm``
    or ``cjs``) and return the JavaScript.

    A compile error fails the test with esbuild's message; where esbuild is not installed the test is skipped.
    """
    if not ESBUILD.exists():
        pytest.skip("esbuild is not installed in node_modules (npm install)")
    source.write_text(code)
    done = subprocess.run(
        [str(ESBUILD), str(source), "--jsx=automatic", f"--format={module_format}", "--log-level=error"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@asynccontextmanager
async def held_in_a_task(context: AbstractAsyncContextManager[T]) -> AsyncIterator[T]:
    """Enter and exit ``context`` in one task of its own, for a fixture shared by a module's tests.

    pytest-asyncio sets a fixture up and tears it down in different tasks, and anyio's cancel scopes (inside the MCP
    SDK's clients) refuse to be left from another task than the one that entered them.
    """
    entered: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    done = asyncio.Event()

    async def hold() -> None:
        try:
            async with context as value:
                entered.set_result(value)
                await done.wait()
        except BaseException as exc:
            if not entered.done():
                entered.set_exception(exc)
            raise

    task = asyncio.create_task(hold())
    try:
        yield await entered
    finally:
        done.set()
        await task
