"""Process lifecycle promises: the shim never outlives its client, designd crashes are survived, one daemon only."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import psutil
import pytest
from fakes.fake_plugin import FakePlugin
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from procs import BIN, DaemonProcess, TestEnv, gone, processes_of, wait_for

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


#: The installed shim, the command every test here starts; a checkout path may contain its name, so never search for it.
SHIM = str(BIN / "design-console-mcp")


def _runs_shim(proc: psutil.Process) -> bool:
    """Whether ``proc`` runs the shim: as its program, or as the script its interpreter runs (``python …/shim``)."""
    try:
        return SHIM in proc.cmdline()[:2]
    except psutil.Error:
        return False


def _shims(env: TestEnv) -> list[psutil.Process]:
    return [p for p in processes_of(env) if _runs_shim(p)]


def _read_line(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> dict[str, Any]:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    line = b""
    while not line.endswith(b"\n"):
        if time.monotonic() > deadline:
            raise AssertionError("no line from the shim")
        line += proc.stdout.readline()
    return json.loads(line)


def test_shim_exits_within_a_second_of_stdin_eof(daemon: DaemonProcess) -> None:
    proc = subprocess.Popen(
        [str(BIN / "design-console-mcp")], env=daemon.env.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(INIT).encode() + b"\n")
    proc.stdin.flush()
    reply = _read_line(proc)
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "design-console-mcp"
    started = time.monotonic()
    proc.stdin.close()
    proc.wait(5)
    assert time.monotonic() - started < 1.0
    assert proc.returncode == 0
    assert proc.stdout is not None
    assert proc.stdout.read() == b"", "the shim wrote something that is not JSON-RPC"


def test_shim_exits_within_a_second_of_parent_death(daemon: DaemonProcess) -> None:
    read_end, write_end = os.pipe()
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "p = subprocess.Popen([sys.argv[1]], stdin=int(sys.argv[2]), stdout=subprocess.DEVNULL)\n"
            "print(p.pid, flush=True)\n"
            "time.sleep(60)\n",
            str(BIN / "design-console-mcp"),
            str(read_end),
        ],
        env=daemon.env.env,
        pass_fds=(read_end,),
        stdout=subprocess.PIPE,
    )
    os.close(read_end)
    try:
        assert parent.stdout is not None
        shim = psutil.Process(int(parent.stdout.readline()))
        os.write(write_end, json.dumps(INIT).encode() + b"\n")
        wait_for(lambda: len(daemon_sessions(daemon)) == 1, 20, "the shim's session")
        started = time.monotonic()
        parent.kill()
        parent.wait()
        wait_for(lambda: gone(shim), 5, "the shim to exit")
        assert time.monotonic() - started < 1.0
    finally:
        os.close(write_end)


def daemon_sessions(daemon: DaemonProcess) -> list[Any]:
    out = subprocess.run(
        [str(BIN / "designctl"), "status", "--json"], env=daemon.env.env, capture_output=True, check=True
    )
    return json.loads(out.stdout)["shims"]


async def test_fifty_sessions_leave_no_process(daemon: DaemonProcess, shim_params: StdioServerParameters) -> None:
    async def one(n: int) -> None:
        async with Client(shim_params, mode="legacy" if n % 2 else "auto") as client:
            assert (await client.list_tools()).tools
            if n % 10 == 0:
                # The check below must see a running shim, or it would pass however many were left behind.
                assert _shims(daemon.env), "no shim found while a session is open"

    for batch in range(5):
        await asyncio.gather(*(one(batch * 10 + n) for n in range(10)))
    wait_for(lambda: not _shims(daemon.env), 5, "every shim to exit")
    wait_for(lambda: daemon_sessions(daemon) == [], 20, "designd to drop every session")


async def test_designd_killed_mid_call(
    daemon: DaemonProcess, plugin: FakePlugin, shim_params: StdioServerParameters
) -> None:
    async def slow(_: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(30)
        return {"success": True, "result": None}

    plugin.handlers["EXECUTE_CODE"] = slow
    env = daemon.env
    async with Client(shim_params, mode="legacy") as client:
        call = asyncio.create_task(client.call_tool("design_execute", {"code": "return 1", "timeout": 20000}))
        await plugin.wait_command("EXECUTE_CODE")
        os.kill(daemon.pid, signal.SIGKILL)
        with pytest.raises(MCPError) as failed:
            await asyncio.wait_for(call, 10)
        assert failed.value.error.message.startswith("[design-console-mcp] designd stopped while")

        status = await asyncio.wait_for(client.call_tool("design_get_status", {}), 40)
        report = json.loads(status.content[0].text)
        assert status.is_error is False and report["setup"]["valid"] is False
        new_pid = json.loads(
            subprocess.run([str(BIN / "designctl"), "status", "--json"], env=env.env, capture_output=True).stdout
        )["pid"]
        assert new_pid != daemon.pid

        await plugin.close()
        again = await FakePlugin.connect(report["transport"]["port"], env.token, file_key="fileA", file_name="File A")
        try:
            executed = await client.call_tool("design_execute", {"code": "return 5"})
            assert json.loads(executed.content[0].text)["result"] == 5
        finally:
            await again.close()
    subprocess.run([str(BIN / "designctl"), "stop"], env=env.env, check=True, capture_output=True)
    wait_for(lambda: not processes_of(env), 10, "every process of the test installation to exit")


def test_second_designd_is_refused_and_shims_use_the_first(daemon: DaemonProcess) -> None:
    second = subprocess.run([str(BIN / "designd"), "--foreground"], env=daemon.env.env, capture_output=True, timeout=30)
    assert second.returncode == 3
    message = second.stderr.decode()
    assert "[design-console-mcp] designd is already running" in message and str(daemon.pid) in message
    status = json.loads(
        subprocess.run([str(BIN / "designctl"), "status", "--json"], env=daemon.env.env, capture_output=True).stdout
    )
    assert status["pid"] == daemon.pid


def _hold_all_ports(env: TestEnv) -> list[socket.socket]:
    """Foreign listeners on every port of the installation's bridge range, on both loopbacks."""
    listeners = []
    for port in range(env.port_start, env.port_start + 10):
        for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.bind((host, port))
            except OSError:
                sock.close()
                continue
            sock.listen()
            listeners.append(sock)
    return listeners


def _ctl_status(env: TestEnv) -> dict[str, Any] | None:
    done = subprocess.run([str(BIN / "designctl"), "status", "--json"], env=env.env, capture_output=True, timeout=30)
    return json.loads(done.stdout) if done.returncode == 0 else None


def test_all_ports_held_by_foreign_listeners(dc_env: TestEnv) -> None:
    """designd stays up without a bridge, so its AI apps are served, and names every holder."""
    listeners = _hold_all_ports(dc_env)
    proc = subprocess.Popen([str(BIN / "designd"), "--foreground"], env=dc_env.env, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: _ctl_status(dc_env) is not None, 30, "designd to answer without a bridge")
        status = _ctl_status(dc_env)
        assert status is not None and status["port"] is None
        message = status["bridgeError"]
        assert message.startswith("[design-console-mcp]")
        assert str(dc_env.port_start) in message and str(os.getpid()) in message
        assert psutil.pid_exists(os.getpid())
    finally:
        subprocess.run([str(BIN / "designctl"), "stop"], env=dc_env.env, capture_output=True, timeout=60)
        assert proc.wait(30) == 0
        assert proc.stderr is not None
        proc.stderr.close()
        for sock in listeners:
            sock.close()


def test_the_shim_reports_why_there_is_no_bridge_within_seconds(dc_env: TestEnv) -> None:
    """All ports busy: the AI app is answered at once, and a bridge tool gives designd's reason, not a timeout."""
    listeners = _hold_all_ports(dc_env)
    proc = subprocess.Popen([SHIM], env=dc_env.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None
        started = time.monotonic()
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        assert _read_line(proc)["result"]["serverInfo"]["name"] == "design-console-mcp"
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "design_execute"}}
        call["params"]["arguments"] = {"code": "return 1"}
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n")
        proc.stdin.write(json.dumps(call).encode() + b"\n")
        proc.stdin.flush()
        reply = _read_line(proc)
        waited = time.monotonic() - started
        result = reply["result"]
        message = result["content"][0]["text"]
        assert result["isError"] is True and "in use" in message
        assert str(dc_env.port_start) in message and "DESIGN_WS_PORT" in message
        # designd needs about a second to import and bind; the answer must follow at once, not after 30 s.
        assert waited < 10, waited
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(10)
        subprocess.run([str(BIN / "designctl"), "stop"], env=dc_env.env, capture_output=True, timeout=60)
        wait_for(lambda: not processes_of(dc_env), 30, "designd to stop")
        for sock in listeners:
            sock.close()


def test_twenty_apps_starting_at_once_start_one_designd(dc_env: TestEnv) -> None:
    shims = [subprocess.Popen([SHIM], env=dc_env.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(20)]
    try:
        for proc in shims:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(INIT).encode() + b"\n")
            proc.stdin.flush()
        for proc in shims:
            assert _read_line(proc, timeout=60)["result"]["serverInfo"]["name"] == "design-console-mcp"
        log = (dc_env.config.log_dir / "designd.stderr.log").read_text()
        assert "already running" not in log, "a second designd was started and refused"
        daemons = [p for p in processes_of(dc_env) if "design_console.daemon.main" in " ".join(p.cmdline())]
        assert len(daemons) == 1
    finally:
        for proc in shims:
            if proc.stdin is not None:
                proc.stdin.close()
        for proc in shims:
            proc.wait(10)
        subprocess.run([str(BIN / "designctl"), "stop"], env=dc_env.env, capture_output=True, timeout=60)


def test_requests_fail_at_once_when_designd_cannot_start(dc_env: TestEnv) -> None:
    run_dir = dc_env.root / "run"
    run_dir.mkdir(mode=0o755)
    run_dir.chmod(0o755)
    proc = subprocess.Popen(
        [str(BIN / "design-console-mcp")], env=dc_env.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(INIT).encode() + b"\n")
    proc.stdin.flush()
    reply = _read_line(proc)
    assert reply["id"] == 1
    assert reply["error"]["message"].startswith("[design-console-mcp] ") and "chmod 700" in reply["error"]["message"]
    proc.stdin.write(json.dumps({**INIT, "id": 2}).encode() + b"\n")
    proc.stdin.flush()
    assert _read_line(proc)["id"] == 2
    proc.stdin.close()
    proc.wait(5)


async def test_client_gone_mid_call_cancels_the_plugin_command(daemon: DaemonProcess, plugin: FakePlugin) -> None:
    async def slow(_: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(30)
        return {"success": True, "result": None}

    plugin.handlers["EXECUTE_CODE"] = slow
    proc = _shim_calling_execute(daemon)
    assert proc.stdin is not None
    sent = await plugin.wait_command("EXECUTE_CODE")
    proc.stdin.close()
    cancel = await plugin.wait_command("CANCEL")
    assert cancel["params"] == {"target": sent["id"]}
    proc.wait(5)


async def test_a_killed_shim_is_noticed_at_once_and_its_call_cancelled(
    daemon: DaemonProcess, plugin: FakePlugin
) -> None:
    """A shim killed mid-call says no goodbye: the end of its connection cancels its call within a second."""

    async def slow(_: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(30)
        return {"success": True, "result": None}

    plugin.handlers["EXECUTE_CODE"] = slow
    proc = _shim_calling_execute(daemon)
    sent = await plugin.wait_command("EXECUTE_CODE")
    started = time.monotonic()
    proc.kill()
    proc.wait(5)
    cancel = await plugin.wait_command("CANCEL")
    assert cancel["params"] == {"target": sent["id"]}
    assert time.monotonic() - started < 1.0
    assert daemon_sessions(daemon) == []
    proc.stdin.close()


def test_a_designd_alive_but_deaf_is_told_from_one_not_running(daemon: DaemonProcess) -> None:
    """A frozen designd holds its lock but answers nothing: status and the shim say so and name the fix."""
    os.kill(daemon.pid, signal.SIGSTOP)
    try:
        status = subprocess.run(
            [str(BIN / "designctl"), "status"], env=daemon.env.env, capture_output=True, text=True, timeout=60
        )
        assert status.returncode == 2
        assert f"designd (pid {daemon.pid}) is running but does not answer" in status.stdout
        assert "designctl restart" in status.stdout
        proc = subprocess.Popen([SHIM], env=daemon.env.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(INIT).encode() + b"\n")
            proc.stdin.flush()
            message = _read_line(proc, timeout=40)["error"]["message"]
            assert "is running but does not answer" in message and "designctl restart" in message
        finally:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(10)
    finally:
        os.kill(daemon.pid, signal.SIGCONT)


def test_an_app_starts_designd_as_soon_as_a_dying_one_lets_go_of_the_lock(dc_env: TestEnv) -> None:
    """A designd that is exiting still holds the instance lock for a moment: the app that found it unanswering
    must start the next one the moment the lock is free, not wait out the 30 s start timeout."""
    from design_console.runtime.dirs import InstanceLock, ensure_private_dir

    config = dc_env.config
    ensure_private_dir(config.home)
    ensure_private_dir(config.runtime_dir)
    dying = InstanceLock(config.lock_file)
    assert dying.acquire({"pid": os.getpid()})
    proc = subprocess.Popen([SHIM], env=dc_env.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        time.sleep(0.5)  # the dying designd's last half second, during which the shim looks for designd
        dying.release()
        freed = time.monotonic()
        reply = _read_line(proc, timeout=40)
        answered = time.monotonic() - freed
        assert reply["result"]["serverInfo"]["name"] == "design-console-mcp", reply
        assert answered < 2.0, f"answered {answered:.2f} s after the lock was free"
    finally:
        dying.release()
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(10)
        subprocess.run([str(BIN / "designctl"), "stop"], env=dc_env.env, capture_output=True, timeout=60)


def _shim_calling_execute(daemon: DaemonProcess) -> subprocess.Popen[bytes]:
    """A shim started raw, whose client opened a session and called design_execute (its stdin left open)."""
    proc = subprocess.Popen([SHIM], env=daemon.env.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None
    call = {"name": "design_execute", "arguments": {"code": "return 1", "timeout": 20000}}
    for message in (
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ):
        proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    return proc
