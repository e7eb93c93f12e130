"""Worker tools through the whole real chain: SDK client → shim → designd → worker → fake design API."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, HISTORY_KEY, HUGE_KEY, PERSONAL_TOKEN, PRO_KEY, FakeDesignApi
from fakes.fake_plugin import FakePlugin
from mcp import Client, StdioServerParameters
from procs import (
    BIN,
    DaemonProcess,
    TestEnv,
    isolated,
    make_env,
    running_daemon,
    start_worker,
    status,
    wait_for,
    workers_running,
)

from design_console.daemon.supervisor import MISSED_BEAT_LIMIT


@pytest.fixture
def api_env(fake_api: ApiServer) -> Iterator[TestEnv]:
    yield from isolated(make_env(DESIGN_API_URL=fake_api.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN))


@pytest.fixture
def api_daemon(api_env: TestEnv) -> Iterator[DaemonProcess]:
    yield from running_daemon(api_env)


def params(env: TestEnv) -> StdioServerParameters:
    return StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))


async def until_status(env: TestEnv, predicate: Any, what: str, timeout: float = 20) -> None:
    """Poll designctl status without blocking the event loop the MCP client runs on."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate(await asyncio.to_thread(status, env)):
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.05)


async def test_api_reads_through_the_chain(api_daemon: DaemonProcess) -> None:
    env = api_daemon.env
    wait_for(lambda: workers_running(env), 20, "the workers")
    async with Client(params(env), mode="legacy") as client:
        file_data = await client.call_tool("design_get_file_data", {"fileUrl": ENTERPRISE_KEY})
        assert not file_data.is_error, file_data.content[0].text
        assert len(file_data.content[0].text) < 25_000 * 4

        variables = await client.call_tool("design_get_variables", {"fileUrl": ENTERPRISE_KEY})
        assert not variables.is_error, variables.content[0].text

        pro = await client.call_tool("design_get_variables", {"fileUrl": PRO_KEY})
        assert "Enterprise" in pro.content[0].text

        missing = await client.call_tool("design_get_file_data", {"fileUrl": "NoSuchFile0000000000099"})
        assert missing.is_error and missing.content[0].text.startswith("[design-console-mcp] ")

        no_file = await client.call_tool("design_get_file_data", {})
        assert no_file.is_error


async def test_screenshot_from_the_plugin_through_the_media_worker(api_daemon: DaemonProcess) -> None:
    env = api_daemon.env
    wait_for(lambda: workers_running(env), 20, "the workers")
    plugin = await FakePlugin.connect(api_daemon.port, env.token, file_key=ENTERPRISE_KEY, file_name="DS")
    try:
        async with Client(params(env), mode="auto") as client:
            shot = await client.call_tool("design_capture_screenshot", {"nodeId": "1:2"})
            assert not shot.is_error, shot.content[0].text
            images = [c for c in shot.content if c.type == "image"]
            assert images and images[0].mime_type == "image/png"
            assert [c for c in plugin.commands if c["method"] == "CAPTURE_SCREENSHOT"]
    finally:
        await plugin.close()


async def test_missing_token_names_the_variable(dc_env: TestEnv, fake_api: ApiServer) -> None:
    dc_env.env["DESIGN_API_URL"] = fake_api.url
    for _ in running_daemon(dc_env):
        wait_for(lambda: workers_running(dc_env), 20, "the workers")
        async with Client(params(dc_env), mode="legacy") as client:
            result = await client.call_tool("design_get_file_data", {"fileUrl": ENTERPRISE_KEY})
            assert result.is_error and "DESIGN_ACCESS_TOKEN" in result.content[0].text


async def test_worker_killed_mid_call(api_daemon: DaemonProcess, fake_api: ApiServer) -> None:
    env = api_daemon.env
    api_worker = start_worker(env, "api")
    fake_api.control("delay", {"seconds": 20, "times": 1})
    async with Client(params(env), mode="legacy") as client:
        call = asyncio.create_task(client.call_tool("design_get_file_data", {"fileUrl": ENTERPRISE_KEY}))
        await until_status(env, lambda s: s["workers"][0]["inFlight"] == 1, "the call to reach the worker")
        os.kill(api_worker["pid"], signal.SIGKILL)
        failed = await asyncio.wait_for(call, 20)
        assert failed.is_error
        assert "api worker stopped" in failed.content[0].text and "call the tool again" in failed.content[0].text
        fake_api.control("reset")
        await until_status(env, lambda s: s["workers"][0]["state"] == "running", "the api worker")
        after = status(env)["workers"][0]
        assert after["pid"] != api_worker["pid"] and after["restarts"] == 1
        again = await client.call_tool("design_get_file_data", {"fileUrl": ENTERPRISE_KEY})
        assert not again.is_error, again.content[0].text


async def test_console_answers_while_the_api_worker_shapes_a_large_file(
    api_daemon: DaemonProcess, fake_api: ApiServer
) -> None:
    fake_api.reset(FakeDesignApi(huge_mb=12))
    env = api_daemon.env
    wait_for(lambda: workers_running(env), 20, "the workers")
    plugin = await FakePlugin.connect(api_daemon.port, env.token, file_key="fileA", file_name="A")
    try:
        await plugin.console("log", "still here")
        async with Client(params(env), mode="legacy") as client:
            big = asyncio.create_task(client.call_tool("design_get_file_data", {"fileUrl": HUGE_KEY, "depth": 3}))
            await until_status(env, lambda s: s["workers"][0]["inFlight"] == 1, "the large read to start")
            logs = await client.call_tool("design_get_console_logs", {})
            assert not big.done(), "the console read should not wait for the large file"
            assert json.loads(logs.content[0].text)["logs"][0]["message"] == "still here"
            shaped = await asyncio.wait_for(big, 120)
            assert not shaped.is_error, shaped.content[0].text
    finally:
        await plugin.close()


async def test_hung_worker_is_replaced(api_daemon: DaemonProcess) -> None:
    """A frozen worker (SIGSTOP) stops sending heartbeats: designd kills it, fails its call and starts a new one."""
    env = api_daemon.env
    frozen = start_worker(env, "api")
    os.kill(frozen["pid"], signal.SIGSTOP)
    try:
        async with Client(params(env), mode="legacy") as client:
            started = asyncio.get_running_loop().time()
            stuck = await asyncio.wait_for(
                client.call_tool("design_get_file_data", {"fileUrl": ENTERPRISE_KEY}), MISSED_BEAT_LIMIT + 30
            )
            assert stuck.is_error and "api worker stopped answering" in stuck.content[0].text
            # About three missed heartbeats, not the 30 s a busy worker is allowed (loaded CI machines add a little).
            assert asyncio.get_running_loop().time() - started < MISSED_BEAT_LIMIT + 5
            await until_status(env, lambda s: s["workers"][0]["state"] == "running", "the new api worker")
            assert status(env)["workers"][0]["pid"] != frozen["pid"]
            again = await client.call_tool("design_get_file_data", {"fileUrl": ENTERPRISE_KEY})
            assert not again.is_error, again.content[0].text
    finally:
        if psutil.pid_exists(frozen["pid"]):
            os.kill(frozen["pid"], signal.SIGKILL)


async def test_history_reads_the_plugins_live_edits_from_designd(api_daemon: DaemonProcess) -> None:
    """The api worker asks designd for the metadata changes the plugin pushed (StateQuery)."""
    env = api_daemon.env
    wait_for(lambda: workers_running(env), 20, "the workers")
    plugin = await FakePlugin.connect(api_daemon.port, env.token, file_key=HISTORY_KEY, file_name="History")
    try:
        await plugin.metadata_change("1:2", "description", "Written just now")
        async with Client(params(env), mode="legacy") as client:
            result = await client.call_tool(
                "design_get_changes_since_version", {"since_version": "1000001", "mode": "summary"}
            )
            assert not result.is_error, result.content[0].text
            edits = json.loads(result.content[0].text)["pluginEdits"]
            assert [(e["nodeId"], e["field"], e["value"]) for e in edits] == [
                ("1:2", "description", "Written just now")
            ]
    finally:
        await plugin.close()
