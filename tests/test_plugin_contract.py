"""design_console/plugin_contract.py against everything that must agree with it: the plugin's handler table and
shared constants, the HELLO the shipped plugin UI sends, the execute tools' schemas, and designd's own call sites."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

import msgspec
import pytest

import design_console
from design_console import plugin_contract
from design_console.plugin_contract import (
    BRIDGE_PROTOCOL,
    EXECUTE_DEFAULT_MS,
    EXECUTE_MAX_MS,
    MAX_CODE_CHARS,
    Method,
    command_timeout,
)
from design_console.tools import catalog

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_SRC = ROOT / "plugin" / "src"
#: The constants the plugin shares with designd, by the same names on both sides.
SHARED_CONSTANTS = ("BRIDGE_PROTOCOL", "EXECUTE_DEFAULT_MS", "EXECUTE_MAX_MS", "MAX_CODE_CHARS")


def plugin_handlers(main_js: str) -> set[str]:
    """The keys of the `handlers` table in plugin/src/code/main.js; fails on a line it cannot read."""
    found = re.search(r"^const handlers = \{\n(.*?)^\};", main_js, re.M | re.S)
    assert found, "main.js has no `const handlers = { … };` table"
    names: set[str] = set()
    for line in found.group(1).splitlines():
        entry = re.fullmatch(r"\s*([A-Z][A-Z0-9_]*): [\w.]+,", line)
        assert entry or not line.strip(), f"main.js handler table: cannot read {line.strip()!r}"
        if entry:
            names.add(entry.group(1))
    return names


def js_constants(text: str) -> dict[str, int]:
    """`export const NAME = <integer>;` lines of a plugin module."""
    return {name: int(value) for name, value in re.findall(r"^export const ([A-Z_]+) = (\d+);$", text, re.M)}


# --- the plugin ----------------------------------------------------------------------------------------------------


def test_methods_are_the_plugins_handlers_and_cancel() -> None:
    handlers = plugin_handlers((PLUGIN_SRC / "code" / "main.js").read_text())
    dispatch = (PLUGIN_SRC / "code" / "dispatch.js").read_text()
    assert 'method === "CANCEL"' in dispatch, "the plugin's dispatcher no longer answers CANCEL itself"
    ours = {m.value for m in Method}
    assert ours - handlers == {"CANCEL"}, f"in plugin_contract.Method, not in main.js: {sorted(ours - handlers)}"
    assert not handlers - ours, f"handled by the plugin, missing from plugin_contract.Method: {sorted(handlers - ours)}"


def test_the_plugin_shares_the_contracts_constants() -> None:
    shared = js_constants((PLUGIN_SRC / "shared" / "contract.js").read_text())
    assert shared == {name: getattr(plugin_contract, name) for name in SHARED_CONSTANTS}
    # Those values are used, not copied: no other plugin source defines one of these names.
    for path in PLUGIN_SRC.rglob("*.js"):
        if path.parent.name != "shared":
            for name in SHARED_CONSTANTS:
                assert not re.search(rf"\b(const|let|var) {name}\b", path.read_text()), f"{path} defines {name}"
    execute = (PLUGIN_SRC / "code" / "methods" / "execute.js").read_text()
    imported = re.search(r'^import \{([^}]*)\} from "\.\./\.\./shared/contract\.js";$', execute, re.M)
    assert imported, "execute.js does not import its limits from plugin/src/shared/contract.js"
    assert {n.strip() for n in imported.group(1).split(",")} >= {
        "EXECUTE_DEFAULT_MS",
        "EXECUTE_MAX_MS",
        "MAX_CODE_CHARS",
    }


def test_the_plugin_ui_says_hello_with_the_contracts_protocol() -> None:
    """The shipped ui.html, run in jsdom with a token filled in, sends HELLO with BRIDGE_PROTOCOL."""
    node = shutil.which("node")
    assert node, "Node.js 20 is needed for the plugin tests (apt-get install nodejs)"
    assert (ROOT / "node_modules" / "jsdom").is_dir(), "npm packages are missing: run `npm ci` in the repo root"
    proc = subprocess.run(
        [node, "tests/plugin/harness/ui-hello.mjs"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    hello = json.loads(proc.stdout)
    assert hello["token"] == "probe-token"
    assert hello["protocol"] == BRIDGE_PROTOCOL


@pytest.mark.parametrize("name", ["design_execute", "design_execute_across_files"])
def test_the_execute_tools_take_what_the_plugin_takes(name: str) -> None:
    """Their schemas refuse code and timeouts the plugin would refuse or cut, and default to the plugin's default."""
    schema = msgspec.json.schema(catalog()[name].args)
    props = schema["$defs"][schema["$ref"].rsplit("/", 1)[1]]["properties"]
    assert props["code"]["maxLength"] == MAX_CODE_CHARS
    assert props["timeout"]["maximum"] == EXECUTE_MAX_MS
    if name == "design_execute":
        assert props["timeout"]["default"] == EXECUTE_DEFAULT_MS


# --- timeouts --------------------------------------------------------------------------------------------------


def test_every_method_has_its_timeout_and_command_timeout_reads_the_table() -> None:
    for method in Method:
        assert method.value == method.name
        assert method.timeout > 0
        assert command_timeout(method, None) == method.timeout
        assert command_timeout(method.value, {}) == method.timeout
    assert command_timeout("A_NEWER_PLUGINS_METHOD", None) == plugin_contract.DEFAULT_TIMEOUT


# --- designd's call sites ----------------------------------------------------------------------------------------


def test_designd_sends_only_methods_of_the_contract() -> None:
    """Every method named by a string literal in a ``….bridge(…)`` or ``….command(…)`` call is in the table."""
    package = Path(design_console.__file__).parent
    unknown: list[str] = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("bridge", "command")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                name = node.args[0].value
                if name not in Method.__members__:
                    unknown.append(f"{path.relative_to(package.parent)}:{node.lineno}: {name}")
    assert unknown == []
