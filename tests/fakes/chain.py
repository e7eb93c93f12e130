"""Helpers for tests that drive the whole chain (MCP client → shim → designd → the real plugin) for a module.

:func:`plugin_chain` is the one way to build that chain: the real plugin open on one or more files, connected to a
running designd, and an MCP session through the installed shim.

One MCP session serves a module; it lives in a task of its own, because the SDK's task groups must be left by the
task that entered them, and a module fixture is set up and torn down in different tasks.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters
from procs import BIN, TestEnv

from fakes.real_plugin import RealPlugin


@asynccontextmanager
async def held_session(params: StdioServerParameters, **options: Any) -> AsyncIterator[Client]:
    """An MCP session (``Client(params, **options)``) held open by its own task until the block ends."""
    opened: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
    done = asyncio.Event()

    async def hold() -> None:
        async with Client(params, **options) as session:
            opened.set_result(session)
            await done.wait()

    holder = asyncio.create_task(hold())
    try:
        yield await asyncio.wait_for(asyncio.shield(opened), 60)
    finally:
        done.set()
        await holder


@asynccontextmanager
async def chain_session(env: TestEnv, *, cwd: Path | None = None) -> AsyncIterator[Client]:
    """A held MCP session through the installed shim of ``env``. Given ``cwd``, the AI app runs there and shares
    that folder as its one MCP root, as an editor opened on a project does."""
    params = StdioServerParameters(
        command=str(BIN / "design-console-mcp"), env=dict(env.env), cwd=str(cwd) if cwd else None
    )
    options: dict[str, Any] = {"mode": "legacy"}
    if cwd is not None:
        root = types.Root(uri=cwd.as_uri())

        async def roots(context: Any) -> types.ListRootsResult:
            return types.ListRootsResult(roots=[root])

        options["list_roots_callback"] = roots
    async with held_session(params, **options) as session:
        yield session


@dataclass(frozen=True)
class OpenFile:
    """A file the real plugin is open in: its key, its name, and the editor it is a file of."""

    key: str
    name: str
    editor: str = "figma"


@asynccontextmanager
async def plugin_chain(env: TestEnv, *files: OpenFile, cwd: Path | None = None) -> AsyncIterator[Client]:
    """The whole chain over ``env``'s running designd: a real plugin for each of ``files`` (connected in that order,
    so the last one is the active file) and a held MCP session through the shim (``cwd`` as in
    :func:`chain_session`). The session closes before the plugins stop."""
    plugins: list[RealPlugin] = []
    try:
        for file in files:
            plugins.append(RealPlugin.start(env, editor_type=file.editor, file_key=file.key, file_name=file.name))
        async with chain_session(env, cwd=cwd) as session:
            yield session
    finally:
        for plugin in plugins:
            plugin.stop()


async def call(client: Client, name: str, args: dict[str, Any]) -> Any:
    """Call a tool that must succeed; returns its JSON result."""
    result = await client.call_tool(name, args)
    assert result.is_error is False, result.content[0].text
    return json.loads(result.content[0].text)


async def refused(client: Client, name: str, args: dict[str, Any]) -> str:
    """Call a tool that must refuse; returns its error text (which starts with our prefix)."""
    result = await client.call_tool(name, args)
    assert result.is_error is True, result.content[0].text
    text: str = result.content[0].text
    assert text.startswith("[design-console-mcp] ")
    return text


async def js(client: Client, code: str) -> Any:
    """Run Plugin API code in the active file and return its value: how tests read the document back."""
    return (await call(client, "design_execute", {"code": code}))["result"]


async def undo_steps(client: Client) -> int:
    """Undo steps the stand-in editor has committed. The reading is itself a write and commits after it reads."""
    return int(await js(client, "return figma.testControl.undoCommits;"))


async def one_undo_step(client: Client, name: str, args: dict[str, Any]) -> Any:
    """Call a write tool and check it made exactly one undo step."""
    before = await undo_steps(client)
    data = await call(client, name, args)
    assert await undo_steps(client) - before - 1 == 1, f"{name} did not commit exactly one undo step"
    return data


async def page_id(client: Client) -> str:
    """The id of the active file's current page."""
    return str(await js(client, "return figma.currentPage.id;"))


async def new_component(client: Client, name: str) -> str:
    """A new 80x40 component named ``name`` on the current page; returns its id."""
    return str(
        await js(
            client, f"const c = figma.createComponent(); c.name = {json.dumps(name)}; c.resize(80, 40); return c.id;"
        )
    )
