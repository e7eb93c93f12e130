"""Remote Mode's pure parts: its settings, the sealing of platform tokens, client keys and turns at the scanner."""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path
from typing import Any

import pytest

from design_console.config import load_config, load_remote_config
from design_console.errors import DesignError
from design_console.remote.crypto import TokenCipher, token_hash
from design_console.remote.tools import remote_catalog
from design_console.tools import catalog


def _key() -> bytes:
    return os.urandom(32)


def test_seal_opens_only_for_its_owner_and_untampered() -> None:
    cipher = TokenCipher((_key(),))
    sealed = cipher.seal(b"platform-token", "design:1")
    assert b"platform-token" not in sealed
    assert cipher.open(sealed, "design:1") == b"platform-token"
    with pytest.raises(DesignError):
        cipher.open(sealed, "design:2")
    tampered = sealed[:-1] + bytes([sealed[-1] ^ 1])
    with pytest.raises(DesignError):
        cipher.open(tampered, "design:1")


def test_rotation_keeps_old_records_readable() -> None:
    old, new = _key(), _key()
    sealed = TokenCipher((old,)).seal(b"t", "u")
    rotated = TokenCipher((new, old))
    assert rotated.open(sealed, "u") == b"t"
    assert rotated.needs_rotation(sealed)
    resealed = rotated.seal(b"t", "u")
    assert not rotated.needs_rotation(resealed)
    assert TokenCipher((new,)).open(resealed, "u") == b"t"
    with pytest.raises(DesignError):
        TokenCipher((new,)).open(sealed, "u")


def test_token_hash_is_stable_and_not_the_token() -> None:
    assert token_hash("abc") == token_hash("abc") != "abc"
    assert token_hash("abc") != token_hash("abd")


def _env(**extra: str) -> dict[str, str]:
    return {"HOME": "/tmp/nowhere", "DESIGN_REMOTE_BASE_URL": "https://mcp.example.com", **extra}


def test_remote_settings_defaults_and_missing_oauth() -> None:
    config = load_remote_config(_env())
    assert config.base_url == "https://mcp.example.com"
    assert (config.host, config.port) == ("127.0.0.1", 8787)
    assert config.store_url.startswith("sqlite:///") and config.store_url.endswith("remote.sqlite3")
    assert config.missing_oauth == ["DESIGN_OAUTH_CLIENT_ID", "DESIGN_OAUTH_CLIENT_SECRET", "DESIGN_TOKEN_KEYS"]
    keys = ",".join(base64.b64encode(_key()).decode() for _ in range(2))
    full = load_remote_config(
        _env(DESIGN_OAUTH_CLIENT_ID="id", DESIGN_OAUTH_CLIENT_SECRET="secret", DESIGN_TOKEN_KEYS=keys)
    )
    assert full.missing_oauth == [] and len(full.token_keys) == 2


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"DESIGN_REMOTE_BASE_URL": ""}, "DESIGN_REMOTE_BASE_URL"),
        ({"DESIGN_REMOTE_BASE_URL": "mcp.example.com"}, "DESIGN_REMOTE_BASE_URL"),
        ({"DESIGN_REMOTE_BASE_URL": "https://mcp.example.com/mcp"}, "DESIGN_REMOTE_BASE_URL"),
        ({"DESIGN_REMOTE_PORT": "http"}, "DESIGN_REMOTE_PORT"),
        ({"DESIGN_REMOTE_STORE": "postgres://x"}, "DESIGN_REMOTE_STORE"),
        ({"DESIGN_TOKEN_KEYS": "c2hvcnQ="}, "DESIGN_TOKEN_KEYS"),
        ({"DESIGN_TOKEN_KEYS": "not base64!"}, "DESIGN_TOKEN_KEYS"),
        ({"DESIGN_OAUTH_TOKEN_URL": "ftp://x"}, "DESIGN_OAUTH_TOKEN_URL"),
        ({"DESIGN_RELAY_PAIR_ATTEMPTS": "0"}, "DESIGN_RELAY_PAIR_ATTEMPTS"),
    ],
)
def test_remote_settings_refused_name_the_variable(env: dict[str, str], variable: str) -> None:
    with pytest.raises(DesignError) as caught:
        load_remote_config(_env(**env))
    assert variable in str(caught.value)


def test_the_hosted_catalog_has_no_app_or_local_file_tools() -> None:
    """MCP App views are served by designd only, and the hosted service cannot reach the user's files: a tool that
    uses them is hosted only when it also works without them (its data inline)."""
    config = load_config({"HOME": "/nonexistent", "ENABLE_MCP_APPS": "true"})
    hosted = remote_catalog(config)
    local = catalog(config)
    assert any(spec.toolset == "apps" for spec in local.values())
    assert not any(spec.toolset == "apps" or (spec.uses_files and not spec.file_args) for spec in hosted.values())
    assert "design_pair_plugin" in hosted and "design_pair_plugin" not in local
    assert hosted["design_take_screenshot"].args is not local["design_take_screenshot"].args


def test_clients_are_counted_by_address_and_ipv6_by_its_64() -> None:
    from design_console.remote.limits import client_key

    assert client_key("203.0.113.7") == "203.0.113.7"
    assert client_key("::ffff:203.0.113.7") == "203.0.113.7"
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")


async def test_remote_scans_take_smaller_input_and_turns_shared_between_users(tmp_path: Path) -> None:
    from design_console.config import load_config
    from design_console.remote.admission import Admission
    from design_console.remote.tools import RemoteCallContext, call_tool, remote_catalog

    config = load_config({"HOME": str(tmp_path), "REMOTE_SCAN_MAX_HTML": "5000", "REMOTE_BROWSER_QUEUE": "1"})
    tools = remote_catalog(config)
    name = "design_scan_code_accessibility"
    scans = Admission("scanner", "scanners", slots=1, per_user=1, queue=1, typical_seconds=10, wait_limit=60)

    queued = asyncio.Event()

    async def progress(done: float, total: float | None, message: str) -> None:
        queued.set()

    def as_user(user: str) -> Any:
        async def context() -> RemoteCallContext:
            return RemoteCallContext(config, None, progress, None, user, None, scans)  # type: ignore[arg-type]

        return context

    large = await call_tool(tools, name, {"html": "<p>x</p>" * 1000}, as_user("alice"))
    assert large.is_error and "REMOTE_SCAN_MAX_HTML" in large.content[0].text  # type: ignore[union-attr]
    async with scans.turn("alice"):
        # alice's own scan runs: her next one is refused at once, with when to come back.
        again = await call_tool(tools, name, {"html": "<p>x</p>"}, as_user("alice"))
        assert again.is_error and "try again in 10 s" in again.content[0].text  # type: ignore[union-attr]
        waiting = asyncio.create_task(call_tool(tools, name, {"html": "<p>x</p>"}, as_user("bob")))
        async with asyncio.timeout(10):
            await queued.wait()
        # bob waits in the one place of the queue; carol is told to come back after both.
        full = await call_tool(tools, name, {"html": "<p>x</p>"}, as_user("carol"))
        assert full.is_error and "try again in 20 s" in full.content[0].text  # type: ignore[union-attr]
        waiting.cancel()


def test_a_flood_of_one_warning_is_logged_once_per_interval() -> None:
    import logging

    from design_console.remote.serving import RepeatThrottle

    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler = Keep()
    throttle = RepeatThrottle(interval=0.2)
    handler.addFilter(throttle)
    logger = logging.getLogger("design_console.test_flood")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        for n in range(1000):
            logger.warning("bad request from %s", n)
        logger.info("other news")
        throttle._last = {key: when - 1 for key, when in throttle._last.items()}
        logger.warning("bad request from %s", "late")
    finally:
        logger.removeHandler(handler)
    assert lines == ["bad request from 0", "other news", "bad request from late (999 like it held back)"]


def test_the_new_remote_settings_are_validated() -> None:
    base = {"HOME": "/nonexistent", "DESIGN_REMOTE_BASE_URL": "https://mcp.example.com"}
    config = load_remote_config(base)
    assert (config.pair_budget, config.register_rate, config.authorize_rate) == (20, 30, 60)
    assert (config.header_timeout, config.body_timeout, config.max_connections) == (10, 30, 0)
    assert config.forwarded_allow_ips == "127.0.0.1"
    assert load_remote_config({**base, "FORWARDED_ALLOW_IPS": "10.0.0.5, 10.0.1.0/24"}).forwarded_allow_ips
    for name, value in (
        ("FORWARDED_ALLOW_IPS", "proxy.example.com"),
        ("DESIGN_RELAY_PAIR_BUDGET", "0"),
        ("DESIGN_REMOTE_HEADER_TIMEOUT", "soon"),
        ("REMOTE_BROWSER_QUEUE", "-1"),
    ):
        with pytest.raises(DesignError) as err:
            load_remote_config({**base, name: value})
        assert name in str(err.value)
