"""The suite's limit on one test's time fails a slow test and names its time, and leaves a quick one alone."""

from __future__ import annotations

import pytest


def test_a_test_over_the_limit_fails_and_says_why(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESIGN_TEST_SECONDS_LIMIT", "0.3")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(
        "import time\n"
        "def test_quick():\n    pass\n"
        "def test_slow():\n    time.sleep(0.6)\n"
        "def test_slow_fixture_is_not_counted(slow):\n    pass\n"
        "import pytest\n"
        "@pytest.fixture\ndef slow():\n    time.sleep(0.6)\n"
    )
    result = pytester.runpytest_inprocess("-p", "fakes.time_limit", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*test_slow took 0.* s; one test may take at most 0.3 s*"])
