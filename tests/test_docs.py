"""The README and docs/ say what the code does: the tools reference is what its generator writes from the registry
now, and every figure of the tool count is the registry's."""

from __future__ import annotations

import difflib
import importlib.util
import re
from pathlib import Path
from types import ModuleType

from design_console.config import load_config
from design_console.remote.listing import STATES, listed_tools
from design_console.remote.tools import remote_catalog
from design_console.tools import catalog

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _words(text: str) -> str:
    """``text`` with every run of white space made one space, so a figure may wrap across lines."""
    return " ".join(text.split())


def _first_screen() -> str:
    readme = README.read_text()
    return readme[: readme.index("\n## Install")]


def _generator() -> ModuleType:
    path = ROOT / "scripts" / "tools_reference.py"
    spec = importlib.util.spec_from_file_location("tools_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tools_reference_is_what_the_generator_writes_from_the_registry() -> None:
    generator = _generator()
    written = (DOCS / "tools.md").read_text()
    made = generator.render()
    diff = "".join(difflib.unified_diff(written.splitlines(True), made.splitlines(True), "docs/tools.md", "now", n=1))
    assert written == made, f"docs/tools.md is stale: run .venv/bin/python scripts/tools_reference.py\n{diff[:4000]}"
    for name in catalog():
        assert f"### `{name}`\n" in made, f"{name} is missing from the reference"


def test_the_first_screen_keeps_the_two_commands() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", _first_screen(), re.S)
    commands = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    assert "bash scripts/serve" in commands and "bash scripts/test" in commands


def test_the_first_screen_says_how_many_tools_a_default_install_lists() -> None:
    text = _words(_first_screen())
    default = catalog(load_config({}))
    every = catalog()
    core = [spec for spec in every.values() if spec.toolset == "core"]
    found = re.findall(r"A default install lists (\d+) tools", text)
    assert found == [str(len(default))], f"the README says {found}; the registry lists {len(default)} by default"
    assert f"{len(every)} with `ENABLE_MCP_APPS=true`" in text, f"{len(every)} tools with MCP Apps"
    assert f"starts with the {len(core)} core tools" in text, f"{len(core)} core tools"


def test_remote_modes_tool_counts_are_the_registrys() -> None:
    config = load_config({})
    remote = remote_catalog(config)
    counts = {(state.paired, state.browser): len(listed_tools(remote, state)) for state in STATES}
    signed_in, paired, most = counts[False, False], counts[True, False], counts[True, True]
    local = catalog(config)
    never = [local[name] for name in local.keys() - remote.keys()]
    state_only = sum(1 for spec in never if "daemon" in spec.needs)
    disk = [spec for spec in never if "disk" in spec.needs]
    assert {spec.toolset for spec in disk} == {"code"}
    text = _words((DOCS / "remote" / "README.md").read_text())
    for claim in [
        f"with the default toolsets, {signed_in} tools that read the design API",
        f"{paired - signed_in} more that send commands to the Desktop Bridge plugin",
        f"{most - paired} more while the server runs its headless browser: {most} at most",
        f"open files: {state_only})",
        f"files on your machine ({len(disk)}, all of the `code` toolset)",
    ]:
        assert claim in text, f"docs/remote/README.md should say: {claim}"
