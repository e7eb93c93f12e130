"""DESIGN_TOOLSETS=auto through the real shim, designd and the MCP SDK's client: a chat starts with the core
toolset and design_toolsets, enables a toolset, hears list_changed, and can call any tool by name meanwhile."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from mcp import Client, StdioServerParameters
from procs import BIN, isolated, make_env, running_daemon

from design_console.tools import catalog


async def test_a_session_enables_a_toolset_and_is_told_its_list_changed() -> None:
    tools = catalog()
    core = {name for name, spec in tools.items() if spec.toolset == "core"}
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", "") == "notifications/tools/list_changed":
            changed.set()

    for env in isolated(make_env(DESIGN_TOOLSETS="auto")):
        for _ in running_daemon(env):
            params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env), cwd=os.getcwd())
            async with Client(params, mode="legacy", message_handler=on_message) as client:
                first = {tool.name for tool in (await client.list_tools()).tools}
                assert first == core | {"design_toolsets"}
                status = await client.call_tool("design_get_file_versions", {})
                assert "design_get_file_versions" not in first and "no file" in status.content[0].text.lower()
                enabled = await client.call_tool("design_toolsets", {"enable": "write"})
                assert json.loads(enabled.content[0].text)["listChanged"] is True
                await asyncio.wait_for(changed.wait(), 10)
                now = {tool.name for tool in (await client.list_tools()).tools}
                assert now == first | {n for n, s in tools.items() if s.toolset == "write"}
