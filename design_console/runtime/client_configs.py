"""The config each AI app needs to start this installation's stdio server, as ``designctl config <app>`` prints it.

The command is the absolute path of this installation's ``design-console-mcp``: a clone's ``.venv/bin``, pipx's or
uv's ``~/.local/bin``, or a Windows ``Scripts`` folder (``.exe``). An AI app starts its servers without a login
shell, so a bare command name often is not found there.
"""

from __future__ import annotations

import json
import shutil
import sys
import sysconfig
from pathlib import Path

from design_console.runtime.platform.system import WINDOWS, command_line

#: The name AI apps list the server under.
SERVER_NAME = "design-console"
STDIO_COMMAND = "design-console-mcp"
#: What the configs put where the user's design API token goes; the bridge tools work without one.
TOKEN_PLACEHOLDER = "<your personal access token>"
#: The scopes a personal access token needs for every design API call the tools make (read-only but for comments).
TOKEN_SCOPES = (
    "file_content:read",
    "file_metadata:read",
    "file_comments:read",
    "file_comments:write",
    "file_versions:read",
    "file_variables:read",
    "library_content:read",
    "library_assets:read",
)
#: Each app ``designctl config`` knows, and what to do with its text.
APPS: dict[str, str] = {
    "claude-desktop": "Merge this into claude_desktop_config.json (Settings > Developer > Edit Config opens it): "
    "~/Library/Application Support/Claude/ on macOS, %APPDATA%\\Claude\\ on Windows, ~/.config/Claude/ on Linux; "
    "then restart Claude Desktop.",
    "claude-code": "Run this in a terminal (add --scope user to have it in every project).",
    "cursor": "Merge this into ~/.cursor/mcp.json, or .cursor/mcp.json in a project.",
    "vscode": "Merge this into .vscode/mcp.json in a workspace, or into the file that the command MCP: Open User "
    "Configuration opens.",
}


def entry_point_path(name: str, executable: str = sys.executable, windows: bool = WINDOWS) -> str:
    """The absolute path of this installation's console script ``name``.

    Looked for beside the interpreter running this code (a venv's ``bin`` or ``Scripts``), then in the interpreter's
    scripts folder (a Windows system Python keeps python.exe and Scripts apart), then on PATH.
    """
    filename = f"{name}.exe" if windows else name
    interpreter = Path(executable).parent
    for folder in (interpreter, interpreter / "Scripts", Path(sysconfig.get_path("scripts"))):
        if (folder / filename).is_file():
            return str(folder / filename)
    return shutil.which(name) or str(interpreter / filename)


def app_config(app: str, command: str) -> str:
    """The text to paste for ``app`` (one of :data:`APPS`) that starts ``command``."""
    env = {"DESIGN_ACCESS_TOKEN": TOKEN_PLACEHOLDER}
    if app == "claude-code":
        words = ["claude", "mcp", "add", SERVER_NAME, "--env", f"DESIGN_ACCESS_TOKEN={TOKEN_PLACEHOLDER}", "--"]
        words.append(command)
        return command_line(words)
    if app == "vscode":
        block: dict[str, object] = {"servers": {SERVER_NAME: {"type": "stdio", "command": command, "env": env}}}
    elif app in APPS:
        block = {"mcpServers": {SERVER_NAME: {"command": command, "env": env}}}
    else:
        raise ValueError(f"unknown app {app!r}")
    return json.dumps(block, indent=2)


def config_notes(app: str) -> str:
    """Where the text of :func:`app_config` goes, and what to put for the token."""
    return (
        f"{APPS[app]}\n"
        f"Replace {TOKEN_PLACEHOLDER} with a design API personal access token with the scopes "
        f"{', '.join(TOKEN_SCOPES)}, or leave DESIGN_ACCESS_TOKEN out: the bridge tools work without it."
    )


def first_steps(plugin_manifest: Path, executable: str = sys.executable, windows: bool = WINDOWS) -> str:
    """What to do once installed: import the plugin, add the server to an AI app, create a token; with this
    installation's own paths, since a clone's commands are not on PATH.

    Each command is quoted for this OS's shell, so it pastes into a terminal as printed even where the
    installation's path has spaces. The manifest's path is not: it is picked in a file dialog, which takes it as is.
    """
    designctl = entry_point_path("designctl", executable, windows)

    def ctl(*words: str) -> str:
        return command_line([designctl, *words], windows)

    config = "\n".join(
        "     " + line
        for line in app_config("claude-desktop", entry_point_path(STDIO_COMMAND, executable, windows)).splitlines()
    )
    return (
        "Next steps:\n"
        "  1. Import the Desktop Bridge plugin once. In the design tool's desktop app: Plugins > Development >\n"
        "     Import plugin from manifest…, and pick\n"
        f"       {plugin_manifest}\n"
        "     (designd writes it when it starts: when your AI app first starts the server, or with\n"
        f"     `{ctl('start')}`). Then run Plugins > Development > Design Desktop Bridge.\n"
        "  2. Add the server to your AI app. For Claude Desktop, merge this into claude_desktop_config.json:\n"
        f"{config}\n"
        f"     `{ctl('config', 'claude-code')}` (or cursor, vscode) prints the others.\n"
        "  3. For file data, comments and version history through the design API, create a personal access token\n"
        "     with these scopes and put it in place of the placeholder (the bridge tools work without it):\n"
        f"       {' '.join(TOKEN_SCOPES[:4])}\n"
        f"       {' '.join(TOKEN_SCOPES[4:])}\n"
        f"Check everything with `{ctl('doctor')}`."
    )
