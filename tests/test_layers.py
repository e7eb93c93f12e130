"""Imports point down the layers only: cli/shim → daemon/workers → tools → engines → clients/tokens → runtime → config.

protocol.py, errors.py and plugin_contract.py sit at the bottom with __init__. Inside tools/, the topic sub-packages
stand on the catalog machinery of the package root and on each other without a cycle; the root imports no topic.

Every import of every module counts, including those inside functions: a deferred import that runs up a layer is
still a dependency that runs up.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import design_console

PACKAGE = Path(design_console.__file__).parent

#: Layer of each top-level part of the package; a part may import its own modules and any lower layer.
LAYERS: dict[str, int] = {
    "__init__": 0,
    "errors": 0,
    "protocol": 0,
    "plugin_contract": 0,
    "bridge_frames": 1,
    "config": 1,
    "runtime": 2,
    "clients": 3,
    "tokens": 3,
    "codebase": 3,
    "engines": 4,
    "tools": 5,
    "daemon": 6,
    "workers": 6,
    "remote": 6,
    "shim": 7,
    "cli": 7,
    "__main__": 8,
}


def _part(module: str) -> str:
    """The top-level part of ``design_console.<part>.…`` (``__init__`` for the package itself)."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("design_console")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "design_console":
                # ``from design_console import x`` names a submodule or a package-level value.
                for alias in node.names:
                    target = f"design_console.{alias.name}"
                    found.append((node.lineno, target if _part(target) in LAYERS else "design_console"))
            elif node.module.startswith("design_console."):
                found.append((node.lineno, node.module))
    return found


def _module_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts).removesuffix(".__init__")


def _violations() -> list[str]:
    bad: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = _module_of(path)
        part = _part(module)
        assert part in LAYERS, f"{module}: add its part {part!r} to LAYERS"
        for line, target in _imports(path):
            target_part = _part(target)
            assert target_part in LAYERS, f"{path}:{line} imports unknown part {target_part!r}"
            if target_part == part:
                continue
            if LAYERS[target_part] >= LAYERS[part]:
                bad.append(
                    f"{rel}.py:{line}: {part} (layer {LAYERS[part]}) imports {target} (layer {LAYERS[target_part]})"
                )
    return bad


def test_imports_point_down_the_layers() -> None:
    assert _violations() == []


TOOLS = PACKAGE / "tools"


def _tools_unit(module: str) -> str | None:
    """``tools.<topic>`` for a module of a topic sub-package, ``tools.<module>`` for the root's, else None."""
    pieces = module.split(".")
    return f"tools.{pieces[2]}" if len(pieces) > 2 and pieces[1] == "tools" else None


def _topics() -> set[str]:
    return {f"tools.{path.parent.name}" for path in TOOLS.glob("*/__init__.py")} - {"tools.wire"}


def _tools_graph() -> dict[str, set[str]]:
    """Which unit of tools/ imports which other (a topic sub-package counts as one unit)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(TOOLS.rglob("*.py")):
        unit = _tools_unit(_module_of(path))
        if unit is None:
            continue
        for _, target in _imports(path):
            other = _tools_unit(target)
            if other is not None and other != unit:
                graph.setdefault(unit, set()).add(other)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as the path that closes it, or [] when there is none."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str]:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return []
        for nxt in sorted(graph.get(node, ())):
            found = visit(nxt, [*path, node])
            if found:
                return found
        done.add(node)
        return []

    for start in sorted(graph):
        found = visit(start, [])
        if found:
            return found
    return []


def test_the_catalog_root_imports_no_topic_and_topics_form_no_cycle() -> None:
    graph = _tools_graph()
    topics = _topics()
    assert {"tools.components", "tools.variables", "tools.history"} <= topics
    upward = sorted(
        f"{unit} imports {other}"
        for unit, others in graph.items()
        if unit not in topics
        for other in others
        if other in topics
    )
    assert upward == []
    assert _cycle(graph) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycle({"tools.a": {"tools.b"}, "tools.b": {"tools.c"}, "tools.c": {"tools.a"}}) == [
        "tools.a",
        "tools.b",
        "tools.c",
        "tools.a",
    ]
    assert _cycle({"tools.a": {"tools.b"}, "tools.b": set()}) == []


def test_engines_load_without_the_tool_registry() -> None:
    """Every engine imports in a fresh interpreter without loading design_console.tools."""
    engines = sorted(path.stem for path in (PACKAGE / "engines").glob("*.py") if path.stem != "__init__")
    assert {"history_diff", "parity", "component_doc_md", "ds_report", "shaping"} <= set(engines)
    code = (
        "import importlib, sys\n"
        f"for name in {engines!r}:\n"
        "    importlib.import_module('design_console.engines.' + name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('design_console.tools')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The walker finds imports inside functions too; without that the test above would pass vacuously."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f():\n    from design_console.daemon.core import Daemon\n    import design_console.shim.main\n"
    )
    assert _imports(sample) == [(2, "design_console.daemon.core"), (3, "design_console.shim.main")]
