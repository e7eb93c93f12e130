"""How the relay routes a command, in process: from memory rather than the store on every call, forgetting a user's
old relay the moment a new pairing is made on any instance, and a forwarded command cancelled in the plugin when the
instance that forwarded it gives up."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fakes.relay_socket import attach, config

from design_console.errors import DesignError, ErrorCode
from design_console.remote.relay import BROADCAST, Relays
from design_console.remote.store import RedisStore, SqliteStore, Store


class CountingStore(SqliteStore):
    """A SQLite store that counts its reads."""

    reads = 0

    async def get(self, kind: str, key: str) -> bytes | None:
        self.reads += 1
        return await super().get(kind, key)


@pytest.fixture
async def counting(tmp_path: Path) -> AsyncIterator[tuple[Relays, CountingStore]]:
    store = CountingStore(tmp_path / "store.sqlite3")
    relays = Relays(config(), store)
    await relays.start()
    try:
        yield relays, store
    finally:
        await relays.close()
        await store.close()


async def test_calls_reach_a_plugin_on_this_instance_without_reading_the_store_each_time(
    counting: tuple[Relays, CountingStore],
) -> None:
    relays, store = counting
    await store.put("relay-binding", "alice", b"relay-1")
    attach(relays, "relay-1")
    for number in range(20):
        result = await relays.command("alice", "EXECUTE_CODE", {"code": f"return {number}"})
        assert result["ran"] == f"return {number}"
    assert store.reads == 1


async def test_a_new_pairing_is_heard_at_once(counting: tuple[Relays, CountingStore]) -> None:
    relays, store = counting
    await store.put("relay-binding", "alice", b"relay-1")
    attach(relays, "relay-1")
    second = attach(relays, "relay-2")
    await relays.command("alice", "EXECUTE_CODE", {"code": "first"})
    assert second.received.empty()
    # Alice paired again (on whichever instance): the binding moves and the pairing is announced.
    await store.put("relay-binding", "alice", b"relay-2")
    await store.publish(BROADCAST, json.dumps({"op": "rebind", "cid": "alice"}).encode())
    await relays.command("alice", "EXECUTE_CODE", {"code": "second"})
    assert (await second.received.get())["params"] == {"code": "second"}


async def test_a_user_without_a_binding_is_told_to_pair(counting: tuple[Relays, CountingStore]) -> None:
    relays, _ = counting
    with pytest.raises(DesignError) as caught:
        await relays.command("bob", "EXECUTE_CODE", {"code": "1"})
    assert caught.value.code is ErrorCode.NOT_CONNECTED and "design_pair_plugin" in caught.value.hint


async def test_a_forwarded_command_is_cancelled_in_the_plugin_when_its_origin_gives_up(redis_url: str) -> None:
    stores: list[Store] = [RedisStore(redis_url), RedisStore(redis_url)]
    origin, owner = Relays(config(), stores[0]), Relays(config(), stores[1])
    for relays in (origin, owner):
        await relays.start()
    try:
        await stores[0].put("relay-binding", "carol", b"relay-x")
        await stores[0].put("relay-owner", "relay-x", owner.instance.encode())
        plugin = attach(owner, "relay-x")
        answered = await origin.command("carol", "EXECUTE_CODE", {"code": "across"})
        assert answered["ran"] == "across"
        assert (await plugin.received.get())["method"] == "EXECUTE_CODE"
        plugin.silent = True
        with pytest.raises(DesignError) as caught:
            await origin.command("carol", "GET_SELECTION", timeout=0.5)
        assert caught.value.code is ErrorCode.TIMEOUT and "a CANCEL was sent" in caught.value.message
        command = await asyncio.wait_for(plugin.received.get(), 5)
        cancel = await asyncio.wait_for(plugin.received.get(), 5)
        assert cancel["method"] == "CANCEL" and cancel["params"] == {"target": command["id"]}
        assert owner._forwarded == {}
    finally:
        for relays in (origin, owner):
            await relays.close()
        for store in stores:
            await store.close()
