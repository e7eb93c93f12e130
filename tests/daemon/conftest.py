"""Fixtures for daemon tests: a bridge on a free port range and fake plugins that are closed afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fakes.bridge import TOKEN, BridgeFactory, PluginFactory, make_config
from fakes.fake_plugin import FakePlugin
from helpers import free_port_range

from design_console import PLUGIN_VERSION, __version__
from design_console.daemon.bridge import Bridge
from design_console.daemon.state import State


@pytest.fixture
def port_range() -> int:
    """The first of ten consecutive free ports."""
    return free_port_range(10)


@pytest.fixture
async def make_bridge(tmp_path: Path, port_range: int) -> AsyncIterator[BridgeFactory]:
    """Start bridges (``await make_bridge(grace=0.2, DESIGN_BRIDGE_AUTH="off")``); all are closed at the end."""
    bridges: list[Bridge] = []

    async def factory(*, token: str = TOKEN, **options: Any) -> Bridge:
        env = {k: v for k, v in options.items() if k.isupper()}
        kwargs = {k: v for k, v in options.items() if not k.isupper()}
        config = make_config(tmp_path, port_range, **env)
        bridge = Bridge(
            config,
            token=token,
            server_version=__version__,
            plugin_version=PLUGIN_VERSION,
            state=State(config),
            **kwargs,
        )
        await bridge.start()
        bridges.append(bridge)
        return bridge

    yield factory
    for bridge in bridges:
        await bridge.close()


@pytest.fixture
async def bridge(make_bridge: BridgeFactory) -> Bridge:
    """A bridge with default settings but a short grace period."""
    return await make_bridge(grace=0.3)


@pytest.fixture
async def connect_plugin() -> AsyncIterator[PluginFactory]:
    """Connect fake plugins (``await connect_plugin(bridge, file_key="A")``); all are closed at the end."""
    plugins: list[FakePlugin] = []

    async def factory(bridge: Bridge, *, token: str = TOKEN, **options: Any) -> FakePlugin:
        assert bridge.port is not None
        plugin = FakePlugin(bridge.port, token, **options)
        plugins.append(plugin)
        await plugin.open()
        return plugin

    yield factory
    for plugin in plugins:
        await plugin.close()
