"""The design platform's tokens behind our OAuth: refreshed once for many concurrent calls, sealed at rest with key
rotation, never logged; and two instances sharing one Redis, where a token of one works on the other and a session
stays its creator's."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, OAUTH_TOKEN
from fakes.remote import (
    FakePlatform,
    bearer,
    list_and_call,
    mcp_status,
    new_key,
    oauth_env,
    remote_env,
    running_remote,
    running_remotes,
    sign_in,
)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

#: How long the two instances trust a bearer token in memory (DESIGN_REMOTE_CACHE_SECONDS).
CACHE_SECONDS = 1


async def test_one_refresh_for_a_hundred_concurrent_calls(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path: Path
) -> None:
    env = remote_env(tmp_path, fake_api_server.url, **oauth_env(platform))
    with running_remote(env) as server:
        # Signed in with a platform token that is already inside the refresh margin.
        platform.expires_in = 5
        _, tokens = sign_in(server, platform, "6001")
        platform.expires_in = 3600
        before = platform.refreshes
        http = bearer(tokens["access_token"])
        target = streamable_http_client(f"{server.url}/mcp", http_client=http)
        async with http, Client(target, mode="legacy") as client:
            results = await asyncio.gather(
                *(client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY}) for _ in range(100))
            )
        assert all(not result.is_error for result in results)
        assert platform.refreshes - before == 1


async def test_platform_tokens_are_sealed_and_keys_rotate(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path: Path
) -> None:
    old, new = new_key(), new_key()
    env = remote_env(tmp_path, fake_api_server.url, **oauth_env(platform, keys=old))
    with running_remote(env) as server:
        _, tokens = sign_in(server, platform, "6002")
        await list_and_call(server, tokens["access_token"])
    logged = server.stderr()
    store = Path(env["DESIGN_CONSOLE_HOME"]) / "remote.sqlite3"
    assert OAUTH_TOKEN.encode() not in store.read_bytes()
    for secret in (OAUTH_TOKEN, tokens["access_token"], tokens["refresh_token"], env["DESIGN_OAUTH_CLIENT_SECRET"]):
        assert secret not in logged

    # The new key first, the old one still known: the record opens, and is sealed again with the new key.
    with running_remote({**env, **oauth_env(platform, keys=f"{new},{old}")}) as server:
        await list_and_call(server, tokens["access_token"])
    # The old key retired: the record was re-sealed, so it still opens.
    with running_remote({**env, **oauth_env(platform, keys=new)}) as server:
        await list_and_call(server, tokens["access_token"])
    # A key that never sealed it: the user is asked to sign in again.
    with running_remote({**env, **oauth_env(platform, keys=new_key())}) as server:
        http = bearer(tokens["access_token"])
        async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as client:
            result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
            assert result.is_error and "Sign in again" in result.content[0].text  # type: ignore[union-attr]


async def test_two_instances_behind_one_redis(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    shared = {**oauth_env(platform), "DESIGN_REMOTE_CACHE_SECONDS": str(CACHE_SECONDS)}
    first_env = remote_env(tmp_path / "a", fake_api_server.url, DESIGN_REMOTE_STORE=redis_url, **shared)
    # Behind one load balancer both instances have the same public address.
    second_env = remote_env(tmp_path / "b", fake_api_server.url, DESIGN_REMOTE_STORE=redis_url, **shared)
    second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
    with running_remotes(first_env, second_env) as (first, second):
        alice_client, alice = sign_in(first, platform, "7001")
        _, bob = sign_in(second, platform, "7002")
        # A token issued by one instance works on the other.
        await list_and_call(second, alice["access_token"])
        await list_and_call(first, bob["access_token"])
        # A session created on one instance is no one else's, on either instance.
        created = mcp_status(first, alice["access_token"])
        session = created.headers["mcp-session-id"]
        headers = {
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": session,
            "Mcp-Protocol-Version": "2025-06-18",
        }
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        for server in (first, second):
            stolen = httpx.post(
                f"{server.url}/mcp", json=listing, headers={**headers, "Authorization": f"Bearer {bob['access_token']}"}
            )
            assert stolen.status_code in (403, 404), stolen.text
        # Revoked on one instance: refused there at once, and by the other once it asks the store again.
        revoke = {"token": alice["access_token"], "client_id": alice_client, "client_secret": ""}
        assert httpx.post(f"{second.url}/revoke", data=revoke).status_code == 200
        assert mcp_status(second, alice["access_token"]).status_code == 401
        deadline = time.monotonic() + CACHE_SECONDS + 5
        while mcp_status(first, alice["access_token"]).status_code != 401:
            assert time.monotonic() < deadline, "the other instance still takes a revoked token"


async def test_one_refresh_across_instances(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    shared = oauth_env(platform)
    first_env = remote_env(tmp_path / "a", fake_api_server.url, DESIGN_REMOTE_STORE=redis_url, **shared)
    second_env = remote_env(tmp_path / "b", fake_api_server.url, DESIGN_REMOTE_STORE=redis_url, **shared)
    second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
    with running_remotes(first_env, second_env) as (first, second):
        platform.expires_in = 5
        _, tokens = sign_in(first, platform, "7101")
        platform.expires_in = 3600
        before = platform.refreshes

        async def calls(url: str) -> list[bool]:
            http = bearer(tokens["access_token"])
            async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy") as client:
                results = await asyncio.gather(
                    *(client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY}) for _ in range(50))
                )
            return [result.is_error for result in results]

        errors = await asyncio.gather(calls(first.url), calls(second.url))
        assert not any(errors[0] + errors[1])
        assert platform.refreshes - before == 1
