"""Every entry point answers ``--help`` and ``--version`` and exits, starting nothing and reading no setting."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from procs import TestEnv, isolated, make_env, processes_of, wait_for

from design_console import __version__

BIN = Path(sys.executable).parent
#: Each entry point's command line and the name its usage and version give.
ENTRY_POINTS = {
    "design-console-mcp": [str(BIN / "design-console-mcp")],
    "designd": [str(BIN / "designd")],
    "designctl": [str(BIN / "designctl")],
    "design-console-remote": [str(BIN / "design-console-remote")],
    "python -m design_console": [sys.executable, "-m", "design_console"],
}


@pytest.fixture
def env() -> Iterator[TestEnv]:
    # A setting that stops every process reading it: answering --help must not read settings at all.
    yield from isolated(make_env(DESIGN_WS_PORT="not a port", DESIGN_REMOTE_BASE_URL=""))


@pytest.mark.parametrize("prog", ENTRY_POINTS)
@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_print_and_exit(prog: str, flag: str, env: TestEnv) -> None:
    done = subprocess.run(
        [*ENTRY_POINTS[prog], flag],
        env=env.env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    if flag == "--version":
        assert done.stdout.strip() == f"{prog} {__version__}"
    else:
        assert done.stdout.startswith(f"usage: {prog}"), done.stdout
        assert "--version" in done.stdout
    assert done.stderr == ""
    assert processes_of(env) == []
    assert list((env.root / "home").iterdir()) == []
    assert not Path(env.env["DESIGN_RUNTIME_DIR"]).exists()


#: The stdio server's two commands: neither takes an argument but --help and --version.
STDIO_SERVERS = ["design-console-mcp", "python -m design_console"]


@pytest.mark.parametrize("prog", STDIO_SERVERS)
@pytest.mark.parametrize("args", [["--bogus"], ["extra", "words"], ["--stdio"]], ids=" ".join)
def test_the_stdio_server_refuses_an_unknown_argument_with_its_usage(prog: str, args: list[str], env: TestEnv) -> None:
    done = subprocess.run(
        [*ENTRY_POINTS[prog], *args],
        env=env.env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    usage, _, error = done.stderr.partition("\n")
    assert usage == f"usage: {prog} [-h] [--version]", done.stderr
    assert error.strip() == f"{prog}: error: unrecognized arguments: {' '.join(args)}"
    assert processes_of(env) == []
    assert list((env.root / "home").iterdir()) == []


async def test_python_dash_m_runs_the_stdio_server(dc_env: TestEnv) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "design_console"], env=dict(dc_env.env))
    try:
        async with Client(params, mode="legacy") as client:
            tools = await asyncio.wait_for(client.list_tools(), 30)
        assert any(tool.name == "design_get_status" for tool in tools.tools)
    finally:
        subprocess.run([str(BIN / "designctl"), "stop"], env=dc_env.env, capture_output=True, timeout=60, check=False)
    wait_for(lambda: not processes_of(dc_env), 30, "designd to stop")
