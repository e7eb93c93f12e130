"""Reads shared by the callers that want the same key meanwhile (remote/flights.py)."""

from __future__ import annotations

import asyncio

import pytest

from design_console.remote.flights import Flights


async def test_callers_of_one_key_share_one_read_and_other_keys_read_apart() -> None:
    flights: Flights[str] = Flights()
    reads: list[str] = []
    gate = asyncio.Event()

    async def read(key: str) -> str:
        reads.append(key)
        await gate.wait()
        return f"value of {key}"

    waiting = [asyncio.create_task(flights.run(key, lambda key=key: read(key))) for key in ("a", "a", "a", "b")]
    await asyncio.sleep(0)
    gate.set()
    assert await asyncio.gather(*waiting) == ["value of a"] * 3 + ["value of b"]
    assert sorted(reads) == ["a", "b"]
    # A read that landed is not kept: the next caller reads again.
    assert await flights.run("a", lambda: read("a")) == "value of a" and reads.count("a") == 2


async def test_an_error_reaches_every_caller_and_a_cancelled_caller_leaves_the_read_to_the_others() -> None:
    flights: Flights[str] = Flights()
    gate = asyncio.Event()

    async def failing() -> str:
        await gate.wait()
        raise RuntimeError("store down")

    first = asyncio.create_task(flights.run("k", failing))
    second = asyncio.create_task(flights.run("k", failing))
    third = asyncio.create_task(flights.run("k", failing))
    await asyncio.sleep(0)
    first.cancel()
    gate.set()
    for task in (second, third):
        with pytest.raises(RuntimeError, match="store down"):
            await task
    assert first.cancelled()


async def test_a_forgotten_key_starts_a_read_of_its_own() -> None:
    flights: Flights[int] = Flights()
    gate = asyncio.Event()
    count = 0

    async def read() -> int:
        nonlocal count
        count += 1
        mine = count
        await gate.wait()
        return mine

    before = asyncio.create_task(flights.run("k", read))
    await asyncio.sleep(0)
    flights.forget("k")
    after = asyncio.create_task(flights.run("k", read))
    await asyncio.sleep(0)
    gate.set()
    assert (await before, await after) == (1, 2)
