"""The fuzz suite of tests/fuzz with a far larger budget: the same strategies and checks, run for minutes per surface.

Run: ``.venv/bin/python bench/fuzz_long.py --minutes 10`` (``--surface control|bridge|tools`` for one only). Each
surface gets its own designd in a throwaway HOME (the tool arguments need none). Prints, per surface, the inputs
tried, the refusals and designd's memory before and after; exits non-zero with the failing input (shrunk by
hypothesis) when a check fails. Examples are random here, unlike the derandomized CI run.

Refusals are: control frames designd answered as undecodable or refused unread (multipart); on the bridge, designd's
own counters of refused, ignored and dropped frames and of sockets closed for authentication, which include the
probe frame that closes each unauthenticated socket; tool arguments parse_args refused.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisDeprecationWarning

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fuzz.arguments import TOOLS, check_arguments, schema_of  # noqa: E402
from fuzz.strategies import bridge_message, control_message, control_session, from_schema, hostile_arguments  # noqa: E402
from fuzz.surfaces import (  # noqa: E402
    LoopThread,
    authenticated_batch,
    bridge_refusals,
    control_batch,
    control_status,
    fuzzed_daemon,
    legit_plugin_answers,
    plugin_on,
    raw_bytes_batch,
    session_batch,
    settled,
    unauthenticated_batch,
)

# The fake plugins' WebSocket client draws its keepalive ping payloads from the random module, on its own thread; the
# examples do not depend on it.
warnings.filterwarnings("ignore", "Do not use the `random` module", HypothesisDeprecationWarning)

#: Examples per hypothesis run; runs repeat, each with a fresh random seed, until the surface's time is up.
ROUND = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@dataclass
class Tally:
    """What one surface's run did."""

    surface: str
    inputs: int = 0
    refused: int = 0
    rss_before: int = 0
    rss_after: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        memory = (
            f"rss {self.rss_before / 2**20:.1f} MB -> {self.rss_after / 2**20:.1f} MB"
            if self.rss_before
            else "in process"
        )
        return (
            f"{self.surface:<28} {self.inputs:>8} inputs  {self.refused:>8} refusals  {memory}  "
            f"({self.seconds:.0f} s, {self.inputs / max(self.seconds, 1e-9):.0f}/s)"
        )


def rounds(seconds: float, run_round: Callable[[], None]) -> float:
    """Run hypothesis rounds until ``seconds`` have passed; returns the time taken."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        run_round()
    return time.monotonic() - started


def fuzz_control(seconds: float) -> list[Tally]:
    fresh, behind = Tally("control, before hello"), Tally("control, after hello")
    raw = Tally("control, raw bytes before the handshake")
    with fuzzed_daemon() as designd:
        fresh.rss_before = behind.rss_before = raw.rss_before = designd.rss()

        @ROUND
        @given(st.lists(control_message(), min_size=1, max_size=6))
        def before_hello(batch: list[list[bytes]]) -> None:
            fresh.refused += control_batch(designd, batch)
            fresh.inputs += len(batch)

        fresh.seconds = rounds(seconds / 3, before_hello)
        fresh.rss_after = designd.rss()
        bad_frames = control_status(designd.env.config)["controlStats"]["badFrames"]

        @ROUND
        @given(st.lists(control_session(), min_size=1, max_size=3))
        def after_hello(sessions: list[tuple[str, list[bytes]]]) -> None:
            session_batch(designd, sessions)
            behind.inputs += sum(len(frames) for _, frames in sessions)

        behind.seconds = rounds(seconds / 3, after_hello)
        behind.rss_after = designd.rss()
        status = control_status(designd.env.config)
        behind.refused = status["controlStats"]["badFrames"] - bad_frames

        @ROUND
        @given(st.lists(st.binary(max_size=256), min_size=1, max_size=4))
        def raw_bytes(batch: list[bytes]) -> None:
            raw_bytes_batch(designd, batch)
            raw.inputs += len(batch)

        raw.seconds = rounds(seconds / 3, raw_bytes)
        status = settled(designd, fresh.rss_before)
        raw.refused = status["controlStats"]["refusedPeers"]
        raw.rss_after = designd.rss()
    return [fresh, behind, raw]


def fuzz_bridge(seconds: float) -> list[Tally]:
    before, after = Tally("bridge, unauthenticated"), Tally("bridge, authenticated")
    loop = LoopThread()
    try:
        with fuzzed_daemon() as designd:
            legit_plugin_answers(designd, loop)
            before.rss_before = after.rss_before = designd.rss()
            refused = bridge_refusals(designd)

            @ROUND
            @given(st.lists(bridge_message(), min_size=1, max_size=4))
            def unauthenticated(batch: list[str | bytes]) -> None:
                unauthenticated_batch(designd, loop, batch)
                before.inputs += len(batch)

            before.seconds = rounds(seconds / 2, unauthenticated)
            before.rss_after = designd.rss()
            before.refused, refused = bridge_refusals(designd) - refused, bridge_refusals(designd)
            with plugin_on(loop, designd, "fuzz-plugin") as fuzzer:

                @ROUND
                @given(st.lists(bridge_message(), min_size=1, max_size=8))
                def authenticated(batch: list[str | bytes]) -> None:
                    authenticated_batch(designd, loop, fuzzer, batch)
                    after.inputs += len(batch)

                after.seconds = rounds(seconds / 2, authenticated)
            status = settled(designd, before.rss_before)
            after.rss_after = designd.rss()
            after.refused = bridge_refusals(designd) - refused
            print("bridge counters:", {k: v for k, v in status["bridgeStats"].items() if isinstance(v, int) and v})
    finally:
        loop.close()
    return [before, after]


def fuzz_tools(seconds: float) -> Tally:
    tally = Tally("tool arguments")
    specs = list(TOOLS.values())

    @ROUND
    @given(st.sampled_from(specs).flatmap(lambda spec: st.tuples(st.just(spec), _arguments(spec))))
    def one(case: tuple[Any, dict[str, Any]]) -> None:
        spec, arguments = case
        tally.refused += not check_arguments(spec, arguments)
        tally.inputs += 1

    tally.seconds = rounds(seconds, one)
    return tally


def _arguments(spec: Any) -> st.SearchStrategy[dict[str, Any]]:
    schema = schema_of(spec)
    return st.one_of(hostile_arguments(sorted(schema["properties"])), from_schema(schema))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="time for each surface (default 5)")
    parser.add_argument("--surface", choices=["control", "bridge", "tools", "all"], default="all")
    opts = parser.parse_args()
    seconds = opts.minutes * 60
    tallies: list[Tally] = []
    if opts.surface in ("control", "all"):
        for tally in fuzz_control(seconds):
            tallies.append(tally)
            print(tally.line(), flush=True)
    if opts.surface in ("bridge", "all"):
        for tally in fuzz_bridge(seconds):
            tallies.append(tally)
            print(tally.line(), flush=True)
    if opts.surface in ("tools", "all"):
        tallies.append(fuzz_tools(seconds))
        print(tallies[-1].line(), flush=True)
    print(f"total: {sum(t.inputs for t in tallies)} inputs, no failure")


if __name__ == "__main__":
    main()
