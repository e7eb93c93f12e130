"""Fixtures shared by every test that runs real designd processes."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
from fakes.fake_plugin import FakePlugin
from mcp import StdioServerParameters
from procs import BIN, DaemonProcess, TestEnv, isolated, make_env, running_daemon


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
