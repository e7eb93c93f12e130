"""The hosted service without OAuth: its health response, the catalog over /mcp and /sse, design API tools with the
deployer's token, plugin tools refused with a clear error, the X-API-Key gate and the body-size limit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, PERSONAL_TOKEN
from fakes.remote import RemoteServer, remote_env, running_remote
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from design_console import __version__
from design_console.config import load_config
from design_console.remote.app import ENDPOINTS
from design_console.remote.browser import BrowserPool
from design_console.remote.listing import UserState, listed_tools
from design_console.remote.tools import remote_catalog

API_KEY = "deployer-key-0123456789abcdef"


@pytest.fixture(scope="module")
def open_server(fake_api_server: ApiServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteServer]:
    """A server with OAuth off, serving with the deployer's personal token."""
    root = tmp_path_factory.mktemp("remote")
    with running_remote(remote_env(root, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)) as server:
        yield server


@pytest.fixture(scope="module")
def keyed_server(fake_api_server: ApiServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemoteServer]:
    """A server whose deployer set an API key and a small body limit."""
    root = tmp_path_factory.mktemp("remote-keyed")
    env = remote_env(
        root,
        fake_api_server.url,
        DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN,
        DESIGN_REMOTE_API_KEY=API_KEY,
        DESIGN_REMOTE_MAX_BODY="4096",
    )
    with running_remote(env) as server:
        yield server


def _text(result: object) -> str:
    return result.content[0].text  # type: ignore[attr-defined,no-any-return]


def test_health_is_the_spec_response(open_server: RemoteServer) -> None:
    response = httpx.get(f"{open_server.url}/health")
    assert response.status_code == 200
    assert response.json() == {
        "status": "healthy",
        "service": "Design Console MCP",
        "version": __version__,
        "endpoints": ENDPOINTS,
        "oauth_configured": False,
    }
    assert set(ENDPOINTS) == {"mcp", "oauth_mcp_spec", "oauth_legacy", "utility"}


def test_oauth_endpoints_name_the_missing_secrets(open_server: RemoteServer) -> None:
    for path in ("/.well-known/oauth-authorization-server", "/authorize", "/oauth/register", "/oauth/callback"):
        response = httpx.get(f"{open_server.url}{path}")
        assert response.status_code == 503, path
        text = response.json()["error_description"]
        assert text.startswith("[design-console-mcp] OAuth is not configured")
        assert "DESIGN_OAUTH_CLIENT_ID" in text and "DESIGN_OAUTH_CLIENT_SECRET" in text


async def test_mcp_lists_the_catalog_and_runs_design_api_tools(open_server: RemoteServer) -> None:
    config = load_config({"HOME": "/nonexistent"})
    # No plugin is paired: the design API tools, and the browser's when this machine can run it.
    state = UserState(paired=False, browser=BrowserPool(config).available())
    expected = {spec.name for spec in listed_tools(remote_catalog(config), state)}
    async with Client(f"{open_server.url}/mcp", mode="legacy") as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert listed == expected
        assert "design_get_status" in listed and "design_export_tokens" not in listed
        assert "design_execute" not in listed
        result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
        assert not result.is_error, _text(result)
        assert json.loads(_text(result))["versions"]


async def test_modern_protocol_on_mcp(open_server: RemoteServer) -> None:
    async with Client(f"{open_server.url}/mcp") as client:
        result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
        assert not result.is_error, _text(result)


async def test_plugin_tools_without_a_paired_plugin_say_what_to_do(open_server: RemoteServer) -> None:
    async with Client(f"{open_server.url}/mcp", mode="legacy") as client:
        unpaired = await client.call_tool("design_execute", {"code": "return 1"})
        assert unpaired.is_error and "Call design_pair_plugin" in _text(unpaired)
        status = await client.call_tool("design_get_status", {})
        assert not status.is_error and json.loads(_text(status))["pairing"] == {"paired": False}
        bad = await client.call_tool("design_get_file_versions", {"fileUrl": "not a url"})
        assert bad.is_error and "fileUrl" in _text(bad)


async def test_sse_serves_the_same_catalog(open_server: RemoteServer) -> None:
    async with Client(sse_client(f"{open_server.url}/sse"), mode="legacy") as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert "design_get_file_versions" in listed
        result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
        assert not result.is_error, _text(result)


@pytest.mark.parametrize("path", ["/mcp", "/sse", "/messages/?session_id=0"])
@pytest.mark.parametrize("key", [None, "", "wrong", API_KEY + "x"])
def test_api_key_mismatch_is_401_unauthorized(keyed_server: RemoteServer, path: str, key: str | None) -> None:
    headers = {} if key is None else {"X-API-Key": key}
    method = "GET" if path == "/sse" else "POST"
    response = httpx.request(method, f"{keyed_server.url}{path}", headers=headers, json={}, timeout=10)
    assert response.status_code == 401
    assert response.text == "Unauthorized"


async def test_api_key_lets_mcp_through(keyed_server: RemoteServer) -> None:
    http = httpx2.AsyncClient(headers={"X-API-Key": API_KEY})
    async with http, Client(streamable_http_client(f"{keyed_server.url}/mcp", http_client=http)) as client:
        assert (await client.list_tools()).tools
    assert httpx.get(f"{keyed_server.url}/health").status_code == 200


def test_oversized_bodies_are_refused(keyed_server: RemoteServer) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * 8000}}).encode()
    headers = {
        "X-API-Key": API_KEY,
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    declared = httpx.post(f"{keyed_server.url}/mcp", content=body, headers=headers)
    assert declared.status_code == 413

    def chunks() -> Iterator[bytes]:
        yield body[:3000]
        yield body[3000:]

    streamed = httpx.post(f"{keyed_server.url}/mcp", content=chunks(), headers=headers)
    assert streamed.status_code == 413


def test_bad_settings_stop_the_start(tmp_path: Path, fake_api_server: ApiServer) -> None:
    import subprocess

    from fakes.remote import BIN

    env = remote_env(tmp_path, fake_api_server.url, DESIGN_TOKEN_KEYS="c2hvcnQ=")
    done = subprocess.run([str(BIN / "design-console-remote")], env=env, capture_output=True, timeout=30)
    assert done.returncode == 2
    assert b"DESIGN_TOKEN_KEYS" in done.stderr


def test_one_missing_secret_is_named(fake_api_server: ApiServer, tmp_path: Path) -> None:
    env = remote_env(
        tmp_path,
        fake_api_server.url,
        DESIGN_OAUTH_CLIENT_ID="platform-client",
        DESIGN_TOKEN_KEYS="MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
    )
    with running_remote(env) as server:
        assert httpx.get(f"{server.url}/health").json()["oauth_configured"] is False
        text = httpx.post(f"{server.url}/token").json()["error_description"]
        assert "not configured on this server: DESIGN_OAUTH_CLIENT_SECRET is not set." in text
