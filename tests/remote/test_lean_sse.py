"""The lean path of /sse answers exactly what the MCP SDK's SseServerTransport would (a server with
DESIGN_REMOTE_LEAN=0 is the reference), on the stream and in each POST's answer; it hands what it does not serve to
an SDK session behind the same stream, refuses what the SDK refuses, frees a session when its stream closes, and
carries pairing changes and a long call's progress to the stream."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, PERSONAL_TOKEN
from fakes.relay_client import handshake, ws_url
from fakes.remote import FakePlatform, RemoteServer, oauth_env, remote_env, running_remote, running_remotes, sign_in
from mcp.server.streamable_http import REQUEST_CANCELLED
from starlette.types import Message
from websockets.asyncio.client import ClientConnection, connect

from design_console.config import load_remote_config
from design_console.remote.app import build_app
from design_console.remote.listing import ListChanges
from design_console.remote.store import SqliteStore
from design_console.tools.wire.frames import HANDSHAKE_VERSIONS
from remote.sse_client import SseSession, initialize


@pytest.fixture(scope="module")
def pair(fake_api_server: ApiServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RemoteServer, ...]]:
    """The same service twice: with the lean path, and with the SDK serving every message."""
    root = tmp_path_factory.mktemp("lean-sse")
    lean_env = remote_env(root / "lean", fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)
    sdk_env = remote_env(root / "sdk", fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN, DESIGN_REMOTE_LEAN="0")
    with running_remotes(lean_env, sdk_env) as (lean, sdk):
        yield lean, sdk


async def _conversation(server: RemoteServer, version: str) -> list[Any]:
    call = "tools/call"
    versions = {"name": "design_get_file_versions", "arguments": {"fileUrl": ENTERPRISE_KEY}}
    messages: list[dict[str, Any] | bytes] = [
        initialize(version),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "two", "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": call, "params": versions},
        {"jsonrpc": "2.0", "id": 4, "method": call, "params": {"name": "design_get_file_versions", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 5, "method": call, "params": {"name": "design_no_such_tool"}},
        {"jsonrpc": "2.0", "id": 6, "method": call, "params": {**versions, "_meta": {"progressToken": "p"}}},
        {"jsonrpc": "2.0", "id": 7, "method": call, "params": {"arguments": {}}},
        # Not served by the lean path: the SDK answers on the same stream.
        {"jsonrpc": "2.0", "id": 8, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 9, "method": "tools/list"},
        b"{not json",
        {"jsonrpc": "2.0", "id": 10, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
        {"jsonrpc": "2.0", "id": 11, "method": "tools/list"},
    ]
    async with SseSession(server) as session:
        assert re.fullmatch(r"/messages/\?session_id=[0-9a-f]{32}", session.endpoint), session.endpoint
        answers: list[Any] = [session.headers]
        for message in messages:
            answers.append(await session.ask(message))
        unknown = f"/messages/?session_id={uuid.uuid4().hex}"
        for endpoint in (unknown, "/messages/", "/messages/?session_id=not-a-uuid"):
            refused = await session.post({"jsonrpc": "2.0", "id": 12, "method": "ping"}, endpoint)
            answers.append((refused.status_code, refused.text))
        big = await session.post(b'{"jsonrpc":"2.0","id":13,"method":"ping","pad":"' + b"x" * 2_000_000 + b'"}')
        answers.append((big.status_code, big.text))
        wrong_type = await session.http.post(session.endpoint, content=b"{}", headers={"content-type": "text/plain"})
        answers.append((wrong_type.status_code, wrong_type.text))
        other = await session.http.get(session.endpoint)
        answers.append((other.status_code, other.headers.get("allow")))
    return answers


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
async def test_the_lean_sse_path_answers_as_the_sdk_does(pair: tuple[RemoteServer, RemoteServer], version: str) -> None:
    lean, sdk = pair
    ours, theirs = await _conversation(lean, version), await _conversation(sdk, version)
    for step, (mine, reference) in enumerate(zip(ours, theirs, strict=True)):
        assert json.dumps(mine, sort_keys=True) == json.dumps(reference, sort_keys=True), f"answer {step} differs"
    assert ours[1][2][0]["result"]["protocolVersion"] == version
    assert ours[3][2][0]["result"]["tools"], "the listing came on the stream"


async def test_a_closed_stream_frees_its_session(pair: tuple[RemoteServer, RemoteServer]) -> None:
    lean, _ = pair
    async with SseSession(lean) as session:
        await session.ask(initialize(HANDSHAKE_VERSIONS[-1]))
        endpoint = session.endpoint
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    headers = {"content-type": "application/json"}
    async with httpx.AsyncClient(base_url=lean.url, timeout=30) as http:
        # The server notices the closed stream as soon as uvicorn reports the disconnect: poll until it did.
        for _ in range(200):
            status = (await http.post(endpoint, content=ping, headers=headers)).status_code
            if status != 202:
                break
            await asyncio.sleep(0.05)
    assert status == 404


async def _play_plugin(ws: ClientConnection, release: asyncio.Event) -> None:
    """The plugin: its file; EXECUTE_CODE answered with a PROGRESS frame first and the result once ``release``."""
    info = {"fileName": "Sse File", "fileKey": "sseFile", "editorType": "figma", "pluginVersion": "0.1.0"}
    await ws.send(json.dumps({"type": "FILE_INFO", "data": info}))
    async for raw in ws:
        frame = json.loads(raw)
        if frame.get("method") == "EXECUTE_CODE":
            progress = {"id": frame["id"], "progress": 1, "total": 2, "message": "half way"}
            await ws.send(json.dumps({"type": "PROGRESS", "data": progress}))
            await release.wait()
            await ws.send(json.dumps({"id": frame["id"], "result": {"success": True, "result": 7}}))


async def _tool_names(session: SseSession, request_id: int) -> set[str]:
    _, _, frames = await session.ask({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})
    return {tool["name"] for tool in frames[-1]["result"]["tools"]}


async def test_pairing_changes_and_progress_reach_the_stream_and_no_other_user_posts_to_it(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path: Path
) -> None:
    env = remote_env(tmp_path, fake_api_server.url, **oauth_env(platform))
    with running_remote(env) as server:
        _, alice = sign_in(server, platform, "9401")
        _, bob = sign_in(server, platform, "9402")
        async with SseSession(server, alice["access_token"]) as session:
            await session.ask(initialize(HANDSHAKE_VERSIONS[-1]))
            async with SseSession(server, bob["access_token"]) as other:
                refused = await other.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, session.endpoint)
                assert (refused.status_code, refused.text) == (404, "Could not find session")
            before = await _tool_names(session, 1)
            assert "design_execute" not in before
            call = {"name": "design_pair_plugin", "arguments": {}}
            _, _, frames = await session.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
            code = json.loads(frames[-1]["result"]["content"][0]["text"])["code"]
            async with connect(f"{ws_url(server.url)}?code={code}") as ws:
                paired = json.loads(await ws.recv())
                await handshake(ws, paired["data"]["credential"])
                release = asyncio.Event()
                plugin = asyncio.create_task(_play_plugin(ws, release))
                try:
                    assert await session.frame() == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
                    assert "design_execute" in await _tool_names(session, 3)
                    execute = {
                        "name": "design_execute",
                        "arguments": {"code": "return 7"},
                        "_meta": {"progressToken": 5},
                    }
                    posted = await session.post({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": execute})
                    assert posted.status_code == 202
                    # The call is still running (the plugin holds its result): its progress is on the stream.
                    progress = await session.frame()
                    assert progress["method"] == "notifications/progress"
                    assert progress["params"] == {"progressToken": 5, "progress": 1, "total": 2, "message": "half way"}
                    release.set()
                    result = await session.frame()
                    assert result["id"] == 4 and json.loads(result["result"]["content"][0]["text"])["result"] == 7
                finally:
                    plugin.cancel()
            assert await session.frame() == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            assert "design_execute" not in await _tool_names(session, 5)


async def test_a_call_is_cancelled_on_the_stream(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path: Path
) -> None:
    env = remote_env(tmp_path, fake_api_server.url, **oauth_env(platform))
    with running_remote(env) as server:
        _, alice = sign_in(server, platform, "9501")
        async with SseSession(server, alice["access_token"]) as session:
            await session.ask(initialize(HANDSHAKE_VERSIONS[-1]))
            call = {"name": "design_pair_plugin", "arguments": {}}
            _, _, frames = await session.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
            code = json.loads(frames[-1]["result"]["content"][0]["text"])["code"]
            async with connect(f"{ws_url(server.url)}?code={code}") as ws:
                paired = json.loads(await ws.recv())
                await handshake(ws, paired["data"]["credential"])
                never = asyncio.Event()
                plugin = asyncio.create_task(_play_plugin(ws, never))
                try:
                    await session.frame()  # list_changed
                    execute = {"name": "design_execute", "arguments": {"code": "x"}, "_meta": {"progressToken": 1}}
                    await session.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": execute})
                    assert (await session.frame())["method"] == "notifications/progress"
                    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
                    assert (await session.post(cancel)).status_code == 202
                    assert await session.frame() == {
                        "jsonrpc": "2.0",
                        "id": 2,
                        "error": {"code": REQUEST_CANCELLED, "message": "Request cancelled"},
                    }
                finally:
                    plugin.cancel()


async def test_the_lean_sse_path_refuses_a_body_beyond_the_limit_before_reading_it(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "DESIGN_REMOTE_BASE_URL": "https://mcp.example.com", "DESIGN_REMOTE_MAX_BODY": "1024"}
    # The app without the server-wide limit in front: the message endpoint's own limit answers.
    service = build_app(load_remote_config(env)).state.service
    sent: list[Message] = []

    async def receive() -> Message:
        raise AssertionError("the body was read")

    async def send(message: Message) -> None:
        sent.append(message)

    headers = [(b"host", b"mcp.example.com"), (b"content-type", b"application/json"), (b"content-length", b"1025")]
    scope = {"type": "http", "method": "POST", "path": "/messages/", "query_string": b"", "headers": headers}
    try:
        await service.lean_sse.messages(scope, receive, send)
    finally:
        await service.store.close()
    assert sent[0]["status"] == 413


class _Session:
    def __init__(self) -> None:
        self.told = 0

    async def send_tool_list_changed(self) -> None:
        self.told += 1


async def test_a_forgotten_session_hears_no_change(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "store.db")
    changes = ListChanges(store)
    kept, forgotten = _Session(), _Session()
    changes.remember("user", "a", kept)
    changes.remember("user", "b", forgotten)
    changes.forget("user", "b")
    await changes.notify("user")
    await store.close()
    assert (kept.told, forgotten.told) == (1, 0)
