"""A pytest plugin that fails any test whose body runs longer than the suite allows one test (60 s by default,
``DESIGN_TEST_SECONDS_LIMIT`` to change it, read when the run starts): a slow test belongs in ``bench/`` or needs
making faster, and the whole suite must stay within its minutes on a two-core machine. Fixture set-up is not
counted: a module's shared designd starts once for many tests."""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

DEFAULT_LIMIT_S = 60.0
_LIMIT = pytest.StashKey[float]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_LIMIT] = float(os.environ.get("DESIGN_TEST_SECONDS_LIMIT", DEFAULT_LIMIT_S))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, object, None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    limit = item.config.stash[_LIMIT]
    if report.when == "call" and report.passed and report.duration > limit:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} took {report.duration:.1f} s; one test may take at most {limit:g} s. Make it faster, "
            "share what it starts with its module, or move it to bench/."
        )
