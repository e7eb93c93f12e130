"""The daemon's small building blocks on real files, sockets and processes: private dirs, the instance lock, atomic
writes, port adverts, configuration, readiness notification, the plugin copy and secret redaction in logs."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from procs import wait_for

from design_console.config import DEFAULT_API_URL, TOOLSETS, Config, load_config
from design_console.daemon.plugin_sync import (
    PLUGIN_FILES,
    TOKEN_PLACEHOLDER,
    load_or_create_token,
    plugin_source_dir,
    sync_plugin,
)
from design_console.daemon.sd_notify import notify
from design_console.errors import PREFIX, DesignError
from design_console.runtime.adverts import (
    PREFIX as ADVERT_PREFIX,
)
from design_console.runtime.adverts import (
    Advert,
    advert_path,
    is_live,
    list_adverts,
    process_start_time,
    read_advert,
    remove_stale,
    write_advert,
)
from design_console.runtime.dirs import InstanceLock, ensure_private_dir
from design_console.runtime.files import write_private

ROOT = Path(__file__).resolve().parents[2]
IS_ROOT = os.getuid() == 0
OTHER_UID = 65534


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# --- ensure_private_dir -------------------------------------------------------------------------------------


def test_private_dir_is_created_0700_with_its_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "run"
    ensure_private_dir(target)
    assert target.is_dir() and _mode(target) == 0o700
    ensure_private_dir(target)
    assert _mode(target) == 0o700


@pytest.mark.parametrize("mode", [0o750, 0o705, 0o755, 0o777])
def test_private_dir_open_to_others_is_refused_with_the_chmod_fix(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "run"
    target.mkdir()
    target.chmod(mode)
    with pytest.raises(DesignError) as caught:
        ensure_private_dir(target)
    assert caught.value.code == "unsafe_runtime_dir"
    text = str(caught.value)
    assert text.startswith(PREFIX)
    assert f"chmod 700 {target}" in text and f"{mode:o}" in text
    assert _mode(target) == mode, "the check must not change the directory"


def test_symlink_to_a_private_dir_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "run"
    link.symlink_to(real)
    with pytest.raises(DesignError) as caught:
        ensure_private_dir(link)
    assert caught.value.code == "unsafe_runtime_dir" and "not a directory" in str(caught.value)
    assert f"rm {link}" in str(caught.value)


@pytest.mark.parametrize("kind", ["dangling symlink", "regular file"])
def test_non_directory_in_the_way_is_refused_with_a_design_error(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "run"
    if kind == "dangling symlink":
        target.symlink_to(tmp_path / "nowhere")
    else:
        target.write_text("x")
    with pytest.raises(DesignError) as caught:
        ensure_private_dir(target)
    assert caught.value.code == "unsafe_runtime_dir"


@pytest.mark.skipif(not IS_ROOT, reason="giving a directory to another user needs root")
def test_private_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "run"
    target.mkdir(mode=0o700)
    os.chown(target, OTHER_UID, OTHER_UID)
    with pytest.raises(DesignError) as caught:
        ensure_private_dir(target)
    assert caught.value.code == "unsafe_runtime_dir" and f"uid {OTHER_UID}" in str(caught.value)
    assert "DESIGN_RUNTIME_DIR" in str(caught.value)


# --- InstanceLock ---------------------------------------------------------------------------------------------

HOLDER = """
import json, sys
from pathlib import Path
from design_console.runtime.dirs import InstanceLock
lock = InstanceLock(Path(sys.argv[1]))
if not lock.acquire({"pid": 0, "version": "x"}):
    print("busy", flush=True)
    sys.exit(3)
lock.update({"pid": __import__("os").getpid(), "port": 43210})
print("held", flush=True)
sys.stdin.read()
lock.release()
print("released", flush=True)
"""


@pytest.fixture
def lock_holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """Another process holding the lock on tmp_path/designd.lock until its stdin closes."""
    path = tmp_path / "designd.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "held"
        yield proc, path
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


def test_lock_held_by_another_process_refuses_a_second_acquire(
    lock_holder: tuple[subprocess.Popen[str], Path],
) -> None:
    proc, path = lock_holder
    mine = InstanceLock(path)
    assert mine.is_held()
    assert mine.acquire({"pid": os.getpid()}) is False
    assert mine.holder() == {"pid": proc.pid, "port": 43210}, "a failed acquire must not overwrite the holder's info"
    assert _mode(path) == 0o600

    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    assert proc.stdout.readline().strip() == "released"
    assert proc.wait(10) == 0
    assert not mine.is_held()

    assert mine.acquire({"pid": os.getpid(), "port": 1}) is True
    try:
        assert mine.is_held() and mine.holder() == {"pid": os.getpid(), "port": 1}
        mine.update({"pid": os.getpid()})
        assert mine.holder() == {"pid": os.getpid()}, "a shorter update must not leave the old tail behind"
        second = subprocess.run([sys.executable, "-c", HOLDER, str(path)], capture_output=True, text=True, timeout=30)
        assert second.returncode == 3 and second.stdout.strip() == "busy"
    finally:
        mine.release()
    assert not InstanceLock(path).is_held()


def test_lock_of_a_killed_holder_is_free(lock_holder: tuple[subprocess.Popen[str], Path]) -> None:
    proc, path = lock_holder
    assert InstanceLock(path).is_held()
    proc.kill()
    proc.wait(10)
    assert not InstanceLock(path).is_held()
    assert InstanceLock(path).holder()["pid"] == proc.pid, "the file still names the last holder"


def test_lock_file_missing_or_garbage(tmp_path: Path) -> None:
    lock = InstanceLock(tmp_path / "designd.lock")
    assert not lock.is_held() and lock.holder() == {}
    (tmp_path / "designd.lock").write_text("{not json")
    assert lock.holder() == {} and not lock.is_held()


# --- write_private --------------------------------------------------------------------------------------------


def _leftovers(folder: Path, name: str) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(f".{name}.")]


def test_write_private_mode_and_replace(tmp_path: Path) -> None:
    target = tmp_path / "secret"
    target.write_text("old")
    target.chmod(0o644)
    write_private(target, b"new")
    assert target.read_bytes() == b"new" and _mode(target) == 0o600
    write_private(target, b"shared", mode=0o640)
    assert _mode(target) == 0o640
    assert _leftovers(tmp_path, "secret") == []


def test_write_private_never_shows_a_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "advert.json"
    size = 512 * 1024
    versions = [b"a" * size, b"b" * size]
    write_private(target, versions[0])
    bad: list[int] = []
    reads = 0
    done = threading.Event()

    def reader() -> None:
        nonlocal reads
        while not done.is_set():
            data = target.read_bytes()
            reads += 1
            if data not in versions:
                bad.append(len(data))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for n in range(150):
            write_private(target, versions[n % 2])
    finally:
        done.set()
        thread.join(10)
    assert reads > 0
    assert bad == [], f"{len(bad)} of {reads} reads saw a partial file (sizes {bad[:5]})"
    assert _leftovers(tmp_path, "advert.json") == []


def test_write_private_cleans_up_when_the_rename_fails(tmp_path: Path) -> None:
    target = tmp_path / "plugin"
    target.mkdir()
    (target / "keep").write_text("x")
    with pytest.raises(OSError):
        write_private(target, b"data")
    assert (target / "keep").read_text() == "x"
    assert _leftovers(tmp_path, "plugin") == []


def test_write_private_cleans_up_when_the_write_fails(tmp_path: Path) -> None:
    target = tmp_path / "token"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_private(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert _leftovers(tmp_path, "token") == []


# --- adverts --------------------------------------------------------------------------------------------------


def _advert(pid: int, start: float, port: int = 40000, runtime_dir: str = "/run/x") -> Advert:
    return Advert(
        pid=pid,
        process_start_time=start,
        port=port,
        host="localhost",
        version="0.1.0",
        started_at=1,
        last_seen=2,
        runtime_dir=runtime_dir,
    )


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(10)
    return proc.pid


def test_advert_round_trip_and_mode(tmp_path: Path) -> None:
    me = _advert(os.getpid(), process_start_time(os.getpid()), port=41234)
    path = advert_path(tmp_path, 41234)
    assert path.name == f"{ADVERT_PREFIX}41234.json"
    write_advert(path, me)
    assert _mode(path) == 0o600
    assert read_advert(path) == me
    raw = json.loads(path.read_text())
    assert set(raw) == {"pid", "processStartTime", "port", "host", "version", "startedAt", "lastSeen", "runtimeDir"}
    path.write_text('{"pid": "nope"}')
    assert read_advert(path) is None
    assert read_advert(tmp_path / "missing.json") is None


def test_is_live_for_this_process() -> None:
    assert is_live(_advert(os.getpid(), process_start_time(os.getpid())))


def test_is_live_false_for_a_dead_pid() -> None:
    pid = _dead_pid()
    assert process_start_time(pid) == 0.0
    assert not is_live(_advert(pid, time.time()))


def test_is_live_false_for_a_reused_pid() -> None:
    started = process_start_time(os.getpid())
    assert not is_live(_advert(os.getpid(), started - 5.0))
    assert not is_live(_advert(os.getpid(), started + 5.0))


def test_is_live_false_for_a_zombie() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        started = process_start_time(proc.pid)
        wait_for(lambda: psutil.Process(proc.pid).status() == psutil.STATUS_ZOMBIE, 10, "the child to become a zombie")
        assert not is_live(_advert(proc.pid, started))
    finally:
        proc.wait(10)


def test_list_and_remove_stale_adverts(tmp_path: Path) -> None:
    live = advert_path(tmp_path, 40001)
    write_advert(live, _advert(os.getpid(), process_start_time(os.getpid()), port=40001))
    dead = advert_path(tmp_path, 40002)
    write_advert(dead, _advert(_dead_pid(), time.time(), port=40002))
    reused = advert_path(tmp_path, 40003)
    write_advert(reused, _advert(os.getpid(), process_start_time(os.getpid()) - 100, port=40003))
    garbage = advert_path(tmp_path, 40004)
    garbage.write_text("not json")
    unrelated = tmp_path / "other-40005.json"
    unrelated.write_text("not json")
    foreign = advert_path(tmp_path, 40006)
    write_advert(foreign, _advert(_dead_pid(), time.time(), port=40006))
    if IS_ROOT:
        os.chown(foreign, OTHER_UID, OTHER_UID)

    listed = dict(list_adverts(tmp_path))
    assert unrelated not in listed
    assert listed[garbage] is None and listed[live] is not None and listed[live].port == 40001
    assert (foreign in listed) is not IS_ROOT
    assert [p.name for p, _ in list_adverts(tmp_path)] == sorted(p.name for p in listed)

    removed = set(remove_stale(tmp_path))
    expected = {dead, reused, garbage} | (set() if IS_ROOT else {foreign})
    assert removed == expected
    assert live.exists() and unrelated.exists()
    assert foreign.exists() is IS_ROOT, "another user's advert is never touched"
    assert not any(p.exists() for p in (dead, reused, garbage))
    assert list_adverts(tmp_path / "missing") == []


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
    assert config.control_endpoint == f"ipc://{home / 'run' / 'control.sock'}"
    assert config.lock_file == home / "run" / "designd.lock"
    assert config.temp_dir == Path(os.environ.get("TMPDIR") or "/tmp")
    assert config.media_dir == config.temp_dir / f"design-console-mcp-media-{os.getuid()}"


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
    }
    config = load_config(env)
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
    for value, expected in (("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False), ("", False)):
        assert load_config({**env, "ENABLE_MCP_APPS": value}).enable_mcp_apps is expected
    assert load_config({**env, "DESIGN_TOOLSETS": ",".join(TOOLSETS)}).toolsets == TOOLSETS
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
        ("DESIGN_API_URL", "ftp://x"),
        ("DESIGN_RELAY_URL", "http://x"),
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


# --- sd_notify ------------------------------------------------------------------------------------------------


def _receiver(address: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(5)
    return sock


def test_notify_sends_a_datagram(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "notify.sock"
    with _receiver(str(path)) as sock:
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        assert notify("READY=1") is True
        assert sock.recv(4096) == b"READY=1"
        assert notify("STOPPING=1") is True
        assert sock.recv(4096) == b"STOPPING=1"


def test_notify_to_an_abstract_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"dc-test-notify-{uuid.uuid4().hex}"
    with _receiver("\0" + name) as sock:
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert notify("READY=1") is True
        assert sock.recv(4096) == b"READY=1"


def test_notify_without_notify_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify("READY=1") is False


def test_notify_to_a_missing_socket_does_not_raise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody.sock"))
    assert notify("READY=1") is False


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


# --- log redaction --------------------------------------------------------------------------------------------

LOGGER = """
import logging, sys
from design_console.config import load_config
from design_console.runtime.logs import setup_logging
from design_console.runtime.dirs import ensure_private_dir
config = load_config()
ensure_private_dir(config.home)
bridge = sys.argv[1]
print(setup_logging(config, "designd", [bridge]), flush=True)
log = logging.getLogger("design_console.test")
log.info("args %s and %s", config.access_token, bridge)
log.info("dict %s", {"token": bridge, "access": config.access_token})
log.warning("inline " + bridge + " " + config.access_token)
log.info("secret %s", config.oauth_client_secret)
log.info("plain line")
{extra}
"""

ACCESS = "figd_access_token_value_0123456789"
BRIDGE = "bridge-token-value-abcdefghijklmnop"
OAUTH = "oauth-client-secret-value-xyz"


def _run_logger(tmp_path: Path, extra: str = "") -> tuple[str, str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DESIGN_")},
        "DESIGN_CONSOLE_HOME": str(tmp_path / "dc"),
        "DESIGN_ACCESS_TOKEN": ACCESS,
        "DESIGN_OAUTH_CLIENT_SECRET": OAUTH,
        "LOG_LEVEL": "debug",
    }
    done = subprocess.run(
        [sys.executable, "-c", LOGGER.replace("{extra}", extra), BRIDGE],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    log_file = Path(done.stdout.splitlines()[0])
    assert log_file == tmp_path / "dc" / "logs" / "designd.log"
    return log_file.read_text(), done.stderr


def test_secrets_never_reach_the_log(tmp_path: Path) -> None:
    text, stderr = _run_logger(tmp_path)
    for output in (text, stderr):
        assert "plain line" in output and "args *** and ***" in output
        for secret in (ACCESS, BRIDGE, OAUTH):
            assert secret not in output


def test_secrets_in_a_logged_exception_are_redacted(tmp_path: Path) -> None:
    extra = (
        "try:\n    raise RuntimeError('bad token ' + bridge)\nexcept RuntimeError:\n    log.exception('call failed')\n"
    )
    text, stderr = _run_logger(tmp_path, extra)
    assert "failed" in text and "RuntimeError" in text
    assert BRIDGE not in text and BRIDGE not in stderr
