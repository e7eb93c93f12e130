"""/sse behind a load balancer without sticky routing: two instances share one Redis, the stream is open on one and
the POSTs reach the other, which forwards them to the instance holding the stream; the answers arrive on that stream.
A session no instance holds is refused clearly; a session's owner entry lives while its stream is open, goes when it
closes and lapses when its instance stops; a POST to the instance holding the stream reads nothing from the store."""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, PERSONAL_TOKEN
from fakes.remote import FakePlatform, RemoteServer, oauth_env, remote_env, running_remote, running_remotes, sign_in
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Message, Receive, Scope, Send

from design_console.remote.lean import Listings
from design_console.remote.lean_sse import SESSION_KIND, LeanSse
from design_console.remote.listing import ListChanges
from design_console.remote.store import RedisStore, SqliteStore
from design_console.tools.wire.frames import HANDSHAKE_VERSIONS
from remote.sse_client import SseSession, initialize

METRICS_TOKEN = "metrics-token-0123456789"
#: The owner entries' lease in the in-process test: short, so that renewals and a lapse happen within a second.
LEASE = 0.3


@pytest.fixture
def instances(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> Iterator[tuple[RemoteServer, RemoteServer]]:
    """Two instances behind one Redis, with the same public address (as behind one load balancer)."""
    shared = oauth_env(platform)
    first_env = remote_env(tmp_path / "a", fake_api_server.url, DESIGN_REMOTE_STORE=redis_url, **shared)
    second_env = remote_env(tmp_path / "b", fake_api_server.url, DESIGN_REMOTE_STORE=redis_url, **shared)
    second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
    with running_remotes(first_env, second_env) as (first, second):
        yield first, second


async def _owner_entry(redis_url: str, endpoint: str) -> bytes | None:
    store = RedisStore(redis_url)
    try:
        return await store.get(SESSION_KIND, endpoint.rsplit("=", 1)[1])
    finally:
        await store.close()


async def test_posts_to_another_instance_are_answered_on_the_stream(
    instances: tuple[RemoteServer, RemoteServer], platform: FakePlatform, redis_url: str
) -> None:
    first, second = instances
    _, alice = sign_in(first, platform, "8801")
    _, bob = sign_in(second, platform, "8802")
    async with SseSession(first, alice["access_token"]) as session:
        elsewhere = f"{second.url}{session.endpoint}"
        assert await _owner_entry(redis_url, session.endpoint) is not None

        async def ask(message: dict[str, Any]) -> Any:
            """POST ``message`` to the second instance; the answer read off the first one's stream."""
            posted = await session.post(message, elsewhere)
            assert (posted.status_code, posted.text) == (202, "Accepted")
            if "id" not in message:
                return None
            while (frame := await session.frame()).get("id") != message["id"] or "method" in frame:
                pass
            return frame

        opened = await ask(initialize(HANDSHAKE_VERSIONS[-1], 1))
        assert opened["id"] == 1 and opened["result"]["protocolVersion"] == HANDSHAKE_VERSIONS[-1]
        await ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = await ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert "design_get_file_versions" in {tool["name"] for tool in listed["result"]["tools"]}
        call = {"name": "design_get_file_versions", "arguments": {"fileUrl": ENTERPRISE_KEY}}
        called = await ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
        assert called["id"] == 3 and called["result"].get("isError") is not True
        assert json.loads(called["result"]["content"][0]["text"])
        # A message the lean path leaves to the SDK session behind the stream (which lists no resources): its answer.
        resources = await ask({"jsonrpc": "2.0", "id": 4, "method": "resources/list"})
        assert resources["id"] == 4 and resources["error"]["message"] == "Method not found"
        # The SDK's own refusal of a malformed body comes back from the instance holding the stream.
        malformed = await session.post(b"{not json", elsewhere)
        assert (malformed.status_code, malformed.text) == (400, "Could not parse message")

        async with SseSession(second, bob["access_token"]) as other:
            stolen = await other.post({"jsonrpc": "2.0", "id": 5, "method": "ping"}, elsewhere)
            assert (stolen.status_code, stolen.text) == (404, "Could not find session")
        unknown = await session.post(
            {"jsonrpc": "2.0", "id": 6, "method": "ping"}, f"{second.url}/messages/?session_id={uuid.uuid4().hex}"
        )
        assert (unknown.status_code, unknown.text) == (404, "Could not find session")
        assert (await ask({"jsonrpc": "2.0", "id": 7, "method": "ping"}))["id"] == 7
    # The stream closed: its owner entry goes, and the other instance no longer finds the session.
    for _ in range(200):
        if await _owner_entry(redis_url, session.endpoint) is None:
            break
        await asyncio.sleep(0.05)
    assert await _owner_entry(redis_url, session.endpoint) is None
    async with SseSession(second, alice["access_token"]) as other:
        after = await other.post({"jsonrpc": "2.0", "id": 8, "method": "ping"}, elsewhere)
    assert (after.status_code, after.text) == (404, "Could not find session")


async def test_a_session_whose_instance_died_is_refused_clearly(
    instances: tuple[RemoteServer, RemoteServer], platform: FakePlatform, redis_url: str
) -> None:
    first, second = instances
    _, alice = sign_in(first, platform, "8803")
    async with SseSession(first, alice["access_token"]) as session:
        elsewhere = f"{second.url}{session.endpoint}"
        # Killed: no orderly shutdown deletes the owner entry, which would otherwise wait for its lease to run out.
        first.proc.kill()
        first.proc.wait(10)
        assert await _owner_entry(redis_url, session.endpoint) is not None
        gone = await session.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, elsewhere)
        assert gone.status_code == 410
        error = gone.json()["error"]
        assert error["code"] == -32600 and "Open /sse again" in error["message"]


def _store_reads(server: RemoteServer) -> int:
    scraped = httpx.get(f"{server.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    found = re.search(r'^design_remote_store_operations_total\{operation="get"\} (\d+)$', scraped.text, re.M)
    return int(found.group(1)) if found else 0


async def test_a_post_to_the_instance_holding_the_stream_reads_nothing_from_the_store(
    fake_api_server: ApiServer, tmp_path: Path
) -> None:
    env = remote_env(
        tmp_path,
        fake_api_server.url,
        DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN,
        DESIGN_REMOTE_METRICS_TOKEN=METRICS_TOKEN,
        DESIGN_REMOTE_CACHE_SECONDS="300",
    )
    with running_remote(env) as server:
        async with SseSession(server) as session:
            await session.ask(initialize(HANDSHAKE_VERSIONS[-1]))
            await session.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            before = _store_reads(server)
            for number in range(2, 12):
                status, _, frames = await session.ask({"jsonrpc": "2.0", "id": number, "method": "tools/list"})
                assert status == 202 and frames[-1]["result"]["tools"]
                status, _, frames = await session.ask({"jsonrpc": "2.0", "id": f"p{number}", "method": "ping"})
                assert status == 202 and frames[-1]["result"] == {}
            assert _store_reads(server) == before


class _Listing:
    async def key(self, subject: str) -> str:
        return ""

    def tools(self, key: object) -> list[object]:
        return []


async def test_an_open_stream_keeps_its_owner_entry_and_a_stopped_instance_loses_it(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "store.sqlite3")
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)

    async def unused(scope: Scope, receive: Receive, send: Send) -> None:
        raise AssertionError("no message goes to the SDK here")

    async def no_tool(*args: object) -> None:
        raise AssertionError("no tool runs here")

    lean = LeanSse(
        "/messages/",
        unused,
        unused,
        Listings(_Listing()),
        no_tool,
        security,
        ListChanges(store),
        store,
        max_body=1024,
        lease=LEASE,
    )
    events: asyncio.Queue[bytes] = asyncio.Queue()
    left = asyncio.Event()

    async def receive() -> Message:
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            events.put_nowait(message["body"])

    async def first_entry() -> str:
        endpoint = (await asyncio.wait_for(events.get(), 10)).decode()
        return re.search(r"session_id=([0-9a-f]{32})", endpoint).group(1)  # type: ignore[union-attr]

    scope = {"type": "http", "method": "GET", "path": "/sse", "headers": [], "query_string": b""}
    await lean.start()
    stream = asyncio.create_task(lean.stream(scope, receive, send))
    try:
        session = await first_entry()
        # Several leases pass: the entry lives on, renewed, while the stream is open.
        await asyncio.sleep(LEASE * 4)
        assert await store.get(SESSION_KIND, session) is not None
        # Closed: the entry goes with the stream.
        left.set()
        await asyncio.wait_for(stream, 10)
        assert await store.get(SESSION_KIND, session) is None

        # An instance that stops renewing (as one that died) loses its sessions once their lease runs out.
        left.clear()
        stream = asyncio.create_task(lean.stream(scope, receive, send))
        session = await first_entry()
        await lean.close()
        deadline = time.monotonic() + LEASE * 10
        while await store.get(SESSION_KIND, session) is not None:
            assert time.monotonic() < deadline, "the entry outlived its lease"
            await asyncio.sleep(LEASE / 4)
    finally:
        left.set()
        await asyncio.gather(stream, return_exceptions=True)
        await lean.close()
        await store.close()
