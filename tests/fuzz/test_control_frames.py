"""Hostile frames on designd's control socket: every one is answered or refused, the control loop keeps serving,
and designd's memory comes back to its level afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fuzz.strategies import CI_SETTINGS, DEEP, control_message, control_session
from fuzz.surfaces import FuzzedDaemon, control_batch, control_status, fuzzed_daemon, session_batch, settled

#: A string of invalid UTF-8, and maps or arrays nested 100,000 deep: each once ended the control loop silently.
REGRESSIONS = [
    [b"\x82\xa2op\xa4call\xa2id\xa3\xff\xfe\xfd"],
    [b"\x91" * DEEP + b"\xc0"],
    [b"\x81\xa1a" * DEEP + b"\xc0"],
    [b"\x81\xa2op\xa4ping", b"a second part"],
]


@pytest.fixture(scope="module")
def designd() -> Iterator[FuzzedDaemon]:
    with fuzzed_daemon() as fuzzed:
        yield fuzzed


def test_control_socket_answers_or_refuses_every_frame(designd: FuzzedDaemon) -> None:
    before = control_status(designd.env.config.control_endpoint)["controlStats"]
    rss_before = designd.rss()

    @CI_SETTINGS
    @given(st.lists(control_message(), min_size=1, max_size=6))
    @example(REGRESSIONS)
    def fuzz(batch: list[list[bytes]]) -> None:
        control_batch(designd, batch)

    fuzz()
    after = settled(designd, rss_before)["controlStats"]
    assert after["badFrames"] > before["badFrames"], after


def test_handlers_behind_the_hello_survive_any_frame(designd: FuzzedDaemon) -> None:
    rss_before = designd.rss()

    @CI_SETTINGS
    @given(st.lists(control_session(), min_size=1, max_size=3))
    def fuzz(sessions: list[tuple[str, list[bytes]]]) -> None:
        session_batch(designd, sessions)

    fuzz()
    settled(designd, rss_before)
