"""Hostile frames on designd's control socket: every one is answered or refused, the control loop keeps serving,
and designd's memory comes back to its level afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fuzz.strategies import CI_SETTINGS, control_message
from fuzz.surfaces import (
    RSS_SLACK,
    FuzzedDaemon,
    control_status,
    designctl_status,
    fuzzed_daemon,
    send_control_message,
    undecodable,
)


@pytest.fixture(scope="module")
def designd() -> Iterator[FuzzedDaemon]:
    with fuzzed_daemon() as fuzzed:
        yield fuzzed


def run_control_fuzz(designd: FuzzedDaemon, batch: list[list[bytes]]) -> None:
    """Send a batch from fresh peers; designd answers each single-part message and still serves afterwards."""
    endpoint = designd.env.config.control_endpoint
    before = control_status(endpoint)["controlStats"]["badFrames"]
    refused = sum(undecodable(send_control_message(endpoint, parts)) for parts in batch)
    after = control_status(endpoint)["controlStats"]
    assert after["badFrames"] >= before + refused, after
    assert after["receiveErrors"] == 0 and after["handlerErrors"] == 0, after
    assert not designd.crashes, designd.crashes


def test_control_socket_answers_or_refuses_every_frame(designd: FuzzedDaemon) -> None:
    endpoint = designd.env.config.control_endpoint
    stats_before = control_status(endpoint)["controlStats"]
    rss_before = designd.rss()

    @CI_SETTINGS
    @given(st.lists(control_message(), min_size=1, max_size=6))
    @example([[b"\x82\xa2op\xa4call\xa2id\xa3\xff\xfe\xfd"]])
    @example([[b"\x91" * 100_000 + b"\xc0"]])
    @example([[b"\x81\xa1a" * 100_000 + b"\xc0"], [b"\x81\xa2op\xa4ping", b"extra"]])
    def fuzz(batch: list[list[bytes]]) -> None:
        run_control_fuzz(designd, batch)

    fuzz()
    status = designctl_status(designd.env)
    assert status["controlStats"]["badFrames"] > stats_before["badFrames"], status["controlStats"]
    assert designd.rss() <= rss_before + RSS_SLACK, (rss_before, designd.rss())
    assert designd.alive() and not designd.crashes, designd.crashes
