"""The MCP conformance suite against the running server: its server scenarios against ``/mcp`` (OAuth off: the suite
sends no credentials) and its authorization-server scenarios against our OAuth issuer, with a baseline of what this
server deliberately does not do (see ``conformance/baseline.yml``)."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
import time
from pathlib import Path

import httpx
import yaml
from fakes.api_server import ApiServer
from fakes.design_api import PERSONAL_TOKEN
from fakes.remote import consent_to_redirect, fake_platform, oauth_env, register, remote_env, running_remote
from helpers import free_port_range

SUITE = Path(__file__).parent / "conformance"
BINARIES = SUITE / "node_modules" / ".bin"
BASELINE = SUITE / "baseline.yml"
#: How long the suite may take to print the authorization URL it wants a browser to open, and then to finish.
STEP_TIMEOUT = 60.0
#: The folder the suite saves an authorization scenario's checks in.
SAVED = re.compile(r"authorization-server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z")


def _suite(*args: str) -> list[str]:
    assert (BINARIES / "conformance").exists(), "run scripts/setup --test (it installs the suite with npm ci)"
    return [str(BINARIES / "conformance"), *args]


def _env() -> dict[str, str]:
    # The suite needs Node 22, which its folder brings; the machine's node may be older.
    return {**os.environ, "PATH": f"{BINARIES}{os.pathsep}{os.environ['PATH']}"}


def test_server_scenarios_pass(fake_api_server: ApiServer, tmp_path: Path) -> None:
    with running_remote(remote_env(tmp_path, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)) as server:
        done = subprocess.run(
            _suite(
                "server",
                "--url",
                f"{server.url}/mcp",
                "--expected-failures",
                str(BASELINE),
                "--output-dir",
                str(tmp_path / "results"),
            ),
            env=_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Baseline check passed" in done.stdout


def test_authorization_scenarios_pass(fake_api_server: ApiServer, tmp_path: Path) -> None:
    """Every authorization-server scenario against our issuer. The code grant needs a registered client and a user
    who approves it: the test registers the client through our registration endpoint with the suite's callback as
    its redirect URI, and plays the user's browser (our consent page, the fake design platform) for the
    authorization URL the suite prints; the suite itself exchanges the code it receives."""
    with fake_platform() as platform:
        env = remote_env(tmp_path, fake_api_server.url, **oauth_env(platform))
        with running_remote(env) as server:
            port = free_port_range(1)
            callback = f"http://127.0.0.1:{port}/callback"
            settings = {
                "url": server.public,
                "clientId": register(server, callback),
                "resource": f"{server.public}/mcp",
            }
            (tmp_path / "settings.json").write_text(json.dumps(settings))
            results = tmp_path / "results"
            # The port goes on the command line: the option's default would override a port in the file.
            command = ["authorization", "--file", str(tmp_path / "settings.json"), "--port", str(port)]
            proc = subprocess.Popen(
                _suite(*command, "--output-dir", str(results)),
                env=_env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            lines: queue.Queue[str | None] = queue.Queue()
            reader = threading.Thread(target=_read_lines, args=(proc, lines), daemon=True)
            reader.start()
            output: list[str] = []
            try:
                authorize_url = _await_line(lines, output, f"{server.public}/authorize?")
                back = consent_to_redirect(server, authorize_url, "allow", callback)
                # The suite listens for the callback only once it said so (after printing the URL).
                _await_line(lines, output, "Callback server started")
                assert httpx.get(back, timeout=STEP_TIMEOUT).status_code == 200
                proc.wait(STEP_TIMEOUT)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(10)
            reader.join(STEP_TIMEOUT)
            output.extend(line for line in iter(lines.get_nowait, None))
    report = "".join(output)[-6000:]
    outcome = _outcome(results)
    expected = set(yaml.safe_load(BASELINE.read_text())["authorization"])
    scenarios = {key.split(":")[0] for key in outcome}
    assert {"authorization-server-metadata-endpoint", "authorization-code-grant"} <= scenarios, report
    not_passing = {key for key, status in outcome.items() if status != "SUCCESS"}
    assert not_passing == expected, f"not passing {sorted(not_passing)}, baseline {sorted(expected)}\n{report}"
    assert proc.returncode == 0, report


def _read_lines(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.put(line)
    lines.put(None)


def _await_line(lines: queue.Queue[str | None], output: list[str], prefix: str) -> str:
    """The first line of the suite's output that starts with ``prefix``, stripped."""
    deadline = time.monotonic() + STEP_TIMEOUT
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            line = None
        if line is None:
            raise AssertionError(f"the suite did not print {prefix!r}:\n" + "".join(output))
        output.append(line)
        if line.startswith(prefix):
            return line.strip()


def _outcome(results: Path) -> dict[str, str]:
    """``scenario:check`` -> status, from the checks each scenario saved (its folder is :data:`SAVED`)."""
    outcome: dict[str, str] = {}
    for folder in results.iterdir():
        scenario = SAVED.fullmatch(folder.name)
        assert scenario, folder.name
        for check in json.loads((folder / "checks.json").read_text()):
            outcome[f"{scenario[1]}:{check['id']}"] = check["status"]
    return outcome
