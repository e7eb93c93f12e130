"""Toolset names: the tools use exactly the names DESIGN_TOOLSETS accepts, and ``read`` lists only reads."""

from __future__ import annotations

from design_console.config import TOOLSETS
from design_console.tools import TOOLSET_SUMMARIES, catalog


def test_the_tools_use_exactly_the_toolsets_the_config_accepts() -> None:
    used = {spec.toolset for spec in catalog().values()}
    assert used - set(TOOLSETS) == set(), "a tool names a toolset DESIGN_TOOLSETS cannot choose"
    assert set(TOOLSETS) - used == set(), "DESIGN_TOOLSETS offers a toolset no tool is in"


def test_every_toolset_is_described_once() -> None:
    assert sorted(TOOLSET_SUMMARIES) == sorted(TOOLSETS)
    assert len(set(TOOLSETS)) == len(TOOLSETS)


def test_the_read_toolset_holds_only_read_only_tools() -> None:
    writers = sorted(name for name, spec in catalog().items() if spec.toolset == "read" and not spec.read_only)
    assert writers == []
