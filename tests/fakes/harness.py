"""A real designd Bridge on free ports with the fake plugin connected to it, for tests of the tools that read the
file through the plugin (design-system, component details and analysis): the plugin answers with payloads shaped
like the Desktop Bridge plugin's, and EXECUTE_CODE scripts run by the plugin's own executeCode in Node.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from helpers import free_port_range, wait_until

from design_console import PLUGIN_VERSION, __version__
from design_console.config import Config
from design_console.daemon.bridge import Bridge
from design_console.daemon.state import State
from design_console.protocol import ToolOutput
from design_console.tools import manifest
from fakes.bridge import TOKEN, make_config
from fakes.context import FakeContext
from fakes.fake_plugin import FakePlugin
from fakes.plugin_payloads import (
    FILE_KEY,
    analysis_reply,
    deep_reply,
    design_file,
    library,
    run_in_plugin,
    variables_snapshot,
)


def size(out: ToolOutput) -> int:
    """The length of a result's text, to hold it to a ``maxTokens`` budget."""
    return len(out.content[0].text)


class Harness:
    """A real Bridge with the fake plugin connected to it, and the tool context whose bridge it is."""

    def __init__(self, config: Config, bridge: Bridge) -> None:
        self.config = config
        self.real_bridge = bridge
        self.ctx = FakeContext(config, plugin=bridge.command)
        self.plugin: FakePlugin | None = None
        self.library = library()

    async def connect(self, **answers: Any) -> FakePlugin:
        """Connect the fake plugin in FILE_KEY with handlers answering the design-system methods."""
        assert self.real_bridge.port is not None
        plugin = FakePlugin(self.real_bridge.port, TOKEN, file_key=FILE_KEY, file_name="Design System")
        plugin.handlers.update(
            {
                "GET_LOCAL_COMPONENTS": lambda p, params: answers.get("components", design_file()),
                "GET_VARIABLES_DATA": lambda p, params: answers.get("variables", variables_snapshot()),
                "DEEP_GET_COMPONENT": lambda p, params: deep_reply(params),
                "ANALYZE_COMPONENT_SET": lambda p, params: analysis_reply(params),
                "EXECUTE_CODE": lambda p, params: run_in_plugin(params, self.library),
            }
        )
        self.plugin = plugin
        await plugin.open()
        await wait_until(lambda: self.real_bridge.active_file_key() == FILE_KEY, what="the plugin's FILE_INFO")
        self.ctx.active_file_key = FILE_KEY
        return plugin

    def sent(self, method: str) -> list[dict[str, Any]]:
        """The params of every command of ``method`` the plugin received."""
        assert self.plugin is not None
        return [c["params"] for c in self.plugin.commands if c["method"] == method]

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolOutput:
        """Run the tool as the api worker does (a DesignError becomes an error result)."""
        return await self.ctx.call(name, arguments)


@asynccontextmanager
async def bridge_harness(tmp_path: Path) -> AsyncIterator[Harness]:
    """A started Bridge in ``tmp_path`` and its harness, with the design-system manifest cache empty before and
    after; the plugin (if connected) and the bridge are closed at the end."""
    config = make_config(tmp_path, free_port_range(10))
    bridge = Bridge(config, token=TOKEN, server_version=__version__, plugin_version=PLUGIN_VERSION, state=State(config))
    await bridge.start()
    manifest.MANIFESTS.clear()
    h = Harness(config, bridge)
    try:
        yield h
    finally:
        manifest.MANIFESTS.clear()
        if h.plugin is not None:
            await h.plugin.close()
        await bridge.close()
