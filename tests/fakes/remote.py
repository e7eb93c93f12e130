"""Remote Mode under test: the installed ``design-console-remote`` as a process, a fake design platform OAuth server,
and a real ``redis-server``, each on a free loopback port and stopped by its own pid."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import http.cookiejar
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
import pytest
import redis
import uvicorn
from helpers import free_port_range
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .design_api import ENTERPRISE_KEY, OAUTH_TOKEN

BIN = Path(sys.executable).parent
START_TIMEOUT = 30.0
#: The design platform OAuth app the tests' server is the client of.
PLATFORM_CLIENT_ID = "platform-client-id"
PLATFORM_CLIENT_SECRET = "platform-client-secret-0123456789"


def new_key() -> str:
    """A fresh DESIGN_TOKEN_KEYS entry."""
    return base64.b64encode(os.urandom(32)).decode()


@dataclass
class FakePlatform:
    """The design platform's OAuth: ``/oauth`` signs in :attr:`user` at once and sends the browser back with a code;
    ``/token`` exchanges codes and refresh tokens (every access token is the fake design API's OAuth token)."""

    user: str = "1001"
    expires_in: float = 3600.0
    refreshes: int = 0
    codes: dict[str, str] = field(default_factory=dict)
    refresh_tokens: dict[str, str] = field(default_factory=dict)
    url: str = ""

    async def authorize(self, request: Request) -> Response:
        query = request.query_params
        if query.get("client_id") != PLATFORM_CLIENT_ID:
            return JSONResponse({"error": "invalid_client"}, status_code=400)
        code = os.urandom(8).hex()
        self.codes[code] = self.user
        return RedirectResponse(f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}")

    async def token(self, request: Request) -> Response:
        form = await request.form()
        auth = request.headers.get("authorization", "")
        expected = base64.b64encode(f"{PLATFORM_CLIENT_ID}:{PLATFORM_CLIENT_SECRET}".encode()).decode()
        if auth != f"Basic {expected}":
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if form.get("grant_type") == "authorization_code":
            user = self.codes.pop(str(form.get("code")), None)
        else:
            user = self.refresh_tokens.get(str(form.get("refresh_token")))
            self.refreshes += 1
        if user is None:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        refresh = os.urandom(8).hex()
        self.refresh_tokens[refresh] = user
        return JSONResponse(
            {
                "access_token": OAUTH_TOKEN,
                "refresh_token": refresh,
                "expires_in": self.expires_in,
                "user_id_string": user,
            }
        )


@contextmanager
def fake_platform() -> Iterator[FakePlatform]:
    """A :class:`FakePlatform` served on 127.0.0.1 from a thread of the test process."""
    platform = FakePlatform()
    app = Starlette(
        routes=[
            Route("/oauth", platform.authorize, methods=["GET"]),
            Route("/token", platform.token, methods=["POST"]),
        ]
    )
    port = free_port_range(1)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), name="fake-platform", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the fake design platform did not start")
        time.sleep(0.01)
    platform.url = f"http://127.0.0.1:{port}"
    try:
        yield platform
    finally:
        server.should_exit = True
        thread.join(START_TIMEOUT)


@dataclass
class RemoteServer:
    """A running ``design-console-remote``: ``url`` reaches this instance, ``public`` is its DESIGN_REMOTE_BASE_URL
    (the same for instances behind one load balancer)."""

    url: str
    env: dict[str, str]
    proc: subprocess.Popen[bytes]
    #: Where its stderr goes: a file, since a pipe nobody reads fills up and stalls a server that logs a lot.
    log: Path

    @property
    def public(self) -> str:
        return self.env["DESIGN_REMOTE_BASE_URL"]

    def stderr(self) -> str:
        """What the server logged so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def remote_env(root: Path, api_url: str, **extra: str) -> dict[str, str]:
    """The environment of a server in ``root`` talking to the fake design API at ``api_url``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DESIGN_", "XDG_RUNTIME", "NOTIFY_SOCKET"))}
    port = free_port_range(1)
    env.update(
        HOME=str(root / "home"),
        DESIGN_CONSOLE_HOME=str(root / "home" / ".design-console-mcp"),
        TMPDIR=str(root),
        DESIGN_API_URL=api_url,
        DESIGN_REMOTE_PORT=str(port),
        DESIGN_REMOTE_BASE_URL=f"http://127.0.0.1:{port}",
        LOG_LEVEL="info",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def oauth_env(platform: FakePlatform, keys: str | None = None) -> dict[str, str]:
    """Settings that turn OAuth on against ``platform``."""
    return {
        "DESIGN_OAUTH_CLIENT_ID": PLATFORM_CLIENT_ID,
        "DESIGN_OAUTH_CLIENT_SECRET": PLATFORM_CLIENT_SECRET,
        "DESIGN_TOKEN_KEYS": keys or new_key(),
        "DESIGN_OAUTH_AUTHORIZE_URL": f"{platform.url}/oauth",
        "DESIGN_OAUTH_TOKEN_URL": f"{platform.url}/token",
    }


@contextmanager
def running_remote(env: dict[str, str], *, open_files: int | None = None) -> Iterator[RemoteServer]:
    """Start the installed console script with ``env`` (and at most ``open_files`` descriptors, soft and hard limit
    alike, when given); stop it (by its pid) when the block ends."""
    with running_remotes(env, open_files=open_files) as (server,):
        yield server


@contextmanager
def running_remotes(*envs: dict[str, str], open_files: int | None = None) -> Iterator[tuple[RemoteServer, ...]]:
    """:func:`running_remote` for several instances at once: all are started before any is waited for, since an
    instance's start is mostly its own imports and the machine has a core for each of two."""
    servers: list[RemoteServer] = []
    try:
        for env in envs:
            servers.append(_start_remote(env, open_files))
        for server in servers:
            _wait_healthy(server)
        yield tuple(servers)
    finally:
        for server in servers:
            _stop_remote(server.proc)


def _start_remote(env: dict[str, str], open_files: int | None) -> RemoteServer:
    home = Path(env["HOME"])
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    log = home / f"remote-{env['DESIGN_REMOTE_PORT']}.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [str(BIN / "design-console-remote")],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
            preexec_fn=None if open_files is None else lambda: _limit_open_files(open_files),
        )
    return RemoteServer(url=f"http://127.0.0.1:{env['DESIGN_REMOTE_PORT']}", env=env, proc=proc, log=log)


def _wait_healthy(server: RemoteServer) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if server.proc.poll() is not None:
            raise RuntimeError(f"design-console-remote exited: {server.stderr()}")
        try:
            if httpx.get(f"{server.url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("design-console-remote did not answer /health")
        time.sleep(0.05)


def _stop_remote(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@contextmanager
def two_instances(
    tmp_path: Path,
    api_url: str,
    platform: FakePlatform,
    redis_url: str,
    first: dict[str, str] | None = None,
    **extra: str,
) -> Iterator[tuple[RemoteServer, RemoteServer]]:
    """Two instances behind one public address and one Redis; ``first`` holds settings of the first alone, ``extra``
    settings of both."""
    with redis.Redis.from_url(redis_url) as plain:
        plain.flushdb()
    shared = {**oauth_env(platform), "DESIGN_REMOTE_STORE": redis_url, **extra}
    first_env = remote_env(tmp_path / "a", api_url, **{**shared, **(first or {})})
    second_env = remote_env(tmp_path / "b", api_url, **shared)
    second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
    with running_remotes(first_env, second_env) as (first, second):
        yield first, second


def clear_of_minute_end(margin: float = 20.0) -> None:
    """Wait for the next clock minute if this one has less than ``margin`` seconds left: the service counts its
    per-minute limits in clock minutes, and a count that resets half way through a test would prove nothing."""
    left = 60.0 - time.time() % 60.0
    if left < margin:
        time.sleep(left + 0.05)


def _limit_open_files(count: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway ``redis-server`` (Debian package) on a free port, nothing saved; yields its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        if sys.platform != "linux":
            # scripts/setup installs Debian's package; the hosted macOS and Windows jobs have none.
            pytest.skip("redis-server is not installed (Debian's package; Linux only in CI)")
        raise RuntimeError("redis-server is not installed: run scripts/setup --test")
    port = free_port_range(1)
    folder = tempfile.mkdtemp(prefix="dc-redis-")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        shutil.rmtree(folder, ignore_errors=True)


# OAuth flows, as an AI client and its user's browser play them ----------------------------------------------------

#: The redirect URI the test clients register (nothing listens there: tests read the redirect itself).
REDIRECT = "http://127.0.0.1:9/callback"


def pkce() -> tuple[str, str]:
    verifier = base64.urlsafe_b64encode(os.urandom(40)).decode().rstrip("=")
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def register(server: RemoteServer, redirect: str = REDIRECT) -> str:
    response = httpx.post(
        f"{server.url}/oauth/register",
        json={
            "redirect_uris": [redirect],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "client_name": "Test Client",
        },
    )
    assert response.status_code == 201, response.text
    client_id: str = response.json()["client_id"]
    return client_id


def authorize_query(server: RemoteServer, client_id: str, challenge: str, **over: str) -> dict[str, str]:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "client-state",
        "scope": "design",
        "resource": f"{server.public}/mcp",
    }
    query.update(over)
    return query


class _LoopbackIsSecure(http.cookiejar.DefaultCookiePolicy):
    """A browser's cookie rules: a ``Secure`` cookie also goes to plain-http loopback addresses (browsers treat
    localhost as a secure context), which the standard library's policy would not send it to."""

    def return_ok_secure(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        host = urlsplit(request.get_full_url()).hostname or ""
        return host in ("127.0.0.1", "localhost", "::1") or super().return_ok_secure(cookie, request)


def browser(**options: Any) -> httpx.Client:
    """A user's browser: its own cookie jar, redirects not followed unless asked."""
    options.setdefault("follow_redirects", False)
    options.setdefault("timeout", 20)
    client = httpx.Client(cookies=http.cookiejar.CookieJar(policy=_LoopbackIsSecure()), **options)
    # httpx copies the jar into one of the standard policy for each request, which leaves the Secure cookies out:
    # they are added here, by the jar with the browser's policy.
    client.event_hooks["request"].append(client.cookies.set_cookie_header)
    return client


_HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)">')


def consent_form(page: str) -> dict[str, str]:
    """The hidden fields of our consent page's form (the request id and its anti-forgery token)."""
    return {name: value.replace("&amp;", "&") for name, value in _HIDDEN.findall(page)}


def follow_to_client(server: RemoteServer, authorize_url: str, decision: str = "allow") -> dict[str, str]:
    """Play the user's browser from an authorize URL to the client's redirect URI; returns its query."""
    location = consent_to_redirect(server, authorize_url, decision, REDIRECT)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def consent_to_redirect(server: RemoteServer, authorize_url: str, decision: str, redirect: str) -> str:
    """Play the user's browser from an authorize URL through our consent page and the design platform; returns the
    URL we send the browser back to (at the client's ``redirect`` URI, not yet followed)."""
    with browser() as user:
        consent = user.get(authorize_url)
        assert consent.status_code == 302, consent.text
        page = user.get(consent.headers["location"])
        assert page.status_code == 200 and "Test Client" in page.text
        assert page.headers["x-frame-options"] == "DENY"
        step = user.post(f"{server.url}/consent", data={**consent_form(page.text), "decision": decision})
        while step.status_code in (302, 303, 307) and not step.headers["location"].startswith(redirect):
            step = user.get(step.headers["location"])
        assert step.status_code in (302, 303, 307), step.text
        location: str = step.headers["location"]
        assert location.startswith(redirect)
        return location


def sign_in(server: RemoteServer, platform: FakePlatform, user: str) -> tuple[str, dict[str, Any]]:
    """The whole dance by hand for ``user``; returns the client id and our token response."""
    platform.user = user
    client_id = register(server)
    verifier, challenge = pkce()
    url = httpx.URL(f"{server.url}/authorize", params=authorize_query(server, client_id, challenge))
    back = follow_to_client(server, str(url))
    assert back["state"] == "client-state"
    tokens = httpx.post(
        f"{server.url}/token",
        data={
            "grant_type": "authorization_code",
            "code": back["code"],
            "redirect_uri": REDIRECT,
            "client_id": client_id,
            "code_verifier": verifier,
            "resource": f"{server.public}/mcp",
        },
    )
    assert tokens.status_code == 200, tokens.text
    return client_id, tokens.json()


def bearer(token: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)


async def list_and_call(server: RemoteServer, token: str) -> None:
    http = bearer(token)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as client:
        assert (await client.list_tools()).tools
        result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]


def mcp_status(server: RemoteServer, token: str | None, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    sent = {"Accept": "application/json, text/event-stream", **(headers or {})}
    if token:
        sent["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{server.url}/mcp", json=body, headers=sent, timeout=20)
