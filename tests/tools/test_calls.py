"""One way to run a tool call: a tool that fails unexpectedly gets the same answer, at once, through every host.

No tool is made to raise for the test: the fakes answer the way a changed or broken peer might, and real handlers
that trust that answer's shape raise. The fake design API serves a file whose ``document`` is a number (the api
worker's ``design_get_file_data`` fails decoding it, in designd's worker and in Remote Mode alike), and the fake
plugin answers the verbose selection script with a number (designd's own ``design_get_selection`` fails on it).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, PERSONAL_TOKEN
from fakes.fake_plugin import FakePlugin
from fakes.remote import RemoteServer, remote_env, running_remote
from mcp import Client, StdioServerParameters
from procs import BIN, DaemonProcess, TestEnv, isolated, make_env, running_daemon, worker_status

from design_console.protocol import TextBlock, ToolOutput
from design_console.tools import catalog
from design_console.tools.base import Args, ToolSpec, failure, text
from design_console.tools.calls import call_timeout, internal_error, run_call, unknown_tool

#: How long a failed call may take to be answered, once the process that runs it is up.
WITHIN = 5.0
FILE_TOOL = "design_get_file_data"
FILE_ARGS = {"fileUrl": ENTERPRISE_KEY}
#: Off the spec: a file whose document is not an object.
BROKEN_FILE = {"path_prefix": f"/v1/files/{ENTERPRISE_KEY}", "status": 200, "times": 1000, "body": {"document": 5}}


@pytest.fixture
def api_env(fake_api: ApiServer) -> Iterator[TestEnv]:
    yield from isolated(make_env(DESIGN_API_URL=fake_api.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN))


@pytest.fixture
def api_daemon(api_env: TestEnv) -> Iterator[DaemonProcess]:
    yield from running_daemon(api_env)


@pytest.fixture
def remote(fake_api: ApiServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteServer]:
    env = remote_env(tmp_path_factory.mktemp("remote"), fake_api.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)
    with running_remote(env) as server:
        yield server


def _shim(env: TestEnv) -> StdioServerParameters:
    return StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))


def _only_text(result: Any) -> str:
    """The one text block of an error result of the SDK client."""
    assert result.is_error and len(result.content) == 1, result
    return str(result.content[0].text)


async def _timed(call: Any) -> tuple[str, float]:
    started = time.monotonic()
    answer = _only_text(await call)
    return answer, time.monotonic() - started


def _designctl(env: TestEnv, tool: str, arguments: dict[str, Any]) -> tuple[ToolOutput, float]:
    """``designctl call --json``: its output and how long it took."""
    started = time.monotonic()
    done = subprocess.run(
        [str(BIN / "designctl"), "call", "--json", tool, *(f"{k}={json.dumps(v)}" for k, v in arguments.items())],
        env=env.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 1, done.stdout + done.stderr
    return msgspec.json.decode(done.stdout, type=ToolOutput), elapsed


def _ctl_text(output: ToolOutput) -> str:
    assert output.is_error and len(output.content) == 1 and isinstance(output.content[0], TextBlock), output
    return output.content[0].text


def _designctl_overhead(env: TestEnv) -> float:
    """How long designctl takes to start, ask designd for a tool that answers at once and print: the part of a
    designctl call's time that is not the call's."""
    started = time.monotonic()
    subprocess.run(
        [str(BIN / "designctl"), "call", "--json", "design_get_status"], env=env.env, capture_output=True, timeout=60
    )
    return time.monotonic() - started


async def test_a_worker_tool_that_raises_gets_the_internal_error_through_every_host(
    fake_api: ApiServer, api_daemon: DaemonProcess, remote: RemoteServer
) -> None:
    fake_api.control("fail", BROKEN_FILE)
    expected = str(internal_error(FILE_TOOL))
    env = api_daemon.env
    async with Client(_shim(env), mode="legacy") as client:
        # The first call starts the api worker (and already gets the error); the second is timed.
        assert _only_text(await client.call_tool(FILE_TOOL, FILE_ARGS)) == expected
        shim_answer, shim_took = await _timed(client.call_tool(FILE_TOOL, FILE_ARGS))
    output, ctl_took = await asyncio.to_thread(_designctl, env, FILE_TOOL, FILE_ARGS)
    overhead = await asyncio.to_thread(_designctl_overhead, env)
    async with Client(f"{remote.url}/mcp", mode="legacy") as client:
        remote_answer, remote_took = await _timed(client.call_tool(FILE_TOOL, FILE_ARGS))
    assert shim_answer == _ctl_text(output) == remote_answer == expected
    assert shim_took < WITHIN and remote_took < WITHIN and ctl_took - overhead < WITHIN
    # The worker and designd live on: the worker serves the next call.
    fake_api.control("reset")
    async with Client(_shim(env), mode="legacy") as client:
        healthy = await client.call_tool("design_get_file_versions", FILE_ARGS)
        assert not healthy.is_error, healthy.content[0].text  # type: ignore[union-attr]
    assert (await asyncio.to_thread(worker_status, env, "api"))["restarts"] == 0


async def test_a_designd_tool_that_raises_answers_designctl_at_once(daemon: DaemonProcess, plugin: FakePlugin) -> None:
    """designctl once waited 600 s for a tool that raised inside designd: no answer was ever sent."""
    env = daemon.env
    await plugin.selection(["1:2"])
    plugin.handlers["EXECUTE_CODE"] = lambda _plugin, _params: {"success": True, "result": 7}
    expected = str(internal_error("design_get_selection"))
    async with Client(_shim(env), mode="legacy") as client:
        deadline = time.monotonic() + 20
        while not json.loads((await client.call_tool("design_get_selection", {})).content[0].text)["count"]:  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the selection never reached designd"
            await asyncio.sleep(0.02)
        shim_answer, shim_took = await _timed(client.call_tool("design_get_selection", {"verbose": True}))
    output, ctl_took = await asyncio.to_thread(_designctl, env, "design_get_selection", {"verbose": True})
    overhead = await asyncio.to_thread(_designctl_overhead, env)
    assert shim_answer == _ctl_text(output) == expected
    assert shim_took < WITHIN and ctl_took - overhead < WITHIN


async def test_an_unknown_tool_and_bad_arguments_get_one_text_each(
    api_daemon: DaemonProcess, remote: RemoteServer
) -> None:
    env = api_daemon.env
    bad_args = {"fileUrl": ENTERPRISE_KEY, "nope": 1}
    async with Client(_shim(env), mode="legacy") as client:
        shim_unknown = _only_text(await client.call_tool("design_no_such_tool", {}))
        shim_bad = _only_text(await client.call_tool(FILE_TOOL, bad_args))
    ctl_unknown = _ctl_text((await asyncio.to_thread(_designctl, env, "design_no_such_tool", {}))[0])
    ctl_bad = _ctl_text((await asyncio.to_thread(_designctl, env, FILE_TOOL, bad_args))[0])
    async with Client(f"{remote.url}/mcp", mode="legacy") as client:
        remote_unknown = _only_text(await client.call_tool("design_no_such_tool", {}))
        remote_bad = _only_text(await client.call_tool(FILE_TOOL, bad_args))
    assert shim_unknown == ctl_unknown == remote_unknown == str(unknown_tool("design_no_such_tool"))
    assert shim_bad == ctl_bad == remote_bad
    assert shim_bad.startswith(f"[design-console-mcp] Invalid arguments for {FILE_TOOL}: ") and "`nope`" in shim_bad


async def test_run_call_turns_each_failure_into_its_result_and_lets_a_cancellation_through() -> None:
    tools = catalog()

    async def broken(spec: ToolSpec, args: Args) -> ToolOutput:
        raise KeyError("component")

    async def fine(spec: ToolSpec, args: Args) -> ToolOutput:
        return text(f"ran {spec.name}")

    async def cancelled(spec: ToolSpec, args: Args) -> ToolOutput:
        raise asyncio.CancelledError

    assert await run_call(tools, "design_get_status", {}, broken) == failure(internal_error("design_get_status"))
    assert await run_call(tools, "design_get_status", None, fine) == text("ran design_get_status")
    assert await run_call(tools, "design_nope", {}, fine) == failure(unknown_tool("design_nope"))
    bad = await run_call(tools, "design_get_status", {"nope": 1}, fine)
    assert bad.is_error and isinstance(bad.content[0], TextBlock) and "`nope`" in bad.content[0].text
    with pytest.raises(asyncio.CancelledError):
        await run_call(tools, "design_get_status", {}, cancelled)
    assert str(call_timeout("design_execute", 600)).startswith("[design-console-mcp] design_execute got no answer")
