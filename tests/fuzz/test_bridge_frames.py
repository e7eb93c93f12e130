"""Hostile frames on designd's WebSocket bridge, before and after authentication: each is refused or ignored,
every socket is closed only on purpose, a legitimate plugin keeps answering, and memory comes back to its level."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.fake_plugin import FakePlugin
from hypothesis import example, given
from hypothesis import strategies as st

from fuzz.strategies import CI_SETTINGS, DEEP, bridge_message
from fuzz.surfaces import (
    DELIBERATE_CLOSES,
    LEGIT_FILE,
    RSS_SLACK,
    FuzzedDaemon,
    LoopThread,
    designctl_status,
    fuzzed_daemon,
    legit_plugin_answers,
    plugin_on,
    send_authenticated,
    send_unauthenticated,
)

#: Frames that once ended the socket's handler with an exception (close 1011) instead of being refused.
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


@pytest.fixture
def legit(designd: FuzzedDaemon, loop: LoopThread) -> Iterator[FakePlugin]:
    with plugin_on(loop, designd, LEGIT_FILE) as plugin:
        yield plugin


def check_memory_and_log(designd: FuzzedDaemon, rss_before: int) -> None:
    status = designctl_status(designd.env)
    assert status["bridgeStats"]["badFrames"] > 0, status["bridgeStats"]
    assert designd.rss() <= rss_before + RSS_SLACK, (rss_before, designd.rss())
    assert designd.alive() and not designd.crashes, designd.crashes


def test_unauthenticated_sockets_refuse_every_frame(designd: FuzzedDaemon, loop: LoopThread, legit: FakePlugin) -> None:
    endpoint, port = designd.env.config.control_endpoint, designd.daemon.port
    legit_plugin_answers(endpoint)
    rss_before = designd.rss()

    @CI_SETTINGS
    @given(st.lists(bridge_message(), min_size=1, max_size=4))
    @example(REGRESSIONS)
    def fuzz(batch: list[str | bytes]) -> None:
        for message in batch:
            code = loop.run(send_unauthenticated(port, message))
            assert code in DELIBERATE_CLOSES, (code, str(message)[:200])
        assert not designd.crashes, designd.crashes
        legit_plugin_answers(endpoint)

    fuzz()
    check_memory_and_log(designd, rss_before)


def test_authenticated_socket_survives_every_frame(designd: FuzzedDaemon, loop: LoopThread, legit: FakePlugin) -> None:
    endpoint = designd.env.config.control_endpoint
    legit_plugin_answers(endpoint)
    rss_before = designd.rss()

    with plugin_on(loop, designd, "fuzz-plugin") as fuzzer:

        @CI_SETTINGS
        @given(st.lists(bridge_message(), min_size=1, max_size=8))
        @example([*REGRESSIONS, '{"id":"never-sent","result":{}}'])
        def fuzz(batch: list[str | bytes]) -> None:
            codes = loop.run(send_authenticated(fuzzer, batch))
            assert set(codes) <= DELIBERATE_CLOSES, codes
            assert not designd.crashes, designd.crashes
            legit_plugin_answers(endpoint)

        fuzz()
    check_memory_and_log(designd, rss_before)
