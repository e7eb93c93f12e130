"""Fixtures of the Remote Mode tests: the fake design-platform OAuth server and a throwaway redis-server, each started
once per module that asks for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.remote import FakePlatform, fake_platform, redis_server


@pytest.fixture(scope="module")
def platform() -> Iterator[FakePlatform]:
    with fake_platform() as fake:
        yield fake


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url
