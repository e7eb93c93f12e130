"""The file of a user's paired plugin is the active file of Remote Mode: a tool whose call names no file works on it,
on the instance that holds the plugin's socket and on any other, status shows it, a FILE_INFO naming another file moves
it, and it is gone once the plugin leaves. The relay records it where the instance holding the plugin's socket learns
it, and any instance reads it from memory until one says it changed."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, PRO_KEY
from fakes.relay_client import handshake, ws_url
from fakes.relay_socket import attach, config
from fakes.remote import FakePlatform, RemoteServer, bearer, sign_in, two_instances
from helpers import wait_until
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from websockets.asyncio.client import ClientConnection, connect

from design_console.config import load_config
from design_console.errors import DesignError, ErrorCode
from design_console.remote.relay import BROADCAST, Relays
from design_console.remote.store import RedisStore, SqliteStore, Store
from design_console.remote.tools import RemoteCallContext

CONFIG = load_config({"HOME": "/nonexistent"})
WAIT_SECONDS = 15.0


@asynccontextmanager
async def client_of(server: RemoteServer, token: str) -> AsyncIterator[Client]:
    http = bearer(token)
    transport = streamable_http_client(f"{server.url}/mcp", http_client=http)
    async with http, Client(transport, mode="legacy") as client:
        yield client


async def call(client: Client, name: str, args: dict[str, Any] | None = None) -> tuple[bool, Any]:
    """Whether the call failed, and its answer (decoded JSON, or the refusal's text)."""
    result = await client.call_tool(name, args or {})
    text = result.content[0].text  # type: ignore[union-attr]
    return bool(result.is_error), (text if result.is_error else json.loads(text))


async def eventually(probe: Callable[[], Awaitable[Any]], holds: Callable[[Any], bool], what: str) -> Any:
    """Ask ``probe`` again until its answer ``holds``; fail after WAIT_SECONDS."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        answer = await probe()
        if holds(answer):
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last answer: {answer}")
        await asyncio.sleep(0.05)


def file_info(key: str, name: str) -> str:
    return json.dumps({"type": "FILE_INFO", "data": {"fileKey": key, "fileName": name, "editorType": "figma"}})


async def answer_commands(ws: ClientConnection, file: dict[str, str]) -> None:
    """The plugin after its handshake: answers GET_FILE_INFO with the file it was last said to run in."""
    async for raw in ws:
        frame = json.loads(raw)
        if frame.get("method") == "GET_FILE_INFO":
            reply = {"success": True, **file, "currentPage": "P", "pluginVersion": "0.0.9"}
            await ws.send(json.dumps({"id": frame["id"], "result": reply}))


def files_read(api: ApiServer) -> set[str]:
    """The files whose data the fake design API was asked for since it last forgot."""
    return {entry["path"].split("/")[3] for entry in api.fake.seen if entry["path"].startswith("/v1/files/")}


async def test_the_paired_plugins_file_is_the_default_file_on_every_instance(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url) as (first, second):
        _, alice = sign_in(first, platform, "9601")
        token = alice["access_token"]
        async with client_of(first, token) as elsewhere, client_of(second, token) as beside:
            code = (await call(elsewhere, "design_pair_plugin"))[1]["code"]
            # The plugin's socket lands on the second instance: ``beside`` shares it, ``elsewhere`` does not.
            ws = await connect(f"{ws_url(second.url)}?code={code}")
            paired = json.loads(await ws.recv())
            await handshake(ws, paired["data"]["credential"])
            file = {"fileKey": ENTERPRISE_KEY, "fileName": "Design System"}
            plugin = asyncio.create_task(answer_commands(ws, file))
            try:
                # Connected, but the plugin has not said its file yet: a call without a file is refused.
                status = await eventually(
                    lambda: call(elsewhere, "design_get_status"),
                    lambda answer: answer[1]["pairing"].get("connected"),
                    "the pairing to connect",
                )
                assert status[1]["pairing"]["activeFile"] is None
                failed, refusal = await call(elsewhere, "design_get_design_system_kit")
                assert failed and "no active file" in refusal and "fileKey" in refusal, refusal

                await ws.send(file_info(ENTERPRISE_KEY, "Design System"))
                for client in (elsewhere, beside):
                    status = await eventually(
                        lambda client=client: call(client, "design_get_status"),
                        lambda answer: answer[1]["pairing"]["activeFile"] is not None,
                        "status to show the paired file",
                    )
                    assert status[1]["pairing"]["activeFile"] == file
                    diagnosis = (await call(client, "design_diagnose"))[1]
                    assert diagnosis["pairing"]["activeFile"] == file
                for client in (elsewhere, beside):
                    fake_api_server.fake.seen.clear()
                    failed, data = await call(client, "design_get_file_data", {"depth": 0})
                    assert not failed, data
                    assert files_read(fake_api_server) == {ENTERPRISE_KEY}

                # The plugin now runs in another file: every instance follows it.
                file.update(fileKey=PRO_KEY, fileName="Team Library")
                await ws.send(file_info(PRO_KEY, "Team Library"))
                for client in (elsewhere, beside):

                    async def read(client: Client = client) -> set[str]:
                        fake_api_server.fake.seen.clear()
                        failed, data = await call(client, "design_get_file_data", {"depth": 0})
                        assert not failed, data
                        return files_read(fake_api_server)

                    await eventually(read, lambda files: files == {PRO_KEY}, "the call to read the new file")
                    status = await call(client, "design_get_status")
                    assert status[1]["pairing"]["activeFile"] == file
            finally:
                plugin.cancel()
                await ws.close()

            # The plugin left: no default file any more, on either instance.
            for client in (elsewhere, beside):
                failed, refusal = await eventually(
                    lambda client=client: call(client, "design_get_design_system_kit"),
                    lambda answer: answer[0],
                    "the call without a file to be refused",
                )
                assert "no active file" in refusal and "fileKey" in refusal, refusal
                status = (await call(client, "design_get_status"))[1]
                assert not status["pairing"]["connected"] and "activeFile" not in status["pairing"]


async def test_a_file_told_on_one_instance_is_read_on_another_from_memory_until_it_changes(redis_url: str) -> None:
    stores: list[Store] = [RedisStore(redis_url), RedisStore(redis_url)]
    reader, owner = Relays(config(), stores[0]), Relays(config(), stores[1])
    for relays in (reader, owner):
        await relays.start()
    try:
        await stores[0].put("relay-binding", "dana", b"relay-f")
        await stores[0].put("relay", "relay-f", json.dumps({"subject": "dana", "credential": "c"}).encode())
        await stores[0].put("relay-owner", "relay-f", owner.instance.encode())
        plugin = attach(owner, "relay-f")
        assert plugin.session is not None
        assert await reader.active_file("dana") is None
        heard = reader._file_forgets
        owner._on_message(plugin.session, file_info("fileOne", "One"))
        await wait_until(lambda: reader._file_forgets > heard, what="the reader to hear of the file")
        pairing = await reader.pairing("dana")
        assert pairing is not None
        assert (pairing.file_key, pairing.file_name, pairing.connected) == ("fileOne", "One", True)
        assert await reader.active_file("dana") == "fileOne"
        # Remembered: a change no instance announced is not read.
        await stores[0].put("relay-file", "relay-f", json.dumps({"key": "unannounced"}).encode())
        assert await reader.active_file("dana") == "fileOne"
        # The plugin names another file: the owner records it and every instance forgets what it remembered.
        owner._on_message(plugin.session, file_info("fileTwo", "Two"))
        await eventually(lambda: reader.active_file("dana"), lambda key: key == "fileTwo", "the new file")
        # A FILE_INFO that names no file leaves none.
        owner._on_message(plugin.session, json.dumps({"type": "FILE_INFO", "data": {}}))
        await eventually(lambda: reader.active_file("dana"), lambda key: key is None, "no file")
        owner._on_message(plugin.session, file_info("fileThree", "Three"))
        await eventually(lambda: reader.active_file("dana"), lambda key: key == "fileThree", "the third file")
        # Its plugin let go of the relay: the file is forgotten with it.
        await stores[0].delete("relay-file", "relay-f")
        await stores[0].publish(BROADCAST, json.dumps({"op": "released", "cid": "relay-f"}).encode())
        await eventually(lambda: reader.active_file("dana"), lambda key: key is None, "the file to be forgotten")
    finally:
        for relays in (reader, owner):
            await relays.close()
        for store in stores:
            await store.close()


async def test_a_plugin_command_on_the_paired_file_the_call_started_with_is_not_held_to_it(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "store.sqlite3")
    relays = Relays(config(), store)
    await relays.start()
    try:
        await store.put("relay-binding", "erin", b"relay-g")
        plugin = attach(relays, "relay-g")
        assert plugin.session is not None

        async def progress(done: float, total: float | None, message: str) -> None:
            """No progress is looked at."""

        ctx = RemoteCallContext(CONFIG, None, progress, relays, "erin")  # type: ignore[arg-type]
        ctx.active_file_key = "fileOne"
        # The plugin moved to another file after the call read its file: the call still reaches it, as one that
        # named no file would; a file the call named itself is still checked.
        relays._on_message(plugin.session, file_info("fileTwo", "Two"))
        ran = await ctx.bridge("EXECUTE_CODE", {"code": "return 1"}, file_key="fileOne")
        assert ran["ran"] == "return 1"
        with pytest.raises(DesignError) as caught:
            await ctx.bridge("EXECUTE_CODE", {"code": "return 2"}, file_key="fileThree")
        assert caught.value.code is ErrorCode.UNKNOWN_FILE and "fileTwo" in caught.value.message
    finally:
        await relays.close()
        await store.close()
