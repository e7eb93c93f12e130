"""A real designd process: the files it owns, readiness, shutdown, and what it does with hostile peers."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import psutil
import pytest
import zmq
from fakes.fake_plugin import FakePlugin
from helpers import http_request
from mcp import Client, StdioServerParameters
from procs import (
    BIN,
    WORKER_CALL,
    DaemonProcess,
    TestEnv,
    control_peer,
    isolated,
    make_env,
    processes_of,
    running_daemon,
    start_worker,
    wait_for,
)
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from design_console import __version__
from design_console.config import Config
from design_console.daemon.listing_cache import ListingCache
from design_console.errors import PREFIX
from design_console.protocol import (
    PROTOCOL_VERSION,
    Bye,
    Call,
    Error,
    Frame,
    Hello,
    Ping,
    Pong,
    Welcome,
    decode,
    encode,
)
from design_console.runtime.adverts import advert_path, process_start_time, user_folder
from design_console.runtime.dirs import InstanceLock
from design_console.runtime.transport import client_socket
from design_console.tools import catalog
from design_console.tools.wire.listing import tool_entries

WAIT = 15.0


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _status(env: TestEnv) -> dict[str, object]:
    out = subprocess.run(
        [str(BIN / "designctl"), "status", "--json"], env=env.env, capture_output=True, timeout=30, check=True
    )
    return json.loads(out.stdout)


def _workers_running(daemon: DaemonProcess) -> list[psutil.Process]:
    """designd's worker processes, once every kind was started by a call."""
    for kind in WORKER_CALL:
        start_worker(daemon.env, kind)
    wait_for(lambda: len(processes_of(daemon.env)) == 1 + len(WORKER_CALL), WAIT, "designd and its workers")
    return [p for p in processes_of(daemon.env) if p.pid != daemon.pid]


# --- files ----------------------------------------------------------------------------------------------------


def test_advert_while_running_and_clean_sigterm(daemon: DaemonProcess) -> None:
    env, config = daemon.env, daemon.env.config
    port = daemon.port
    path = advert_path(user_folder(config), port)
    wait_for(path.exists, WAIT, "the advert file")
    assert _mode(path) == 0o600
    advert = json.loads(path.read_text())
    assert set(advert) == {"pid", "processStartTime", "port", "host", "version", "startedAt", "lastSeen", "runtimeDir"}
    now = time.time() * 1000
    assert advert["pid"] == daemon.pid and advert["port"] == port and advert["host"] == "localhost"
    assert abs(advert["processStartTime"] - process_start_time(daemon.pid)) < 1.0
    assert advert["version"] == __version__ and advert["runtimeDir"] == str(config.runtime_dir)
    assert now - 60_000 < advert["startedAt"] <= advert["lastSeen"] <= now + 1000

    workers = _workers_running(daemon)
    assert all("design_console.workers.main" in " ".join(w.cmdline()) for w in workers)
    assert daemon.stop() == 0
    assert not path.exists(), "the advert outlived designd"
    assert not config.control_socket.exists() and not config.control_endpoint_file.exists()
    assert not InstanceLock(config.lock_file).is_held()
    wait_for(lambda: not processes_of(env), WAIT, "every process of the installation to exit")


def test_private_files_and_plugin_copy(daemon: DaemonProcess) -> None:
    config = daemon.env.config
    if config.transport == "ipc":
        assert stat.S_ISSOCK(config.control_socket.lstat().st_mode) and _mode(config.control_socket) == 0o600
    else:
        assert not config.control_socket.exists() and _mode(config.control_endpoint_file) == 0o600
        assert config.control_endpoint_file.read_text().startswith("tcp://127.0.0.1:")
        for key in (config.server_key_file, config.client_key_file):
            assert _mode(key) == 0o600
    assert _mode(config.runtime_dir) == 0o700 and _mode(config.lock_file) == 0o600
    assert config.home == Path(daemon.env.env["HOME"]) / ".design-console-mcp"
    assert _mode(config.home) == 0o700 and _mode(config.token_file) == 0o600
    plugin_dir = Path(daemon.env.env["HOME"]) / ".design-console-mcp" / "plugin"
    assert _mode(plugin_dir) == 0o700
    assert sorted(p.name for p in plugin_dir.iterdir()) == ["code.js", "manifest.json", "ui.html"]
    ui = (plugin_dir / "ui.html").read_text()
    assert daemon.env.token in ui and "__DESIGN_" not in ui
    assert (config.log_dir / "designd.log").exists()


def test_designd_keeps_its_tool_list_for_the_next_start(daemon: DaemonProcess) -> None:
    """The answer built at a first start is kept (0600, key first) and is exactly what the next start serves."""
    config = daemon.env.config
    tools = catalog(config)
    kept = ListingCache(config.cache_dir, list(tools))
    wait_for(lambda: kept.path.exists(), WAIT, "the kept tool list")
    assert _mode(config.cache_dir) == 0o700 and _mode(kept.path) == 0o600
    assert kept.load() == msgspec.json.encode({"tools": tool_entries(tools.values())})


async def test_a_restarted_designd_lists_the_kept_tools(dc_env: TestEnv) -> None:
    """The second start serves the kept answer (it does not write it again) and a client sees the same tools."""
    shim = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(dc_env.env))
    kept = ListingCache(dc_env.config.cache_dir, list(catalog(dc_env.config))).path
    listings = []
    for _ in range(2):
        daemon = DaemonProcess(dc_env).start()
        try:
            async with Client(shim) as client:
                listings.append((await client.list_tools()).model_dump())
            wait_for(kept.exists, WAIT, "the kept tool list")
            if len(listings) == 1:
                written = kept.stat().st_mtime_ns
        finally:
            daemon.stop()
    assert kept.stat().st_mtime_ns == written, "the second start built and wrote the list again"
    assert listings[0] == listings[1] and len(listings[0]["tools"]) == len(catalog(dc_env.config))


def test_open_runtime_dir_stops_designd_with_exit_2(dc_env: TestEnv) -> None:
    run = dc_env.config.runtime_dir
    run.mkdir(mode=0o755)
    run.chmod(0o755)
    done = subprocess.run([str(BIN / "designd"), "--foreground"], env=dc_env.env, capture_output=True, timeout=30)
    assert done.returncode == 2
    message = done.stderr.decode()
    assert message.startswith(PREFIX) and f"chmod 700 {run}" in message
    assert _mode(run) == 0o755 and not (run / "control.sock").exists() and not (run / "control.endpoint").exists()


# --- readiness and shutdown -----------------------------------------------------------------------------------


def test_ready_only_once_the_bridge_answers(dc_env: TestEnv) -> None:
    address = str(dc_env.root / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as notify:
        notify.bind(address)
        notify.settimeout(30)
        daemon = DaemonProcess(dc_env, extra_env={"NOTIFY_SOCKET": address})
        daemon.proc = subprocess.Popen(
            [str(BIN / "designd"), "--foreground"],
            env={**dc_env.env, "NOTIFY_SOCKET": address},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert notify.recv(4096) == b"READY=1"
            port = InstanceLock(dc_env.config.lock_file).holder()["port"]
            status, _, body = http_request(port, "GET", "/health")
            assert status == 200 and json.loads(body)["pid"] == daemon.pid
            assert _status(dc_env)["pid"] == daemon.pid
            daemon.proc.send_signal(signal.SIGTERM)
            assert notify.recv(4096) == b"STOPPING=1"
            assert daemon.proc.wait(WAIT) == 0
        finally:
            daemon.stop()
    wait_for(lambda: not processes_of(dc_env), WAIT, "every process of the installation to exit")


# --- hostile control peers ------------------------------------------------------------------------------------


class RawPeer:
    """A bare ZeroMQ DEALER on designd's control socket that sends whatever the test gives it."""

    def __init__(self, config: Config) -> None:
        self.sock = control_peer(config)

    def send(self, *parts: bytes | Frame) -> None:
        self.sock.send_multipart([p if isinstance(p, bytes) else encode(p) for p in parts])

    def recv(self, timeout: float = WAIT) -> object:
        assert self.sock.poll(int(timeout * 1000), zmq.POLLIN), "designd did not answer"
        return decode(self.sock.recv())

    def close(self) -> None:
        self.sock.close(linger=0)


def _hello(peer: str = "ctl", version: int = PROTOCOL_VERSION, id: str = "h") -> Hello:
    return Hello(id=id, peer=peer, version=version, pid=os.getpid())


def _assert_error(reply: object, code: str, id: str = "") -> Error:
    assert isinstance(reply, Error), reply
    assert reply.code == code and reply.id == id, reply
    return reply


def test_hostile_control_frames_are_answered_and_designd_keeps_serving(daemon: DaemonProcess) -> None:
    peers: list[RawPeer] = []

    def peer() -> RawPeer:
        peers.append(RawPeer(daemon.env.config))
        return peers[-1]

    try:
        garbage = peer()
        garbage.send(b"\x00\xff\xfe not msgpack at all")
        assert "undecodable frame" in _assert_error(garbage.recv(), "bad_request").message
        garbage.send(msgspec.msgpack.encode({"op": "launch_missiles", "id": "x"}))
        _assert_error(garbage.recv(), "bad_request")
        garbage.send(msgspec.msgpack.encode({"op": "hello", "id": "x", "peer": "ctl", "version": "one", "pid": 1}))
        _assert_error(garbage.recv(), "bad_request")
        garbage.send(b"")
        _assert_error(garbage.recv(), "bad_request")
        # A string with invalid UTF-8, and a map nested 100,000 deep: each once ended the control loop silently.
        garbage.send(bytes.fromhex("81a26f70a1ff"))
        assert "undecodable frame" in _assert_error(garbage.recv(), "bad_request").message
        garbage.send(b"\x83\xa2op\xa4call\xa4tool\xa1x\xa9arguments" + b"\x81\xa1a" * 100_000 + b"\xc0")
        assert "undecodable frame" in _assert_error(garbage.recv(), "bad_request").message

        split = peer()
        split.send(Ping(id="p1"), b"a second part")
        split.send(Ping(id="p2"))
        _assert_error(split.recv(), "no_hello", "p2")

        old = peer()
        old.send(_hello(version=PROTOCOL_VERSION + 99, id="v"))
        mismatch = _assert_error(old.recv(), "version_mismatch", "v")
        assert str(PROTOCOL_VERSION) in mismatch.message and str(PROTOCOL_VERSION + 99) in mismatch.message
        old.send(Ping(id="after"))
        _assert_error(old.recv(), "no_hello", "after")

        shim = peer()
        shim.send(_hello(peer="shim"))
        assert isinstance(shim.recv(), Welcome)
        shim.send(Call(id="c", tool="design_get_status", arguments={}))
        assert "Call is not valid from shim" in _assert_error(shim.recv(), "bad_request", "c").message
        shim.send(Ping(id="still"))
        assert shim.recv() == Pong(id="still")
        shim.send(Bye(reason="test done"))
    finally:
        for p in peers:
            p.close()

    assert psutil.Process(daemon.pid).is_running() and daemon.proc is not None and daemon.proc.poll() is None
    status = _status(daemon.env)
    assert status["pid"] == daemon.pid
    assert status["controlStats"]["badFrames"] >= 5
    wait_for(lambda: _status(daemon.env)["shims"] == [], WAIT, "the hostile shim peer to be dropped")


# --- the tcp transport: loopback only, and only the user's key --------------------------------------------------


@pytest.fixture
def tcp_daemon() -> Iterator[DaemonProcess]:
    """designd with DESIGN_IPC=tcp, whatever transport the rest of the run uses."""
    for env in isolated(make_env(DESIGN_IPC="tcp")):
        yield from running_daemon(env)


def test_over_tcp_designd_listens_on_loopback_only_and_binds_no_unix_socket(tcp_daemon: DaemonProcess) -> None:
    config = tcp_daemon.env.config
    endpoint = config.control_endpoint_file.read_text().strip()
    proc = psutil.Process(tcp_daemon.pid)
    listening = [c for c in proc.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    assert {c.laddr.ip for c in listening} <= {"127.0.0.1", "::1"}, listening
    assert ("127.0.0.1", int(endpoint.rsplit(":", 1)[1])) in {(c.laddr.ip, c.laddr.port) for c in listening}
    named = [c for c in proc.net_connections(kind="unix") if c.laddr]
    assert named == [], f"designd bound a named Unix socket: {named}"
    assert not config.control_socket.exists()


def test_over_tcp_a_peer_without_the_users_key_gets_nothing_and_status_counts_it(tcp_daemon: DaemonProcess) -> None:
    env = tcp_daemon.env
    before = _status(env)["controlStats"]["refusedPeers"]  # type: ignore[index]
    endpoint = env.config.control_endpoint_file.read_text().strip()
    ctx = zmq.Context.instance()
    stranger = client_socket(ctx, env.config, "stranger")
    public, secret = zmq.curve_keypair()
    stranger.setsockopt(zmq.CURVE_PUBLICKEY, public)
    stranger.setsockopt(zmq.CURVE_SECRETKEY, secret)
    keyless = ctx.socket(zmq.DEALER)
    keyless.setsockopt(zmq.LINGER, 0)
    try:
        for sock in (stranger, keyless):
            sock.connect(endpoint)
            sock.send(encode(_hello()))
        wait_for(lambda: _status(env)["controlStats"]["refusedPeers"] >= before + 2, WAIT, "the refusals to count")  # type: ignore[index]
        for sock in (stranger, keyless):
            assert not sock.poll(300), "a peer without the user's key got an answer"
    finally:
        stranger.close(linger=0)
        keyless.close(linger=0)
    assert _status(env)["shims"] == []
    text = subprocess.run([str(BIN / "designctl"), "status"], env=env.env, capture_output=True, text=True, timeout=30)
    assert "refused" in text.stdout and endpoint in text.stdout


def test_status_says_what_drives_the_control_socket(daemon: DaemonProcess) -> None:
    """The loop where it can watch descriptors; a thread on a loop like Windows' (the run's DESIGN_TEST_LOOP)."""
    windows = os.environ.get("DESIGN_TEST_LOOP") == "windows"
    control = _status(daemon.env)["control"]
    assert control["drivenBy"] == ("thread" if windows else "loop")  # type: ignore[index]
    text = subprocess.run(
        [str(BIN / "designctl"), "status"], env=daemon.env.env, capture_output=True, text=True, timeout=30
    )
    assert ("driven by a thread" if windows else "driven by the loop") in text.stdout


# --- bridge auth on the real daemon ---------------------------------------------------------------------------


async def test_bridge_refuses_a_foreign_origin(daemon: DaemonProcess) -> None:
    with pytest.raises(InvalidStatus) as caught:
        async with ws_connect(f"ws://127.0.0.1:{daemon.port}/", origin="https://evil.example"):  # type: ignore[arg-type]
            pass
    assert caught.value.response.status_code == 403


async def test_bridge_closes_a_plugin_without_token_4401(daemon: DaemonProcess) -> None:
    plugin = await FakePlugin.connect(daemon.port, "", file_key="fileA", file_name="File A")
    try:
        assert await plugin.wait_closed() == (4401, "authentication required")
    finally:
        await plugin.close()
    assert _status(daemon.env)["files"] == []


@pytest.mark.parametrize("options", [{"hello": "wrong-proof"}, {"hello": "token"}])
async def test_bridge_refuses_a_wrong_proof_or_a_token_hello_and_status_counts_it(
    daemon: DaemonProcess, options: dict[str, Any]
) -> None:
    plugin = await FakePlugin.connect(daemon.port, daemon.env.token, file_key="fileA", file_name="File A", **options)
    try:
        assert await plugin.wait_closed() == (4401, "authentication required")
    finally:
        await plugin.close()
    status = _status(daemon.env)
    assert status["files"] == []
    assert status["bridgeStats"]["failedProofs"] == 1  # type: ignore[index]
    logs = [p for p in daemon.env.config.log_dir.rglob("*") if p.is_file()]
    assert logs and not any(daemon.env.token in p.read_text(errors="replace") for p in logs)


def test_designd_lifts_its_open_file_limit_to_the_hard_one(dc_env: TestEnv) -> None:
    """Started with macOS's GUI default of 256 open files, designd raises its own soft limit to the hard one."""
    import resource

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 4096))

    proc = subprocess.Popen(
        [str(BIN / "designd"), "--foreground"],
        env=dc_env.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=low_limit,
    )
    try:
        wait_for(lambda: psutil.Process(proc.pid).rlimit(psutil.RLIMIT_NOFILE) == (4096, 4096), WAIT, "the new limit")
    finally:
        proc.terminate()
        proc.wait(WAIT)


async def test_with_every_bridge_port_taken_the_tools_list_and_each_bridge_tool_says_why(
    dc_env: TestEnv, shim_params: StdioServerParameters
) -> None:
    config = dc_env.config
    held = []
    try:
        for port in config.ports:
            sock = socket.socket()
            sock.bind(("127.0.0.1", port))
            sock.listen()
            held.append(sock)
        async with Client(shim_params, mode="legacy") as client:
            tools = await client.list_tools()
            execute = await client.call_tool("design_execute", {"code": "return 1"})
            screenshot = await client.call_tool("design_capture_screenshot", {})
            status = json.loads((await client.call_tool("design_get_status", {})).content[0].text)
        text = subprocess.run(
            [str(BIN / "designctl"), "status"], env=dc_env.env, capture_output=True, text=True, timeout=60, check=False
        )
    finally:
        for sock in held:
            sock.close()
        subprocess.run([str(BIN / "designctl"), "stop"], env=dc_env.env, capture_output=True, timeout=60, check=False)
    assert sorted(t.name for t in tools.tools) == sorted(catalog(config))
    first, last = config.ports.start, config.ports.stop - 1
    for answer in (execute, screenshot):
        message = answer.content[0].text
        assert answer.is_error and message.startswith(PREFIX), message
        assert f"All bridge ports {first}-{last} are in use" in message
        assert "set DESIGN_WS_PORT to the first of ten free ports" in message
        assert f"re-import the plugin from {config.plugin_dir / 'manifest.json'}" in message
        assert "9223-9232 only" not in message
    assert status["setup"]["valid"] is False and "All bridge ports" in status["setup"]["message"]
    assert f"bridge   not listening: {PREFIX}All bridge ports {first}-{last}" in text.stdout, text.stdout
    wait_for(lambda: not processes_of(dc_env), 30, "designd to stop")


async def test_a_bridge_that_found_every_port_taken_listens_once_one_is_freed(dc_env: TestEnv) -> None:
    """No restart: designd keeps trying (every 30 s at most), then listens, says so, advertises the port and takes a
    plugin."""
    config = dc_env.config
    held = []
    for port in config.ports:
        sock = socket.socket()
        sock.bind(("127.0.0.1", port))
        sock.listen()
        held.append(sock)
    daemon = DaemonProcess(dc_env)
    try:
        daemon.start()
        before = _status(dc_env)
        assert before["port"] is None and "All bridge ports" in str(before["bridgeError"]), before
        assert "designd listens as soon as a port is free" in str(before["bridgeError"])
        for sock in held:
            sock.close()
        lock = InstanceLock(config.lock_file)
        # designd writes the port into its lock once it listens: the event to wait for.
        wait_for(lambda: lock.holder().get("port") is not None, 45, "designd to listen on the freed port")
        after = _status(dc_env)
        assert after["port"] == config.ports.start and after["bridgeError"] is None, after
        assert advert_path(user_folder(config), config.ports.start).is_file()
        plugin = await FakePlugin.connect(config.ports.start, dc_env.token, file_key="fileA", file_name="File A")
        try:
            files = _status(dc_env)["files"]
            assert isinstance(files, list) and [f["fileKey"] for f in files] == ["fileA"], files
        finally:
            await plugin.close()
        log = (config.log_dir / "designd.log").read_text()
        assert f"bridge listening on localhost port {config.ports.start}" in log
        assert "bridge on localhost:None" not in log and "bridge not listening yet" in log
    finally:
        for sock in held:
            sock.close()
        daemon.stop()
        if daemon.proc is not None and daemon.proc.stderr is not None:
            daemon.proc.stderr.close()
