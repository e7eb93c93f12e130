"""``designctl config <app>``: the config each AI app needs, with this installation's absolute command, started as
printed; and the token scopes it names cover every design API call the tools make."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mcp import Client, StdioServerParameters
from procs import BIN, DaemonProcess, TestEnv

from design_console.config import DEFAULT_OAUTH_SCOPES
from design_console.runtime.client_configs import (
    APPS,
    STDIO_COMMAND,
    TOKEN_PLACEHOLDER,
    TOKEN_SCOPES,
    app_config,
    entry_point_path,
    first_steps,
)

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "node_modules" / "@figma" / "rest-api-spec" / "openapi" / "openapi.yaml"
WAIT = 30.0


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    return path


def test_the_command_is_found_beside_the_interpreter_on_posix(tmp_path: Path) -> None:
    python = _touch(tmp_path / "venv" / "bin" / "python")
    script = _touch(tmp_path / "venv" / "bin" / "design-console-mcp")
    assert entry_point_path(STDIO_COMMAND, str(python), windows=False) == str(script)


def test_the_command_is_the_exe_in_a_windows_venvs_scripts(tmp_path: Path) -> None:
    python = _touch(tmp_path / "venv" / "Scripts" / "python.exe")
    script = _touch(tmp_path / "venv" / "Scripts" / "design-console-mcp.exe")
    _touch(tmp_path / "venv" / "Scripts" / "design-console-mcp")
    assert entry_point_path(STDIO_COMMAND, str(python), windows=True) == str(script)


def test_the_command_is_in_scripts_below_a_windows_system_python(tmp_path: Path) -> None:
    python = _touch(tmp_path / "Python311" / "python.exe")
    script = _touch(tmp_path / "Python311" / "Scripts" / "design-console-mcp.exe")
    assert entry_point_path(STDIO_COMMAND, str(python), windows=True) == str(script)


#: An installation whose path has spaces, as a clone in "~/My Projects" has.
SPACED = ("My Projects", "design console")
#: What ``designctl guide`` asks the user to run, in the order it asks.
GUIDE_COMMANDS = [["start"], ["config", "claude-code"], ["doctor"]]


def test_the_guides_commands_paste_into_a_shell_where_the_installation_path_has_spaces(tmp_path: Path) -> None:
    """``designctl guide`` (which ``scripts/serve`` prints) run by an installation in a folder with spaces: each
    command in backticks is one shell word for the program and one for each argument."""
    folder = tmp_path.joinpath(*SPACED, ".venv", "bin")
    python = _touch(folder / "python")
    designctl = _touch(folder / "designctl")
    _touch(folder / STDIO_COMMAND)
    # The guide names the scripts beside the interpreter that runs it: this one, named as the spaced installation's.
    code = "import sys; sys.executable = sys.argv[1]; from design_console.cli import main; main(['guide'])"
    done = subprocess.run(
        [sys.executable, "-c", code, str(python)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    commands = re.findall(r"`([^`]+)`", done.stdout)
    assert [shlex.split(command) for command in commands] == [[str(designctl), *words] for words in GUIDE_COMMANDS]
    # The JSON to paste names the server's command as one string, as before.
    config = json.loads(done.stdout[done.stdout.index("{") : done.stdout.rindex("}") + 1])
    assert config["mcpServers"]["design-console"]["command"] == str(folder / STDIO_COMMAND)


def test_the_guides_commands_are_quoted_for_windows_shells_there(tmp_path: Path) -> None:
    folder = tmp_path.joinpath(*SPACED, ".venv", "Scripts")
    python = _touch(folder / "python.exe")
    designctl = _touch(folder / "designctl.exe")
    _touch(folder / f"{STDIO_COMMAND}.exe")
    text = first_steps(tmp_path / "manifest.json", str(python), windows=True)
    commands = re.findall(r"`([^`]+)`", text)
    assert commands == [f'"{designctl}" {" ".join(words)}' for words in GUIDE_COMMANDS]


def _designctl_config(env: TestEnv, app: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "designctl"), "config", app], env=env.env, capture_output=True, text=True, timeout=60, check=False
    )


def _server_of(app: str, text: str) -> tuple[str, dict[str, str]]:
    """The command and environment the app would start, read from the printed config as the app reads it."""
    if app == "claude-code":
        words = shlex.split(text)
        assert words[:4] == ["claude", "mcp", "add", "design-console"] and words[4] == "--env", words
        name, _, value = words[5].partition("=")
        assert words[6] == "--" and len(words) == 8, words
        return words[7], {name: value}
    config = json.loads(text)
    entry = config["servers" if app == "vscode" else "mcpServers"]["design-console"]
    if app == "vscode":
        assert entry["type"] == "stdio"
    assert set(entry) <= {"type", "command", "env"}, entry
    return entry["command"], entry["env"]


async def test_each_apps_config_starts_this_installation(daemon: DaemonProcess) -> None:
    for app in APPS:
        done = await asyncio.to_thread(_designctl_config, daemon.env, app)
        assert done.returncode == 0, done.stderr
        command, env = _server_of(app, done.stdout)
        assert command == str(BIN / "design-console-mcp") and Path(command).is_absolute()
        assert env == {"DESIGN_ACCESS_TOKEN": TOKEN_PLACEHOLDER}
        assert all(scope in done.stderr for scope in TOKEN_SCOPES), done.stderr
        # Started as the app starts it: the printed command and environment (the test installation's own paths
        # stand in for the user's home), no arguments.
        params = StdioServerParameters(command=command, env={**daemon.env.env, **env})
        async with Client(params, mode="legacy") as client:
            tools = await asyncio.wait_for(client.list_tools(), WAIT)
        assert any(tool.name == "design_get_status" for tool in tools.tools), app


def test_an_unknown_app_is_refused_with_the_known_ones(dc_env: TestEnv) -> None:
    done = _designctl_config(dc_env, "notepad")
    assert done.returncode == 2 and "claude-desktop" in done.stderr and "vscode" in done.stderr


def _api_calls(sources: list[Path]) -> set[tuple[str, str]]:
    """The design API operations (path shape, method) the code in ``sources`` makes."""
    paths = set()
    for source in sources:
        for found in re.findall(r"f?\"(/v1/[a-z_/]+(?:\{[^}\"]*\}[a-z_/]*)*)", source.read_text()):
            paths.add(re.sub(r"\{[^}]*\}", "{}", found).rstrip("/"))
    # Writes the tools make; every other call reads.
    return {(path, "get") for path in paths} | {
        ("/v1/files/{}/comments", "post"),
        ("/v1/files/{}/comments/{}", "delete"),
    }


def _uncovered(operations: set[tuple[str, str]], granted: set[str]) -> tuple[list[str], int]:
    spec = yaml.safe_load(SPEC.read_text())
    by_shape = {re.sub(r"\{[^}]*\}", "{}", path): ops for path, ops in spec["paths"].items()}
    missing, checked = [], 0
    for path, method in sorted(operations):
        operation = by_shape.get(path, {}).get(method)
        if operation is None:
            continue
        scopes = {s for need in operation.get("security", []) for s in need.get("OAuth2", [])} - {"files:read"}
        if not scopes & granted:
            missing.append(f"{method.upper()} {path} needs one of {sorted(scopes)}")
        checked += 1
    return missing, checked


def test_the_token_scopes_cover_every_design_api_call() -> None:
    """The scopes designctl asks a personal token for cover every call of Local Mode; Remote Mode's default OAuth
    scopes cover its own calls too (who signed in, for status)."""
    if not SPEC.is_file():
        pytest.fail("npm packages are missing: run `npm ci` in the repo root")
    sources = list((ROOT / "design_console").rglob("*.py"))
    remote = ROOT / "design_console" / "remote"
    local_calls = _api_calls([source for source in sources if remote not in source.parents])
    missing, checked = _uncovered(local_calls, set(TOKEN_SCOPES))
    assert not missing and checked >= 12, (missing, sorted(local_calls))
    missing, _ = _uncovered(_api_calls(sources), set(DEFAULT_OAUTH_SCOPES.split()))
    assert not missing, missing


def test_the_readmes_configs_are_what_designctl_config_prints() -> None:
    readme = (ROOT / "README.md").read_text()
    install = readme[readme.index("## Install") : readme.index("### Import the plugin")]
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", install, re.S)]
    clone_command = "/path/to/design-console-mcp/.venv/bin/design-console-mcp"
    uvx = [b for b in blocks if b.get("mcpServers", {}).get("design-console", {}).get("command") == "uvx"]
    assert len(uvx) == 1 and uvx[0]["mcpServers"]["design-console"] == {
        "command": "uvx",
        "args": [json.loads((ROOT / "server.json").read_text())["packages"][0]["identifier"]],
        "env": {"DESIGN_ACCESS_TOKEN": TOKEN_PLACEHOLDER},
    }
    windows_command = "C:\\Users\\you\\design-console-mcp\\.venv\\Scripts\\design-console-mcp.exe"
    clone = [b for b in blocks if b not in uvx]
    assert len(clone) == 3, clone
    for block in clone:
        app = "vscode" if "servers" in block else "claude-desktop"
        command = windows_command if ".exe" in json.dumps(block) else clone_command
        assert block == json.loads(app_config(app, command)), app
    assert f"`{'`, `'.join(TOKEN_SCOPES[:-1])}` and `{TOKEN_SCOPES[-1]}`" in re.sub(r"\s+", " ", install)
