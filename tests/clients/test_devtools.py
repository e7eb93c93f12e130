"""The headless browser speaks DevTools over pipes only: while a page renders, it listens on no port, and a local
program that looks for a DevTools endpoint the way an attacker would finds none.

The probe runs in a network namespace of its own with the render (:mod:`fakes.netns`), so it asks only the
browser's sockets and never a server of another test running beside it."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import psutil
import pytest
from fakes import netns

from design_console.clients.page_render import PageReading, evaluate_in_page
from design_console.runtime.user_files import FileScope

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/net")

#: What another local user can run with the system Python and no packages: every loopback listener is asked for
#: /json/version, the DevTools discovery document that leads to the browser's WebSocket.
PROBE = r"""
import json, urllib.request
found, asked = [], 0
for table, family in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 6)):
    try:
        rows = open(table).read().splitlines()[1:]
    except OSError:
        continue
    for row in rows:
        local, state = row.split()[1], row.split()[3]
        if state != "0A":
            continue
        address, port = local.split(":")
        port = int(port, 16)
        host = "127.0.0.1" if family == 4 else "[::1]"
        if family == 4 and address != "0100007F" and address != "00000000":
            continue
        if family == 6 and address not in ("00000000000000000000000001000000", "00000000000000000000000000000000"):
            continue
        asked += 1
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/json/version", timeout=1) as reply:
                body = json.loads(reply.read())
        except Exception:
            continue
        if isinstance(body, dict) and "webSocketDebuggerUrl" in body:
            found.append(body["webSocketDebuggerUrl"])
print(json.dumps({"asked": asked, "found": found}))
"""


def _browser_tree() -> list[psutil.Process]:
    """This test process's browser and every process it started."""
    tree: list[psutil.Process] = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "design-page-" in " ".join(child.cmdline()):
                tree.append(child)
        except psutil.Error:
            continue
    return tree


def _render(html: str, script: str) -> Coroutine[Any, Any, PageReading]:
    """``html`` laid out in a small viewport, and what ``script`` resolves to there."""
    return evaluate_in_page(
        url=None, html=html, width=400, height=300, script=script, argument=None, timeout=60, scope=FileScope()
    )


@pytest.fixture
async def rendering() -> AsyncIterator[list[psutil.Process]]:
    """A page that never finishes rendering, held open while the test looks at its browser."""
    task = asyncio.create_task(_render("<h1>slow page</h1>", "() => new Promise(() => {})"))
    deadline = asyncio.get_running_loop().time() + 30
    while not (tree := _browser_tree()) or len(tree) < 2:
        assert not task.done(), task
        assert asyncio.get_running_loop().time() < deadline, "the browser never started"
        await asyncio.sleep(0.05)
    yield tree
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not _browser_tree(), "the browser outlived its render"


async def test_the_browser_listens_on_no_port(rendering: list[psutil.Process]) -> None:
    head = rendering[0]
    assert "--remote-debugging-pipe" in head.cmdline()
    assert not any(arg.startswith("--remote-debugging-port") for arg in head.cmdline())
    listening = []
    for proc in rendering:
        try:
            listening += [c for c in proc.net_connections(kind="all") if c.status == psutil.CONN_LISTEN]
        except psutil.Error:
            continue
    assert listening == []


#: Run inside the namespace: a render that never ends, the probe as a plain script (-I -S: no site packages, no
#: environment, what any local user has) once the browser is up, then the render is cancelled.
PROBE_DURING_RENDER = r"""
import asyncio, json, subprocess, sys
import psutil
from design_console.clients.page_render import PageReading, evaluate_in_page
from design_console.runtime.user_files import FileScope

PROBE = %r

async def main():
    render = asyncio.create_task(evaluate_in_page(url=None, html="<h1>slow</h1>", width=400, height=300,
        script="() => new Promise(() => {})", argument=None, timeout=60, scope=FileScope()))
    for _ in range(600):
        if len(psutil.Process().children(recursive=True)) >= 2:
            break
        await asyncio.sleep(0.05)
    probe = await asyncio.to_thread(subprocess.run, [sys.executable, "-I", "-S", "-c", PROBE],
        capture_output=True, text=True, timeout=120)
    alive = not render.done()
    render.cancel()
    print(json.dumps({"alive": alive, **json.loads(probe.stdout)}))

asyncio.run(main())
"""


def test_a_local_probe_finds_no_devtools_endpoint() -> None:
    report = netns.run([], PROBE_DURING_RENDER % PROBE)
    assert report["alive"], "the probe ran while the page rendered"
    assert report["found"] == [], report


async def test_a_long_tmpdir_does_not_keep_the_browser_from_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chromium's singleton socket lives under TMPDIR, and a socket path longer than about 104 bytes stops it."""
    long = tmp_path / ("a-temporary-folder-with-a-long-name-" * 3)
    long.mkdir()
    monkeypatch.setenv("TMPDIR", str(long))
    assert (await _render("<p>started</p>", "() => document.body.innerText")).value == "started"
