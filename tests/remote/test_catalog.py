"""The honest catalog of Remote Mode: what each tool needs is declared once on it; the hosted service keeps the tools
whose needs it can meet and lists each user those that can work for them now (the plugin's tools while the user's
paired plugin is connected, announced with ``notifications/tools/list_changed`` on every instance, also when the
plugin or its instance is lost without a word); status and diagnose answer remotely."""

from __future__ import annotations

import asyncio
import base64
import inspect
import io
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import PERSONAL_TOKEN
from fakes.relay_client import handshake, ws_url
from fakes.remote import (
    FakePlatform,
    RemoteServer,
    bearer,
    oauth_env,
    remote_env,
    running_remote,
    sign_in,
    two_instances,
)
from fakes.tcp_proxy import tcp_proxy
from helpers import free_port_range
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from PIL import Image
from websockets.asyncio.client import ClientConnection, connect

from design_console import PLUGIN_VERSION
from design_console.clients.design_api import DesignApi
from design_console.config import load_config
from design_console.remote.browser import BrowserPool
from design_console.remote.listing import REMOTE_NEEDS, STATES, UserState, UserStates, listed_tools, listings
from design_console.remote.tools import REMOTE_HANDLERS, RemoteCallContext, call_tool, remote_catalog
from design_console.tools import catalog
from design_console.tools.base import NoArgs, ToolSpec, ok

CONFIG = load_config({"HOME": "/nonexistent"})
BROWSER_TOOLS = {"design_navigate", "design_get_console_logs", "design_take_screenshot"}
NOTICE_SECONDS = 10.0
#: Short liveness settings, so that a lost plugin or instance is noticed within seconds.
PING_SECONDS = 1
LEASE_SECONDS = 3
FAST = {
    "DESIGN_RELAY_PING_SECONDS": str(PING_SECONDS),
    "DESIGN_RELAY_PING_TIMEOUT": str(PING_SECONDS),
    "DESIGN_RELAY_LEASE_SECONDS": str(LEASE_SECONDS),
}
#: What a loaded machine may add to a bound.
SLACK_SECONDS = 3.0


async def _handler(ctx: Any, args: NoArgs) -> Any:
    return ok({})


def _spec(**declared: Any) -> ToolSpec:
    return ToolSpec(name="design_t", description="t", args=NoArgs, handler=_handler, **declared)


def test_needs_follow_what_the_tool_declares() -> None:
    assert _spec(runs_in="api").needs == {"api"}
    assert _spec(runs_in="media").needs == {"api"}
    assert _spec(runs_in="daemon").needs == {"daemon"}
    assert _spec(runs_in="daemon", needs_bridge=True).needs == {"bridge"}
    assert _spec(runs_in="api", needs_bridge=True).needs == {"bridge"}
    assert _spec(runs_in="tokens", uses_files=True).needs == {"disk"}
    assert _spec(runs_in="tokens").needs == set()
    assert _spec(needs_bridge=True, also_needs=frozenset({"daemon"})).needs == {"bridge", "daemon"}
    tools = catalog(CONFIG)
    # Plugin tools that also read what designd keeps of the plugin's events say so.
    for name in ("design_get_selection", "design_list_open_files", "design_get_design_changes"):
        assert tools[name].needs == {"bridge", "daemon"}, name
    # A tool that works without files too names the arguments that reach them, and needs no disk.
    assert tools["design_export_tokens"].needs == {"bridge"}
    assert _spec(runs_in="tokens", uses_files=True, file_args=("outputPath",)).needs == set()
    assert tools["design_ds_scaffold"].needs == {"disk"}
    assert tools["design_get_file_versions"].needs == {"api"}
    assert tools["design_execute"].needs == {"bridge"}


def _takes_daemon_context(spec: ToolSpec) -> bool:
    first = next(iter(inspect.signature(spec.handler).parameters.values()))
    annotation = first.annotation
    return (annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")) == "DaemonContext"


def test_the_remote_catalog_is_every_tool_whose_needs_a_hosted_server_meets() -> None:
    local = catalog(CONFIG)
    remote = remote_catalog(CONFIG)
    for name, spec in local.items():
        # Status, diagnose and the browser's three tools have a Remote Mode handler of their own.
        replaced = name in REMOTE_HANDLERS or name in BROWSER_TOOLS
        meetable = spec.toolset != "apps" and (spec.needs <= REMOTE_NEEDS or replaced)
        assert (name in remote) == meetable, name
    for name, spec in remote.items():
        assert spec.needs <= REMOTE_NEEDS, name
        # What the declaration says agrees with the handler: none takes the context only designd gives.
        assert not _takes_daemon_context(spec), name
    for name in ("design_ds_scaffold", "design_ds_analyze", "design_get_selection", "design_watch_console"):
        assert name not in remote, name
    assert remote["design_get_status"].needs == remote["design_diagnose"].needs == {"api"}
    assert {name for name, spec in remote.items() if "browser" in spec.needs} == BROWSER_TOOLS


def test_each_user_state_lists_exactly_the_tools_it_can_run() -> None:
    remote = remote_catalog(CONFIG)
    answers = listings(remote)
    bridge = {name for name, spec in remote.items() if spec.needs == {"bridge"}}
    alone = {spec.name for spec in listed_tools(remote, UserState())}
    assert "design_get_status" in alone and "design_pair_plugin" in alone and "design_get_file_versions" in alone
    assert not alone & (bridge | BROWSER_TOOLS)
    assert {spec.name for spec in listed_tools(remote, UserState(paired=True))} == alone | bridge
    assert {spec.name for spec in listed_tools(remote, UserState(browser=True))} == alone | BROWSER_TOOLS
    assert {spec.name for spec in listed_tools(remote, UserState(True, True))} == set(remote)
    for state in STATES:
        have = state.available
        listed = [tool.name for tool in answers[state].tools]
        assert listed == [spec.name for spec in listed_tools(remote, state)]
        assert all(remote[name].needs <= have for name in listed)


class Listener:
    """An AI client's session that counts the ``notifications/tools/list_changed`` it hears."""

    def __init__(self) -> None:
        self.changes = 0
        self.changed = asyncio.Event()

    async def on_message(self, message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", "") == "notifications/tools/list_changed":
            self.changes += 1
            self.changed.set()

    async def next_change(self) -> None:
        await asyncio.wait_for(self.changed.wait(), NOTICE_SECONDS)
        self.changed.clear()


@asynccontextmanager
async def session(server: RemoteServer, token: str, listener: Listener | None = None) -> AsyncIterator[Client]:
    http = bearer(token)
    handler = listener.on_message if listener is not None else None
    transport = streamable_http_client(f"{server.url}/mcp", http_client=http)
    async with http, Client(transport, mode="legacy", message_handler=handler) as client:
        yield client


async def listed(client: Client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


async def answer(client: Client, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await client.call_tool(name, args or {})
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    decoded: dict[str, Any] = json.loads(text)
    return decoded


async def play_plugin(ws: ClientConnection) -> None:
    """The plugin after its handshake: its file, and answers to GET_FILE_INFO and EXECUTE_CODE."""
    info = {"fileName": "Paired File", "fileKey": "pairedFile", "editorType": "figma", "pluginVersion": "0.0.9"}
    await ws.send(json.dumps({"type": "FILE_INFO", "data": info}))
    async for raw in ws:
        frame = json.loads(raw)
        if frame.get("method") == "GET_FILE_INFO":
            await ws.send(json.dumps({"id": frame["id"], "result": {"success": True, **info, "currentPage": "P"}}))
        elif frame.get("method") == "EXECUTE_CODE":
            await ws.send(json.dumps({"id": frame["id"], "result": {"success": True, "result": 7}}))


async def test_pairing_and_unpairing_change_the_listed_tools_and_every_session_hears_it(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    remote = remote_catalog(CONFIG)
    bridge = {name for name, spec in remote.items() if spec.needs == {"bridge"}}
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url) as (first, second):
        _, alice = sign_in(first, platform, "9301")
        _, bob = sign_in(first, platform, "9302")
        heard, bystander = Listener(), Listener()
        async with (
            session(first, alice["access_token"], heard) as client,
            session(first, bob["access_token"], bystander) as other,
        ):
            before = await listed(client)
            assert "design_pair_plugin" in before and not before & bridge
            assert await listed(other) == before
            status = await answer(client, "design_get_status")
            assert status["pairing"] == {"paired": False}
            code = (await answer(client, "design_pair_plugin"))["code"]
            # The plugin's socket lands on the second instance; the AI client's session is on the first.
            async with connect(f"{ws_url(second.url)}?code={code}") as ws:
                paired = json.loads(await ws.recv())
                await handshake(ws, paired["data"]["credential"])
                plugin = asyncio.create_task(play_plugin(ws))
                try:
                    await heard.next_change()
                    now = await listed(client)
                    assert now == before | bridge
                    assert (await answer(client, "design_execute", {"code": "return 7"}))["result"] == 7
                    status = await answer(client, "design_get_status")
                    pairing = status["pairing"]
                    assert pairing["paired"] and pairing["connected"] and pairing["since"].endswith("Z")
                    assert pairing["file"]["fileName"] == "Paired File" and pairing["pluginVersion"] == "0.0.9"
                    diagnosis = await answer(client, "design_diagnose")
                    assert any(PLUGIN_VERSION in cause for cause in diagnosis["likelyCauses"]), diagnosis
                    # Bob's pairing did not change: his list is the same and he heard nothing.
                    assert await listed(other) == before
                finally:
                    plugin.cancel()
            await heard.next_change()
            assert await listed(client) == before
            status = await answer(client, "design_get_status")
            assert status["pairing"]["paired"] and not status["pairing"]["connected"]
            diagnosis = await answer(client, "design_diagnose")
            assert any("not connected" in cause for cause in diagnosis["likelyCauses"]), diagnosis
            assert heard.changes == 2 and bystander.changes == 0


async def paired_plugin(url: str, code: str) -> tuple[ClientConnection, asyncio.Task[None]]:
    """A plugin that redeemed ``code`` at ``url`` and answers commands; it sends no pings of its own, and gives up
    closing a dead socket at once."""
    ws = await connect(f"{ws_url(url)}?code={code}", ping_interval=None, close_timeout=0.1)
    paired = json.loads(await ws.recv())
    await handshake(ws, paired["data"]["credential"])
    return ws, asyncio.create_task(play_plugin(ws))


async def test_a_plugin_lost_without_a_close_ends_its_pairing_within_the_ping_bound(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path: Path
) -> None:
    bridge = {name for name, spec in remote_catalog(CONFIG).items() if spec.needs == {"bridge"}}
    env = remote_env(tmp_path, fake_api_server.url, **oauth_env(platform), **FAST)
    with running_remote(env) as server, tcp_proxy(int(env["DESIGN_REMOTE_PORT"])) as network:
        _, carol = sign_in(server, platform, "9303")
        heard = Listener()
        async with session(server, carol["access_token"], heard) as client:
            code = (await answer(client, "design_pair_plugin"))["code"]
            ws, plugin = await paired_plugin(f"http://127.0.0.1:{network.port}", code)
            try:
                await heard.next_change()
                assert bridge <= await listed(client)
                # The laptop sleeps: no close frame, no reset, the socket just goes quiet.
                network.freeze()
                lost = asyncio.get_running_loop().time()
                await heard.next_change()
                assert asyncio.get_running_loop().time() - lost < 2 * PING_SECONDS + SLACK_SECONDS
                assert not await listed(client) & bridge
                status = await answer(client, "design_get_status")
                assert status["pairing"]["paired"] and not status["pairing"]["connected"]
            finally:
                plugin.cancel()
                await ws.close()


async def test_the_pairings_of_a_killed_instance_end_on_the_others(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    bridge = {name for name, spec in remote_catalog(CONFIG).items() if spec.needs == {"bridge"}}
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url, **FAST) as (first, second):
        _, dan = sign_in(first, platform, "9304")
        heard = Listener()
        async with session(first, dan["access_token"], heard) as client:
            code = (await answer(client, "design_pair_plugin"))["code"]
            ws, plugin = await paired_plugin(second.url, code)
            try:
                await heard.next_change()
                assert bridge <= await listed(client)
                # The plugin's instance dies at once, and the plugin does not come back anywhere.
                second.proc.kill()
                second.proc.wait(10)
                killed = asyncio.get_running_loop().time()
                await heard.next_change()
                assert asyncio.get_running_loop().time() - killed < LEASE_SECONDS * 4 / 3 + SLACK_SECONDS
                assert not await listed(client) & bridge
                assert heard.changes == 2
            finally:
                plugin.cancel()
                await ws.close()


def store_reads(metrics: str) -> int:
    """How many store reads (``get``) a server has asked so far, from its /metrics at ``metrics``."""
    scraped = httpx.get(metrics)
    assert scraped.status_code == 200
    for line in scraped.text.splitlines():
        if line.startswith('design_remote_store_operations_total{operation="get"} '):
            return int(line.rsplit(" ", 1)[1])
    return 0


async def test_the_listing_comes_from_memory_and_follows_a_pairing_on_another_instance(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    remote = remote_catalog(CONFIG)
    bridge = {name for name, spec in remote.items() if spec.needs == {"bridge"}}
    # A cache age far beyond the test: only the pairing pub/sub can make the first instance read the store again. The
    # metrics are read on their own address, whose requests touch nothing else.
    bind = f"127.0.0.1:{free_port_range(1)}"
    metrics = f"http://{bind}/metrics"
    settings = {"DESIGN_REMOTE_CACHE_SECONDS": "300", "DESIGN_REMOTE_METRICS_BIND": bind}
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url, settings) as (first, second):
        _, alice = sign_in(first, platform, "9311")
        heard = Listener()
        async with session(first, alice["access_token"], heard) as client:
            before = await listed(client)
            warm = store_reads(metrics)
            for _ in range(20):
                assert await listed(client) == before
            assert store_reads(metrics) == warm, "tools/list read the store once warm"
            code = (await answer(client, "design_pair_plugin"))["code"]
            async with connect(f"{ws_url(second.url)}?code={code}") as ws:
                paired = json.loads(await ws.recv())
                await handshake(ws, paired["data"]["credential"])
                plugin = asyncio.create_task(play_plugin(ws))
                try:
                    await heard.next_change()
                    assert await listed(client) == before | bridge
                    warm = store_reads(metrics)
                    for _ in range(20):
                        await listed(client)
                    assert store_reads(metrics) == warm
                finally:
                    plugin.cancel()
            await heard.next_change()
            assert await listed(client) == before


@pytest.fixture(scope="module")
def open_server(fake_api_server: ApiServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteServer]:
    root = tmp_path_factory.mktemp("catalog")
    with running_remote(remote_env(root, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)) as server:
        yield server


async def test_status_and_diagnose_answer_remotely(open_server: RemoteServer) -> None:
    async with Client(f"{open_server.url}/mcp", mode="legacy") as client:
        status = await answer(client, "design_get_status")
        assert status["transport"]["mode"] == status["server"]["mode"] == "remote"
        assert status["auth"] == {"oauth": False, "platformToken": status["auth"]["platformToken"]}
        assert status["auth"]["platformToken"]["valid"] is True
        assert status["pairing"] == {"paired": False}
        assert status["browser"]["available"] is BrowserPool(CONFIG).available()
        assert any("design_pair_plugin" in step for step in status["nextSteps"])
        diagnosis = await answer(client, "design_diagnose", {"verbose": True})
        assert any("design_pair_plugin" in cause for cause in diagnosis["likelyCauses"])
        assert "designApi" in diagnosis


async def test_diagnose_names_a_refused_server_token(fake_api_server: ApiServer, tmp_path: Path) -> None:
    env = remote_env(tmp_path, fake_api_server.url, DESIGN_ACCESS_TOKEN="figd_not-a-known-token")
    with running_remote(env) as server:
        async with Client(f"{server.url}/mcp", mode="legacy") as client:
            diagnosis = await answer(client, "design_diagnose")
    assert diagnosis["auth"]["platformToken"]["valid"] is False
    assert any("DESIGN_ACCESS_TOKEN" in cause for cause in diagnosis["likelyCauses"]), diagnosis


#: What GET_VARIABLES_DATA answers for a file with one collection of one mode and one colour.
SNAPSHOT = {
    "variableCollections": [
        {"id": "VC:1", "name": "Brand", "modes": [{"modeId": "1:0", "name": "Light"}], "defaultModeId": "1:0"}
    ],
    "variables": [
        {
            "id": "V:1",
            "name": "color/blue",
            "resolvedType": "COLOR",
            "variableCollectionId": "VC:1",
            "valuesByMode": {"1:0": {"r": 0.2, "g": 0.4, "b": 1, "a": 1}},
        }
    ],
}


class PairedContext(RemoteCallContext):
    """A Remote Mode call context whose paired plugin answers from a table, and records what it was sent."""

    def __init__(self, api: DesignApi, replies: dict[str, dict[str, Any]]) -> None:
        async def progress(done: float, total: float | None, message: str) -> None:
            return None

        super().__init__(CONFIG, api, progress, subject="design:1")
        self.replies = replies
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        self.sent.append((method, params or {}))
        return {"success": True, **self.replies[method]}


@asynccontextmanager
async def paired(replies: dict[str, dict[str, Any]]) -> AsyncIterator[PairedContext]:
    api = DesignApi(CONFIG)
    try:
        yield PairedContext(api, replies)
    finally:
        await api.aclose()


async def run(ctx: PairedContext, name: str, args: dict[str, Any]) -> tuple[bool, str]:
    async def context() -> RemoteCallContext:
        return ctx

    result = await call_tool(remote_catalog(CONFIG), name, args, context)
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]


def _png() -> str:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


async def test_tools_that_work_on_inline_data_run_remotely_and_refuse_file_arguments() -> None:
    remote = remote_catalog(CONFIG)
    for name in ("design_export_tokens", "design_import_tokens", "design_set_image_fill"):
        assert remote[name].needs == {"bridge"}, name
    assert remote["design_generate_component_doc"].needs == {"api"}
    async with paired({"GET_VARIABLES_DATA": SNAPSHOT, "SET_IMAGE_FILL": {"nodeIds": ["1:2"]}}) as ctx:
        failed, text = await run(ctx, "design_export_tokens", {"format": "css-vars"})
        assert not failed, text
        assert "--color-blue" in next(iter(json.loads(text)["files"].values()))
        failed, text = await run(ctx, "design_export_tokens", {"format": "css-vars", "outputPath": "tokens.css"})
        assert failed and "names a file on your machine (outputPath, configPath)" in text
        payload = json.dumps({"color": {"red": {"$type": "color", "$value": "#ff0000"}}})
        failed, text = await run(ctx, "design_import_tokens", {"payload": payload, "format": "dtcg", "dryRun": True})
        assert not failed, text
        assert json.loads(text)["dryRun"] is True
        failed, text = await run(ctx, "design_import_tokens", {"files": [{"path": "tokens.json"}]})
        assert failed and "(files, configPath)" in text
        failed, text = await run(ctx, "design_set_image_fill", {"nodeIds": ["1:2"], "imageData": _png()})
        assert not failed, text
        method, params = ctx.sent[-1]
        assert method == "SET_IMAGE_FILL" and params["nodeIds"] == ["1:2"]
        sent = len(ctx.sent)
        failed, text = await run(ctx, "design_set_image_fill", {"nodeIds": ["1:2"], "imageData": "logo.png"})
        assert failed and "names a file on your machine (imageData)" in text
        assert len(ctx.sent) == sent


async def test_a_pairing_state_read_overtaken_by_a_change_is_not_kept() -> None:
    answers = [False, True, True]
    asked: list[str] = []
    reading = asyncio.Event()
    release = asyncio.Event()

    async def paired(subject: str) -> bool:
        asked.append(subject)
        if len(asked) == 1:
            reading.set()
            await release.wait()
        return answers[len(asked) - 1]

    states = UserStates(paired, lambda: False, max_age=300)
    slow = asyncio.create_task(states.paired("design:1"))
    await reading.wait()
    # The pairing changes while the store read that predates it is in flight.
    states.forget("design:1")
    release.set()
    assert await slow is False
    assert await states.paired("design:1") is True
    assert await states.paired("design:1") is True
    assert asked == ["design:1", "design:1"]
    states.forget("design:1")
    await states.paired("design:1")
    assert len(asked) == 3
