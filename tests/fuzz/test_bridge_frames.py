"""Hostile frames on designd's WebSocket bridge, before and after authentication: each is refused or ignored,
every socket is closed only on purpose, a legitimate plugin keeps answering, and memory comes back to its level."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fuzz.strategies import CI_SETTINGS, DEEP, bridge_message
from fuzz.surfaces import (
    FuzzedDaemon,
    LoopThread,
    authenticated_batch,
    fuzzed_daemon,
    legit_plugin_answers,
    plugin_on,
    settled,
    unauthenticated_batch,
)

#: Frames that once ended their socket's handler with an exception (close 1011) instead of being refused: deep
#: nesting, deep nesting behind a lone surrogate (found on the retry after repairing it), and binary frames that
#: are not UTF-8 (in a field, or inside the data the event decoders read).
DEEP_ARRAY = b'{"type":"CONSOLE_CAPTURE","data":' + b"[" * DEEP + b"]" * DEEP + b"}"
DEEP_AFTER_SURROGATE = '{"type":"\\ud83d","data":' + "[" * DEEP + "]" * DEEP + "}"
INVALID_UTF8 = b'{"type":"\xff\xfe"}'
INVALID_UTF8_IN_DATA = b'{"type":"CONSOLE_CAPTURE","data":{"level":"log","message":"\xff","timestamp":1}}'
REGRESSIONS: list[str | bytes] = [DEEP_ARRAY, DEEP_AFTER_SURROGATE, INVALID_UTF8, INVALID_UTF8_IN_DATA]


@pytest.fixture(scope="module")
def designd() -> Iterator[FuzzedDaemon]:
    with fuzzed_daemon() as fuzzed:
        yield fuzzed


@pytest.fixture(scope="module")
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    try:
        yield thread
    finally:
        thread.close()


def test_unauthenticated_sockets_refuse_every_frame(designd: FuzzedDaemon, loop: LoopThread) -> None:
    legit_plugin_answers(designd, loop)
    rss_before = designd.rss()

    @CI_SETTINGS
    @given(st.lists(bridge_message(), min_size=1, max_size=4))
    @example(REGRESSIONS)
    def fuzz(batch: list[str | bytes]) -> None:
        unauthenticated_batch(designd, loop, batch)

    fuzz()
    assert settled(designd, rss_before)["bridgeStats"]["badFrames"] > 0


def test_authenticated_socket_survives_every_frame(designd: FuzzedDaemon, loop: LoopThread) -> None:
    legit_plugin_answers(designd, loop)
    rss_before = designd.rss()

    with plugin_on(loop, designd, "fuzz-plugin") as fuzzer:

        @CI_SETTINGS
        @given(st.lists(bridge_message(), min_size=1, max_size=8))
        @example([*REGRESSIONS, '{"id":"never-sent","result":{}}'])
        def fuzz(batch: list[str | bytes]) -> None:
            authenticated_batch(designd, loop, fuzzer, batch)

        fuzz()
    assert settled(designd, rss_before)["bridgeStats"]["unknownReplies"] > 0
