"""The shipped plugin (ui.html in jsdom, code.js in node) paired with the hosted service through its Cloud section:
a code from design_pair_plugin, called over /mcp by a signed-in AI client, pairs it; design_execute and a write tool
then run end to end; expired and replayed codes are refused and shown; another user cannot reach the plugin; and after
a network drop the plugin is back within 10 s and the next call works."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
from fakes.api_server import ApiServer
from fakes.real_plugin import RealPlugin, synced_copy
from fakes.remote import (
    FakePlatform,
    RemoteServer,
    bearer,
    oauth_env,
    redis_server,
    remote_env,
    running_remote,
    running_remotes,
    sign_in,
)
from fakes.tcp_proxy import TcpProxy, tcp_proxy
from helpers import free_port_range
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from design_console.remote.relay import CODE_SECONDS
from design_console.remote.store import RedisStore

RECONNECT_SECONDS = 10.0


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        with redis.Redis.from_url(url) as plain:
            plain.flushdb()
        yield url


@pytest.fixture(scope="module")
def server(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RemoteServer]:
    env = remote_env(
        tmp_path_factory.mktemp("relay"), fake_api_server.url, DESIGN_REMOTE_STORE=redis_url, **oauth_env(platform)
    )
    with running_remote(env) as running:
        yield running


@pytest.fixture
def proxy(server: RemoteServer) -> Iterator[TcpProxy]:
    """The network between the plugin and the relay."""
    with tcp_proxy(int(server.env["DESIGN_REMOTE_PORT"])) as running:
        yield running


@asynccontextmanager
async def mcp(server: RemoteServer, token: str) -> AsyncIterator[Client]:
    http = bearer(token)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as client:
        yield client


async def call(client: Client, name: str, args: dict[str, Any]) -> Any:
    result = await client.call_tool(name, args)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    return json.loads(text)


def cloud(plugin: RealPlugin, state: str, what: str, timeout: float = 20.0) -> dict[str, Any]:
    window = plugin.wait_window(lambda w: w["cloud"]["state"] == state, what, timeout)
    cloud_state: dict[str, Any] = window["cloud"]
    return cloud_state


def opened(html: Path, ports: range, file_key: str) -> RealPlugin:
    plugin = RealPlugin.open(html, ports, "figma", file_key, "Relay File")
    plugin.wait_window(lambda w: w["cloud"]["state"] == "idle", "open")
    return plugin


async def test_the_real_plugin_pairs_and_serves_tools_through_the_relay(
    server: RemoteServer, platform: FakePlatform, proxy: TcpProxy, tmp_path: Path
) -> None:
    html, ports = synced_copy(tmp_path, f"ws://127.0.0.1:{proxy.port}")
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert f"wss://127.0.0.1:{proxy.port}" in manifest["networkAccess"]["allowedDomains"]
    _, alice = sign_in(server, platform, "9001")
    _, bob = sign_in(server, platform, "9002")
    async with mcp(server, alice["access_token"]) as client:
        code = (await call(client, "design_pair_plugin", {}))["code"]
    plugin = opened(html, ports, "relayFileA")
    try:
        plugin.pair(code)
        cloud(plugin, "paired", "pair")
        async with mcp(server, alice["access_token"]) as client:
            made = await call(
                client,
                "design_execute",
                {"code": "const r = figma.createRectangle(); r.name = 'Box'; return {id: r.id, name: r.name};"},
            )
            node_id = made["result"]["id"]
            await call(client, "design_rename_node", {"nodeId": node_id, "newName": "Card/Relayed"})
            read = await call(
                client, "design_execute", {"code": f"return (await figma.getNodeByIdAsync('{node_id}')).name;"}
            )
            assert read["result"] == "Card/Relayed"
        # Another signed-in user cannot send the plugin anything.
        async with mcp(server, bob["access_token"]) as client:
            refused = await client.call_tool("design_execute", {"code": "return 1"})
        assert refused.is_error and "No Desktop Bridge plugin is paired" in refused.content[0].text  # type: ignore[union-attr]

        # A network drop: the plugin comes back with its credential, within 10 s, and the next call works.
        proxy.drop()
        plugin.wait_window(lambda w: w["cloud"]["state"] != "paired", "notice the drop")
        dropped_at = time.monotonic()
        cloud(plugin, "paired", "reconnect", RECONNECT_SECONDS)
        assert time.monotonic() - dropped_at < RECONNECT_SECONDS
        async with mcp(server, alice["access_token"]) as client:
            again = await call(client, "design_execute", {"code": "return figma.editorType;"})
        assert again["result"] == "figma"
    finally:
        plugin.stop()

    # The code is spent: another window that types it is refused, and says why.
    replay = opened(html, ports, "relayFileB")
    try:
        replay.pair(code)
        shown = cloud(replay, "refused", "refuse the spent code")
        assert shown["message"] == "This pairing code was already used. Ask the AI for a new one."
    finally:
        replay.stop()


async def test_the_real_plugin_shows_an_expired_code_and_an_unreachable_relay(
    server: RemoteServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    _, carol = sign_in(server, platform, "9101")
    async with mcp(server, carol["access_token"]) as client:
        code = (await call(client, "design_pair_plugin", {}))["code"]
    # Five minutes pass for this code.
    store = RedisStore(redis_url)
    try:
        await store.delete("pair-code", code)
        await store.put("pair-issued", code, str(time.time() - CODE_SECONDS - 1).encode())
    finally:
        await store.close()
    html, ports = synced_copy(tmp_path, server.url.replace("http://", "ws://"))
    plugin = opened(html, ports, "relayFileC")
    try:
        plugin.pair(code)
        shown = cloud(plugin, "refused", "refuse the expired code")
        assert shown["message"].startswith("This pairing code expired")
    finally:
        plugin.stop()
    # A relay address where nothing answers.
    (tmp_path / "away").mkdir()
    html, ports = synced_copy(tmp_path / "away", f"ws://127.0.0.1:{free_port_range(1)}")
    plugin = opened(html, ports, "relayFileD")
    try:
        plugin.pair("ACDEFG")
        shown = cloud(plugin, "unreachable", "say the relay is unreachable")
        assert "Could not reach the relay" in shown["message"]
    finally:
        plugin.stop()


async def test_the_plugin_moves_to_another_instance_when_its_instance_dies(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    shared = {**oauth_env(platform), "DESIGN_REMOTE_STORE": redis_url}
    first_env = remote_env(tmp_path / "a", fake_api_server.url, **shared)
    second_env = remote_env(tmp_path / "b", fake_api_server.url, **shared)
    second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
    with running_remotes(first_env, second_env) as (first, second):
        ports = (int(first_env["DESIGN_REMOTE_PORT"]), int(second_env["DESIGN_REMOTE_PORT"]))
        # The load balancer sends the plugin to the first instance while it lives, then to the second.
        with tcp_proxy(*ports) as balancer:
            html, scan = synced_copy(tmp_path, f"ws://127.0.0.1:{balancer.port}")
            _, dave = sign_in(second, platform, "9201")
            async with mcp(second, dave["access_token"]) as client:
                code = (await call(client, "design_pair_plugin", {}))["code"]
            plugin = opened(html, scan, "relayFileE")
            try:
                plugin.pair(code)
                cloud(plugin, "paired", "pair")
                # The AI client's instance is not the plugin's: the call crosses over Redis.
                async with mcp(second, dave["access_token"]) as client:
                    crossed = await call(client, "design_execute", {"code": "return 'via the first';"})
                assert crossed["result"] == "via the first"
                first.proc.kill()
                first.proc.wait(10)
                plugin.wait_window(lambda w: w["cloud"]["state"] != "paired", "notice the instance die")
                cloud(plugin, "paired", "come back on the second instance", RECONNECT_SECONDS)
                async with mcp(second, dave["access_token"]) as client:
                    local = await call(client, "design_execute", {"code": "return 'via the second';"})
                assert local["result"] == "via the second"
            finally:
                plugin.stop()
