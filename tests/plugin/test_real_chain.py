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


async def test_half_an_emoji_reaches_the_caller_as_a_replacement_character(
    daemon: DaemonProcess, shim_params: StdioServerParameters
) -> None:
    """A user's own slice can cut an emoji in two; the frame carrying it must not be lost."""
    plugin = RealPlugin.start(daemon.env, file_key="emojiFile", file_name="Emoji File")
    try:
        async with Client(shim_params) as client:
            cut = await client.call_tool("design_execute", {"code": "return 'Title 😀'.slice(0, 7);"})
            assert cut.is_error is False, cut.content[0].text
            assert data(cut)["result"] == "Title \ufffd"
            whole = await client.call_tool(
                "design_execute", {"code": "console.log('ok 😀 ' + 'x😀'.slice(0, 2)); return 'a😀';"}
            )
            assert data(whole)["result"] == "a😀"
            logs = data(await client.call_tool("design_get_console_logs", {}))["logs"]
            assert logs[-1]["message"] == "ok 😀 x\ufffd"
    finally:
        plugin.stop()
