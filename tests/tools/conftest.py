"""What the tool tests share: a bridge harness (the real daemon-side bridge, a fake plugin, a tool context) per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fakes.harness import Harness, bridge_harness


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    """A bridge harness of the test's own; modules whose tools need only the design API define their own instead."""
    async with bridge_harness(tmp_path) as opened:
        yield opened
