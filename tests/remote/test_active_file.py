"""The file a user's paired plugin runs in, as the relay keeps it: recorded by the instance holding the plugin's socket
when the plugin names it, read by any instance from memory until one says it changed, gone with the plugin."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from helpers import wait_until

from design_console.remote.relay import BROADCAST, Relays
from design_console.remote.store import RedisStore, Store

from .test_relay_routing import attach, config

WAIT_SECONDS = 15.0


async def eventually(probe: Callable[[], Awaitable[Any]], holds: Callable[[Any], bool], what: str) -> Any:
    """Ask ``probe`` again until its answer ``holds``; fail after WAIT_SECONDS."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        answer = await probe()
        if holds(answer):
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last answer: {answer}")
        await asyncio.sleep(0.05)


def file_info(key: str, name: str) -> str:
    return json.dumps({"type": "FILE_INFO", "data": {"fileKey": key, "fileName": name, "editorType": "figma"}})


async def test_a_file_told_on_one_instance_is_read_on_another_from_memory_until_it_changes(redis_url: str) -> None:
    stores: list[Store] = [RedisStore(redis_url), RedisStore(redis_url)]
    reader, owner = Relays(config(), stores[0]), Relays(config(), stores[1])
    for relays in (reader, owner):
        await relays.start()
    try:
        await stores[0].put("relay-binding", "dana", b"relay-f")
        await stores[0].put("relay", "relay-f", json.dumps({"subject": "dana", "credential": "c"}).encode())
        await stores[0].put("relay-owner", "relay-f", owner.instance.encode())
        plugin = attach(owner, "relay-f")
        assert plugin.session is not None
        assert await reader.active_file("dana") is None
        heard = reader._file_forgets
        owner._on_message(plugin.session, file_info("fileOne", "One"))
        await wait_until(lambda: reader._file_forgets > heard, what="the reader to hear of the file")
        pairing = await reader.pairing("dana")
        assert pairing is not None
        assert (pairing.file_key, pairing.file_name, pairing.connected) == ("fileOne", "One", True)
        assert await reader.active_file("dana") == "fileOne"
        # Remembered: a change no instance announced is not read.
        await stores[0].put("relay-file", "relay-f", json.dumps({"key": "unannounced"}).encode())
        assert await reader.active_file("dana") == "fileOne"
        # The plugin names another file: the owner records it and every instance forgets what it remembered.
        owner._on_message(plugin.session, file_info("fileTwo", "Two"))
        await eventually(lambda: reader.active_file("dana"), lambda key: key == "fileTwo", "the new file")
        # Its plugin let go of the relay: the file is forgotten with it.
        await stores[0].delete("relay-file", "relay-f")
        await stores[0].publish(BROADCAST, json.dumps({"op": "released", "cid": "relay-f"}).encode())
        await eventually(lambda: reader.active_file("dana"), lambda key: key is None, "the file to be forgotten")
    finally:
        for relays in (reader, owner):
            await relays.close()
        for store in stores:
            await store.close()
