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
from design_console.cli import (
    EXIT_OUTPUT_CLOSED,
    STOP_WAIT,
    PlatformFacts,
    manage_service,
    platform_checks,
    service_plan,
    unit_file_word,
)
from design_console.config import load_config
from design_console.errors import PREFIX
from design_console.runtime.dirs import InstanceLock, ensure_private_dir
from design_console.runtime.launch import DAEMON_MODULE
from design_console.runtime.platform import login
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
    assert f"import from {env.config.plugin_dir / 'manifest.json'}" in out
    shims = len(status["shims"])
    assert re.search(rf"^shims\s+{shims} AI app session\(s\)(: \d+(, \d+)*)?$", out, re.M), out


def test_status_without_a_daemon(dc_env: TestEnv) -> None:
    done = ctl(dc_env, "status")
    assert done.returncode == 1
    assert "designd is not running." in done.stdout and "designctl start" in done.stdout
    assert processes_of(dc_env) == [], "status must not start designd"


def ctl_into_closed_pipe(env: TestEnv, *args: str) -> subprocess.CompletedProcess[str]:
    """Run designctl with its output going into a pipe that nobody reads any more, as ``designctl … | head -1`` does
    once head has its line."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [str(BIN / "designctl"), *args],
            env=env.env,
            stdin=subprocess.DEVNULL,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=90,
        )
    finally:
        os.close(write)


#: Commands that print to stdout, with and without designd running (status says it is not).
PRINTING = [("status",), ("status", "--json"), ("tools",), ("tools", "--json"), ("guide",), ("plugin-path",), ("logs",)]


@pytest.mark.parametrize("args", PRINTING, ids=" ".join)
def test_a_closed_output_ends_each_command_quietly(dc_env: TestEnv, args: tuple[str, ...]) -> None:
    done = ctl_into_closed_pipe(dc_env, *args)
    assert (done.returncode, done.stderr) == (EXIT_OUTPUT_CLOSED, "")


def test_a_closed_output_ends_status_quietly_with_designd_running(chain_daemon: DaemonProcess) -> None:
    for args in (("status",), ("status", "--json"), ("doctor",)):
        done = ctl_into_closed_pipe(chain_daemon.env, *args)
        assert (done.returncode, done.stderr) == (EXIT_OUTPUT_CLOSED, ""), args


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


def test_call_pretty_and_json(chain_daemon: DaemonProcess) -> None:
    pretty = ctl(chain_daemon.env, "call", "design_get_status", "probe=true")
    assert pretty.returncode == 0, pretty.stderr
    assert pretty.stdout.startswith("{\n  ")
    report = json.loads(pretty.stdout)
    assert report["setup"]["valid"] is False and report["bridge"]["port"] == chain_daemon.port

    raw = ctl(chain_daemon.env, "call", "design_get_status", "probe=true", "--json")
    assert raw.returncode == 0, raw.stderr
    output = json.loads(raw.stdout)
    assert output.get("is_error", False) is False
    (block,) = output["content"]
    assert block["type"] == "text" and json.loads(block["text"])["bridge"]["port"] == chain_daemon.port


def test_call_with_a_bad_argument_exits_2(dc_env: TestEnv) -> None:
    done = ctl(dc_env, "call", "design_get_status", "probe")
    assert done.returncode == 2
    assert done.stderr.startswith(PREFIX) and "key=value" in done.stderr and "'probe'" in done.stderr
    assert processes_of(dc_env) == [], "a rejected command line must not start designd"


def test_call_of_an_unknown_tool_exits_1(chain_daemon: DaemonProcess) -> None:
    done = ctl(chain_daemon.env, "call", "design_no_such_tool")
    assert done.returncode == 1
    assert f"{PREFIX}There is no tool named 'design_no_such_tool'" in done.stdout + done.stderr
    assert status_json(chain_daemon.env)["pid"] == chain_daemon.pid


# --- plugin-path and logs -------------------------------------------------------------------------------------


def test_plugin_path(chain_daemon: DaemonProcess) -> None:
    done = ctl(chain_daemon.env, "plugin-path")
    expected = Path(chain_daemon.env.env["HOME"]) / ".design-console-mcp" / "plugin" / "manifest.json"
    assert done.returncode == 0 and done.stdout.strip() == str(expected)
    assert json.loads(expected.read_text())["main"] == "code.js"


def test_logs_last_lines(chain_daemon: DaemonProcess) -> None:
    log_file = chain_daemon.env.config.log_dir / "designd.log"
    start_worker(chain_daemon.env)  # a worker's start and hello add lines to designd's own
    wait_for(lambda: len(log_file.read_text().splitlines()) > 5, WAIT, "a few log lines")
    done = ctl(chain_daemon.env, "logs", "-n", "5")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == 5 and all(f"designd[{chain_daemon.pid}]" in line for line in lines), lines
    in_file = log_file.read_text().splitlines()
    first = in_file.index(lines[0])
    assert in_file[first : first + 5] == lines, "logs -n 5 must print the file's last five lines in order"


def test_logs_before_the_first_start(dc_env: TestEnv) -> None:
    done = ctl(dc_env, "logs")
    assert done.returncode == 1 and "No log yet" in done.stdout


# --- doctor ---------------------------------------------------------------------------------------------------


def _doctor_lines(out: str) -> list[tuple[str, str]]:
    return [(m[1].strip(), m[2]) for m in re.finditer(r"^\[\s*(\w+)\] (.*)$", out, re.M)]


def test_doctor_healthy_install(chain_daemon: DaemonProcess) -> None:
    config = chain_daemon.env.config
    done = ctl(chain_daemon.env, "doctor")
    assert done.returncode == 0, done.stdout
    lines = _doctor_lines(done.stdout)
    assert not [what for status, what in lines if status == "fail"]
    ok = [what for status, what in lines if status == "ok"]
    for expected in (
        f"home {config.home} is private (owner uid {os.getuid()}, mode 700)",
        f"runtime dir {config.runtime_dir} is private (owner uid {os.getuid()}, mode 700)",
        f"instance lock {config.lock_file} is held by pid {chain_daemon.pid}",
        f"bridge token present ({config.token_file})",
        f"plugin copy up to date (import {config.plugin_dir / 'manifest.json'})",
        "no stale port advertisement files",
        f"designd {__version__} answers (pid {chain_daemon.pid}, port {chain_daemon.port})",
    ):
        assert expected in ok, f"missing ok line {expected!r} in:\n{done.stdout}"
    assert any(what.startswith(f"bridge ports {config.ws_port}-{config.ws_port + 9}") for what in ok)
    checks = json.loads(ctl(chain_daemon.env, "doctor", "--json").stdout)
    assert {c["status"] for c in checks} <= {"ok", "warn"} and all(set(c) == {"status", "check", "fix"} for c in checks)


def test_doctor_gives_a_fix_only_for_what_is_not_ok(dc_env: TestEnv) -> None:
    """Without designd and its login item some checks warn; each of those has its fix, and no ok line has one."""
    done = ctl(dc_env, "doctor")
    blocks = re.findall(r"^\[\s*(\w+)\] .*\n((?: {7}fix: .*\n)?)", done.stdout, re.M)
    assert len(blocks) == len(_doctor_lines(done.stdout)), done.stdout
    assert {status for status, _ in blocks} >= {"ok", "warn"}, done.stdout
    assert [status for status, fix in blocks if fix] == [status for status, _ in blocks if status != "ok"], done.stdout
    checks = json.loads(ctl(dc_env, "doctor", "--json").stdout)
    assert [bool(c["fix"]) for c in checks] == [c["status"] != "ok" for c in checks], checks


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


# --- login items and platform facts, answered as each OS would ---------------------------------------------------


class FakeRunKey:
    """This user's Run key as a dict; ``refuse`` makes writes fail as a locked-down registry does."""

    def __init__(self, refuse: bool = False) -> None:
        self.values: dict[str, str] = {}
        self.refuse = refuse

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def set(self, name: str, command: str) -> None:
        if self.refuse:
            raise PermissionError(5, "Access is denied")
        self.values[name] = command

    def delete(self, name: str) -> bool:
        return self.values.pop(name, None) is not None


class FakeScheduler:
    """schtasks as policy leaves it: /Create fails when ``refuse``; /Query finds what /Create made."""

    def __init__(self, refuse: bool) -> None:
        self.refuse = refuse
        self.calls: list[tuple[str, ...]] = []
        self.task = False

    def __call__(self, cmd: tuple[str, ...]) -> bool | None:
        self.calls.append(cmd)
        verb = cmd[1]
        if verb == "/Create":
            self.task = not self.refuse
            return not self.refuse
        if verb == "/Delete":
            found, self.task = self.task, False
            return found
        return self.task


def _task_plan(tmp_path: Path) -> login.ServicePlan:
    python = tmp_path / "Zoë Müller" / ".venv" / "Scripts" / "python.exe"
    python.parent.mkdir(parents=True)
    python.with_name("pythonw.exe").write_bytes(b"")
    return login.task_plan(python, tmp_path / "home", "DESKTOP-1\\Zoë Müller")


def test_service_falls_back_to_the_run_key_when_the_task_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, schtasks, run_key = _task_plan(tmp_path), FakeScheduler(refuse=True), FakeRunKey()
    assert plan.fallback is not None
    assert (
        plan.fallback.command
        == f'"{tmp_path / "Zoë Müller" / ".venv" / "Scripts" / "pythonw.exe"}" -P -m {DAEMON_MODULE} --foreground'
    )
    assert manage_service("status", plan, schtasks, run_key) == 1

    assert manage_service("install", plan, schtasks, run_key) == 0
    out = capsys.readouterr().out
    assert run_key.values == {login.TASK_NAME: plan.fallback.command}
    assert f"from the Run key value {login.TASK_NAME!r} ({login.RUN_KEY}) instead" in out
    assert manage_service("status", plan, schtasks, run_key) == 0
    out = capsys.readouterr().out
    assert f"Task Scheduler task {login.TASK_NAME!r}: not installed" in out and "present" in out

    assert manage_service("uninstall", plan, schtasks, run_key) == 0
    assert run_key.values == {} and not plan.path.exists()
    assert f"removed the Run key value {login.TASK_NAME!r}" in capsys.readouterr().out
    assert manage_service("status", plan, schtasks, run_key) == 1


def test_service_install_removes_an_earlier_run_key_value_once_the_task_registers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, schtasks, run_key = _task_plan(tmp_path), FakeScheduler(refuse=False), FakeRunKey()
    assert plan.fallback is not None
    run_key.values[login.TASK_NAME] = plan.fallback.command
    assert manage_service("install", plan, schtasks, run_key) == 0
    assert run_key.values == {} and schtasks.task
    assert schtasks.calls[-1] == ("schtasks", "/Create", "/TN", login.TASK_NAME, "/XML", str(plan.path), "/F")
    assert manage_service("status", plan, schtasks, run_key) == 0
    assert f"Task Scheduler task {login.TASK_NAME!r}: installed" in capsys.readouterr().out
    assert manage_service("uninstall", plan, schtasks, run_key) == 0
    assert not schtasks.task


def test_service_install_fails_with_both_fixes_when_the_run_key_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = _task_plan(tmp_path)
    assert manage_service("install", plan, FakeScheduler(refuse=True), FakeRunKey(refuse=True)) == 1
    err = capsys.readouterr().err
    assert f"The Run key {login.RUN_KEY} refused designd too" in err and "Access is denied" in err
    assert f"schtasks /Create /TN {login.TASK_NAME}" in err


def _facts(
    plan: login.ServicePlan,
    query: bool | None,
    run_key: FakeRunKey | None = None,
    apps: tuple[Path, ...] = (),
    socket_limit: int = 103,
) -> PlatformFacts:
    return PlatformFacts(plan, lambda cmd: query, run_key, apps, socket_limit)


def _checks(facts: PlatformFacts, env: TestEnv, **extra: str) -> dict[str, tuple[str, str]]:
    config = load_config({**env.env, **extra})
    checks = {what: (status, fix) for status, what, fix in platform_checks(config, facts)}
    assert not [what for what, (status, fix) in checks.items() if status == "ok" and fix], "an ok check with a fix"
    return checks


def test_doctor_on_macos_names_the_agent_socket_path_and_app(dc_env: TestEnv, tmp_path: Path) -> None:
    plan = login.launchd_plan("/usr/local/bin/designd", tmp_path / "user", tmp_path / "logs", 501)
    query = f"launchctl print gui/501/{login.SERVICE_LABEL}"
    app = tmp_path / "Applications" / "Figma.app"
    checks = _checks(_facts(plan, True, apps=(app,)), dc_env, DESIGN_IPC="ipc")
    assert checks[f"the launchd agent {login.SERVICE_LABEL} starts designd at login (`{query}` finds it)"][0] == "ok"
    socket = dc_env.config.control_socket
    size = len(os.fsencode(socket))
    assert checks[f"control socket path is {size} bytes, within this system's 103"] == ("ok", "")
    assert checks[f"the design tool's desktop app is not in {app}"][0] == "warn"

    plan.path.parent.mkdir(parents=True)
    plan.path.write_bytes(plan.content)
    app.mkdir(parents=True)
    checks = _checks(_facts(plan, False, apps=(app,), socket_limit=size - 1), dc_env, DESIGN_IPC="ipc")
    status, fix = checks[f"{plan.path} is written, but the service manager (launchctl) does not have it"]
    assert status == "warn" and f"launchctl bootstrap gui/501 '{plan.path}'" in fix
    status, fix = checks[f"The control socket path {socket} is {size} bytes; this system takes at most {size - 1}."]
    assert status == "fail" and "DESIGN_RUNTIME_DIR" in fix
    assert checks[f"the design tool's desktop app is installed ({app})"] == ("ok", "")


def test_doctor_on_windows_names_the_run_key_and_private_keys(dc_env: TestEnv, tmp_path: Path) -> None:
    plan, run_key = _task_plan(tmp_path), FakeRunKey()
    assert plan.fallback is not None
    config = load_config({**dc_env.env, "DESIGN_IPC": "tcp"})
    ensure_private_dir(config.home)
    for key in (config.server_key_file, config.client_key_file):
        key.write_bytes(b"k")
        key.chmod(0o600)
    checks = _checks(_facts(plan, False, run_key), dc_env, DESIGN_IPC="tcp")
    nothing = checks["nothing starts designd at login: AI apps start it on demand (`designctl service install` would)"]
    assert nothing == ("ok", "")
    assert [w for w in checks if w.startswith("control key") and checks[w][0] == "ok"] == [
        f"control key {config.server_key_file} is private (owner uid {os.getuid()}, mode 600)",
        f"control key {config.client_key_file} is private (owner uid {os.getuid()}, mode 600)",
    ]
    assert not any(w.startswith("control socket") for w in checks)

    run_key.values[login.TASK_NAME] = plan.fallback.command
    config.client_key_file.chmod(0o644)
    checks = _checks(_facts(plan, None, run_key), dc_env, DESIGN_IPC="tcp")
    assert checks[f"designd starts at login from the Run key value {login.TASK_NAME!r} ({login.RUN_KEY})"][0] == "ok"
    status, fix = checks[f"control key {config.client_key_file} is not yours alone (owner uid {os.getuid()}, mode 644)"]
    assert status == "fail" and "designctl restart" in fix
