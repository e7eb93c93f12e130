"""The shim stays a pipe: it must not pull in the MCP SDK, asyncio or psutil at start-up (time and memory budgets),
nor what only other processes or later moments need (each named module below costs milliseconds on every start).

ZeroMQ and msgspec are the things it needs: designd's control socket (``runtime/transport.py``) and its frames.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

#: Modules the shim's start-up must not load, and why.
NOT_AT_START = {
    "mcp": "the MCP SDK is designd's",
    "mcp_types": "the MCP SDK is designd's",
    "pydantic": "the MCP SDK is designd's",
    "asyncio": "the shim has one poll loop and no event loop",
    "psutil": "loaded by the parent watcher after start-up",
    "typing_extensions": "msgspec is loaded without it (design_console/shim/__init__.py)",
    "inspect": "typing_extensions' load, which the shim avoids",
    "subprocess": "only Windows' private-dir ACLs and designctl's command lines run programs",
    "tempfile": "only file writes (designd) and the port adverts' folder need it",
    "socket": "a piped stdin is polled directly; only a fed one (Windows, a file, a terminal) needs a socket pair",
    "argparse": "only --help and --version",
}


def _loaded_by_shim(probe_tail: str = "") -> dict[str, list[str]]:
    probe = (
        "import json, sys\n"
        "import design_console.shim.main\n"
        "design_console.shim.main.Shim()\n"
        f"names = {sorted(NOT_AT_START)!r}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in names)\n" + probe_tail + "\n"
        "print(json.dumps({'loaded': loaded, 'after': sorted(globals().get('after', []))}))\n"
    )
    # As an AI app starts it: stdin a pipe, and (on Linux, Windows) no TMPDIR.
    env = {key: value for key, value in os.environ.items() if key != "TMPDIR"}
    out = subprocess.run([sys.executable, "-c", probe], input="", capture_output=True, check=True, text=True, env=env)
    result: dict[str, list[str]] = json.loads(out.stdout)
    return result


def test_shim_start_loads_none_of_the_modules_it_does_not_need() -> None:
    loaded = _loaded_by_shim()["loaded"]
    assert not loaded, {name: NOT_AT_START[name.split(".")[0]] for name in loaded}


def test_typing_extensions_stays_importable_after_the_shim_loaded_msgspec() -> None:
    tail = "import typing_extensions\nafter = [typing_extensions.__name__]"
    assert _loaded_by_shim(tail)["after"] == ["typing_extensions"]
