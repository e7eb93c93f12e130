"""Fixtures shared by every test: real designd processes, the fake design API, and a tool context around it."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext
from fakes.fake_plugin import FakePlugin
from mcp import StdioServerParameters
from procs import BIN, DaemonProcess, TestEnv, isolated, make_env, running_daemon

from design_console.clients.design_api import DesignApi

pytest_plugins = ["pytester", "fakes.time_limit"]


@pytest.fixture
def dc_env() -> Iterator[TestEnv]:
    """An isolated installation; fails the test if any process of it is still running at the end."""
    yield from isolated(make_env())


@pytest.fixture
def daemon(dc_env: TestEnv) -> Iterator[DaemonProcess]:
    """designd running in ``dc_env``."""
    yield from running_daemon(dc_env)


@pytest.fixture
async def plugin(daemon: DaemonProcess) -> AsyncIterator[FakePlugin]:
    """A fake Desktop Bridge plugin connected to ``daemon`` with the user's bridge token."""
    fake = await FakePlugin.connect(daemon.port, daemon.env.token, file_key="fileA", file_name="File A")
    try:
        yield fake
    finally:
        await fake.close()


@pytest.fixture
def shim_params(dc_env: TestEnv) -> StdioServerParameters:
    """How an AI app would start our stdio server in ``dc_env``."""
    return StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(dc_env.env), cwd=os.getcwd())


@pytest.fixture(scope="session")
def fake_api_server() -> Iterator[ApiServer]:
    """The spec-checking fake design API: one server for the whole run, in a thread of the test process."""
    server = ApiServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_api(fake_api_server: ApiServer) -> ApiServer:
    """The shared fake design API with a fresh fake behind it: files, comments, faults and requests start over."""
    fake_api_server.reset()
    return fake_api_server


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A design-console home of the test's own (the API client's cache and the media folder live here)."""
    path = tmp_path / "home"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
async def api(fake_api: ApiServer, home: Path) -> AsyncIterator[DesignApi]:
    """A real design API client against the fake, with the personal token."""
    client = DesignApi(fake_api.client_config(home))
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def ctx(api: DesignApi) -> FakeContext:
    """A tool context with the real client, no plugin connected and no active file."""
    return FakeContext(api.config, api=api)


@pytest.fixture(scope="module")
def chain_env() -> Iterator[TestEnv]:
    """An isolated installation shared by a module's tests of the whole chain."""
    yield from isolated(make_env())


@pytest.fixture(scope="module")
def chain_daemon(chain_env: TestEnv) -> Iterator[DaemonProcess]:
    """designd running in ``chain_env`` for the whole module."""
    yield from running_daemon(chain_env)


#: Folders whose modules each take tens of seconds (Remote Mode servers, browsers, Node suites, whole chains). A
#: parallel run hands modules out in collection order, so these, and any module with a test marked ``slow`` or
#: ``browser``, go first and the run ends on short modules instead of one worker finishing a long one alone.
LONG_MODULES_FIRST = ("remote", "plugin", "workers", "daemon", "shim", "test_cli.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the long modules first (a stable sort: each module's tests stay together and in order)."""
    tests = Path(__file__).parent
    long_modules = {
        item.path for item in items if item.get_closest_marker("slow") or item.get_closest_marker("browser")
    }

    def rank(item: pytest.Item) -> int:
        try:
            first = item.path.relative_to(tests).parts[0]
        except ValueError:
            return len(LONG_MODULES_FIRST) + 1
        if first in LONG_MODULES_FIRST:
            return LONG_MODULES_FIRST.index(first)
        return len(LONG_MODULES_FIRST) if item.path in long_modules else len(LONG_MODULES_FIRST) + 1

    items.sort(key=rank)
