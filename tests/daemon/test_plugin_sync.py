"""The bridge token and the plugin copy users import (design_console.daemon.plugin_sync)."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from design_console.config import Config, load_config
from design_console.daemon.plugin_sync import (
    PLUGIN_FILES,
    TOKEN_PLACEHOLDER,
    load_or_create_token,
    plugin_source_dir,
    sync_plugin,
)
from design_console.errors import DesignError

ROOT = Path(__file__).resolve().parents[2]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# --- bridge token and plugin copy -----------------------------------------------------------------------------


def _config(tmp_path: Path, **env: str) -> Config:
    return load_config({"HOME": str(tmp_path), "DESIGN_CONSOLE_HOME": str(tmp_path / "dc"), **env})


def test_token_created_private_and_reused(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = load_or_create_token(config)
    assert len(token) >= 32 and config.token_file.read_text() == token
    assert _mode(config.token_file) == 0o600 and _mode(config.home) == 0o700
    assert load_or_create_token(config) == token


def test_loose_token_mode_is_tightened(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = load_or_create_token(config)
    config.token_file.chmod(0o644)
    assert load_or_create_token(config) == token
    assert _mode(config.token_file) == 0o600


def test_short_token_is_replaced(tmp_path: Path) -> None:
    config = _config(tmp_path)
    config.home.mkdir(mode=0o700)
    config.token_file.write_text("short\n")
    token = load_or_create_token(config)
    assert token != "short" and len(token) >= 32 and config.token_file.read_text() == token


def _domains(config_dir: Path) -> list[str]:
    return json.loads((config_dir / "manifest.json").read_text())["networkAccess"]["allowedDomains"]


def test_sync_plugin_writes_the_copy_with_the_token(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = load_or_create_token(config)
    source = plugin_source_dir(config)
    assert source == ROOT / "plugin"
    assert TOKEN_PLACEHOLDER in (source / "ui.html").read_text()
    assert sorted(sync_plugin(config, token)) == sorted(PLUGIN_FILES)
    assert _mode(config.plugin_dir) == 0o700
    for name in PLUGIN_FILES:
        text = (config.plugin_dir / name).read_text()
        assert "__DESIGN_" not in text, f"{name} kept a placeholder"
        assert _mode(config.plugin_dir / name) == 0o600
    assert token in (config.plugin_dir / "ui.html").read_text()
    assert (config.plugin_dir / "code.js").read_bytes() == (source / "code.js").read_bytes()
    domains = _domains(config.plugin_dir)
    source_domains = json.loads((source / "manifest.json").read_text())["networkAccess"]["allowedDomains"]
    assert domains == [d for d in source_domains if "__DESIGN_RELAY_HOST__" not in d]
    assert "ws://localhost:9223" in domains


def test_sync_plugin_fills_in_the_relay(tmp_path: Path) -> None:
    config = _config(tmp_path, DESIGN_RELAY_URL="wss://relay.example.com:8443/bridge/")
    token = load_or_create_token(config)
    sync_plugin(config, token)
    domains = _domains(config.plugin_dir)
    assert "https://relay.example.com:8443" in domains and "wss://relay.example.com:8443" in domains
    ui = (config.plugin_dir / "ui.html").read_text()
    assert "wss://relay.example.com:8443/bridge" in ui and token in ui and "__DESIGN_" not in ui


def test_sync_plugin_follows_the_configured_port_range(tmp_path: Path) -> None:
    config = _config(tmp_path, DESIGN_WS_PORT="40100")
    sync_plugin(config, load_or_create_token(config))
    local = [d for d in _domains(config.plugin_dir) if "localhost" in d]
    assert local == [f"{s}://localhost:{p}" for s in ("http", "ws") for p in range(40100, 40110)]
    ui = (config.plugin_dir / "ui.html").read_text()
    assert '"firstPort": 40100, "lastPort": 40109' in ui and "9223" not in ui


def test_plugin_source_override_and_installation_paths(tmp_path: Path) -> None:
    """DESIGN_PLUGIN_SOURCE wins over the build's files; the service folders follow HOME and XDG_CONFIG_HOME."""
    source = tmp_path / "dev-plugin"
    config = _config(tmp_path, DESIGN_PLUGIN_SOURCE=str(source))
    assert plugin_source_dir(config) == source and config.plugin_source == source
    assert plugin_source_dir(_config(tmp_path)) == ROOT / "plugin"
    assert config.user_home == tmp_path and config.config_home == tmp_path / ".config"
    assert _config(tmp_path, XDG_CONFIG_HOME=str(tmp_path / "xdg")).config_home == tmp_path / "xdg"
    assert config.detached is False and _config(tmp_path, DESIGND_DETACHED="1").detached is True


def test_sync_plugin_rewrites_only_what_changed(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = load_or_create_token(config)
    source = tmp_path / "source"
    shutil.copytree(ROOT / "plugin", source, ignore=lambda _d, names: [n for n in names if n not in PLUGIN_FILES])
    assert sorted(sync_plugin(config, token, source)) == sorted(PLUGIN_FILES)
    inodes = {n: (config.plugin_dir / n).stat().st_ino for n in PLUGIN_FILES}
    assert sync_plugin(config, token, source) == []
    assert {n: (config.plugin_dir / n).stat().st_ino for n in PLUGIN_FILES} == inodes, "unchanged files rewritten"

    (source / "code.js").write_text((source / "code.js").read_text() + "\n// build 2\n")
    assert sync_plugin(config, token, source) == ["code.js"]
    assert (config.plugin_dir / "code.js").read_text().endswith("// build 2\n")

    (config.plugin_dir / "ui.html").write_text("edited by hand")
    assert sync_plugin(config, token, source) == ["ui.html"]
    assert token in (config.plugin_dir / "ui.html").read_text()

    (source / "manifest.json").unlink()
    with pytest.raises(DesignError) as caught:
        sync_plugin(config, token, source)
    assert caught.value.code == "plugin_missing"
