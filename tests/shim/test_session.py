"""Every issue-2 tool through the real chain: SDK client → shim (stdio) → designd → fake plugin (WebSocket)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from fakes.fake_plugin import FakePlugin
from mcp import Client, StdioServerParameters

from design_console.tools import catalog
from design_console.tools.wire.mcp import tool_definitions

MODES = ["legacy", "auto"]
SESSION_TOOLS = [
    "design_get_status",
    "design_diagnose",
    "design_reconnect",
    "design_get_console_logs",
    "design_watch_console",
    "design_clear_console",
    "design_reload_plugin",
    "design_execute",
    "design_execute_across_files",
    "design_list_open_files",
    "design_navigate",
    "design_get_selection",
    "design_get_design_changes",
]
MINIMAL_ARGS: dict[str, dict[str, Any]] = {
    "design_execute": {"code": "return 1"},
    "design_execute_across_files": {"code": "return 1", "allFiles": True},
    "design_navigate": {"url": "fileA"},
    "design_watch_console": {"duration": 1},
}


def data(result: Any) -> Any:
    assert result.content, result
    return json.loads(result.content[0].text)


@pytest.mark.parametrize("mode", MODES)
async def test_not_connected_every_tool_returns_setup_steps(
    daemon: Any, shim_params: StdioServerParameters, mode: str
) -> None:
    async with Client(shim_params, mode=mode) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert set(SESSION_TOOLS) <= listed
        status = await client.call_tool("design_get_status", {})
        report = data(status)
        assert status.is_error is False
        assert report["setup"]["valid"] is False
        assert report["bridge"]["connected"] is False
        assert any("manifest.json" in step for step in report["setup"]["steps"])
        for name in SESSION_TOOLS:
            if name in ("design_get_status", "design_diagnose"):
                continue
            result = await client.call_tool(name, MINIMAL_ARGS.get(name, {}))
            assert result.is_error, name
            text = result.content[0].text
            assert text.startswith("[design-console-mcp] No Desktop Bridge plugin is connected."), (name, text)
            assert "manifest.json" in text
            assert result.structured_content is None
        diag = data(await client.call_tool("design_diagnose", {"verbose": True}))
        assert any("No plugin connected" in cause for cause in diag["likelyCauses"])


@pytest.mark.parametrize("mode", MODES)
async def test_connected_tools(daemon: Any, plugin: FakePlugin, shim_params: StdioServerParameters, mode: str) -> None:
    async with Client(shim_params, mode=mode) as client:
        report = data(await client.call_tool("design_get_status", {"probe": True}))
        assert report["setup"]["valid"] is True
        assert report["bridge"] == {
            "connected": True,
            "port": daemon.port,
            "file": {"name": "File A", "key": "fileA", "currentPage": report["bridge"]["file"]["currentPage"]},
        }
        assert report["probe"]["ok"] is True and report["probe"]["latencyMs"] >= 0

        executed = await client.call_tool("design_execute", {"code": 'return {"answer": 42}'})
        assert data(executed) == {"success": True, "result": {"answer": 42}}
        sent = [c for c in plugin.commands if c["method"] == "EXECUTE_CODE"][-1]
        assert sent["params"] == {"code": 'return {"answer": 42}', "timeout": 5000}

        bad = await client.call_tool("design_execute", {"code": ""})
        assert bad.is_error and "code" in bad.content[0].text

        await plugin.console("log", "hello from the plugin")
        await plugin.console("error", "something broke")
        await plugin.console("warn", "careful")
        deadline = time.monotonic() + 5
        logs: dict[str, Any] = {}
        while time.monotonic() < deadline:
            logs = data(await client.call_tool("design_get_console_logs", {}))
            if logs["count"] == 3:
                break
        assert [e["message"] for e in logs["logs"]] == ["hello from the plugin", "something broke", "careful"]
        assert all(e["source"] == "design" and isinstance(e["timestamp"], int) for e in logs["logs"])
        errors = data(await client.call_tool("design_get_console_logs", {"level": "error"}))
        assert [e["message"] for e in errors["logs"]] == ["something broke"]
        newest = data(await client.call_tool("design_get_console_logs", {"count": 1}))
        assert [e["message"] for e in newest["logs"]] == ["careful"]
        since = data(await client.call_tool("design_get_console_logs", {"since": logs["logs"][1]["timestamp"]}))
        assert all(e["timestamp"] > logs["logs"][1]["timestamp"] for e in since["logs"])
        wrong = await client.call_tool("design_get_console_logs", {"level": "verbose"})
        assert wrong.is_error and "level" in wrong.content[0].text

        cleared = data(await client.call_tool("design_clear_console", {}))
        assert cleared["cleared"] == 3
        assert data(await client.call_tool("design_get_console_logs", {}))["count"] == 0

        await plugin.selection(["1:2"])
        await plugin.document_change(["1:2"])
        await plugin.metadata_change("1:2", "description", "new text")
        changes: dict[str, Any] = {}
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            changes = data(await client.call_tool("design_get_design_changes", {}))
            if changes["changes"] and changes["metadataChanges"]:
                break
        assert changes["changes"][0]["changedNodeIds"] == ["1:2"]
        assert changes["metadataChanges"][0]["field"] == "description"
        later = data(await client.call_tool("design_get_design_changes", {"since": changes["lastSeq"]}))
        assert later["changes"] == [] and later["metadataChanges"] == []
        selection = data(await client.call_tool("design_get_selection", {}))
        assert [n["id"] for n in selection["nodes"]] == ["1:2"]

        reloaded = data(await client.call_tool("design_reload_plugin", {"clearConsole": True}))
        assert reloaded["reloaded"] is True and reloaded["reconnected"] is True
        healthy = data(await client.call_tool("design_reconnect", {}))
        assert healthy["healthy"] is True


async def test_watch_console_returns_only_the_window(
    daemon: Any, plugin: FakePlugin, shim_params: StdioServerParameters
) -> None:
    await plugin.console("log", "before the watch")
    async with Client(shim_params, mode="legacy") as client:
        import asyncio

        await client.call_tool("design_get_status", {})  # the session is fully open before the watch is timed
        watch = asyncio.create_task(client.call_tool("design_watch_console", {"duration": 1.5}))
        await asyncio.sleep(0.5)
        await plugin.console("info", "during the watch")
        result = data(await watch)
        assert [e["message"] for e in result["logs"]] == ["during the watch"]


async def test_two_files_active_lock_and_file_key(
    daemon: Any, plugin: FakePlugin, shim_params: StdioServerParameters
) -> None:
    second = await FakePlugin.connect(daemon.port, daemon.env.token, file_key="fileB", file_name="File B")
    try:
        async with Client(shim_params, mode="legacy") as client:
            files = data(await client.call_tool("design_list_open_files", {}))
            assert {f["fileKey"] for f in files["files"]} == {"fileA", "fileB"}
            assert [f["fileKey"] for f in files["files"] if f["active"]] == ["fileB"]

            await client.call_tool("design_execute", {"code": "return 'b'"})
            assert second.commands and not [c for c in plugin.commands if c["method"] == "EXECUTE_CODE"]

            await client.call_tool("design_execute", {"code": "return 'a'", "fileKey": "fileA"})
            assert [c for c in plugin.commands if c["method"] == "EXECUTE_CODE"]

            nav = data(
                await client.call_tool(
                    "design_navigate", {"url": "https://www.figma.com/design/fileA/File-A", "lock": True}
                )
            )
            assert nav["activeFile"]["fileKey"] == "fileA" and nav["locked"] is True
            await second.selection(["1:2"])
            files = data(await client.call_tool("design_list_open_files", {}))
            assert [f["fileKey"] for f in files["files"] if f["active"]] == ["fileA"]
            assert files["locked"] is True

            unknown = await client.call_tool("design_navigate", {"url": "nosuchfile"})
            assert unknown.is_error and "fileA" in unknown.content[0].text

            across = data(await client.call_tool("design_execute_across_files", {"code": "return 7", "allFiles": True}))
            assert across["succeeded"] == 2 and {r["fileKey"] for r in across["results"]} == {"fileA", "fileB"}
            none = await client.call_tool("design_execute_across_files", {"code": "return 7"})
            assert none.is_error
    finally:
        await second.close()


def test_tool_list_is_small_and_ref_free() -> None:
    tools = catalog()
    payload = json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in tool_definitions(tools.values())])
    assert "$ref" not in payload and "$defs" not in payload
