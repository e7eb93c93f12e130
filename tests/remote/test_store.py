"""The store's promises, the same tests against SQLite and a real redis-server: lifetimes, single use under races,
add-if-absent, shared locks, purging, and two stores on one backend seeing each other's entries."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from design_console.errors import DesignError
from design_console.remote.store import SqliteStore, Store, open_store, store_lock


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    url: str = request.getfixturevalue("redis_url")
    return url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    opened = open_store(store_url)
    # One redis-server serves the module: each test starts from an empty database.
    if store_url.startswith("redis"):
        await opened._redis.flushdb()  # type: ignore[attr-defined]
    try:
        yield opened
    finally:
        await opened.close()


async def test_put_get_delete(store: Store) -> None:
    assert await store.get("k", "a") is None
    await store.put("k", "a", b"one")
    await store.put("other", "a", b"two")
    assert await store.get("k", "a") == b"one"
    assert await store.get("other", "a") == b"two"
    await store.put("k", "a", b"three")
    assert await store.get("k", "a") == b"three"
    await store.delete("k", "a")
    assert await store.get("k", "a") is None


async def test_entries_expire(store: Store) -> None:
    await store.put("k", "short", b"x", ttl=0.2)
    await store.put("k", "long", b"y", ttl=60)
    assert await store.get("k", "short") == b"x"
    deadline = time.monotonic() + 5
    while await store.get("k", "short") is not None:
        assert time.monotonic() < deadline, "the entry never expired"
        await asyncio.sleep(0.05)
    assert await store.take("k", "short") is None
    assert await store.get("k", "long") == b"y"


async def test_take_is_single_use_under_a_race(store: Store) -> None:
    for round_ in range(5):
        await store.put("code", f"c{round_}", b"grant", ttl=60)
        results = await asyncio.gather(*(store.take("code", f"c{round_}") for _ in range(20)))
        assert sorted(results, key=lambda r: r is None) == [b"grant"] + [None] * 19


async def test_add_only_when_absent_or_expired(store: Store) -> None:
    assert await store.add("lock", "x", b"first", ttl=0.2)
    assert not await store.add("lock", "x", b"second", ttl=0.2)
    assert await store.get("lock", "x") == b"first"
    deadline = time.monotonic() + 5
    while not await store.add("lock", "x", b"third", ttl=60):
        assert time.monotonic() < deadline, "an expired entry blocked add"
        await asyncio.sleep(0.05)
    assert await store.get("lock", "x") == b"third"
    results = await asyncio.gather(*(store.add("lock", "race", b"v", ttl=60) for _ in range(20)))
    assert results.count(True) == 1


async def test_lock_excludes_across_stores(store_url: str) -> None:
    first, second = open_store(store_url), open_store(store_url)
    inside = 0
    most = 0

    async def worker(store: Store) -> None:
        nonlocal inside, most
        async with store_lock(store, "user-1", ttl=10):
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.01)
            inside -= 1

    try:
        await asyncio.gather(*(worker(s) for s in [first, second] * 5))
        assert most == 1
        async with store_lock(first, "held", ttl=10):
            with pytest.raises(DesignError):
                async with store_lock(second, "held", wait=0.2):
                    pass
    finally:
        await first.close()
        await second.close()


async def test_two_stores_share_entries(store_url: str) -> None:
    first, second = open_store(store_url), open_store(store_url)
    try:
        await first.put("client", "abc", b"record")
        assert await second.get("client", "abc") == b"record"
        assert await second.take("client", "abc") == b"record"
        assert await first.get("client", "abc") is None
    finally:
        await first.close()
        await second.close()


async def test_sqlite_purge_drops_expired_rows(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.sqlite3")
    try:
        await store.put("code", "old", b"x", ttl=0.05)
        await store.put("client", "kept", b"y")
        deadline = time.monotonic() + 5
        dropped = 0
        while dropped == 0:
            assert time.monotonic() < deadline
            dropped = await store.purge()
            await asyncio.sleep(0.02)
        assert dropped == 1
        assert await store.get("client", "kept") == b"y"
        assert (tmp_path / "s.sqlite3").stat().st_mode & 0o077 == 0
    finally:
        await store.close()


async def test_sqlite_closes_only_after_a_statement_whose_caller_was_cancelled(tmp_path: Path) -> None:
    """A request cancelled mid-statement (a shutdown, a client gone) leaves the statement running in its thread:
    closing the connection under it crashes the process, so closing waits for it to end."""
    store = SqliteStore(tmp_path / "s.sqlite3")
    started = threading.Event()
    naps: list[float] = []

    def nap(seconds: float) -> int:
        started.set()
        time.sleep(seconds)
        naps.append(seconds)
        return 1

    store._db.create_function("nap", 1, nap)
    rows = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT nap(?) FROM n"
    statement = asyncio.create_task(store._run(rows, 0.02))
    assert await asyncio.to_thread(started.wait, 5)
    statement.cancel()
    await store.close()
    assert len(naps) == 10, f"the connection was closed after {len(naps)} of the statement's 10 rows"
    await store.close()  # a second close (the app's shutdown and its test's own) is no error
    with pytest.raises(asyncio.CancelledError):
        await statement


async def test_counters_count_atomically_and_restart_after_their_window(store: Store) -> None:
    counts = await asyncio.gather(*(store.count("rate", "addr", 60) for _ in range(50)))
    assert sorted(counts) == list(range(1, 51))
    assert await store.count("rate", "short", 0.2) == 1
    assert await store.count("rate", "short", 0.2) == 2
    deadline = time.monotonic() + 5
    while await store.count("rate", "short", 0.2) != 1:
        assert time.monotonic() < deadline, "the window never ended"
        await asyncio.sleep(0.05)


async def test_a_count_given_back_is_taken_again_within_the_same_window(store: Store) -> None:
    assert [await store.count("rate", "held", 60) for _ in range(3)] == [1, 2, 3]
    gave_back = await asyncio.gather(*(store.count("rate", "held", 60, step=-1) for _ in range(2)))
    assert sorted(gave_back) == [1, 2]
    assert await store.count("rate", "held", 60) == 2
    # Neither a later count nor a give-back moves the window: the counter ends when its first count's window does.
    assert await store.count("rate", "brief", 0.2) == 1
    assert await store.count("rate", "brief", 60) == 2
    assert await store.count("rate", "brief", 60, step=-1) == 1
    deadline = time.monotonic() + 5
    while await store.count("rate", "brief", 60) != 1:
        assert time.monotonic() < deadline, "the window never ended"
        await asyncio.sleep(0.05)


def _vacuum_mode(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("PRAGMA auto_vacuum").fetchone()[0])
    finally:
        db.close()


async def test_sqlite_gives_back_the_space_of_purged_entries(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    # A database made before the store asked for auto-vacuum is converted when it is opened.
    db = sqlite3.connect(old)
    db.execute(
        "CREATE TABLE entries (kind TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, expires REAL, "
        "PRIMARY KEY (kind, key))"
    )
    db.close()
    assert _vacuum_mode(old) == 0
    for path in (tmp_path / "new.sqlite3", old):
        store = SqliteStore(path)
        try:
            assert _vacuum_mode(path) in (1, 2)
            for n in range(40):
                await store.put("client", str(n), b"x" * 500_000, ttl=0.01)
            grown = path.stat().st_size + Path(f"{path}-wal").stat().st_size
            assert grown > 10_000_000
            await asyncio.sleep(0.05)
            assert await store.purge() == 40
            assert path.stat().st_size < 1_000_000
        finally:
            await store.close()


async def _next(queue: asyncio.Queue[bytes]) -> bytes:
    return await asyncio.wait_for(queue.get(), 5)


async def test_published_messages_reach_every_subscriber_of_their_channel_in_order(store: Store) -> None:
    first: asyncio.Queue[bytes] = asyncio.Queue()
    second: asyncio.Queue[bytes] = asyncio.Queue()
    elsewhere: asyncio.Queue[bytes] = asyncio.Queue()
    assert await store.publish("relay:a", b"nobody listens") == 0
    one = await store.subscribe("relay:a", first.put_nowait)
    two = await store.subscribe("relay:a", second.put_nowait)
    other = await store.subscribe("relay:b", elsewhere.put_nowait)
    for number in range(20):
        # One instance listens, whatever the number of its handlers.
        assert await store.publish("relay:a", b"m%d" % number) == 1
    assert [await _next(first) for _ in range(20)] == [b"m%d" % n for n in range(20)]
    assert [await _next(second) for _ in range(20)] == [b"m%d" % n for n in range(20)]
    await one.close()
    assert await store.publish("relay:a", b"after") == 1
    assert await _next(second) == b"after"
    assert first.empty() and elsewhere.empty()
    await two.close()
    assert await store.publish("relay:a", b"gone") == 0
    # A handler that raises costs neither the publisher nor the channel's other subscribers.
    await other.close()

    def broken(message: bytes) -> None:
        raise ValueError(message)

    await store.subscribe("relay:b", broken)
    await store.subscribe("relay:b", elsewhere.put_nowait)
    assert await store.publish("relay:b", b"still") == 1
    assert await _next(elsewhere) == b"still"


async def test_redis_carries_messages_between_instances(redis_url: str) -> None:
    first, second = open_store(redis_url), open_store(redis_url)
    heard: asyncio.Queue[bytes] = asyncio.Queue()
    try:
        subscription = await second.subscribe("relay:instance-2", heard.put_nowait)
        assert await first.publish("relay:instance-2", b"command") == 1
        assert await _next(heard) == b"command"
        await subscription.close()
        # A subscription closed on one instance is closed for the server too: nobody hears the channel any more.
        deadline = time.monotonic() + 5
        while await first.publish("relay:instance-2", b"late"):
            assert time.monotonic() < deadline, "the channel stayed subscribed"
            await asyncio.sleep(0.05)
        assert heard.empty()
        # Subscribing again after the last subscription closed starts delivering again.
        await second.subscribe("relay:instance-2", heard.put_nowait)
        assert await first.publish("relay:instance-2", b"again") == 1
        assert await _next(heard) == b"again"
    finally:
        await first.close()
        await second.close()
