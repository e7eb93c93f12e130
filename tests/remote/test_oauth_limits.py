"""What an anonymous caller may make the OAuth endpoints store: registrations and authorization requests with capped
fields, redirect URIs of the kinds RFC 8252 allows, rates per client address, and registrations that expire unless a
sign-in completes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fakes.api_server import ApiServer
from fakes.remote import (
    REDIRECT,
    FakePlatform,
    RemoteServer,
    authorize_query,
    clear_of_minute_end,
    oauth_env,
    pkce,
    register,
    remote_env,
    running_remote,
    sign_in,
)


@pytest.fixture(scope="module")
def server(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RemoteServer]:
    root = tmp_path_factory.mktemp("remote-limits")
    env = remote_env(
        root,
        fake_api_server.url,
        DESIGN_REMOTE_REGISTER_RATE="40",
        DESIGN_REMOTE_AUTHORIZE_RATE="40",
        **oauth_env(platform),
    )
    with running_remote(env) as running:
        yield running


def _register(server: RemoteServer, **metadata: object) -> httpx.Response:
    body = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", "client_name": "Test Client"}
    body.update(metadata)
    return httpx.post(f"{server.url}/oauth/register", json=body)


@pytest.mark.parametrize(
    "uri",
    [
        "javascript:alert(document.cookie)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "http://attacker.example/callback",
        "http://127.0.0.1.attacker.example/callback",
        "ftp://files.example/callback",
        "myapp://callback",
        "vbscript:msgbox",
    ],
)
def test_unsafe_redirect_uris_are_refused_at_registration(server: RemoteServer, uri: str) -> None:
    response = _register(server, redirect_uris=[uri])
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "invalid_redirect_uri"


@pytest.mark.parametrize(
    "uri",
    [
        "https://app.example.com/oauth/callback",
        "http://127.0.0.1:33418/callback",
        "http://localhost:8080/callback",
        "http://[::1]:5000/callback",
        "com.example.app:/oauth2redirect",
    ],
)
def test_https_loopback_and_private_use_redirect_uris_are_accepted(server: RemoteServer, uri: str) -> None:
    assert _register(server, redirect_uris=[uri]).status_code == 201


@pytest.mark.parametrize(
    "metadata",
    [
        {"client_name": "x" * 900_000},
        {"client_name": "x" * 1000},
        {"redirect_uris": [f"http://127.0.0.1:9/{n}" for n in range(50)]},
        {"redirect_uris": ["http://127.0.0.1:9/" + "p" * 5000]},
        {"contacts": ["someone@example.com"] * 2000},
        {"software_id": "s" * 50_000},
    ],
)
def test_oversized_registrations_are_refused(server: RemoteServer, metadata: dict[str, object]) -> None:
    response = _register(server, **metadata)
    assert response.status_code == 400, response.text
    assert response.json()["error"] in ("invalid_client_metadata", "invalid_redirect_uri")


def test_oversized_authorization_requests_are_refused(server: RemoteServer) -> None:
    client_id = register(server)
    _, challenge = pkce()
    for over in ({"state": "s" * 900_000}, {"code_challenge": "c" * 100_000}):
        query = authorize_query(server, client_id, challenge, **over)
        response = httpx.post(f"{server.url}/authorize", data=query, follow_redirects=False)
        assert response.status_code in (302, 400), response.text
        assert "/consent" not in response.headers.get("location", ""), over.keys()


def _client_expiry(server: RemoteServer, client_id: str) -> float | None:
    db = sqlite3.connect(Path(server.env["DESIGN_CONSOLE_HOME"]) / "remote.sqlite3")
    try:
        (expires,) = db.execute("SELECT expires FROM entries WHERE kind='client' AND key=?", (client_id,)).fetchone()
    finally:
        db.close()
    return None if expires is None else float(expires)


def test_registrations_expire_unless_a_sign_in_completes(server: RemoteServer, platform: FakePlatform) -> None:
    unused = register(server)
    assert _client_expiry(server, unused) is not None
    used, _ = sign_in(server, platform, "7001")
    assert _client_expiry(server, used) is None


def test_registration_and_authorization_are_rate_limited_per_address(
    fake_api_server: ApiServer, platform: FakePlatform, tmp_path: Path
) -> None:
    env = remote_env(
        tmp_path,
        fake_api_server.url,
        DESIGN_REMOTE_REGISTER_RATE="3",
        DESIGN_REMOTE_AUTHORIZE_RATE="4",
        **oauth_env(platform),
    )
    with running_remote(env) as limited:
        clear_of_minute_end()
        client_id = register(limited)
        statuses = [_register(limited).status_code for _ in range(3)]
        assert statuses == [201, 201, 429]
        refused = _register(limited)
        assert "try again in" in refused.json()["error_description"]
        assert int(refused.headers["retry-after"]) > 0
        query = authorize_query(limited, client_id, pkce()[1])
        statuses = [httpx.get(f"{limited.url}/authorize", params=query).status_code for _ in range(5)]
        assert statuses == [302, 302, 302, 302, 429]
        # The older browser flow starts sign-ins too, and counts with them.
        assert httpx.get(f"{limited.url}/oauth/authorize").status_code == 429
        # Other endpoints are not counted against the address.
        assert httpx.get(f"{limited.url}/health").status_code == 200
