"""The console tools through a real designd and fake plugins: one ring for the daemon, each entry tagged with its
file, readable per file or across files, kept after a file's plugin is gone, cleared only on request or restart."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

from fakes.fake_plugin import FakePlugin
from mcp import Client, StdioServerParameters
from procs import BIN, DaemonProcess

from design_console.config import load_config
from design_console.errors import PREFIX
from design_console.runtime.setup_text import REFUSAL_RECENT_S, refused_plugin_notice

#: Longer than designd's grace period (5 s) for a disconnected file, with room for a loaded machine.
EXPIRY_WAIT = 20.0


async def data(client: Client, tool: str, arguments: dict[str, Any] | None = None) -> Any:
    result = await client.call_tool(tool, arguments or {})
    assert not result.is_error, f"{tool}: {result.content[0].text}"
    return json.loads(result.content[0].text)


async def error(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} accepted {arguments}"
    text = result.content[0].text
    assert text.startswith(PREFIX), text
    return text


async def until(client: Client, tool: str, arguments: dict[str, Any], predicate: Any, what: str) -> Any:
    """Call ``tool`` until its result satisfies ``predicate``; fails after EXPIRY_WAIT seconds."""
    deadline = asyncio.get_running_loop().time() + EXPIRY_WAIT
    while not predicate(answer := await data(client, tool, arguments)):
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return answer


def messages(logs: dict[str, Any]) -> list[str]:
    return [e["message"] for e in logs["logs"]]


async def test_console_is_one_ring_that_outlives_the_plugins(
    daemon: DaemonProcess, plugin: FakePlugin, shim_params: StdioServerParameters
) -> None:
    second = await FakePlugin.connect(daemon.port, daemon.env.token, file_key="fileB", file_name="File B")
    try:
        async with Client(shim_params, mode="legacy") as client:
            # One at a time: entries of two sockets arrive in no set order.
            for n, (source, level, message) in enumerate(
                [(plugin, "log", "a1"), (second, "error", "b1"), (plugin, "warn", "a2")], 1
            ):
                await source.console(level, message)
                every = await until(
                    client, "design_get_console_logs", {"allFiles": True}, lambda r, n=n: r["count"] == n, message
                )
            assert [(e["fileKey"], e["fileName"], e["message"]) for e in every["logs"]] == [
                ("fileA", "File A", "a1"),
                ("fileB", "File B", "b1"),
                ("fileA", "File A", "a2"),
            ]
            assert every["allFiles"] is True and every["buffered"] == 3

            active = await data(client, "design_get_console_logs")
            assert active["fileKey"] == "fileB" and messages(active) == ["b1"], "the newest file is the active one"
            of_a = await data(client, "design_get_console_logs", {"fileKey": "fileA"})
            assert messages(of_a) == ["a1", "a2"] and of_a["fileName"] == "File A" and of_a["buffered"] == 2
            assert set(of_a["logs"][0]) == {"timestamp", "level", "message", "source"}
            assert "connected" not in of_a
            warnings = await data(client, "design_get_console_logs", {"allFiles": True, "level": "warn"})
            assert messages(warnings) == ["a2"]
            both = await error(client, "design_get_console_logs", {"fileKey": "fileA", "allFiles": True})
            assert "not both" in both
            assert "no console entries" in await error(client, "design_get_console_logs", {"fileKey": "nowhere"})

            reloaded = await data(client, "design_reload_plugin", {"clearConsole": True})
            assert reloaded["fileKey"] == "fileB" and reloaded["consoleCleared"] == 1 and reloaded["reconnected"]
            assert messages(await data(client, "design_get_console_logs", {"allFiles": True})) == ["a1", "a2"]
            await second.console("log", "b2")
            await until(client, "design_get_console_logs", {}, lambda r: r["count"] == 1, "b2")
            assert await data(client, "design_clear_console") == {"fileKey": "fileB", "cleared": 1}

            await second.console("log", "b3")
            await plugin.console("error", "a3: crashed")
            await until(client, "design_get_console_logs", {"allFiles": True}, lambda r: r["count"] == 4, "b3, a3")
            await plugin.close()
            await second.close()
            await until(client, "design_get_status", {}, lambda r: r["files"] == [], "both files to expire")

            # The plugin that left last (fileB) is the one asked about; fileA's crash is named as another file.
            after = await data(client, "design_get_console_logs")
            assert after["fileKey"] == "fileB" and messages(after) == ["b3"] and after["connected"] is False
            assert after["leftAt"] >= after["newestTimestamp"] and "No plugin is connected" in after["note"]
            assert "fileA" in after["note"]
            gone = await data(client, "design_get_console_logs", {"fileKey": "fileA"})
            assert messages(gone) == ["a1", "a2", "a3: crashed"] and gone["connected"] is False
            assert gone["fileName"] == "File A"
            watched = await data(client, "design_watch_console", {"duration": 1, "allFiles": True})
            assert watched["logs"] == [], "nothing was logged during the watch"
            report = await data(client, "design_diagnose")
            assert report["console"]["buffered"] == 4 and report["console"]["dropped"] == 0
            assert {f["fileKey"]: (f["entries"], f["connected"]) for f in report["console"]["files"]} == {
                "fileA": (3, False),
                "fileB": (1, False),
            }
            assert (await data(client, "design_get_status"))["console"]["buffered"] == 4

            assert await data(client, "design_clear_console", {"fileKey": "fileA"}) == {
                "fileKey": "fileA",
                "cleared": 3,
            }
            assert messages(await data(client, "design_get_console_logs", {"allFiles": True})) == ["b3"]
            assert await data(client, "design_clear_console", {"allFiles": True}) == {"allFiles": True, "cleared": 1}
            assert (await data(client, "design_get_console_logs", {"allFiles": True}))["count"] == 0
            not_connected = await error(client, "design_get_console_logs", {})
            assert "No Desktop Bridge plugin is connected" in not_connected, "nothing is left to show"
    finally:
        await second.close()


async def test_restart_empties_the_console(
    daemon: DaemonProcess, plugin: FakePlugin, shim_params: StdioServerParameters
) -> None:
    async with Client(shim_params, mode="legacy") as client:
        await plugin.console("log", "before the restart")
        await until(client, "design_get_console_logs", {}, lambda r: r["count"] == 1, "the entry")
    await plugin.close()
    daemon.stop()
    restarted = DaemonProcess(daemon.env).start()
    try:
        again = await FakePlugin.connect(restarted.port, daemon.env.token, file_key="fileA", file_name="File A")
        try:
            async with Client(shim_params, mode="legacy") as client:
                logs = await data(client, "design_get_console_logs", {"allFiles": True})
                assert logs["count"] == 0 and logs["buffered"] == 0
                assert (await data(client, "design_get_console_logs"))["fileKey"] == "fileA"
        finally:
            await again.close()
    finally:
        restarted.stop()
        if restarted.proc is not None and restarted.proc.stderr is not None:
            restarted.proc.stderr.close()


async def test_diagnose_names_a_plugin_that_failed_the_token_proof(
    daemon: DaemonProcess, plugin: FakePlugin, shim_params: StdioServerParameters
) -> None:
    intruder = await FakePlugin.connect(daemon.port, "not-the-token", file_key="fileX", file_name="Copied plugin")
    try:
        assert await intruder.wait_closed() == (4401, "authentication required")
    finally:
        await intruder.close()
    async with Client(shim_params, mode="legacy") as client:
        report = await data(client, "design_diagnose", {"verbose": True})
    assert report["bridgeStats"]["failedProofs"] == 1
    assert any("failed the bridge-token proof" in cause for cause in report["likelyCauses"])


def _names_the_refusal(text: str, daemon: DaemonProcess) -> bool:
    manifest = daemon.env.config.plugin_dir / "manifest.json"
    return (
        "refused a Desktop Bridge plugin" in text
        and f"Re-import the manifest from designd's folder, {manifest}" in (text)
        and "designctl plugin-path" in text
    )


def _designctl(daemon: DaemonProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "designctl"), *args], env=daemon.env.env, capture_output=True, text=True, timeout=60, check=False
    )


async def test_status_and_doctor_name_a_plugin_refused_for_its_token(
    daemon: DaemonProcess, plugin: FakePlugin, shim_params: StdioServerParameters
) -> None:
    async with Client(shim_params, mode="legacy") as client:
        before = await data(client, "design_get_status")
        assert "refusedPlugin" not in before["setup"]
        intruder = await FakePlugin.connect(daemon.port, "not-the-token", file_key="fileX", file_name="Copied plugin")
        try:
            assert await intruder.wait_closed() == (4401, "authentication required")
        finally:
            await intruder.close()
        status = await data(client, "design_get_status")
    assert _names_the_refusal(status["setup"]["refusedPlugin"], daemon), status["setup"]
    text = await asyncio.to_thread(_designctl, daemon, "status")
    assert text.returncode == 0 and any(
        line.startswith("refused  ") and _names_the_refusal(line, daemon) for line in text.stdout.splitlines()
    ), text.stdout
    doctor = await asyncio.to_thread(_designctl, daemon, "doctor", "--json")
    refused = [c for c in json.loads(doctor.stdout) if c["check"] == "a plugin was refused for its bridge token"]
    assert len(refused) == 1 and refused[0]["status"] == "warn" and _names_the_refusal(refused[0]["fix"], daemon)


def test_a_refusal_long_ago_is_no_longer_reported(tmp_path: Path) -> None:
    stats = {"lastRefusedAt": 1000.0, "failedProofs": 2, "unauthenticatedRejects": 1}
    config = load_config({"HOME": str(tmp_path)})
    assert "(3 refusal(s) since it started)" in (refused_plugin_notice(config, stats, now=1001.0) or "")
    assert refused_plugin_notice(config, stats, now=1000.0 + REFUSAL_RECENT_S + 1) is None
    assert refused_plugin_notice(config, {"failedProofs": 0}) is None
