"""Where the hosted service keeps what outlives a request: clients, codes, token hashes, encrypted upstream tokens.

One small interface, two backends: SQLite (a file, nothing to set up; instances on one host may share it) and Redis
(several instances behind a load balancer). Entries are bytes under a ``(kind, key)`` pair with an optional
lifetime; :meth:`Store.take` reads and deletes in one step, which is what makes codes and states single-use even
when two requests race; :meth:`Store.add` writes only when nothing is there, which is what locks are made of.
:meth:`Store.publish` and :meth:`Store.subscribe` carry messages between the instances sharing the store (the relay's
commands to the instance holding a plugin's socket); with SQLite, one instance, they stay in the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from design_console.errors import DesignError, ErrorCode

log = logging.getLogger("design_console.remote.store")

#: Receives each message published on a channel it subscribed to; runs on the event loop, so it must not block.
MessageHandler = Callable[[bytes], None]

#: How often a lock holder polls while another instance holds the lock.
LOCK_POLL = 0.05
#: SQLite's ``auto_vacuum`` mode that frees pages on request (``PRAGMA incremental_vacuum``).
INCREMENTAL = 2
#: Gives the pages freed by deletes back to the file system.
RECLAIM = "PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);"

_T = TypeVar("_T")


class Store(Protocol):
    """Bytes under (kind, key), each with an optional lifetime in seconds (None: until deleted)."""

    async def put(self, kind: str, key: str, value: bytes, ttl: float | None = None) -> None:
        """Write (or overwrite) an entry."""
        ...

    async def add(self, kind: str, key: str, value: bytes, ttl: float | None = None) -> bool:
        """Write an entry only if none is there (an expired one counts as none); True when written."""
        ...

    async def get(self, kind: str, key: str) -> bytes | None:
        """The entry, or None when there is none or it expired."""
        ...

    async def take(self, kind: str, key: str) -> bytes | None:
        """Read and delete the entry in one atomic step: of two racing callers, one gets it."""
        ...

    async def delete(self, kind: str, key: str) -> None:
        """Remove the entry, if any."""
        ...

    async def count(self, kind: str, key: str, ttl: float, step: int = 1) -> int:
        """Add ``step`` to a counter and return the new count, atomically; a counter starts at ``step`` and lives
        ``ttl`` seconds from then (what a fixed-window rate limit needs). A step of -1 gives back a count taken
        before (a reservation that turned out not to be spent), without moving the counter's end."""
        ...

    async def purge(self) -> int:
        """Drop expired entries; returns how many were dropped."""
        ...

    async def publish(self, channel: str, message: bytes) -> int:
        """Deliver ``message`` to every current subscriber of ``channel`` on any instance sharing the store; returns
        how many instances heard it (0: nobody listens there). Messages are not kept."""
        ...

    async def subscribe(self, channel: str, handler: MessageHandler) -> Subscription:
        """Call ``handler`` with each message published on ``channel`` from now on, in order, until closed."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


class Subscription:
    """One handler's subscription to a channel; :meth:`close` ends it."""

    def __init__(self, handlers: dict[str, list[MessageHandler]], channel: str, handler: MessageHandler) -> None:
        self._handlers = handlers
        self._channel = channel
        self._handler = handler
        handlers.setdefault(channel, []).append(handler)

    @property
    def channel(self) -> str:
        """The channel subscribed to."""
        return self._channel

    def last(self) -> bool:
        """Remove the handler; True when no other subscription of the process is left on its channel."""
        handlers = self._handlers.get(self._channel, [])
        if self._handler in handlers:
            handlers.remove(self._handler)
        if handlers:
            return False
        self._handlers.pop(self._channel, None)
        return True

    async def close(self) -> None:
        """Stop delivering messages to the handler."""
        self.last()


def _deliver(handlers: list[MessageHandler], message: bytes) -> int:
    for handler in handlers:
        try:
            handler(message)
        except Exception:
            log.exception("a subscriber failed on a published message")
    return len(handlers)


@contextlib.asynccontextmanager
async def store_lock(store: Store, name: str, *, ttl: float = 30.0, wait: float = 30.0) -> AsyncIterator[None]:
    """Hold a lock shared by every instance on ``store`` (it expires after ``ttl`` if its holder dies)."""
    token = uuid.uuid4().bytes
    deadline = time.monotonic() + wait
    while not await store.add("lock", name, token, ttl):
        if time.monotonic() > deadline:
            raise DesignError(ErrorCode.TIMEOUT, f"Waited {wait:.0f} s for a lock held by another request.", "Retry.")
        await asyncio.sleep(LOCK_POLL)
    try:
        yield
    finally:
        if await store.get("lock", name) == token:
            await store.delete("lock", name)


class SqliteStore:
    """The store in one SQLite file; calls run in a thread so the event loop never waits on the disk.

    One thread of its own runs every statement, in the order they were asked for, and at last the closing: a caller
    cancelled while its statement runs stops waiting, but the statement runs to its end before the connection is
    closed under it (closing it mid-statement crashes the process).
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
        path.chmod(0o600)
        # Pages freed by deletes go back to the file system (each purge gives them back): without it the file keeps
        # its largest size for good. A database made without it is converted once, by a VACUUM.
        if self._db.execute("PRAGMA auto_vacuum").fetchone()[0] != INCREMENTAL:
            self._db.execute(f"PRAGMA auto_vacuum={INCREMENTAL}")
            self._db.execute("VACUUM")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS entries (kind TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, "
            "expires REAL, PRIMARY KEY (kind, key))"
        )
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-store")
        self._closed = False
        self._handlers: dict[str, list[MessageHandler]] = {}

    async def _in_thread(self, work: Callable[[], _T]) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, work)

    async def _run(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        return await self._in_thread(lambda: self._db.execute(sql, params).fetchall())

    @staticmethod
    def _expiry(ttl: float | None) -> float | None:
        return None if ttl is None else time.time() + ttl

    async def put(self, kind: str, key: str, value: bytes, ttl: float | None = None) -> None:
        await self._run(
            "INSERT OR REPLACE INTO entries (kind, key, value, expires) VALUES (?, ?, ?, ?)",
            kind,
            key,
            value,
            self._expiry(ttl),
        )

    async def add(self, kind: str, key: str, value: bytes, ttl: float | None = None) -> bool:
        # An expired entry is replaced; a live one is left alone and reports that nothing was written.
        rows = await self._run(
            "INSERT INTO entries (kind, key, value, expires) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (kind, key) DO UPDATE SET value = excluded.value, expires = excluded.expires "
            "WHERE entries.expires IS NOT NULL AND entries.expires <= ? RETURNING 1",
            kind,
            key,
            value,
            self._expiry(ttl),
            time.time(),
        )
        return bool(rows)

    async def get(self, kind: str, key: str) -> bytes | None:
        rows = await self._run(
            "SELECT value FROM entries WHERE kind = ? AND key = ? AND (expires IS NULL OR expires > ?)",
            kind,
            key,
            time.time(),
        )
        return bytes(rows[0][0]) if rows else None

    async def take(self, kind: str, key: str) -> bytes | None:
        rows = await self._run("DELETE FROM entries WHERE kind = ? AND key = ? RETURNING value, expires", kind, key)
        if not rows:
            return None
        value, expires = rows[0]
        if expires is not None and float(expires) <= time.time():
            return None
        return bytes(value)

    async def delete(self, kind: str, key: str) -> None:
        await self._run("DELETE FROM entries WHERE kind = ? AND key = ?", kind, key)

    async def count(self, kind: str, key: str, ttl: float, step: int = 1) -> int:
        now = time.time()
        rows = await self._run(
            "INSERT INTO entries (kind, key, value, expires) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (kind, key) DO UPDATE SET "
            "value = CASE WHEN entries.expires <= ? THEN excluded.value "
            "ELSE CAST(entries.value AS INTEGER) + excluded.value END, "
            "expires = CASE WHEN entries.expires <= ? THEN excluded.expires ELSE entries.expires END "
            "RETURNING value",
            kind,
            key,
            step,
            now + ttl,
            now,
            now,
        )
        return int(rows[0][0])

    async def purge(self) -> int:
        rows = await self._run(
            "DELETE FROM entries WHERE expires IS NOT NULL AND expires <= ? RETURNING 1", time.time()
        )
        if rows:
            await self._reclaim()
        return len(rows)

    async def _reclaim(self) -> None:
        # As a script: run as one statement, the vacuum frees a single page per step; the freed pages leave the main
        # file when the log is copied back into it.
        await self._in_thread(lambda: self._db.executescript(RECLAIM))

    async def publish(self, channel: str, message: bytes) -> int:
        # One instance per SQLite file serves plugins, so its subscribers are all in this process: one instance.
        return min(1, _deliver(list(self._handlers.get(channel, ())), message))

    async def subscribe(self, channel: str, handler: MessageHandler) -> Subscription:
        return Subscription(self._handlers, channel, handler)

    async def close(self) -> None:
        self._handlers.clear()
        if not self._closed:
            self._closed = True
            # Behind every statement already asked for, those whose callers were cancelled included.
            await self._in_thread(self._db.close)
            self._thread.shutdown(wait=False)


class RedisStore:
    """The store in Redis: lifetimes are Redis expiries, single use is ``GETDEL``, locks are ``SET NX``."""

    def __init__(self, url: str, prefix: str = "design-console:") -> None:
        import redis.asyncio

        self._redis = redis.asyncio.Redis.from_url(url)
        self._prefix = prefix
        self._handlers: dict[str, list[MessageHandler]] = {}
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None

    def _key(self, kind: str, key: str) -> str:
        return f"{self._prefix}{kind}:{key}"

    @staticmethod
    def _px(ttl: float | None) -> int | None:
        return None if ttl is None else max(1, int(ttl * 1000))

    async def put(self, kind: str, key: str, value: bytes, ttl: float | None = None) -> None:
        await self._redis.set(self._key(kind, key), value, px=self._px(ttl))

    async def add(self, kind: str, key: str, value: bytes, ttl: float | None = None) -> bool:
        return bool(await self._redis.set(self._key(kind, key), value, px=self._px(ttl), nx=True))

    async def get(self, kind: str, key: str) -> bytes | None:
        return cast(bytes | None, await self._redis.get(self._key(kind, key)))

    async def take(self, kind: str, key: str) -> bytes | None:
        return cast(bytes | None, await self._redis.getdel(self._key(kind, key)))

    async def delete(self, kind: str, key: str) -> None:
        await self._redis.delete(self._key(kind, key))

    async def count(self, kind: str, key: str, ttl: float, step: int = 1) -> int:
        name = self._key(kind, key)
        async with self._redis.pipeline(transaction=True) as pipe:
            # NX: only the first count of a window sets its expiry.
            pipe.incrby(name, step)
            pipe.pexpire(name, self._px(ttl) or 1, nx=True)
            counted, _ = await pipe.execute()
        return int(counted)

    async def publish(self, channel: str, message: bytes) -> int:
        return int(await self._redis.publish(self._prefix + channel, message))

    async def subscribe(self, channel: str, handler: MessageHandler) -> Subscription:
        if self._pubsub is None:
            self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        subscription = _RedisSubscription(self, channel, handler)
        if len(self._handlers[channel]) == 1:
            await self._pubsub.subscribe(self._prefix + channel)
        if self._reader is None:
            self._reader = asyncio.ensure_future(self._read())
        return subscription

    async def _read(self) -> None:
        """Hand each message of the subscribed channels to their handlers, as it arrives, while any is subscribed."""
        try:
            while self._pubsub.subscribed:
                try:
                    async for message in self._pubsub.listen():
                        if message["type"] == "message":
                            channel = message["channel"].decode().removeprefix(self._prefix)
                            _deliver(list(self._handlers.get(channel, ())), message["data"])
                except asyncio.CancelledError:
                    raise
                except Exception:
                    # A dropped connection: redis-py connects and subscribes again on the next read.
                    log.exception("reading published messages from Redis failed; reading again")
                    await asyncio.sleep(LOCK_POLL)
        finally:
            self._reader = None

    async def unsubscribe(self, channel: str) -> None:
        """Stop receiving ``channel`` (its last subscription of this process closed)."""
        if self._pubsub is not None:
            await self._pubsub.unsubscribe(self._prefix + channel)

    async def purge(self) -> int:
        # Redis drops expired keys itself.
        return 0

    async def close(self) -> None:
        self._handlers.clear()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        await self._redis.aclose()


class _RedisSubscription(Subscription):
    def __init__(self, store: RedisStore, channel: str, handler: MessageHandler) -> None:
        super().__init__(store._handlers, channel, handler)
        self._store = store

    async def close(self) -> None:
        if self.last():
            await self._store.unsubscribe(self.channel)


def open_store(url: str) -> Store:
    """The store a ``DESIGN_REMOTE_STORE`` URL names: ``sqlite:///<path>`` or ``redis://…``."""
    if url.startswith("sqlite:///"):
        return SqliteStore(Path(url.removeprefix("sqlite://")))
    return RedisStore(url)
