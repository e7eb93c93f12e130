"""The MCP conformance suite's server scenarios against ``/mcp`` (OAuth off: the suite sends no credentials), with a
baseline of the scenarios that need features this server does not have (see ``conformance/baseline.yml``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from fakes.api_server import ApiServer
from fakes.design_api import PERSONAL_TOKEN
from fakes.remote import remote_env, running_remote

SUITE = Path(__file__).parent / "conformance"


def test_server_scenarios_pass(fake_api_server: ApiServer, tmp_path: Path) -> None:
    binaries = SUITE / "node_modules" / ".bin"
    assert (binaries / "conformance").exists(), "run scripts/setup --test (it installs the suite with npm ci)"
    with running_remote(remote_env(tmp_path, fake_api_server.url, DESIGN_ACCESS_TOKEN=PERSONAL_TOKEN)) as server:
        done = subprocess.run(
            [
                str(binaries / "conformance"),
                "server",
                "--url",
                f"{server.url}/mcp",
                "--expected-failures",
                str(SUITE / "baseline.yml"),
                "--output-dir",
                str(tmp_path / "results"),
            ],
            # The suite needs Node 22, which its folder brings; the machine's node may be older.
            env={**os.environ, "PATH": f"{binaries}{os.pathsep}{os.environ['PATH']}"},
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Baseline check passed" in done.stdout
