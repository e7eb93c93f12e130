"""Every tool of the catalog through the real chain: SDK client → shim → designd (→ worker) → fake API and plugin.

Each tool, whether designd answers it or a worker does, is called once with arguments that must succeed and once
with arguments that must fail with an error the model can act on. The unit tests beside the tools go deeper; this
proves the wiring of each one, and fails when a tool of the catalog has no case here.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from fakes.api_server import ApiServer
from fakes.cases import (
    A11Y_TOOLS,
    APP_TOOLS,
    AUDIT_TOOLS,
    BOARD_SLIDES_TOOLS,
    CHAIN_CASES,
    CODE_TOOLS,
    DOC_TOOLS,
    DS_TOOLS,
    HIST,
    REPORT_TOOLS,
    TOKEN_TOOLS,
    WEB_TOOLS,
    WRITE_TOOLS,
)
from fakes.design_api import ENTERPRISE_KEY, PERSONAL_TOKEN
from fakes.fake_plugin import FakePlugin
from fakes.plugin_payloads import analysis_reply, deep_reply, design_file, library, run_in_plugin, variables_snapshot
from helpers import held_in_a_task
from mcp import Client, StdioServerParameters
from procs import BIN, DaemonProcess, TestEnv, isolated, make_env, running_daemon, wait_for, workers_running

from design_console.tools import catalog


def test_every_tool_has_a_case() -> None:
    chained = set().union(
        WRITE_TOOLS,
        BOARD_SLIDES_TOOLS,
        TOKEN_TOOLS,
        AUDIT_TOOLS,
        REPORT_TOOLS,
        DS_TOOLS,
        APP_TOOLS,
        A11Y_TOOLS,
        DOC_TOOLS,
        CODE_TOOLS,
        WEB_TOOLS,
    )
    assert sorted(CHAIN_CASES) == sorted(set(catalog()) - chained)
    # The other tools run through the real plugin (or their real engine) in modules of their own: fakes/cases.py names
    # each in its module's set, and a test of that module calls it by name.
    sources = "".join(path.read_text() for path in (Path(__file__).parents[1] / "tools").rglob("test_*.py"))
    for name in chained:
        assert f'"{name}"' in sources, f"{name} is not called by any test of tests/tools"
    assert {spec.runs_in for spec in catalog().values()} == {"daemon", "api", "media", "tokens"}


def _plugin_payloads(plugin: FakePlugin) -> None:
    """Answers shaped exactly like the real plugin's (the builders of the design-system tool tests)."""
    lib = library()
    plugin.handlers.update(
        {
            "GET_LOCAL_COMPONENTS": lambda _p, _params: design_file(),
            "GET_VARIABLES_DATA": lambda _p, _params: variables_snapshot(),
            "DEEP_GET_COMPONENT": lambda _p, params: deep_reply(params),
            "ANALYZE_COMPONENT_SET": lambda _p, params: analysis_reply(params),
            "EXECUTE_CODE": lambda _p, params: run_in_plugin(params, lib),
        }
    )


async def _until_identified(client: Client) -> None:
    """Wait until designd has the plugin's FILE_INFO, so that tools of the active file have one."""
    deadline = asyncio.get_running_loop().time() + 10
    while True:
        listed = await client.call_tool("design_list_open_files", {})
        if not listed.is_error and json.loads(listed.content[0].text)["files"]:
            return
        assert asyncio.get_running_loop().time() < deadline, "designd never saw the plugin's FILE_INFO"
        await asyncio.sleep(0.02)


#: One AI app's session for the whole module, as a real one calls tool after tool on one shim.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def chain(fake_api_server: ApiServer) -> Iterator[tuple[TestEnv, DaemonProcess]]:
    fake_api_server.reset()
    settings = {"DESIGN_API_URL": fake_api_server.url, "DESIGN_ACCESS_TOKEN": PERSONAL_TOKEN, "LOG_LEVEL": "info"}
    for env in isolated(make_env(**settings)):
        for daemon in running_daemon(env):
            wait_for(functools.partial(workers_running, env), 20, "the workers")
            yield env, daemon


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def session(chain: tuple[TestEnv, DaemonProcess]) -> AsyncIterator[Client]:
    """A shim and a plugin answering like the real one, shared by every tool's case."""
    env, daemon = chain
    plugin = await FakePlugin.connect(daemon.port, env.token, file_key=ENTERPRISE_KEY, file_name="Design System")
    _plugin_payloads(plugin)
    params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
    try:
        async with held_in_a_task(Client(params, mode="legacy")) as client:
            await _until_identified(client)
            yield client
    finally:
        await plugin.close()


@pytest.mark.parametrize("tool", sorted(CHAIN_CASES))
async def test_tool_through_the_chain(session: Client, tool: str) -> None:
    good, bad = CHAIN_CASES[tool]
    if tool == "design_delete_comment":
        posted = await session.call_tool("design_post_comment", {"fileUrl": HIST, "message": "to delete"})
        good = {**good, "comment_id": json.loads(posted.content[0].text)["posted"]["id"]}
    result = await session.call_tool(tool, good)
    assert not result.is_error, f"{tool}: {result.content[0].text}"
    text = "".join(c.text for c in result.content if c.type == "text")
    assert len(text) <= 25_000 * 4, f"{tool} answered beyond the context budget"

    failed = await session.call_tool(tool, bad)
    assert failed.is_error, f"{tool} accepted {bad}"
    assert failed.content[0].text.startswith("[design-console-mcp] "), failed.content[0].text
