"""The shipped plugin (ui.html + code.js in node) driven by an MCP client through the shim and designd."""

from __future__ import annotations

import json
from typing import Any

from fakes.real_plugin import RealPlugin
from mcp import Client, StdioServerParameters
from procs import DaemonProcess


def data(result: Any) -> Any:
    assert result.content, result
    return json.loads(result.content[0].text)


async def test_code_runs_in_the_real_plugin_and_reads_the_document(
    daemon: DaemonProcess, shim_params: StdioServerParameters
) -> None:
    plugin = RealPlugin.start(daemon.env, file_key="realFile", file_name="Real File")
    try:
        async with Client(shim_params) as client:
            status = data(await client.call_tool("design_get_status", {}))
            assert status["bridge"]["file"]["key"] == "realFile"
            made = await client.call_tool(
                "design_execute",
                {"code": "const r = figma.createRectangle(); r.name = 'Made here'; return r.id;"},
            )
            assert made.is_error is False, made
            node_id = data(made)["result"]
            found = await client.call_tool(
                "design_execute", {"code": f"return (await figma.getNodeByIdAsync({json.dumps(node_id)})).name;"}
            )
            assert data(found)["result"] == "Made here"
    finally:
        plugin.stop()
