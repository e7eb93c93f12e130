"""Imports point down the layers only: cli/shim → daemon/workers → tools → clients → runtime → protocol/config/errors.

Every import of every module counts, including those inside functions: a deferred import that runs up a layer is
still a dependency that runs up.
"""

from __future__ import annotations

import ast
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


def _violations() -> list[str]:
    bad: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = ".".join(rel.parts).removesuffix(".__init__")
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


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The walker finds imports inside functions too; without that the test above would pass vacuously."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f():\n    from design_console.daemon.core import Daemon\n    import design_console.shim.main\n"
    )
    assert _imports(sample) == [(2, "design_console.daemon.core"), (3, "design_console.shim.main")]
