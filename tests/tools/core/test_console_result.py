"""design_get_console_logs' result within its size budget: the whole read when it fits, else the newest entries that
fit and how many were left out, the same either way the entries are encoded."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
from fakes.bridge import make_config

from design_console.daemon.state import FileInfo, State
from design_console.engines.console_entry import ConsoleEntry
from design_console.tools.core.connection import RESULT_CHARS, _console_result


def _entries(sizes: list[int]) -> list[ConsoleEntry]:
    return [ConsoleEntry(timestamp=1000 + n, level="log", message="x" * size) for n, size in enumerate(sizes)]


def _read(tmp_path: Path, entries: list[ConsoleEntry]) -> dict[str, Any]:
    state = State(make_config(tmp_path, 20_000))
    state.identify(FileInfo(file_key="K", file_name="File K"), "K", authenticated=True)
    ctx: Any = SimpleNamespace(state=state)
    output = _console_result(ctx, "K", entries)
    result: dict[str, Any] = json.loads(output.content[0].text)  # type: ignore[union-attr]
    return result


def _sizes_filling(budget: int, pieces: int) -> list[int]:
    """Message sizes of ``pieces`` entries whose list's JSON is exactly ``budget`` + 1 characters long."""
    overhead = len(msgspec.json.encode(_entries([0] * pieces))) - 1
    each, rest = divmod(budget - overhead, pieces)
    return [each + (1 if n < rest else 0) for n in range(pieces)]


def test_a_read_that_fits_exactly_is_whole(tmp_path: Path) -> None:
    entries = _entries(_sizes_filling(RESULT_CHARS, 40))
    assert len(msgspec.json.encode(entries)) - 1 == RESULT_CHARS
    result = _read(tmp_path, entries)
    assert result["count"] == 40 and "omitted" not in result and "hint" not in result
    assert result["logs"] == msgspec.to_builtins(entries)
    assert result["newestTimestamp"] == entries[-1].timestamp


def test_one_character_over_the_budget_leaves_the_oldest_out(tmp_path: Path) -> None:
    sizes = _sizes_filling(RESULT_CHARS, 40)
    sizes[0] += 1
    entries = _entries(sizes)
    result = _read(tmp_path, entries)
    assert result["count"] == 39 and result["omitted"] == 1 and "smaller count" in result["hint"]
    assert result["logs"] == msgspec.to_builtins(entries[1:]), "the newest entries are kept, oldest first"


def test_an_empty_read_says_so(tmp_path: Path) -> None:
    result = _read(tmp_path, [])
    assert result["logs"] == [] and result["count"] == 0 and "newestTimestamp" not in result
