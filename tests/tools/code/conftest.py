"""What the design-to-code tests share: the fixture pages on a loopback port, one Chromium, and a plugin window of
its own per module in the chain's designd."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import chain_session
from fakes.real_plugin import RealPlugin
from mcp import Client
from playwright.async_api import Browser, async_playwright
from procs import DaemonProcess, TestEnv

PAGES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "web"
CHROMIUM = "/usr/bin/chromium"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The fixture pages served on a loopback port for the module."""
    handler = functools.partial(_QuietHandler, directory=str(PAGES_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """One headless Chromium for the module, without scrollbars so that screenshots compare page to page."""
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
        )
        yield launched
        await launched.close()


@pytest.fixture(scope="module")
def real_plugin(chain_daemon: DaemonProcess, request: pytest.FixtureRequest) -> Iterator[RealPlugin]:
    """A plugin window in a file named after the module (``test_from_web``: ``fromWeb``, "From Web")."""
    words = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_").split("_")
    key = words[0] + "".join(word.title() for word in words[1:])
    plugin = RealPlugin.start(chain_daemon.env, file_key=key, file_name=" ".join(words).title())
    yield plugin
    plugin.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_env: TestEnv, real_plugin: RealPlugin) -> AsyncIterator[Client]:
    """A session of the chain, its plugin window connected."""
    async with chain_session(chain_env) as session:
        yield session
