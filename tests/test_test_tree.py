"""The test tree stays easy to find one's way in: no test module imports another test module or a conftest.

What tests share lives in tests/fakes/ (doubles, builders, case tables), tests/procs.py and tests/helpers.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def _is_test_module(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def _test_imports(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if _is_test_module(module):
                found.append("." * node.level + module)
            elif not module or node.level:
                found += [alias.name for alias in node.names if _is_test_module(alias.name)]
    return found


def test_no_test_module_imports_another() -> None:
    bad = {
        str(path.relative_to(TESTS)): names
        for path in sorted(TESTS.rglob("*.py"))
        if "node_modules" not in path.parts and (names := _test_imports(path))
    }
    assert bad == {}


def test_the_check_sees_each_form(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from tools.test_apps import X\nfrom .conftest import make\nimport workers.test_chain\nfrom . import test_a\n"
        "from fakes.cases import Y\n"
    )
    assert _test_imports(sample) == ["tools.test_apps", ".conftest", "workers.test_chain", "test_a"]
