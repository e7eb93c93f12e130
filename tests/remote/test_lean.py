"""The lean path of /mcp answers exactly what the MCP SDK would (a server with DESIGN_REMOTE_LEAN=0 is the
reference), hands what it does not serve to the SDK within the same session, keeps sessions in the store for every
instance, and trusts bearer tokens in memory no longer than a revocation allows."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import redis
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, PERSONAL_TOKEN
from fakes.remote import (
    FakePlatform,
    RemoteServer,
    mcp_status,
    oauth_env,
    remote_env,
    running_remote,
    running_remotes,
    sign_in,
)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.provider import AccessToken

from design_console.remote.lean import TokenCache
from design_console.tools.wire.frames import HANDSHAKE_VERSIONS

ACCEPT = "application/json, text/event-stream"


@pytest.fixture(scope="module")
def pair(fake_api_server: ApiServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RemoteServer, ...]]:
    """The same service twice: with the lean path, and with the SDK serving every message."""
    root = tmp_path_factory.mktemp("lean")
    lean_env = remote_env(root / "lean", fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)
    sdk_env = remote_env(root / "sdk", fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN, DESIGN_REMOTE_LEAN="0")
    with running_remotes(lean_env, sdk_env) as (lean, sdk):
        yield lean, sdk


def _frames(response: httpx.Response) -> list[Any]:
    """The JSON-RPC messages of an answer, whether one JSON body or an event stream."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [
            json.loads(line[len("data: ") :])
            for event in response.text.split("\r\n\r\n")
            for line in event.split("\r\n")
            if line.startswith("data: ") and line[len("data: ") :].strip()
        ]
    return [response.json()] if response.content else []


class _Session:
    def __init__(self, server: RemoteServer, version: str, token: str | None = None) -> None:
        self.server = server
        self.version = version
        self.headers = {"Accept": ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {})}
        self.id = ""

    def send(self, message: dict[str, Any], method: str = "POST") -> tuple[int, str, list[Any]]:
        headers = dict(self.headers)
        if self.id:
            headers |= {"Mcp-Session-Id": self.id, "Mcp-Protocol-Version": self.version}
        response = httpx.request(method, f"{self.server.url}/mcp", json=message or None, headers=headers, timeout=30)
        if not self.id:
            self.id = response.headers.get("mcp-session-id", "")
        kind = response.headers.get("content-type", "").split(";")[0]
        return response.status_code, kind, _frames(response)

    def open(self) -> tuple[int, str, list[Any]]:
        client = {"name": "pin", "version": "1"}
        params = {"protocolVersion": self.version, "capabilities": {}, "clientInfo": client}
        opened = self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        assert self.id, "the answer to initialize names the session"
        return opened


def _conversation(server: RemoteServer, version: str) -> list[tuple[int, str, list[Any]]]:
    session = _Session(server, version)
    call = "tools/call"
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "two", "method": "ping"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": call,
            "params": {"name": "design_get_file_versions", "arguments": {"fileUrl": ENTERPRISE_KEY}},
        },
        {"jsonrpc": "2.0", "id": 4, "method": call, "params": {"name": "design_get_file_versions", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 5, "method": call, "params": {"name": "design_no_such_tool"}},
        {
            "jsonrpc": "2.0",
            "id": 6,
            "method": call,
            "params": {
                "name": "design_get_file_versions",
                "_meta": {"progressToken": "p"},
                "arguments": {"fileUrl": ENTERPRISE_KEY},
            },
        },
        {"jsonrpc": "2.0", "id": 7, "method": call, "params": {"arguments": {}}},
        # Not served by the lean path: the SDK answers within the same session.
        {"jsonrpc": "2.0", "id": 8, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 9, "method": "tools/list"},
    ]
    answers = [session.open()] + [session.send(message) for message in messages]
    answers.append(session.send({}, "DELETE"))
    answers.append(session.send({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}))
    return answers


#: The answers of :func:`_conversation` the lean path gives as one JSON body where the SDK streams events: every
#: request it serves whose result nothing comes before (the call with a progress token, step 7, stays a stream).
JSON_STEPS = {0, 2, 3, 4, 5, 6, 10}
PROGRESS_STEP = 7


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_the_lean_path_answers_as_the_sdk_does(pair: tuple[RemoteServer, RemoteServer], version: str) -> None:
    lean, sdk = pair
    ours, theirs = _conversation(lean, version), _conversation(sdk, version)
    for step, ((status, kind, frames), (sdk_status, sdk_kind, sdk_frames)) in enumerate(zip(ours, theirs, strict=True)):
        assert json.dumps([status, frames], sort_keys=True) == json.dumps([sdk_status, sdk_frames], sort_keys=True), (
            f"answer {step} differs"
        )
        if step in JSON_STEPS:
            assert (kind, sdk_kind) == ("application/json", "text/event-stream"), f"answer {step}"
        else:
            assert kind == sdk_kind, f"answer {step}"
    assert ours[PROGRESS_STEP][1] == "text/event-stream", "progress has a place before the result"
    assert ours[-1][0] == 404, "a deleted session is gone"


def test_a_session_belongs_to_its_opener_alone(pair: tuple[RemoteServer, RemoteServer]) -> None:
    lean, _ = pair
    session = _Session(lean, HANDSHAKE_VERSIONS[-1])
    session.open()
    session.id = session.id[:-1] + ("0" if session.id[-1] != "0" else "1")
    assert session.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})[0] == 404


def test_a_session_opened_on_one_instance_is_served_by_another(
    fake_api_server: ApiServer, redis_url: str, tmp_path: Path
) -> None:
    shared = {
        "DESIGN_REMOTE_STORE": redis_url,
        "DESIGN_ACCESS_TOKEN": PERSONAL_TOKEN,
        "DESIGN_REMOTE_CACHE_SECONDS": "0",
    }
    first_env = remote_env(tmp_path / "a", fake_api_server.url, **shared)
    second_env = remote_env(tmp_path / "b", fake_api_server.url, **shared)
    second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
    with running_remotes(first_env, second_env) as (first, second):
        session = _Session(first, HANDSHAKE_VERSIONS[-1])
        session.open()
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        session.server = second
        status, _, frames = session.send(listing)
        assert status == 200 and frames[0]["result"]["tools"]
        session.send({}, "DELETE")
        session.server = first
        assert session.send(listing)[0] == 404, "ended on one instance, ended on the other"


def test_a_call_without_a_progress_token_is_answered_in_one_json_body(pair: tuple[RemoteServer, RemoteServer]) -> None:
    lean, _ = pair
    session = _Session(lean, HANDSHAKE_VERSIONS[-1])
    session.open()
    headers = {**session.headers, "Mcp-Session-Id": session.id, "Mcp-Protocol-Version": session.version}
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "design_get_file_versions", "arguments": {"fileUrl": ENTERPRISE_KEY}},
    }
    response = httpx.post(f"{lean.url}/mcp", json=call, headers=headers, timeout=30)
    assert response.headers["content-type"] == "application/json"
    # No chunked stream for an answer that is whole at once: one write of the body, its length in the head.
    assert "transfer-encoding" not in response.headers
    assert int(response.headers["content-length"]) == len(response.content)
    assert response.json()["id"] == 1 and response.headers["mcp-session-id"] == session.id


async def test_an_sdk_client_makes_its_calls_on_the_connections_it_has(pair: tuple[RemoteServer, RemoteServer]) -> None:
    # The SDK's client leaves an event-stream answer as soon as it holds the result, before the end of the body, so
    # its HTTP library drops the connection; a JSON answer it reads whole, and the connection is kept.
    lean, _ = pair
    posts: list[bytes] = []

    async def on_request(request: httpx2.Request) -> None:
        async def trace(event: str, info: dict[str, Any]) -> None:
            if event == "connection.connect_tcp.complete":
                posts.append(request.content)

        # Only POSTs: the GET stream of server notifications holds a connection of its own.
        if request.method == "POST":
            request.extensions["trace"] = trace

    http = httpx2.AsyncClient(timeout=30, event_hooks={"request": [on_request]})
    async with http, Client(streamable_http_client(f"{lean.url}/mcp", http_client=http), mode="legacy") as client:
        # The client sends the notification that opens the session and its first request without waiting in between,
        # so they may go on two connections.
        assert (await client.list_tools()).tools
        opened = len(posts)
        for _ in range(5):
            result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
            assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert opened <= 2 and posts[opened:] == [], posts


async def test_a_platform_token_is_read_from_the_store_once_per_period(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "design_get_file_versions", "arguments": {"fileUrl": ENTERPRISE_KEY}},
    }
    for seconds, served in (("300", True), ("0", False)):
        with redis.Redis.from_url(redis_url) as plain:
            plain.flushdb()
        env = remote_env(
            tmp_path / seconds,
            fake_api_server.url,
            DESIGN_REMOTE_STORE=redis_url,
            DESIGN_REMOTE_CACHE_SECONDS=seconds,
            **oauth_env(platform),
        )
        with running_remote(env) as server:
            _, tokens = sign_in(server, platform, "8201")
            session = _Session(server, HANDSHAKE_VERSIONS[-1], tokens["access_token"])
            session.open()
            assert not session.send(call)[2][0]["result"].get("isError", False)
            # The platform token leaves the store: only a call answered from memory still reaches the design API.
            with redis.Redis.from_url(redis_url) as plain:
                assert plain.delete(*plain.keys("design-console:upstream:*")) == 1
            result = session.send(call)[2][0]["result"]
            assert result.get("isError", False) is not served, result
            if not served:
                assert "Sign in again" in result["content"][0]["text"]


def test_a_revocation_takes_effect_at_once_on_its_instance(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path: Path
) -> None:
    # Tokens are trusted in memory far longer than the test lasts: only forgetting them on revocation refuses one.
    env = remote_env(tmp_path, fake_api_server.url, DESIGN_REMOTE_CACHE_SECONDS="300", **oauth_env(platform))
    with running_remote(env) as server:
        client_id, tokens = sign_in(server, platform, "8101")
        assert mcp_status(server, tokens["access_token"]).status_code == 200
        revoke = {"token": tokens["access_token"], "client_id": client_id}
        assert httpx.post(f"{server.url}/revoke", data=revoke).status_code == 200
        assert mcp_status(server, tokens["access_token"]).status_code == 401


class _Verifier:
    def __init__(self, expires_at: int | None = None) -> None:
        self.asked = 0
        self.expires_at = expires_at

    async def verify_token(self, token: str) -> AccessToken | None:
        self.asked += 1
        if token != "good":
            return None
        return AccessToken(token=token, client_id="c", scopes=["s"], expires_at=self.expires_at)


async def test_the_token_cache_asks_the_store_once_per_period() -> None:
    verifier = _Verifier()
    cache = TokenCache(verifier, ttl=60)
    assert await cache.verify_token("good") is not None
    assert await cache.verify_token("good") is not None
    assert verifier.asked == 1
    assert await cache.verify_token("bad") is None and await cache.verify_token("bad") is None
    assert verifier.asked == 3, "an invalid token is never held"
    cache.clear()
    await cache.verify_token("good")
    assert verifier.asked == 4


async def test_the_token_cache_never_holds_a_token_past_its_expiry() -> None:
    verifier = _Verifier(expires_at=int(time.time()) - 1)
    cache = TokenCache(verifier, ttl=60)
    await cache.verify_token("good")
    await cache.verify_token("good")
    assert verifier.asked == 2


async def test_without_a_period_every_check_asks_the_store() -> None:
    verifier = _Verifier()
    cache = TokenCache(verifier, ttl=0)
    await cache.verify_token("good")
    await cache.verify_token("good")
    assert verifier.asked == 2


class _SlowVerifier(_Verifier):
    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def verify_token(self, token: str) -> AccessToken | None:
        await self.release.wait()
        return await super().verify_token(token)


async def test_a_burst_of_checks_of_one_token_asks_the_store_once() -> None:
    verifier = _SlowVerifier()
    cache = TokenCache(verifier, ttl=60)
    burst = [asyncio.ensure_future(cache.verify_token("good")) for _ in range(20)]
    await asyncio.sleep(0)
    verifier.release.set()
    found = await asyncio.gather(*burst)
    assert all(token is not None for token in found)
    assert verifier.asked == 1
