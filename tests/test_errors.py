"""Error codes form one enumerated set: every code the package raises or sends is a member of ErrorCode."""

from __future__ import annotations

import ast
from pathlib import Path

import design_console
from design_console.errors import DesignError, ErrorCode

PACKAGE = Path(design_console.__file__).parent


def _codes_in_source(root: Path = PACKAGE) -> dict[str, list[str]]:
    """Codes written as text in ``DesignError("…", …)`` and ``Error(code="…")``, with where they are."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            texts = [kw.value for kw in node.keywords if kw.arg == "code"]
            if name == "DesignError" and node.args:
                texts.append(node.args[0])
            for text in texts:
                if isinstance(text, ast.Constant) and isinstance(text.value, str):
                    found.setdefault(text.value, []).append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_every_code_written_as_text_is_a_member() -> None:
    unknown = {code: where for code, where in _codes_in_source().items() if code not in set(ErrorCode)}
    assert unknown == {}


def test_the_walk_sees_codes_written_as_text(tmp_path: Path) -> None:
    """Without this the test above could pass vacuously."""
    (tmp_path / "sample.py").write_text(
        "def f(err):\n"
        "    raise DesignError(\n        'made_up', 'text')\n"
        "    send(Error(id='1', code='also_made_up', message=''))\n"
        "    raise DesignError(ErrorCode.NOT_FOUND, 'text')\n"
    )
    assert _codes_in_source(tmp_path) == {"made_up": ["sample.py:2"], "also_made_up": ["sample.py:4"]}


def test_codes_compare_equal_to_their_text() -> None:
    err = DesignError(ErrorCode.NOT_FOUND, "No node 1:2.", "Check the id.")
    assert err.code == "not_found" and isinstance(err.code, str)
    assert ErrorCode.of("timeout") is ErrorCode.TIMEOUT
    assert ErrorCode.of("a code from a newer designd") is ErrorCode.INTERNAL
