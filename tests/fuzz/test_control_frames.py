"""Hostile frames on designd's control socket (on the transport DESIGN_IPC names): every one is answered or refused,
the control loop keeps serving, and designd's memory comes back to its level afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fuzz.strategies import CI_SETTINGS, DEEP, control_message, control_session
from fuzz.surfaces import (
    FuzzedDaemon,
    control_batch,
    control_status,
    fuzzed_daemon,
    raw_bytes_batch,
    session_batch,
    settled,
)

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


#: Bytes that are no ZMTP greeting: a length over any limit, a greeting cut short, a NULL greeting.
RAW_REGRESSIONS = [b"\xff\xff\xff\xff", b"\xff\x00\x00\x00\x00\x00\x00\x00\x01\x7f\x03", b"\x00" * 64]


def test_control_socket_answers_or_refuses_every_frame(designd: FuzzedDaemon) -> None:
    before = control_status(designd.env.config)["controlStats"]
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


def test_control_socket_survives_any_bytes(designd: FuzzedDaemon) -> None:
    """Whatever bytes a connection sends before (or instead of) ZeroMQ's handshake, designd serves on."""
    rss_before = designd.rss()

    @CI_SETTINGS
    @given(st.lists(st.binary(max_size=64), min_size=1, max_size=4))
    @example(RAW_REGRESSIONS)
    def fuzz(batch: list[bytes]) -> None:
        raw_bytes_batch(designd, batch)

    fuzz()
    settled(designd, rss_before)
