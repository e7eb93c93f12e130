"""Configuration (design_console.config): defaults, every variable, and errors that name the variable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from design_console.config import DEFAULT_API_URL, TOOLSETS, load_config
from design_console.errors import PREFIX, DesignError

# --- config ---------------------------------------------------------------------------------------------------


def test_config_defaults(tmp_path: Path) -> None:
    config = load_config({"HOME": str(tmp_path)})
    home = tmp_path / ".design-console-mcp"
    assert config.home == home and config.runtime_dir == home / "run"
    assert config.access_token == "" and config.log_level == "info"
    assert config.browser_timeout_ms == 120_000 and config.max_console_logs == 1000
    assert config.oauth_client_id == "" and config.oauth_client_secret == ""
    assert config.ws_port == 9223 and config.ports == range(9223, 9233) and config.ws_host == "localhost"
    assert config.node_env == "" and config.bridge_auth == "required" and config.api_url == DEFAULT_API_URL
    assert config.toolsets == () and config.enable_mcp_apps is False and config.relay_url == ""
    assert config.plugin_dir == home / "plugin" and config.token_file == home / "bridge-token"
    assert config.log_dir == home / "logs" and config.cache_dir == home / "cache"
    assert config.transport == "ipc" and config.control_socket == home / "run" / "control.sock"
    assert config.control_endpoint_file == home / "run" / "control.endpoint"
    assert config.server_key_file == home / "control-server.key"
    assert config.client_key_file == home / "control-client.key"
    assert config.lock_file == home / "run" / "designd.lock"
    assert config.temp_dir == Path(os.environ.get("TMPDIR") or "/tmp")
    assert config.media_dir == config.home / "cache" / "media"


def test_config_every_variable(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path / "ignored"),
        "DESIGN_CONSOLE_HOME": str(tmp_path / "dc"),
        "DESIGN_RUNTIME_DIR": str(tmp_path / "rt"),
        "TMPDIR": str(tmp_path / "tmp"),
        "DESIGN_ACCESS_TOKEN": "  figd_secret_value  ",
        "LOG_LEVEL": "WARNING",
        "BROWSER_TIMEOUT": "5000",
        "MAX_CONSOLE_LOGS": "25",
        "DESIGN_OAUTH_CLIENT_ID": "cid",
        "DESIGN_OAUTH_CLIENT_SECRET": "csecret",
        "DESIGN_WS_PORT": "30000",
        "DESIGN_WS_HOST": " 127.0.0.1 ",
        "NODE_ENV": "development",
        "DESIGN_BRIDGE_AUTH": "OFF",
        "DESIGN_API_URL": "http://127.0.0.1:8080/",
        "DESIGN_TOOLSETS": " Core, read ,,tokens",
        "ENABLE_MCP_APPS": "yes",
        "DESIGN_RELAY_URL": "wss://relay.example.com/",
        "DESIGN_BROWSER": " /opt/chrome/chrome ",
        "DESIGN_WORKER_IDLE_SECONDS": "0",
        "DESIGN_IPC": " TCP ",
        "DESIGN_IMAGE_PRIVATE_HOSTS": "1",
        "DESIGN_FILE_ROOTS": f"/srv/design{os.pathsep}~/work{os.pathsep}",
    }
    config = load_config(env)
    assert config.transport == "tcp" and load_config({**env, "DESIGN_IPC": "ipc"}).transport == "ipc"
    assert config.home == tmp_path / "dc" and config.runtime_dir == tmp_path / "rt"
    assert config.temp_dir == tmp_path / "tmp"
    assert config.access_token == "figd_secret_value" and config.log_level == "warn"
    assert config.browser_timeout_ms == 5000 and config.max_console_logs == 25
    assert config.oauth_client_id == "cid" and config.oauth_client_secret == "csecret"
    assert config.ws_port == 30000 and config.ports == range(30000, 30010) and config.ws_host == "127.0.0.1"
    assert config.node_env == "development" and config.bridge_auth == "off"
    assert config.api_url == "http://127.0.0.1:8080"
    assert config.toolsets == ("core", "read", "tokens")
    assert config.enable_mcp_apps is True and config.relay_url == "wss://relay.example.com"
    assert config.browser_path == Path("/opt/chrome/chrome")
    assert config.worker_idle_seconds == 0 and load_config({}).worker_idle_seconds == 300
    assert config.image_private_hosts is True and load_config({}).image_private_hosts is False
    assert (
        config.file_roots == (Path("/srv/design"), tmp_path / "ignored" / "work") and load_config({}).file_roots == ()
    )
    for value, expected in (("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False), ("", False)):
        assert load_config({**env, "ENABLE_MCP_APPS": value}).enable_mcp_apps is expected
    assert load_config({**env, "DESIGN_TOOLSETS": ",".join(TOOLSETS)}).toolsets == TOOLSETS
    auto = load_config({**env, "DESIGN_TOOLSETS": " Auto "})
    assert auto.toolsets_auto is True and auto.toolsets == () and config.toolsets_auto is False
    for level in ("trace", "debug", "info", "warn", "error", "fatal"):
        assert load_config({**env, "LOG_LEVEL": level}).log_level == level


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DESIGN_WS_PORT", "abc"),
        ("DESIGN_WS_PORT", "80"),
        ("DESIGN_WS_PORT", "65530"),
        ("MAX_CONSOLE_LOGS", "0"),
        ("MAX_CONSOLE_LOGS", "1.5"),
        ("BROWSER_TIMEOUT", "10"),
        ("LOG_LEVEL", "loud"),
        ("DESIGN_BRIDGE_AUTH", "sometimes"),
        ("DESIGN_TOOLSETS", "bogus"),
        ("DESIGN_TOOLSETS", "core,bogus"),
        ("DESIGN_TOOLSETS", "auto,read"),
        ("DESIGN_API_URL", "ftp://x"),
        ("DESIGN_RELAY_URL", "http://x"),
        ("DESIGN_WORKER_IDLE_SECONDS", "-1"),
        ("DESIGN_IPC", "udp"),
        ("DESIGN_IMAGE_PRIVATE_HOSTS", "maybe"),
        ("DESIGN_FILE_ROOTS", "relative/folder"),
    ],
)
def test_config_errors_name_the_variable(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(DesignError) as caught:
        load_config({"HOME": str(tmp_path), name: value})
    assert caught.value.code == "bad_config"
    text = str(caught.value)
    assert text.startswith(PREFIX) and name in text


def test_config_runtime_dir_choice(tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    assert load_config({"HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(xdg)}).runtime_dir == xdg / "design-console-mcp"
    missing = tmp_path / "gone"
    assert (
        load_config({"HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(missing)}).runtime_dir
        == tmp_path / ".design-console-mcp" / "run"
    )
    explicit = tmp_path / "explicit"
    env = {"HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(xdg), "DESIGN_RUNTIME_DIR": str(explicit)}
    assert load_config(env).runtime_dir == explicit
