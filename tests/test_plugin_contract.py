"""design_console/plugin_contract.py against everything that must agree with it: the plugin's handler table and
shared constants, the HELLO the shipped plugin UI sends, the protocol documents, and designd's own call sites."""

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
    BATCH_MAX_SECONDS,
    BATCH_MIN_SECONDS,
    BATCH_SECONDS_PER_ITEM,
    BRIDGE_PROTOCOL,
    COMPONENT_SET_MARGIN_SECONDS,
    COMPONENT_SET_MAX_SECONDS,
    COMPONENT_SET_MIN_SECONDS,
    COMPONENT_SET_SECONDS_PER_VARIANT,
    EXECUTE_DEFAULT_MS,
    EXECUTE_MARGIN_SECONDS,
    EXECUTE_MAX_MS,
    MAX_CODE_CHARS,
    TOKEN_IMPORT_MAX_SECONDS,
    TOKEN_IMPORT_MIN_SECONDS,
    TOKEN_IMPORT_SECONDS_PER_CHANGE,
    TOKEN_SETUP_MAX_SECONDS,
    TOKEN_SETUP_MIN_SECONDS,
    TOKEN_SETUP_SECONDS_PER_TOKEN,
    Method,
    bridge_proof,
    command_timeout,
)
from design_console.tools import catalog

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_SRC = ROOT / "plugin" / "src"
DOC = ROOT / "docs" / "bridge-protocol.md"
#: The constants the plugin shares with designd, by the same names on both sides.
SHARED_CONSTANTS = (
    "BRIDGE_PROTOCOL",
    "EXECUTE_DEFAULT_MS",
    "EXECUTE_MAX_MS",
    "MAX_CODE_CHARS",
    "MAX_STICKIES",
    "MAX_ARRANGED",
)


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


def doc_section(text: str, heading: str) -> str:
    """The body of the ``## heading`` (or ``### heading``) section of a Markdown document."""
    found = re.search(rf"^#+ {re.escape(heading)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, f"no section {heading!r}"
    return found.group(1)


def table_rows(section: str) -> list[list[str]]:
    """The body rows of the first Markdown table in ``section``, as stripped cells (``\\|`` stays inside a cell)."""
    rows = [line for line in section.splitlines() if line.startswith("|")]
    cells = [[c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]
    return [row for row in cells[2:] if row]


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
    """The shipped ui.html, run in jsdom with a token filled in, sends HELLO with BRIDGE_PROTOCOL and a proof that
    designd's side of the contract verifies, and never the token itself."""
    node = shutil.which("node")
    assert node, "Node.js 20 is needed for the plugin tests (apt-get install nodejs)"
    assert (ROOT / "node_modules" / "jsdom").is_dir(), "npm packages are missing: run `npm ci` in the repo root"
    proc = subprocess.run(
        [node, "tests/plugin/harness/ui-hello.mjs"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    sent = json.loads(proc.stdout)
    hello = sent["hello"]
    assert "probe-token" not in proc.stdout and "token" not in hello
    assert hello["protocol"] == BRIDGE_PROTOCOL and len(bytes.fromhex(hello["nonce"])) >= 16
    assert hello["proof"] == bridge_proof("probe-token", "plugin", sent["port"], sent["serverNonce"], hello["nonce"])


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


# --- the documents ---------------------------------------------------------------------------------------------


def _expected_timeout_cell(method: Method) -> str:
    if method is Method.EXECUTE_CODE:
        return (
            f"params.timeout + {EXECUTE_MARGIN_SECONDS:g} s "
            f"(default {EXECUTE_DEFAULT_MS} ms, at most {EXECUTE_MAX_MS} ms)"
        )
    if method is Method.CREATE_COMPONENT_SET:
        return (
            f"min({COMPONENT_SET_MAX_SECONDS:g}, max({COMPONENT_SET_MIN_SECONDS:g}, "
            f"{COMPONENT_SET_SECONDS_PER_VARIANT:g} × variants)) + {COMPONENT_SET_MARGIN_SECONDS:g} s"
        )
    if method is Method.SETUP_DESIGN_TOKENS:
        return (
            f"min({TOKEN_SETUP_MAX_SECONDS:g}, {TOKEN_SETUP_MIN_SECONDS:g} + "
            f"{TOKEN_SETUP_SECONDS_PER_TOKEN:g} × tokens) s"
        )
    batches = (
        Method.BATCH_CREATE_VARIABLES,
        Method.BATCH_UPDATE_VARIABLES,
        Method.BATCH_DELETE_VARIABLES,
        Method.BATCH_EDIT_NODES,
    )
    if method in batches:
        return f"min({BATCH_MAX_SECONDS:g}, {BATCH_MIN_SECONDS:g} + {BATCH_SECONDS_PER_ITEM:g} × items) s"
    if method is Method.APPLY_TOKEN_CHANGES:
        return (
            f"min({TOKEN_IMPORT_MAX_SECONDS:g}, {TOKEN_IMPORT_MIN_SECONDS:g} + "
            f"{TOKEN_IMPORT_SECONDS_PER_CHANGE:g} × changes) s"
        )
    return f"{method.timeout:g} s"


def test_the_protocol_document_lists_every_method_with_its_timeout() -> None:
    rows = table_rows(doc_section(DOC.read_text(), "Methods"))
    documented = {row[0].strip("`"): row[2] for row in rows}
    assert len(documented) == len(rows), "a method appears twice in docs/bridge-protocol.md"
    assert set(documented) == {m.value for m in Method}
    for method in Method:
        assert documented[method.value] == _expected_timeout_cell(method), method


def test_the_protocol_document_states_the_contracts_constants() -> None:
    text = DOC.read_text()
    rows = table_rows(doc_section(text, "Contract constants"))
    stated = {row[0].strip("`"): row[1] for row in rows}
    for name, value in stated.items():
        assert f"{getattr(plugin_contract, name):g}" == value, name
    assert set(stated) >= {*SHARED_CONSTANTS, "EXECUTE_MARGIN_SECONDS", "DEFAULT_TIMEOUT"}
    hello = re.search(r'\{"type": "HELLO", "data": \{[^}]*"protocol": (\d+)\}\}', text)
    server_hello = re.search(r'\{"type": "SERVER_HELLO", "data": \{[^}]*"protocol": (\d+),', text)
    assert hello and server_hello and int(hello.group(1)) == int(server_hello.group(1)) == BRIDGE_PROTOCOL


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


def test_token_setup_waits_longer_for_more_tokens() -> None:
    assert command_timeout(Method.SETUP_DESIGN_TOKENS, {"tokens": [{}] * 300}) == 30 + 0.2 * 300
    assert command_timeout(Method.SETUP_DESIGN_TOKENS, {"tokens": [{}] * 5000}) == 300
    assert command_timeout(Method.SETUP_DESIGN_TOKENS, {}) == Method.SETUP_DESIGN_TOKENS.timeout


def test_token_import_waits_longer_for_more_changes() -> None:
    params = {"collections": [{}] * 2, "variables": [{}] * 5000, "values": [{}] * 20000, "deletes": []}
    assert command_timeout(Method.APPLY_TOKEN_CHANGES, params) == 30 + 0.02 * 25002
    assert command_timeout(Method.APPLY_TOKEN_CHANGES, {"values": [{}] * 100000}) == 900
    assert command_timeout(Method.APPLY_TOKEN_CHANGES, {}) == Method.APPLY_TOKEN_CHANGES.timeout


def test_variable_batches_wait_longer_for_more_items() -> None:
    assert command_timeout(Method.BATCH_UPDATE_VARIABLES, {"updates": [{}] * 2000}) == 30 + 0.02 * 2000
    assert command_timeout(Method.BATCH_CREATE_VARIABLES, {"variables": [{}] * 100}) == 30 + 0.02 * 100
    assert command_timeout(Method.BATCH_DELETE_VARIABLES, {"variableIds": ["x"] * 50000}) == 300
    assert command_timeout(Method.BATCH_DELETE_VARIABLES, {}) == Method.BATCH_DELETE_VARIABLES.timeout
    assert command_timeout(Method.BATCH_EDIT_NODES, {"edits": [{}] * 2000}) == 30 + 0.02 * 2000
