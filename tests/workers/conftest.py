"""Fixtures of the api worker's tests: the fake design API as a real server, and a tool context around it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fakes.design_api import PERSONAL_TOKEN

from design_console.clients.design_api import DesignApi
from design_console.config import Config, load_config
from design_console.errors import DesignError
from design_console.protocol import ToolOutput
from design_console.tools import catalog
from design_console.tools.base import REGISTRY, failure, parse_args

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


@dataclass
class FakeServer:
    """A running fake design API process."""

    url: str
    process: subprocess.Popen[str]

    def control(self, path: str, payload: dict[str, Any] | None = None) -> Any:
        """Call one of the fake's test controls (``/_fake/...``)."""
        if payload is None and path == "requests":
            return httpx.get(f"{self.url}/_fake/requests", timeout=10).json()["requests"]
        return httpx.post(f"{self.url}/_fake/{path}", json=payload or {}, timeout=10).json()

    def requests(self) -> list[dict[str, Any]]:
        """Every /v1 request the fake saw since the last reset."""
        return self.control("requests")


def _start_fake(huge_mb: float = 0) -> FakeServer:
    process = subprocess.Popen(
        [sys.executable, "-m", "fakes.design_api", "--port", "0", "--huge-mb", str(huge_mb)],
        cwd=ROOT / "tests",
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("LISTENING "):
        process.kill()
        process.wait()
        raise RuntimeError(f"the fake design API did not start: {line!r}")
    return FakeServer(f"http://127.0.0.1:{int(line.split()[1])}", process)


def _stop(server: FakeServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    if server.process.stdout:
        server.process.stdout.close()


@pytest.fixture(scope="session")
def fake_server() -> Iterator[FakeServer]:
    """One fake design API for the whole run (state is reset before each test by ``fake_api``)."""
    server = _start_fake()
    yield server
    _stop(server)


@pytest.fixture(scope="session")
def huge_server() -> Iterator[FakeServer]:
    """A fake design API that also serves a generated 50 MB file."""
    server = _start_fake(huge_mb=50)
    yield server
    _stop(server)


@pytest.fixture
def fake_api(fake_server: FakeServer) -> FakeServer:
    """The shared fake, with no queued faults and an empty request log."""
    fake_server.control("reset")
    return fake_server


@pytest.fixture
def home() -> Iterator[Path]:
    """A temporary design-console home (its cache lives here)."""
    with tempfile.TemporaryDirectory(prefix="dc-api-") as tmp:
        yield Path(tmp)


def make_config(url: str, home: Path, token: str = PERSONAL_TOKEN) -> Config:
    """The config an api worker would load, pointed at the fake."""
    env = {"DESIGN_API_URL": url, "DESIGN_ACCESS_TOKEN": token, "DESIGN_CONSOLE_HOME": str(home), "HOME": str(home)}
    env["TMPDIR"] = os.environ.get("TMPDIR", tempfile.gettempdir())
    return load_config(env)


@pytest.fixture
async def api(fake_api: FakeServer, home: Path) -> AsyncIterator[DesignApi]:
    """A real DesignApi against the fake."""
    client = DesignApi(make_config(fake_api.url, home))
    yield client
    await client.aclose()


BridgeFn = Callable[[str, dict[str, Any], str, float], Awaitable[dict[str, Any]]]


@dataclass
class ToolContext:
    """What the api worker hands a tool handler: config, the client, the bridge and progress."""

    config: Config
    api: DesignApi
    active_file_key: str | None = None
    plugin: dict[str, Any] | None = None
    bridge_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    progress_reports: list[tuple[float, float | None, str]] = field(default_factory=list)

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        """Answer from ``plugin`` (method → reply, or a DesignError to raise); no plugin: not_connected."""
        self.bridge_calls.append((method, params or {}))
        if self.plugin is None:
            raise DesignError("not_connected", "No Desktop Bridge plugin is connected.", "Open the plugin.")
        reply = self.plugin.get(method)
        if reply is None:
            raise DesignError("bridge_error", f"Unknown method: {method}")
        if isinstance(reply, DesignError):
            raise reply
        return reply

    async def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        """Record a progress report."""
        self.progress_reports.append((progress, total, message))

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolOutput:
        """Validate the arguments and run one tool the way the worker does: a DesignError becomes an error result
        (a bad argument still raises here, so tests can match it)."""
        spec = REGISTRY[name]
        args = parse_args(spec, arguments)
        try:
            return await spec.handler(self, args)
        except DesignError as err:
            return failure(err)


@pytest.fixture
async def ctx(api: DesignApi) -> ToolContext:
    """A tool context with no plugin connected and no active file."""
    catalog()  # registers the tools
    return ToolContext(config=api.config, api=api)
