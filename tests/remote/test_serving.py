"""The hosted service on its own, with no proxy in front: real requests are answered while slow, idle and half-open
connections outnumber the descriptors it may open, and its logs carry no secret of a query string."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import PERSONAL_TOKEN
from fakes.relay_client import handshake, ws_url
from fakes.remote import RemoteServer, remote_env, running_remote
from mcp import Client
from websockets.asyncio.client import connect as ws_connect
from websockets.sync.client import connect

from design_console.config import load_remote_config
from design_console.remote.app import build_app

#: The descriptor limit the server runs under in the slow-client test.
OPEN_FILES = 160


@contextlib.contextmanager
def _slow_clients(server: RemoteServer, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections that never finish a request: a third trickle a request head, a third send nothing, a
    third send part of a head and half-close."""
    host, port = server.url.removeprefix("http://").split(":")
    held: list[socket.socket] = []
    try:
        for n in range(count):
            sock = socket.socket()
            sock.settimeout(5)
            try:
                sock.connect((host, int(port)))
            except OSError:
                sock.close()
                continue
            held.append(sock)
            with contextlib.suppress(OSError):
                if n % 3 == 0:
                    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
                elif n % 3 == 2:
                    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
                    sock.shutdown(socket.SHUT_WR)
        yield held
    finally:
        for sock in held:
            sock.close()


def _trickle(held: list[socket.socket]) -> None:
    for n, sock in enumerate(held):
        if n % 3 == 0:
            with contextlib.suppress(OSError):
                sock.send(b"X")


def test_real_requests_are_answered_while_slow_connections_outnumber_the_descriptors(
    fake_api_server: ApiServer, tmp_path: Path
) -> None:
    env = remote_env(tmp_path, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)
    with running_remote(env, open_files=OPEN_FILES) as server, _slow_clients(server, 2 * OPEN_FILES) as held:
        assert len(held) > OPEN_FILES
        for _ in range(5):
            _trickle(held)
            started = time.monotonic()
            response = httpx.get(f"{server.url}/health", timeout=1.0)
            assert response.status_code == 200
            assert time.monotonic() - started < 1.0
        log = server.stderr()
    assert len(log) < 100_000, log[-2000:]


def test_a_request_head_that_never_ends_is_cut_off(fake_api_server: ApiServer, tmp_path: Path) -> None:
    env = remote_env(
        tmp_path, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN, DESIGN_REMOTE_HEADER_TIMEOUT="1"
    )
    with running_remote(env) as server, _slow_clients(server, 3) as held:
        deadline = time.monotonic() + 10
        for sock in held:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            # The server closes the connection: recv returns b"" (or the reset it was answered with).
            with contextlib.suppress(ConnectionResetError):
                assert sock.recv(100) == b""
        assert time.monotonic() < deadline


@pytest.fixture(scope="module")
def quiet_server(fake_api_server: ApiServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteServer]:
    root = tmp_path_factory.mktemp("remote-log")
    with running_remote(remote_env(root, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)) as server:
        yield server


def test_the_access_log_carries_no_query_values(quiet_server: RemoteServer) -> None:
    httpx.get(f"{quiet_server.url}/oauth/callback", params={"code": "PLATFORMCODE123", "state": "STATE456"})
    ws_url = quiet_server.url.replace("http://", "ws://") + "/ws/pair?code=QWXYKM"
    with contextlib.suppress(Exception), connect(ws_url, open_timeout=10) as ws:
        ws.recv(timeout=10)
    deadline = time.monotonic() + 10
    while "/ws/pair" not in quiet_server.stderr() or "/oauth/callback" not in quiet_server.stderr():
        assert time.monotonic() < deadline, quiet_server.stderr()[-2000:]
        time.sleep(0.05)
    log = quiet_server.stderr()
    for secret in ("PLATFORMCODE123", "STATE456", "QWXYKM"):
        assert secret not in log


def test_the_relay_socket_declines_compression(quiet_server: RemoteServer) -> None:
    """A plugin offers permessage-deflate (browsers and the websockets client do); the relay answers without it, so
    no small command or reply is compressed on either side (the local bridge does not compress either)."""
    with connect(f"{ws_url(quiet_server.url)}?code=QWXYKM", open_timeout=10) as ws:
        assert ws.request is not None and "permessage-deflate" in ws.request.headers["Sec-WebSocket-Extensions"]
        assert ws.response is not None and "Sec-WebSocket-Extensions" not in ws.response.headers


async def test_a_websocket_outlives_the_request_deadlines(fake_api_server: ApiServer, tmp_path: Path) -> None:
    """The deadlines are for an HTTP request's head and body: a plugin's relay socket, upgraded from such a request,
    stays open past both."""
    env = remote_env(
        tmp_path,
        fake_api_server.url,
        DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN,
        DESIGN_REMOTE_HEADER_TIMEOUT="1",
        DESIGN_REMOTE_BODY_TIMEOUT="1",
    )
    with running_remote(env) as server:
        async with Client(f"{server.url}/mcp", mode="legacy") as client:
            result = await client.call_tool("design_pair_plugin", {})
        code = json.loads(result.content[0].text)["code"]  # type: ignore[union-attr]
        async with ws_connect(f"{ws_url(server.url)}?code={code}") as ws:
            paired = json.loads(await ws.recv())
            assert paired["type"] == "PAIRED"
            # Both deadlines pass while the plugin is still to answer the relay's hello.
            await asyncio.sleep(2.5)
            await handshake(ws, paired["data"]["credential"])
            await asyncio.sleep(2.5)
            await asyncio.wait_for(await ws.ping(), 5)


async def test_what_lives_from_startup_is_out_of_the_collectors_reach(tmp_path: Path) -> None:
    # A full collection walked every object of the catalog, the modules and the SDK's models, stalling all requests
    # for 150-350 ms every few seconds under load.
    app = build_app(load_remote_config({"HOME": str(tmp_path), "DESIGN_REMOTE_BASE_URL": "https://mcp.example.com"}))
    service = app.state.service
    try:
        async with app.router.lifespan_context(app):
            assert all(each is not service.listings for each in gc.get_objects(generation=2))
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
