"""designctl, the installed command, against real designd processes; and the service unit files it installs."""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import shutil
import socket
import stat
import subprocess
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import psutil
import pytest
from fakes.fake_plugin import FakePlugin
from procs import BIN, DaemonProcess, TestEnv, processes_of, start_worker, wait_for

from design_console import __version__
from design_console.cli import STOP_WAIT, service_plan, unit_file_word
from design_console.config import load_config
from design_console.errors import PREFIX
from design_console.runtime.dirs import InstanceLock, ensure_private_dir
from design_console.tools import catalog

ROOT = Path(__file__).resolve().parents[1]
WAIT = 20.0
LINUX_ONLY = pytest.mark.skipif(platform.system() == "Darwin", reason="the systemd branch of designctl service")


def ctl(env: TestEnv, *args: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed designctl in the test installation."""
    return subprocess.run(
        [str(BIN / "designctl"), *args],
        env={**env.env, **(extra_env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )


def status_json(env: TestEnv) -> dict[str, Any]:
    done = ctl(env, "status", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _workers_running(env: TestEnv) -> dict[str, Any]:
    """The status once the api worker, started by a call, runs; the others were never needed and do not."""
    start_worker(env, "api")
    report: dict[str, Any] = {}

    def running() -> bool:
        report.update(status_json(env))
        return all(w["state"] == ("running" if w["kind"] == "api" else "not started") for w in report["workers"])

    wait_for(running, WAIT, "the api worker to run")
    return report


def _reap_when_it_exits(daemon: DaemonProcess) -> threading.Thread:
    """designd of the fixture is this process's child: reap it as soon as it exits so designctl sees it gone."""
    assert daemon.proc is not None
    thread = threading.Thread(target=daemon.proc.wait, daemon=True)
    thread.start()
    return thread


# --- status ---------------------------------------------------------------------------------------------------


async def test_status_json_and_text(daemon: DaemonProcess, plugin: FakePlugin) -> None:
    env = daemon.env
    status = await asyncio.to_thread(_workers_running, env)
    assert status["pid"] == daemon.pid and status["port"] == daemon.port and status["version"] == __version__
    assert status["host"] == "localhost" and status["bridgeAuth"] == "required"
    (file,) = status["files"]
    assert file["fileKey"] == "fileA" and file["fileName"] == "File A" and file["active"] is True
    workers = {w["kind"]: w for w in status["workers"]}
    assert set(workers) == {"api", "media", "tokens"}
    children = {p.pid for p in psutil.Process(daemon.pid).children()}
    assert workers["api"]["pid"] in children and workers["api"]["uptime"] >= 0
    assert workers["media"]["pid"] is None and workers["tokens"]["pid"] is None
    for worker in workers.values():
        assert isinstance(worker["restarts"], int) and worker["restarts"] >= 0

    text = await asyncio.to_thread(ctl, env, "status")
    assert text.returncode == 0, text.stderr
    out = text.stdout
    assert re.search(rf"^designd {re.escape(__version__)}\s+pid {daemon.pid}\s+up [\d.]+s$", out, re.M), out
    assert f"ws://localhost:{daemon.port}  auth required" in out
    assert re.search(r"^file\s+\* File A \(fileA\)\s+page 'Page 1'", out, re.M), out
    assert re.search(r"^worker\s+api\s+running\s+pid \d+\s+up [\d.]+s\s+restarts \d+$", out, re.M), out
    assert re.search(r"^worker\s+media\s+not started\s+restarts \d+$", out, re.M), out


def test_status_without_a_daemon(dc_env: TestEnv) -> None:
    done = ctl(dc_env, "status")
    assert done.returncode == 1
    assert "designd is not running." in done.stdout and "designctl start" in done.stdout
    assert processes_of(dc_env) == [], "status must not start designd"


# --- tools and call -------------------------------------------------------------------------------------------


def test_tools_lists_every_tool(dc_env: TestEnv) -> None:
    tools = catalog(dc_env.config)
    done = ctl(dc_env, "tools")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[-1] == f"{len(tools)} tools"
    assert [line.split()[0] for line in lines[:-1]] == list(tools)
    listed = json.loads(ctl(dc_env, "tools", "--json").stdout)
    assert [t["name"] for t in listed] == list(tools)
    assert all(t["toolset"] and t["description"] for t in listed)


def test_call_pretty_and_json(daemon: DaemonProcess) -> None:
    pretty = ctl(daemon.env, "call", "design_get_status", "probe=true")
    assert pretty.returncode == 0, pretty.stderr
    assert pretty.stdout.startswith("{\n  ")
    report = json.loads(pretty.stdout)
    assert report["setup"]["valid"] is False and report["bridge"]["port"] == daemon.port

    raw = ctl(daemon.env, "call", "design_get_status", "probe=true", "--json")
    assert raw.returncode == 0, raw.stderr
    output = json.loads(raw.stdout)
    assert output.get("is_error", False) is False
    (block,) = output["content"]
    assert block["type"] == "text" and json.loads(block["text"])["bridge"]["port"] == daemon.port


def test_call_with_a_bad_argument_exits_2(dc_env: TestEnv) -> None:
    done = ctl(dc_env, "call", "design_get_status", "probe")
    assert done.returncode == 2
    assert done.stderr.startswith(PREFIX) and "key=value" in done.stderr and "'probe'" in done.stderr
    assert processes_of(dc_env) == [], "a rejected command line must not start designd"


def test_call_of_an_unknown_tool_exits_1(daemon: DaemonProcess) -> None:
    done = ctl(daemon.env, "call", "design_no_such_tool")
    assert done.returncode == 1
    assert f"{PREFIX}There is no tool named 'design_no_such_tool'" in done.stdout + done.stderr
    assert status_json(daemon.env)["pid"] == daemon.pid


# --- plugin-path and logs -------------------------------------------------------------------------------------


def test_plugin_path(daemon: DaemonProcess) -> None:
    done = ctl(daemon.env, "plugin-path")
    expected = Path(daemon.env.env["HOME"]) / ".design-console-mcp" / "plugin" / "manifest.json"
    assert done.returncode == 0 and done.stdout.strip() == str(expected)
    assert json.loads(expected.read_text())["main"] == "code.js"


def test_logs_last_lines(daemon: DaemonProcess) -> None:
    log_file = daemon.env.config.log_dir / "designd.log"
    start_worker(daemon.env)  # a worker's start and hello add lines to designd's own
    wait_for(lambda: len(log_file.read_text().splitlines()) > 5, WAIT, "a few log lines")
    done = ctl(daemon.env, "logs", "-n", "5")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == 5 and all(f"designd[{daemon.pid}]" in line for line in lines), lines
    in_file = log_file.read_text().splitlines()
    first = in_file.index(lines[0])
    assert in_file[first : first + 5] == lines, "logs -n 5 must print the file's last five lines in order"


def test_logs_before_the_first_start(dc_env: TestEnv) -> None:
    done = ctl(dc_env, "logs")
    assert done.returncode == 1 and "No log yet" in done.stdout


# --- doctor ---------------------------------------------------------------------------------------------------


def _doctor_lines(out: str) -> list[tuple[str, str]]:
    return [(m[1].strip(), m[2]) for m in re.finditer(r"^\[\s*(\w+)\] (.*)$", out, re.M)]


def test_doctor_healthy_install(daemon: DaemonProcess) -> None:
    config = daemon.env.config
    done = ctl(daemon.env, "doctor")
    assert done.returncode == 0, done.stdout
    lines = _doctor_lines(done.stdout)
    assert not [what for status, what in lines if status == "fail"]
    ok = [what for status, what in lines if status == "ok"]
    for expected in (
        f"home {config.home} is private (owner uid {os.getuid()}, mode 700)",
        f"runtime dir {config.runtime_dir} is private (owner uid {os.getuid()}, mode 700)",
        f"instance lock {config.lock_file} is held by pid {daemon.pid}",
        f"bridge token present ({config.token_file})",
        f"plugin copy up to date (import {config.plugin_dir / 'manifest.json'})",
        "no stale port advertisement files",
        f"designd {__version__} answers (pid {daemon.pid}, port {daemon.port})",
    ):
        assert expected in ok, f"missing ok line {expected!r} in:\n{done.stdout}"
    assert any(what.startswith(f"bridge ports {config.ws_port}-{config.ws_port + 9}") for what in ok)
    checks = json.loads(ctl(daemon.env, "doctor", "--json").stdout)
    assert {c["status"] for c in checks} <= {"ok", "warn"} and all(set(c) == {"status", "check", "fix"} for c in checks)


def test_doctor_fails_on_a_readable_bridge_token(daemon: DaemonProcess) -> None:
    token = daemon.env.config.token_file
    token.chmod(0o644)
    done = ctl(daemon.env, "doctor")
    assert done.returncode == 1
    assert f"[fail] bridge token {token} has mode 644" in done.stdout
    assert f"fix: chmod 600 {token}" in done.stdout


# --- stop, start, restart -------------------------------------------------------------------------------------


def test_stop_asks_designd_to_exit(daemon: DaemonProcess) -> None:
    env = daemon.env
    _workers_running(env)
    reaper = _reap_when_it_exits(daemon)
    started = time.monotonic()
    done = ctl(env, "stop")
    assert done.returncode == 0 and f"designd (pid {daemon.pid}) stopped." in done.stdout
    assert time.monotonic() - started < STOP_WAIT, "designd did not exit when asked; the ladder had to signal it"
    reaper.join(WAIT)
    assert daemon.proc is not None and daemon.proc.returncode == 0
    assert not InstanceLock(env.config.lock_file).is_held()
    wait_for(lambda: not processes_of(env), WAIT, "designd's workers to exit")
    again = ctl(env, "stop")
    assert again.returncode == 0 and "designd is not running." in again.stdout


HUNG_DESIGND = """
import os, signal, sys, time
from pathlib import Path
from design_console.runtime.dirs import InstanceLock
signal.signal(signal.SIGTERM, lambda *_: print("term", flush=True))
lock = InstanceLock(Path(sys.argv[1]))
assert lock.acquire({"pid": os.getpid()})
print("held", flush=True)
while True:
    time.sleep(1)
"""


def test_stop_ladder_ends_a_hung_designd_with_sigkill(dc_env: TestEnv) -> None:
    """A lock holder that neither answers on the control socket nor exits on SIGTERM: every rung is climbed."""
    config = dc_env.config
    config.runtime_dir.mkdir(mode=0o700)
    hung = subprocess.Popen(
        [str(BIN / "python"), "-c", HUNG_DESIGND, str(config.lock_file)],
        env=dc_env.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert hung.stdout is not None and hung.stdout.readline().strip() == "held"
        reaper = threading.Thread(target=hung.wait, daemon=True)
        reaper.start()
        started = time.monotonic()
        done = ctl(dc_env, "stop")
        assert done.returncode == 0 and f"designd (pid {hung.pid}) stopped." in done.stdout
        assert time.monotonic() - started >= 2 * STOP_WAIT
        reaper.join(WAIT)
        assert hung.returncode == -9
        assert hung.stdout.read().strip() == "term", "SIGTERM was not tried before SIGKILL"
        assert not InstanceLock(config.lock_file).is_held()
    finally:
        if hung.poll() is None:
            hung.kill()
        hung.wait(WAIT)
        if hung.stdout is not None:
            hung.stdout.close()


def _detached_pid(env: TestEnv, out: str) -> int:
    match = re.search(r"designd started \(pid (\d+)\)", out)
    assert match, out
    pid = int(match[1])
    assert psutil.Process(pid).ppid() != os.getpid(), "designctl start left designd as a child of its caller"
    assert status_json(env)["pid"] == pid
    return pid


def test_start_restart_and_stop_a_detached_designd(dc_env: TestEnv) -> None:
    try:
        first = ctl(dc_env, "start")
        assert first.returncode == 0, first.stderr
        pid = _detached_pid(dc_env, first.stdout)
        _workers_running(dc_env)
        again = ctl(dc_env, "start")
        assert again.returncode == 0 and f"designd is already running (pid {pid})." in again.stdout

        restarted = ctl(dc_env, "restart")
        assert restarted.returncode == 0, restarted.stderr
        assert f"designd (pid {pid}) stopped." in restarted.stdout
        new_pid = _detached_pid(dc_env, restarted.stdout)
        assert new_pid != pid and not psutil.pid_exists(pid)
        _workers_running(dc_env)

        stopped = ctl(dc_env, "stop")
        assert stopped.returncode == 0 and f"designd (pid {new_pid}) stopped." in stopped.stdout
        assert not InstanceLock(dc_env.config.lock_file).is_held()
        wait_for(lambda: not processes_of(dc_env), WAIT, "every process of the installation to exit")
    finally:
        ctl(dc_env, "stop")


def test_detached_designd_does_not_notify_its_callers_service_manager(dc_env: TestEnv) -> None:
    address = str(dc_env.root / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as notify:
        notify.bind(address)
        notify.setblocking(False)
        try:
            done = ctl(dc_env, "start", extra_env={"NOTIFY_SOCKET": address})
            assert done.returncode == 0, done.stderr
            _workers_running(dc_env)
            # READY=1 is sent before the control socket serves, so by now it would be queued.
            with pytest.raises(BlockingIOError):
                notify.recv(4096)
        finally:
            ctl(dc_env, "stop")


# --- service units --------------------------------------------------------------------------------------------


@LINUX_ONLY
def test_systemd_unit_verifies(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(runtime)}
    source = (ROOT / "systemd" / "designd.service").read_text()
    assert "ExecStart=%h/.local/bin/designd --foreground" in source

    def verify(text: str, name: str) -> subprocess.CompletedProcess[str]:
        unit = tmp_path / name
        unit.write_text(text)
        return subprocess.run(
            [analyze, "verify", "--user", str(unit)], env=env, capture_output=True, text=True, timeout=60
        )

    unit_text = service_plan(load_config(env)).content.decode()
    assert f"ExecStart={unit_file_word(str(BIN / 'designd'))} --foreground" in unit_text
    good = verify(unit_text, "designd.service")
    assert good.returncode == 0 and "designd.service" not in good.stdout + good.stderr, good.stdout + good.stderr
    # The same check must notice a broken unit, or the assertion above proves nothing.
    broken = verify(source.replace("Type=notify", "Type=notify\nBogusKey=1"), "broken.service")
    assert "BogusKey" in broken.stdout + broken.stderr


def test_the_units_documentation_link_is_the_projects_readme() -> None:
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert urls["Documentation"] == urls["Repository"] + "#readme"
    unit = (ROOT / "systemd" / "designd.service").read_text()
    assert f"Documentation={urls['Documentation']}\n" in unit


def _service_env(tmp_path: Path, path_dir: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": str(path_dir)}


@LINUX_ONLY
def test_service_install_and_uninstall_without_systemctl(dc_env: TestEnv, tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = _service_env(tmp_path, empty)
    unit = tmp_path / "config" / "systemd" / "user" / "designd.service"

    installed = ctl(dc_env, "service", "install", extra_env=env)
    assert installed.returncode == 0, installed.stderr
    assert f"wrote {unit}" in installed.stdout and "(skipped: systemctl not found)" in installed.stdout
    text = unit.read_text()
    assert f"ExecStart={unit_file_word(str(BIN / 'designd'))} --foreground" in text and "%h/.local/bin" not in text
    assert (BIN / "designd").is_file()

    removed = ctl(dc_env, "service", "uninstall", extra_env=env)
    assert removed.returncode == 0, removed.stderr
    assert f"removed {unit}" in removed.stdout and not unit.exists()
    again = ctl(dc_env, "service", "uninstall", extra_env=env)
    assert again.returncode == 0, again.stderr


@LINUX_ONLY
def test_service_install_fails_with_the_fix_when_systemctl_fails(dc_env: TestEnv, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "systemctl-calls"
    fake = bin_dir / "systemctl"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {calls}\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = _service_env(tmp_path, bin_dir)
    unit = tmp_path / "config" / "systemd" / "user" / "designd.service"

    installed = ctl(dc_env, "service", "install", extra_env=env)
    # The unit is written, but nothing runs it: that is a failure, and the message says what to do.
    assert installed.returncode == 1, installed.stdout
    assert "Failed to connect to bus" in installed.stdout and unit.exists()
    assert f"{unit} was written, but the service manager refused it" in installed.stderr
    assert "loginctl enable-linger" in installed.stderr and "systemctl --user enable --now" in installed.stderr
    assert f"ExecStart={unit_file_word(str(BIN / 'designd'))} --foreground" in unit.read_text()
    removed = ctl(dc_env, "service", "uninstall", extra_env=env)
    assert removed.returncode == 0, removed.stderr
    assert not unit.exists()
    assert calls.read_text().splitlines() == [
        "--user daemon-reload",
        "--user enable --now designd.service",
        "--user disable --now designd.service",
        "--user daemon-reload",
    ]


def test_start_waits_out_a_designd_that_is_exiting(dc_env: TestEnv) -> None:
    """designctl start while the instance lock is still held by a designd that is dying: it starts the next one as
    soon as the lock is free, instead of reporting the dying one as running."""
    config = dc_env.config
    ensure_private_dir(config.home)
    ensure_private_dir(config.runtime_dir)
    dying = InstanceLock(config.lock_file)
    assert dying.acquire({"pid": os.getpid()})
    release = threading.Timer(0.5, dying.release)
    release.start()
    try:
        done = ctl(dc_env, "start")
        assert done.returncode == 0, done.stderr
        match = re.search(r"designd started \(pid (\d+)\)", done.stdout)
        assert match and int(match[1]) != os.getpid(), done.stdout
    finally:
        release.join()
        ctl(dc_env, "stop")


def test_designd_in_the_background_waits_out_a_designd_that_is_exiting(dc_env: TestEnv) -> None:
    config = dc_env.config
    ensure_private_dir(config.home)
    ensure_private_dir(config.runtime_dir)
    dying = InstanceLock(config.lock_file)
    assert dying.acquire({"pid": os.getpid()})
    release = threading.Timer(3.0, dying.release)
    release.start()
    try:
        done = subprocess.run(
            [str(BIN / "designd")], env=dc_env.env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert "designd started (pid" in done.stdout, done.stdout
    finally:
        release.join()
        ctl(dc_env, "stop")


@LINUX_ONLY
def test_doctor_warns_of_an_open_file_limit_designd_cannot_lift(dc_env: TestEnv) -> None:
    import resource

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 512))

    done = subprocess.run(
        [str(BIN / "designctl"), "doctor"], env=dc_env.env, capture_output=True, text=True, timeout=60,
        preexec_fn=low_limit,
    )  # fmt: skip
    lines = _doctor_lines(done.stdout)
    assert ("warn", "the open-file limit is 256 (hard 512); designd can only lift it to 512") in lines, done.stdout
    assert "ulimit -Hn 10240" in done.stdout
