"""OAuth end to end against the running service and a fake design platform: discovery, registration, consent, the
platform round trip, our tokens, MCP over /mcp and /sse as the signed-in user, refresh rotation, revocation, and every
refusal (code replay, wrong verifier, unregistered redirect, foreign resource, expired token, another user's session,
API key)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import httpx2
import pytest
from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY
from fakes.remote import (
    REDIRECT,
    FakePlatform,
    RemoteServer,
    authorize_query,
    browser,
    consent_form,
    follow_to_client,
    list_and_call,
    mcp_status,
    oauth_env,
    pkce,
    register,
    remote_env,
    running_remote,
    sign_in,
)
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from design_console.remote.crypto import token_hash

API_KEY = "deployer-key-for-oauth-tests"


@pytest.fixture(scope="module")
def server(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RemoteServer]:
    root = tmp_path_factory.mktemp("remote-oauth")
    # Tests here change grants in the store behind the server's back: it asks the store on every request.
    env = remote_env(root, fake_api_server.url, DESIGN_REMOTE_CACHE_SECONDS="0", **oauth_env(platform))
    with running_remote(env) as running:
        yield running


# Discovery --------------------------------------------------------------------------------------------------------


def test_metadata_documents_agree(server: RemoteServer) -> None:
    health = httpx.get(f"{server.url}/health").json()
    assert health["oauth_configured"] is True
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        resource = httpx.get(f"{server.url}{path}").json()
        assert resource["resource"] == f"{server.url}/mcp"
        assert resource["authorization_servers"] == [server.url]
    meta = httpx.get(f"{server.url}/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == server.url
    assert meta["authorization_endpoint"] == f"{server.url}/authorize"
    assert meta["token_endpoint"] == f"{server.url}/token"
    assert meta["registration_endpoint"] == f"{server.url}/oauth/register"
    assert meta["code_challenge_methods_supported"] == ["S256"]


def test_unauthenticated_mcp_gets_the_challenge(server: RemoteServer) -> None:
    for token in (None, "not-a-token"):
        response = mcp_status(server, token)
        assert response.status_code == 401
        challenge = response.headers["www-authenticate"]
        assert f'resource_metadata="{server.url}/.well-known/oauth-protected-resource/mcp"' in challenge
        assert 'scope="design"' in challenge
    assert httpx.get(f"{server.url}/sse", timeout=10).status_code == 401


# The dance --------------------------------------------------------------------------------------------------------


async def test_whole_flow_by_hand(server: RemoteServer, platform: FakePlatform) -> None:
    client_id, tokens = sign_in(server, platform, "2001")
    assert tokens["token_type"].lower() == "bearer" and tokens["scope"] == "design"
    assert "refresh_token" in tokens
    await list_and_call(server, tokens["access_token"])
    async with Client(
        sse_client(f"{server.url}/sse", headers={"Authorization": f"Bearer {tokens['access_token']}"}), mode="legacy"
    ) as client:
        result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
        assert not result.is_error

    refreshed = httpx.post(
        f"{server.url}/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client_id},
    )
    assert refreshed.status_code == 200, refreshed.text
    new = refreshed.json()
    assert new["refresh_token"] != tokens["refresh_token"]
    # The refresh token rotated: the access token of the old pair is dead.
    assert mcp_status(server, tokens["access_token"]).status_code == 401
    await list_and_call(server, new["access_token"])

    # A public client revokes with its id alone (RFC 7009; token_endpoint_auth_method none).
    revoke = {"token": new["access_token"], "client_id": client_id}
    revoked = httpx.post(f"{server.url}/revoke", data=revoke)
    assert revoked.status_code == 200
    assert mcp_status(server, new["access_token"]).status_code == 401
    gone = httpx.post(
        f"{server.url}/token",
        data={"grant_type": "refresh_token", "refresh_token": new["refresh_token"], "client_id": client_id},
    )
    assert gone.status_code == 400


async def test_whole_flow_with_the_sdk_client(server: RemoteServer, platform: FakePlatform) -> None:
    platform.user = "2002"

    class Memory:
        tokens: OAuthToken | None = None
        client: OAuthClientInformationFull | None = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull | None:
            return self.client

        async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
            self.client = client_info

    landed: dict[str, str] = {}

    async def redirect(url: str) -> None:
        landed.update(follow_to_client(server, url))

    async def callback() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=landed["code"], state=landed.get("state"))

    storage = Memory()
    provider = OAuthClientProvider(
        f"{server.url}/mcp",
        OAuthClientMetadata.model_validate(
            {"redirect_uris": [REDIRECT], "client_name": "Test Client", "token_endpoint_auth_method": "none"}
        ),
        storage,
        redirect_handler=redirect,
        callback_handler=callback,
    )
    http = httpx2.AsyncClient(auth=provider, timeout=30)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as client:
        result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
        assert not result.is_error
    assert storage.tokens is not None and storage.tokens.refresh_token


# Refusals ---------------------------------------------------------------------------------------------------------


def _code(server: RemoteServer, platform: FakePlatform) -> tuple[str, str, str]:
    platform.user = "3001"
    client_id = register(server)
    verifier, challenge = pkce()
    url = httpx.URL(f"{server.url}/authorize", params=authorize_query(server, client_id, challenge))
    return client_id, verifier, follow_to_client(server, str(url))["code"]


def _exchange(server: RemoteServer, client_id: str, code: str, verifier: str, **over: str) -> httpx.Response:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": client_id,
        "code_verifier": verifier,
        "resource": f"{server.url}/mcp",
    }
    data.update(over)
    return httpx.post(f"{server.url}/token", data=data)


def test_code_replay_is_refused_and_ends_its_tokens(server: RemoteServer, platform: FakePlatform) -> None:
    client_id, verifier, code = _code(server, platform)
    first = _exchange(server, client_id, code, verifier)
    assert first.status_code == 200
    assert mcp_status(server, first.json()["access_token"]).status_code == 200
    replay = _exchange(server, client_id, code, verifier)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    # Someone else holds a copy of the code: what it gave is taken back.
    assert mcp_status(server, first.json()["access_token"]).status_code == 401
    refresh = {"grant_type": "refresh_token", "refresh_token": first.json()["refresh_token"], "client_id": client_id}
    assert httpx.post(f"{server.url}/token", data=refresh).status_code == 400


def test_refresh_replay_ends_the_rotated_tokens(server: RemoteServer, platform: FakePlatform) -> None:
    client_id, tokens = sign_in(server, platform, "3004")
    old = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client_id}
    rotated = httpx.post(f"{server.url}/token", data=old).json()
    assert mcp_status(server, rotated["access_token"]).status_code == 200
    again = httpx.post(f"{server.url}/token", data=old)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert mcp_status(server, rotated["access_token"]).status_code == 401
    newer = {"grant_type": "refresh_token", "refresh_token": rotated["refresh_token"], "client_id": client_id}
    assert httpx.post(f"{server.url}/token", data=newer).status_code == 400


def test_wrong_verifier_is_refused(server: RemoteServer, platform: FakePlatform) -> None:
    client_id, _, code = _code(server, platform)
    wrong = _exchange(server, client_id, code, pkce()[0])
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"


def test_foreign_resource_is_refused(server: RemoteServer, platform: FakePlatform) -> None:
    client_id, verifier, code = _code(server, platform)
    foreign = _exchange(server, client_id, code, verifier, resource="https://elsewhere.example/mcp")
    assert foreign.status_code == 400 and foreign.json()["error"] == "invalid_target"
    _, challenge = pkce()
    with httpx.Client(follow_redirects=False) as browser:
        for resource in ("https://elsewhere.example/mcp", ""):
            query = authorize_query(server, client_id, challenge, resource=resource)
            response = browser.get(f"{server.url}/authorize", params=query)
            assert response.status_code == 302
            back = parse_qs(urlsplit(response.headers["location"]).query)
            assert back["error"] == ["invalid_target"]


def test_unregistered_redirect_is_refused(server: RemoteServer) -> None:
    client_id = register(server)
    _, challenge = pkce()
    query = authorize_query(server, client_id, challenge, redirect_uri="http://127.0.0.1:9/evil")
    response = httpx.get(f"{server.url}/authorize", params=query, follow_redirects=False)
    # Never redirected to an address the client did not register.
    assert response.status_code == 400
    assert "evil" not in response.headers.get("location", "")


def test_consent_denied_goes_back_with_access_denied(server: RemoteServer) -> None:
    client_id = register(server)
    _, challenge = pkce()
    url = httpx.URL(f"{server.url}/authorize", params=authorize_query(server, client_id, challenge))
    back = follow_to_client(server, str(url), decision="deny")
    assert back["error"] == "access_denied" and "code" not in back


def test_upstream_state_is_single_use(server: RemoteServer, platform: FakePlatform) -> None:
    client_id = register(server)
    _, challenge = pkce()
    with browser() as user:
        consent = user.get(f"{server.url}/authorize", params=authorize_query(server, client_id, challenge))
        form = {**consent_form(user.get(consent.headers["location"]).text), "decision": "allow"}
        upstream = user.post(f"{server.url}/consent", data=form)
        assert user.post(f"{server.url}/consent", data=form).status_code == 400
        callback = user.get(upstream.headers["location"]).headers["location"]
        assert user.get(callback).status_code == 302
        assert user.get(callback).status_code == 400


def _change_grant(server: RemoteServer, token: str, **fields: object) -> None:
    """Rewrite the stored grant of one of our access tokens (as time, or a token of another server, would be)."""
    db = sqlite3.connect(Path(server.env["DESIGN_CONSOLE_HOME"]) / "remote.sqlite3")
    with db:
        key = token_hash(token)
        (raw,) = db.execute("SELECT value FROM entries WHERE kind='access' AND key=?", (key,)).fetchone()
        grant = {**json.loads(raw), **fields}
        db.execute("UPDATE entries SET value=? WHERE kind='access' AND key=?", (json.dumps(grant).encode(), key))
    db.close()


def test_expired_access_token_is_refused(server: RemoteServer, platform: FakePlatform) -> None:
    _, tokens = sign_in(server, platform, "3002")
    assert mcp_status(server, tokens["access_token"]).status_code == 200
    _change_grant(server, tokens["access_token"], expires_at=time.time() - 1)
    assert mcp_status(server, tokens["access_token"]).status_code == 401


def test_token_of_another_audience_is_refused(server: RemoteServer, platform: FakePlatform) -> None:
    _, tokens = sign_in(server, platform, "3005")
    _change_grant(server, tokens["access_token"], resource="https://elsewhere.example/mcp")
    assert mcp_status(server, tokens["access_token"]).status_code == 401


def test_only_hashes_of_our_tokens_are_stored(server: RemoteServer, platform: FakePlatform) -> None:
    _, tokens = sign_in(server, platform, "3003")
    data = (Path(server.env["DESIGN_CONSOLE_HOME"]) / "remote.sqlite3").read_bytes()
    for name in ("access_token", "refresh_token"):
        assert tokens[name].encode() not in data
    from fakes.design_api import OAUTH_TOKEN

    assert OAUTH_TOKEN.encode() not in data


async def test_another_users_session_is_refused(server: RemoteServer, platform: FakePlatform) -> None:
    _, alice = sign_in(server, platform, "4001")
    _, bob = sign_in(server, platform, "4002")
    first = mcp_status(server, alice["access_token"])
    assert first.status_code == 200
    session = first.headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    headers = {
        "Accept": "application/json, text/event-stream",
        "Mcp-Session-Id": session,
        "Mcp-Protocol-Version": "2025-06-18",
    }
    stolen = httpx.post(
        f"{server.url}/mcp", json=ping, headers={**headers, "Authorization": f"Bearer {bob['access_token']}"}
    )
    assert stolen.status_code in (403, 404)
    assert "design_get_file_versions" not in stolen.text


def test_api_key_gate_applies_with_oauth(fake_api_server: ApiServer, platform: FakePlatform, tmp_path: Path) -> None:
    env = remote_env(tmp_path, fake_api_server.url, DESIGN_REMOTE_API_KEY=API_KEY, **oauth_env(platform))
    with running_remote(env) as keyed:
        _, tokens = sign_in(keyed, platform, "5001")
        assert mcp_status(keyed, tokens["access_token"]).text == "Unauthorized"
        wrong = mcp_status(keyed, tokens["access_token"], {"X-API-Key": "nope"})
        assert wrong.status_code == 401 and wrong.text == "Unauthorized"
        assert mcp_status(keyed, tokens["access_token"], {"X-API-Key": API_KEY}).status_code == 200


async def test_legacy_browser_sign_in_gives_a_header_token(server: RemoteServer, platform: FakePlatform) -> None:
    platform.user = "8001"
    with browser(follow_redirects=True) as user:
        page = user.get(f"{server.url}/oauth/authorize")
    assert page.status_code == 200, page.text
    token = page.text.split("Authorization: Bearer ")[1].split("<")[0]
    await list_and_call(server, token)
    with browser() as user, browser() as other:
        upstream = user.get(f"{server.url}/oauth/authorize").headers["location"]
        callback = user.get(upstream).headers["location"]
        assert other.get(callback).status_code == 403
        upstream = user.get(f"{server.url}/oauth/authorize").headers["location"]
        callback = user.get(upstream).headers["location"]
        assert user.get(callback).status_code == 200
        assert user.get(callback).status_code == 400


def test_another_users_sse_session_is_refused(server: RemoteServer, platform: FakePlatform) -> None:
    _, alice = sign_in(server, platform, "4003")
    _, bob = sign_in(server, platform, "4004")
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    with (
        httpx.Client(timeout=20) as http,
        http.stream("GET", f"{server.url}/sse", headers={"Authorization": f"Bearer {alice['access_token']}"}) as stream,
    ):
        assert stream.status_code == 200
        # The line iterator is kept: a discarded one would close the stream, and with it the session.
        lines = stream.iter_lines()
        endpoint = next(line for line in lines if line.startswith("data:")).removeprefix("data:").strip()
        assert "session_id=" in endpoint
        stolen = http.post(
            f"{server.url}{endpoint}", json=ping, headers={"Authorization": f"Bearer {bob['access_token']}"}
        )
        assert stolen.status_code in (403, 404)
        own = http.post(
            f"{server.url}{endpoint}", json=ping, headers={"Authorization": f"Bearer {alice['access_token']}"}
        )
        assert own.status_code == 202


def test_oversized_oauth_bodies_are_refused(server: RemoteServer) -> None:
    huge = {"redirect_uris": [REDIRECT], "client_name": "x" * (2 * 1024 * 1024)}
    assert httpx.post(f"{server.url}/oauth/register", json=huge).status_code == 413
    assert httpx.post(f"{server.url}/token", data={"code": "x" * (2 * 1024 * 1024)}).status_code == 413


# The browser that started a sign-in is the one that finishes it -------------------------------------------------


def test_an_attackers_sign_in_link_gives_the_victims_account_to_nobody(
    server: RemoteServer, platform: FakePlatform
) -> None:
    """The attacker registers a client of their own, starts /authorize and approves it in their browser, then sends
    the victim the design platform's sign-in link: the victim's sign-in ends at our callback, which refuses it
    because the victim's browser did not start the flow; the attacker gets no code."""
    attacker_client = register(server)
    _, challenge = pkce()
    with browser() as attacker, browser() as victim:
        start = attacker.get(f"{server.url}/authorize", params=authorize_query(server, attacker_client, challenge))
        assert start.status_code == 302
        assert start.headers["set-cookie"].startswith("__Host-")
        for attribute in ("Secure", "HttpOnly", "Path=/", "SameSite=lax"):
            assert attribute.lower() in start.headers["set-cookie"].lower()
        consent_url = start.headers["location"]
        # The consent page and its decision belong to the attacker's browser only.
        assert victim.get(consent_url).status_code == 403
        form = consent_form(attacker.get(consent_url).text)
        stolen = {**form, "decision": "allow"}
        assert victim.post(f"{server.url}/consent", data=stolen).status_code == 403
        # Without the form's anti-forgery token the decision is refused too, even from the right browser.
        forged = {"request": form["request"], "decision": "allow"}
        assert attacker.post(f"{server.url}/consent", data=forged).status_code == 403
        sign_in_link = attacker.post(f"{server.url}/consent", data=stolen).headers["location"]
        platform.user = "6001"
        callback = victim.get(sign_in_link).headers["location"]
        refused = victim.get(callback)
        assert refused.status_code == 403, refused.headers
        assert "another browser" in refused.text
        assert "location" not in refused.headers
        # The state is spent: the attacker cannot replay the victim's callback either.
        assert attacker.get(callback).status_code == 400


def test_the_consent_page_remembers_the_apps_a_user_allowed(server: RemoteServer, platform: FakePlatform) -> None:
    platform.user = "6002"
    client_id = register(server)
    with browser() as user:
        for allowed_before in (False, True):
            _, challenge = pkce()
            start = user.get(f"{server.url}/authorize", params=authorize_query(server, client_id, challenge))
            page = user.get(start.headers["location"])
            assert ("You allowed Test Client before" in page.text) is allowed_before, page.text
            step = user.post(f"{server.url}/consent", data={**consent_form(page.text), "decision": "allow"})
            while not step.headers["location"].startswith(REDIRECT):
                step = user.get(step.headers["location"])
        other = register(server)
        start = user.get(f"{server.url}/authorize", params=authorize_query(server, other, pkce()[1]))
        assert "You allowed Test Client before" not in user.get(start.headers["location"]).text


# The platform scopes the tools need --------------------------------------------------------------------------------


def test_sign_in_asks_the_platform_for_every_scope_the_tools_need(server: RemoteServer) -> None:
    client_id = register(server)
    with browser() as user:
        start = user.get(f"{server.url}/authorize", params=authorize_query(server, client_id, pkce()[1]))
        form = {**consent_form(user.get(start.headers["location"]).text), "decision": "allow"}
        upstream = user.post(f"{server.url}/consent", data=form).headers["location"]
    asked = set(parse_qs(urlsplit(upstream).query)["scope"][0].split())
    # Version history and comment writing are among the listed tools.
    assert {"file_content:read", "file_versions:read", "file_comments:read", "file_comments:write"} <= asked


async def test_a_missing_platform_scope_is_named_with_how_to_grant_it(
    server: RemoteServer, platform: FakePlatform, fake_api_server: ApiServer
) -> None:
    _, tokens = sign_in(server, platform, "9001")
    message = "Invalid scope(s): file_content:read. This endpoint requires the file_versions:read scope"
    fault = {"path_prefix": f"/v1/files/{ENTERPRISE_KEY}/versions", "status": 403, "message": message}
    fake_api_server.control("fail", fault)
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=30)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as client:
        result = await client.call_tool("design_get_file_versions", {"fileUrl": ENTERPRISE_KEY})
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error
    assert "does not grant the file_versions:read scope" in text
    assert "Sign in again" in text and "DESIGN_OAUTH_SCOPES" in text
