"""Pairing and the relay on two instances sharing one Redis: one success among a hundred racing redemptions of one
code, commands from a session on one instance to a plugin held by the other, refusals of replayed, expired and
unknown codes and of another user, the binding kept across token refresh, the per-address rate limit, and the
server-wide budget of guesses, which a flood from many addresses spends without delaying a live code."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fakes.api_server import ApiServer
from fakes.relay_client import handshake, redeem, ws_url
from fakes.remote import (
    FakePlatform,
    RemoteServer,
    bearer,
    clear_of_minute_end,
    oauth_env,
    remote_env,
    running_remotes,
    sign_in,
)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosedError

from design_console.remote.relay import CODE_ALPHABET, CODE_LENGTH, CODE_SECONDS
from design_console.remote.store import RedisStore


@contextmanager
def two_instances(
    tmp_path: Path, api_url: str, platform: FakePlatform, redis_url: str, **extra: str
) -> Iterator[tuple[RemoteServer, RemoteServer]]:
    # Each test starts from an empty store: the rate limit counts every attempt from 127.0.0.1.
    with redis.Redis.from_url(redis_url) as plain:
        plain.flushdb()
    shared = {**oauth_env(platform), "DESIGN_REMOTE_STORE": redis_url, **extra}
    first_env = remote_env(tmp_path / "a", api_url, **shared)
    second_env = remote_env(tmp_path / "b", api_url, **shared)
    second_env["DESIGN_REMOTE_BASE_URL"] = first_env["DESIGN_REMOTE_BASE_URL"]
    with running_remotes(first_env, second_env) as (first, second):
        yield first, second


@asynccontextmanager
async def mcp(server: RemoteServer, token: str) -> AsyncIterator[Client]:
    http = bearer(token)
    async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as client:
        yield client


def text(result: Any) -> str:
    return str(result.content[0].text)


async def pair_code(server: RemoteServer, token: str) -> str:
    async with mcp(server, token) as client:
        result = await client.call_tool("design_pair_plugin", {})
    assert not result.is_error, text(result)
    answer = json.loads(text(result))
    assert answer["expiresInSeconds"] == CODE_SECONDS and answer["code"] in answer["instructions"]
    return str(answer["code"])


async def serve_commands(ws: ClientConnection, file_name: str) -> None:
    """Play the plugin after its handshake: identify the file, answer EXECUTE_CODE with the code it ran after a
    PROGRESS frame for it."""
    info = {"fileName": file_name, "fileKey": "relayFile", "editorType": "figma", "pluginVersion": "0.1.0"}
    await ws.send(json.dumps({"type": "FILE_INFO", "data": info}))
    async for raw in ws:
        frame = json.loads(raw)
        if frame.get("method") == "EXECUTE_CODE":
            progress = {"id": frame["id"], "progress": 1, "total": 2, "message": "half way"}
            await ws.send(json.dumps({"type": "PROGRESS", "data": progress}))
            reply = {"success": True, "result": {"ran": frame["params"]["code"]}}
            await ws.send(json.dumps({"id": frame["id"], "result": reply}))


async def redeem_from(url: str, code: str, source: str) -> dict[str, Any]:
    """Present ``code`` from the loopback address ``source`` (Linux answers on the whole of 127.0.0.0/8): each source
    is another client address to the service."""
    async with connect(f"{ws_url(url)}?code={code}", local_addr=(source, 0)) as ws:
        first: dict[str, Any] = json.loads(await ws.recv())
        return first


def guesses(planted: str) -> Iterator[str]:
    """Codes in the shape of real ones, none of them ``planted``."""
    while True:
        code = "".join(random.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if code != planted:
            yield code


def codes_checked(redis_url: str) -> int:
    """How many codes the instances looked up in the store so far: a redemption is one GETDEL of its code."""
    with redis.Redis.from_url(redis_url) as plain:
        stats: dict[str, Any] = plain.info("commandstats")
    return int(stats.get("cmdstat_getdel", {}).get("calls", 0))


async def test_one_of_a_hundred_racing_redemptions_wins(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url, DESIGN_RELAY_PAIR_ATTEMPTS="1000") as (
        first,
        second,
    ):
        _, tokens = sign_in(first, platform, "8001")
        code = await pair_code(first, tokens["access_token"])
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
        started = time.perf_counter()
        answers = await asyncio.gather(*(redeem((first, second)[i % 2].url, code) for i in range(100)))
        elapsed = time.perf_counter() - started
        paired = [a for a in answers if a["type"] == "PAIRED"]
        refused = [a["data"]["reason"] for a in answers if a["type"] == "PAIR_REFUSED"]
        assert len(paired) == 1, answers
        assert refused == ["code_used"] * 99
        assert elapsed < 30


async def test_commands_cross_instances_and_only_the_pairing_user_reaches_the_plugin(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url) as (first, second):
        client_id, alice = sign_in(first, platform, "8101")
        _, bob = sign_in(first, platform, "8102")
        code = await pair_code(first, alice["access_token"])
        # The plugin's socket lands on the second instance; the AI client's session is on the first.
        async with connect(f"{ws_url(second.url)}?code={code}") as ws:
            paired = json.loads(await ws.recv())
            assert paired["type"] == "PAIRED"
            credential = paired["data"]["credential"]
            await handshake(ws, credential)
            plugin = asyncio.create_task(serve_commands(ws, "Relay File"))
            try:
                reported: list[tuple[float, float | None, str | None]] = []

                async def on_progress(done: float, total: float | None, message: str | None) -> None:
                    reported.append((done, total, message))

                async with mcp(first, alice["access_token"]) as client:
                    result = await client.call_tool(
                        "design_execute", {"code": "return 7"}, progress_callback=on_progress
                    )
                assert not result.is_error, text(result)
                assert json.loads(text(result))["result"] == {"ran": "return 7"}
                # The plugin's progress crossed back to the AI client's instance too.
                assert reported == [(1, 2, "half way")]
                # Another user has no relay: the plugin is out of reach, on either instance.
                for server in (first, second):
                    async with mcp(server, bob["access_token"]) as client:
                        refused = await client.call_tool("design_execute", {"code": "return 1"})
                    assert refused.is_error and "No Desktop Bridge plugin is paired" in text(refused)
                # A refreshed bearer token is still the same user: the binding follows the identity.
                refreshed = httpx.post(
                    f"{first.url}/token",
                    data={
                        "grant_type": "refresh_token",
                        "refresh_token": alice["refresh_token"],
                        "client_id": client_id,
                        "resource": f"{first.public}/mcp",
                    },
                )
                assert refreshed.status_code == 200, refreshed.text
                async with mcp(second, refreshed.json()["access_token"]) as client:
                    again = await client.call_tool("design_execute", {"code": "return 8"})
                assert not again.is_error, text(again)
            finally:
                plugin.cancel()
        # Nothing of the design was kept: no entry of the store holds what the plugin answered; and the reconnect
        # credential is sealed at rest.
        with redis.Redis.from_url(redis_url) as plain:
            values = [plain.get(key) or b"" for key in plain.scan_iter()]
        kept = (b"return 7", b"Relay File", credential.encode())
        assert values and not any(secret in value for value in values for secret in kept)
        # The code is spent: presenting it again is refused, on either instance.
        for server in (first, second):
            replay = await redeem(server.url, code)
            assert replay["type"] == "PAIR_REFUSED" and replay["data"]["reason"] == "code_used"


async def test_expired_unknown_codes_and_wrong_credentials_are_refused(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url) as (first, _):
        _, tokens = sign_in(first, platform, "8201")
        code = await pair_code(first, tokens["access_token"])
        # Five minutes pass for this code: its entry lapses and the store remembers when it was issued.
        store = RedisStore(redis_url)
        try:
            await store.delete("pair-code", code)
            await store.put("pair-issued", code, str(time.time() - CODE_SECONDS - 1).encode())
        finally:
            await store.close()
        expired = await redeem(first.url, code)
        assert expired["data"] == {
            "reason": "code_expired",
            "message": "This pairing code expired (codes last 5 minutes). Ask the AI for a new one.",
        }
        unknown = await redeem(first.url, "AAAAAA")
        assert unknown["data"]["reason"] == "code_unknown"
        # Coming back to a relay needs its credential: a HELLO keyed by anything else is closed with 4401.
        fresh = await pair_code(first, tokens["access_token"])
        relay = (await redeem(first.url, fresh))["data"]["relay"]
        async with connect(f"{ws_url(first.url)}?relay={relay}") as ws:
            with pytest.raises(ConnectionClosedError):
                await handshake(ws, "not-the-credential")
            assert ws.close_code == 4401


async def test_attempts_are_rate_limited_per_address(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url, DESIGN_RELAY_PAIR_ATTEMPTS="3") as (
        first,
        second,
    ):
        # The window is shared by the instances: three attempts on either, then refusals on both.
        reasons = [(await redeem((first, second)[i % 2].url, "CCCCCC"))["data"]["reason"] for i in range(5)]
        assert reasons == ["code_unknown"] * 3 + ["rate_limited"] * 2


async def test_unknown_codes_spend_a_budget_shared_by_every_address_and_instance(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    budget = 4
    with two_instances(
        tmp_path,
        fake_api_server.url,
        platform,
        redis_url,
        DESIGN_RELAY_PAIR_BUDGET=str(budget),
        DESIGN_RELAY_PAIR_ATTEMPTS="1000",
    ) as (first, second):
        _, tokens = sign_in(first, platform, "8301")
        used = await pair_code(first, tokens["access_token"])
        assert (await redeem(first.url, used))["type"] == "PAIRED"
        # A code that was issued and used is no guess: presenting it again spends nothing, and is no failure.
        for _ in range(5):
            assert (await redeem(second.url, used))["data"]["reason"] == "code_used"
        valid = await pair_code(first, tokens["access_token"])
        clear_of_minute_end()
        checked = codes_checked(redis_url)
        guess = guesses(valid)
        # Four sockets at once from one address: one of its guesses is checked in the half of the budget for
        # addresses that have not failed, the others in the half for those that have (2 of 4), then it waits.
        flooder, fresh, late = "127.0.0.2", "127.0.0.3", "127.0.0.4"
        reasons = await asyncio.gather(
            *(redeem_from((first, second)[i % 2].url, next(guess), flooder) for i in range(4))
        )
        assert sorted(answer["data"]["reason"] for answer in reasons) == ["busy"] + ["code_unknown"] * 3
        # Another address has its guess checked at once: the flooder took one place in that half, not four.
        assert (await redeem_from(second.url, next(guess), fresh))["data"]["reason"] == "code_unknown"
        # The budget is spent: whatever the number of addresses, no more codes are checked this minute, so every
        # redemption waits, a valid code included, on either instance.
        for server, source in ((first, late), (second, flooder), (first, fresh)):
            busy = (await redeem_from(server.url, valid, source))["data"]
            assert busy["reason"] == "busy"
            assert 0 < busy["retryAfter"] <= 60
            assert f"try again in {busy['retryAfter']} s" in busy["message"]
        assert codes_checked(redis_url) - checked == budget
        logged = first.stderr() + second.stderr()
        assert "unknown pairing codes were tried this minute by addresses that failed before" in logged
        assert "unknown pairing codes were tried this minute by addresses that had not failed" in logged
        # The minute ends (as time would end it): the valid code, untouched by the refusals, pairs, even from the
        # address that flooded.
        with redis.Redis.from_url(redis_url) as plain:
            plain.delete(*plain.keys("*pair-checks*"))
        assert (await redeem_from(second.url, valid, flooder))["type"] == "PAIRED"


async def test_a_flood_of_guesses_from_many_addresses_neither_delays_a_live_code_nor_wins_it(
    fake_api_server: ApiServer, platform: FakePlatform, redis_url: str, tmp_path: Path
) -> None:
    # Half the budget is for addresses that have not failed: 31 flooding addresses and the user's fit in it.
    budget, flooders, rounds = 64, [f"127.0.0.{n}" for n in range(2, 33)], 12
    with two_instances(tmp_path, fake_api_server.url, platform, redis_url, DESIGN_RELAY_PAIR_BUDGET=str(budget)) as (
        first,
        second,
    ):
        _, tokens = sign_in(first, platform, "8401")
        planted = await pair_code(first, tokens["access_token"])
        # The flood takes a few seconds; the budget it spends is this clock minute's.
        clear_of_minute_end(margin=30)
        answers: list[str] = []
        spent = asyncio.Event()
        failed = {source: asyncio.Event() for source in flooders}

        async def flood(index: int, source: str) -> None:
            # Within each address's allowance (DESIGN_RELAY_PAIR_ATTEMPTS, 20 a minute), on either instance.
            for turn, code in zip(range(rounds), guesses(planted), strict=False):
                answer = await redeem_from((first, second)[(index + turn) % 2].url, code, source)
                answers.append(answer["data"]["reason"])
                (spent if answers[-1] == "busy" else failed[source]).set()

        checked = codes_checked(redis_url)
        flooding = [asyncio.create_task(flood(i, source)) for i, source in enumerate(flooders)]
        try:
            # Past the budget, an address that failed waits, even with the right code: the flood cannot win it.
            await asyncio.wait_for(asyncio.gather(spent.wait(), failed[flooders[0]].wait()), 10)
            assert (await redeem_from(second.url, planted, flooders[0]))["data"]["reason"] == "busy"
            # An address that has not failed is checked at once: the live code pairs within a second.
            started = time.perf_counter()
            paired = await redeem_from(first.url, planted, "127.0.0.200")
            took = time.perf_counter() - started
            assert not all(task.done() for task in flooding), "the flood ended before the code was tried"
        finally:
            await asyncio.gather(*flooding)
        assert paired["type"] == "PAIRED", paired
        assert took < 1.0
        assert len(answers) == len(flooders) * rounds
        assert set(answers) == {"code_unknown", "busy"}
        # However many the addresses, the flood had at most the budget's codes checked (and the live code one) ...
        assert answers.count("code_unknown") <= budget
        assert codes_checked(redis_url) - checked <= budget + 1
        # ... and the rest were refused as busy, as every guess past the budget always was.
        assert answers.count("busy") >= 4 * budget
