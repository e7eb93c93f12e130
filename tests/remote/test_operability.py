"""What an operator sees and does: /metrics behind its own token or on its own address (off by default), one JSON log
line per request with
the id the response carries in X-Request-Id, and a SIGTERM that stops accepting, lets the call in flight finish and
sends the plugin's relay socket 1012 so it reconnects at once: relayed calls finish, move with the plugin to another
instance, or answer that they can be retried, within the grace period."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, PERSONAL_TOKEN
from fakes.relay_client import handshake, ws_url
from fakes.remote import (
    FakePlatform,
    RemoteServer,
    bearer,
    oauth_env,
    remote_env,
    running_remote,
    running_remotes,
    sign_in,
)
from fakes.tcp_proxy import tcp_proxy
from helpers import free_port_range
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from design_console.config import load_remote_config
from design_console.errors import DesignError

METRICS_TOKEN = "metrics-token-0123456789"
ACCEPT = "application/json, text/event-stream"
VERSION = "2025-11-25"


def _open(server: RemoteServer, token: str | None = None) -> dict[str, str]:
    """Open a session; the headers of its next requests."""
    headers = {"Accept": ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {})}
    params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "ops", "version": "1"}}
    opened = httpx.post(
        f"{server.url}/mcp", json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, headers=headers
    )
    assert opened.status_code == 200, opened.text
    return headers | {"Mcp-Session-Id": opened.headers["mcp-session-id"], "Mcp-Protocol-Version": VERSION}


def _call(server: RemoteServer, headers: dict[str, str], file_key: str = ENTERPRISE_KEY) -> httpx.Response:
    params = {"name": "design_get_file_versions", "arguments": {"fileUrl": file_key}}
    message = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params}
    return httpx.post(f"{server.url}/mcp", json=message, headers=headers, timeout=60)


def _metric(text: str, line_start: str) -> float:
    for line in text.splitlines():
        if line.startswith(line_start + " "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no {line_start} in:\n{text}")


def test_metrics_count_requests_and_tool_calls_behind_their_token(fake_api_server: ApiServer, tmp_path: Path) -> None:
    env = remote_env(
        tmp_path, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN, DESIGN_REMOTE_METRICS_TOKEN=METRICS_TOKEN
    )
    with running_remote(env) as server:
        assert httpx.get(f"{server.url}/metrics").status_code == 404
        assert httpx.get(f"{server.url}/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 404
        headers = _open(server)
        listing = httpx.post(
            f"{server.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers
        )
        called = _call(server, headers)
        assert listing.status_code == called.status_code == 200
        assert '"isError":false' in called.text
        ids = {listing.headers["x-request-id"], called.headers["x-request-id"]}
        assert len(ids) == 2, "each request has an id of its own"

        scraped = httpx.get(f"{server.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert scraped.status_code == 200
        assert scraped.headers["content-type"].startswith("text/plain; version=0.0.4")
        text = scraped.text
        assert _metric(text, 'design_remote_requests_total{endpoint="/mcp",status="200"}') >= 3
        tool = 'tool="design_get_file_versions"'
        assert _metric(text, f'design_remote_tool_calls_total{{{tool},outcome="ok"}}') == 1
        assert _metric(text, f"design_remote_tool_call_seconds_count{{{tool}}}") == 1
        assert _metric(text, f'design_remote_tool_call_seconds_bucket{{{tool},le="+Inf"}}') == 1
        assert _metric(text, "design_remote_active_sessions") == 1
        assert _metric(text, "design_remote_relays") == 0
        assert _metric(text, "design_remote_upstream_requests_total") >= 1

        lines = [json.loads(line) for line in server.stderr().splitlines() if line.startswith("{")]
        mine = next(line for line in lines if line["request_id"] == called.headers["x-request-id"])
        assert mine["path"] == "/mcp" and mine["status"] == 200 and mine["tool"] == "design_get_file_versions"
        assert mine["duration_ms"] > 0 and mine["method"] == "POST"


async def _pair(server: RemoteServer, token: str) -> str:
    http = bearer(token)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as client:
        result = await client.call_tool("design_pair_plugin", {})
    return str(json.loads(result.content[0].text)["code"])  # type: ignore[union-attr]


def test_metrics_on_their_own_address_and_not_on_the_public_port(fake_api_server: ApiServer, tmp_path: Path) -> None:
    bind = f"127.0.0.1:{free_port_range(1)}"
    env = remote_env(tmp_path, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN, DESIGN_REMOTE_METRICS_BIND=bind)
    with running_remote(env) as server:
        assert _call(server, _open(server)).status_code == 200
        scraped = httpx.get(f"http://{bind}/metrics")
        assert scraped.status_code == 200
        assert scraped.headers["content-type"].startswith("text/plain; version=0.0.4")
        assert (
            _metric(scraped.text, 'design_remote_tool_calls_total{tool="design_get_file_versions",outcome="ok"}') == 1
        )
        assert httpx.get(f"{server.url}/metrics").status_code == 404
        assert httpx.get(f"http://{bind}/mcp").status_code == 404
        assert httpx.get(f"http://{bind}/health").status_code == 404


def test_metrics_on_their_own_address_still_ask_for_the_token_when_one_is_set(
    fake_api_server: ApiServer, tmp_path: Path
) -> None:
    bind = f"127.0.0.1:{free_port_range(1)}"
    env = remote_env(
        tmp_path,
        fake_api_server.url,
        DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN,
        DESIGN_REMOTE_METRICS_BIND=bind,
        DESIGN_REMOTE_METRICS_TOKEN=METRICS_TOKEN,
    )
    with running_remote(env) as server:
        authorized = {"Authorization": f"Bearer {METRICS_TOKEN}"}
        assert httpx.get(f"http://{bind}/metrics").status_code == 404
        assert httpx.get(f"http://{bind}/metrics", headers=authorized).status_code == 200
        # The token does not open the public port once the metrics have an address of their own.
        assert httpx.get(f"{server.url}/metrics", headers=authorized).status_code == 404


@pytest.mark.parametrize("value", ["9464", "127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000", ":9464"])
def test_a_metrics_address_that_is_not_host_and_port_is_refused(value: str) -> None:
    env = {"HOME": "/nonexistent", "DESIGN_REMOTE_BASE_URL": "https://mcp.example.com"}
    with pytest.raises(DesignError) as refused:
        load_remote_config({**env, "DESIGN_REMOTE_METRICS_BIND": value})
    assert "DESIGN_REMOTE_METRICS_BIND" in str(refused.value) and "host:port" in str(refused.value)
    assert load_remote_config({**env, "DESIGN_REMOTE_METRICS_BIND": "[::1]:9464"}).metrics_bind == ("::1", 9464)


async def test_sigterm_drains_calls_and_sends_plugins_elsewhere(
    fake_api: ApiServer, platform: FakePlatform, tmp_path: Path
) -> None:
    env = remote_env(tmp_path, fake_api.url, **oauth_env(platform))
    with running_remote(env) as server:
        assert httpx.get(f"{server.url}/metrics").status_code == 404, "no /metrics unless a token is set"
        _, tokens = sign_in(server, platform, "9101")
        code = await _pair(server, tokens["access_token"])
        async with connect(f"{ws_url(server.url)}?code={code}") as ws:
            paired = json.loads(await ws.recv())
            await handshake(ws, paired["data"]["credential"])
            headers = _open(server, tokens["access_token"])
            seen = len(fake_api.fake.seen)
            fake_api.fake.delays.append(4.0)
            answer: list[httpx.Response] = []
            caller = threading.Thread(target=lambda: answer.append(_call(server, headers, "fileDrainedOnStop")))
            caller.start()
            deadline = time.monotonic() + 30
            while len(fake_api.fake.seen) == seen:
                assert time.monotonic() < deadline, "the call never reached the design API"
                await asyncio.sleep(0.01)
            server.proc.send_signal(signal.SIGTERM)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
            refused: list[Any] = []
            while not refused and caller.is_alive():
                try:
                    httpx.get(f"{server.url}/health", timeout=1)
                except httpx.HTTPError as err:
                    refused.append(err)
            assert refused, "a new connection was still accepted while the call drained"
            await asyncio.to_thread(caller.join, 60)
            assert answer and answer[0].status_code == 200
            assert "fileDrainedOnStop" in answer[0].text or '"result"' in answer[0].text
            # uvicorn ends by raising the signal it caught again, once everything is drained and closed.
            assert await asyncio.to_thread(server.proc.wait, 30) in (0, -signal.SIGTERM)


class MovingPlugin:
    """A plugin behind the load balancer that answers ``design_execute`` after as many seconds as its code says, with
    the number of the connection that carried it, and dials the relay again at once when its socket is closed with
    1012."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.connections = 0
        self.closes: list[int] = []
        #: The delay of each design_execute received, as it arrives.
        self.received: asyncio.Queue[float] = asyncio.Queue()
        self._replies: set[asyncio.Task[None]] = set()

    async def run(self, code: str) -> None:
        """Pair with ``code``, then serve, and serve again after each 1012."""
        async with connect(f"{ws_url(self.url)}?code={code}") as ws:
            paired = json.loads(await ws.recv())
            relay, credential = paired["data"]["relay"], paired["data"]["credential"]
            await self._serve(ws, credential)
        while self.closes[-1] == 1012:
            async with connect(f"{ws_url(self.url)}?relay={relay}") as ws:
                await self._serve(ws, credential)

    async def _serve(self, ws: ClientConnection, credential: str) -> None:
        await handshake(ws, credential)
        self.connections += 1
        number = self.connections
        info = {"fileName": "Moving File", "fileKey": "movingFile", "editorType": "figma", "pluginVersion": "0.1.0"}
        await ws.send(json.dumps({"type": "FILE_INFO", "data": info}))
        try:
            async for raw in ws:
                frame = json.loads(raw)
                if frame.get("method") == "EXECUTE_CODE":
                    seconds = float(frame["params"]["code"])
                    self.received.put_nowait(seconds)
                    reply = self._reply(ws, frame["id"], seconds, number)
                    task = asyncio.create_task(reply)
                    self._replies.add(task)
                    task.add_done_callback(self._replies.discard)
        except ConnectionClosed:
            pass
        self.closes.append(ws.close_code or 0)

    @staticmethod
    async def _reply(ws: ClientConnection, cid: str, seconds: float, number: int) -> None:
        await asyncio.sleep(seconds)
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps({"id": cid, "result": {"success": True, "result": number}}))


def _execute(server: RemoteServer, headers: dict[str, str], seconds: float) -> dict[str, Any]:
    """Call design_execute with code the plugin reads as its delay; returns the tool's result."""
    params = {"name": "design_execute", "arguments": {"code": str(seconds), "timeout": 30000}}
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    answer = httpx.post(f"{server.url}/mcp", json=message, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    body = answer.text
    if answer.headers["content-type"].startswith("text/event-stream"):
        body = next(line[5:] for line in body.splitlines() if line.startswith("data:") and '"result"' in line)
    result: dict[str, Any] = json.loads(body)["result"]
    return result


def _value(result: dict[str, Any]) -> Any:
    """What the plugin answered design_execute with (the connection that carried it)."""
    text = result["content"][0]["text"]
    assert not result.get("isError"), text
    return json.loads(text)["result"]


def _refuses(server: RemoteServer) -> bool:
    try:
        httpx.get(f"{server.url}/health", timeout=1)
    except httpx.HTTPError:
        return True
    return False


async def test_sigterm_finishes_or_hands_over_relayed_calls_and_answers_the_rest_with_retry(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    grace = 6
    shared = {**oauth_env(platform), "DESIGN_REMOTE_STORE": redis_url, "DESIGN_REMOTE_SHUTDOWN_SECONDS": str(grace)}
    first_env = remote_env(tmp_path / "a", fake_api_server.url, **shared)
    second_env = remote_env(tmp_path / "b", fake_api_server.url, **shared)
    second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
    ports = (int(first_env["DESIGN_REMOTE_PORT"]), int(second_env["DESIGN_REMOTE_PORT"]))
    with running_remotes(first_env, second_env) as (first, second), tcp_proxy(*ports) as balancer:
        _, erin = sign_in(second, platform, "9102")
        token = erin["access_token"]
        plugin = MovingPlugin(f"http://127.0.0.1:{balancer.port}")
        playing = asyncio.create_task(plugin.run(await _pair(second, token)))
        try:
            on_first, on_second = _open(first, token), _open(second, token)
            # The plugin's socket is on the first instance: a call from the second crosses over the store.
            assert _value(await asyncio.to_thread(_execute, second, on_second, 0)) == 1
            assert plugin.received.get_nowait() == 0
            # One call that finishes within the grace period, one that cannot, both in flight at the SIGTERM.
            finishing = asyncio.create_task(asyncio.to_thread(_execute, second, on_second, 3))
            stuck = asyncio.create_task(asyncio.to_thread(_execute, first, on_first, 25))
            arrived = {await asyncio.wait_for(plugin.received.get(), 30) for _ in range(2)}
            assert arrived == {3, 25}
            first.proc.send_signal(signal.SIGTERM)
            signalled = asyncio.get_running_loop().time()
            while not await asyncio.to_thread(_refuses, first):
                assert asyncio.get_running_loop().time() - signalled < grace, "the first instance kept accepting"
            # A call that arrives while the first instance drains waits for the plugin to come back elsewhere.
            moved = asyncio.create_task(asyncio.to_thread(_execute, second, on_second, 0))
            done = await asyncio.wait_for(finishing, 30)
            assert _value(done) == 1
            refused = await asyncio.wait_for(stuck, 30)
            assert asyncio.get_running_loop().time() - signalled < grace + 1.0
            assert refused.get("isError"), refused
            said = refused["content"][0]["text"]
            assert "restarting" in said and "Retry the call" in said, said
            handed = await asyncio.wait_for(moved, 30)
            assert _value(handed) == 2
            assert plugin.closes[0] == 1012 and plugin.connections == 2
            assert await asyncio.to_thread(first.proc.wait, 30) in (0, -signal.SIGTERM)
        finally:
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
