"""The plugin-command client every host uses: replies matched by id and by peer, deadlines from the plugin contract,
CANCEL on timeout and on a caller that gives up, progress passed on in order before the result, uniform errors."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from design_console.bridge_frames import decode_frame
from design_console.clients import plugin_link
from design_console.clients.plugin_link import PluginLink, ReplyOutcome
from design_console.errors import DesignError, ErrorCode


class FakePeer:
    """A peer that keeps the frames sent to it; the test plays the plugin by resolving them."""

    def __init__(self, label: str = "'Test' (k1)") -> None:
        self.label = label
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.stuck = False
        self.reachable = True
        self.unsent_called: list[str] = []

    async def send(self, frame: bytes, method: str) -> None:
        if self.stuck:
            await asyncio.Event().wait()
        self.frames.put_nowait(json.loads(frame))

    async def cancel(self, frame: bytes) -> bool:
        if not self.reachable:
            return False
        self.frames.put_nowait(json.loads(frame))
        return True

    def unsent(self, method: str, wait: float) -> DesignError:
        self.unsent_called.append(method)
        return plugin_link.stalled_error(self.label, method, wait)


def reply(cid: str, body: dict[str, Any]) -> Any:
    return decode_frame(json.dumps({"id": cid, **body}), {"surrogatesReplaced": 0})


@pytest.fixture
def counters() -> dict[str, int]:
    return {}


@pytest.fixture
def link(counters: dict[str, int]) -> PluginLink:
    return PluginLink(counters, id_prefix="t-", outdated_hint="re-import the plugin.")


async def test_a_reply_reaches_its_command_and_only_from_its_peer(link: PluginLink, counters: dict[str, int]) -> None:
    peer, other = FakePeer(), FakePeer("'Other' (k2)")
    call = asyncio.ensure_future(link.call(peer, "GET_SELECTION", {"a": 1}, timeout=5))
    sent = await peer.frames.get()
    assert sent["method"] == "GET_SELECTION" and sent["params"] == {"a": 1}
    assert link.busy(peer) and not link.busy(other) and len(link) == 1
    assert link.resolve(other, reply(sent["id"], {"result": {"success": True, "n": 2}})) is ReplyOutcome.WRONG_PEER
    assert link.resolve(peer, reply("t-999", {"result": {}})) is ReplyOutcome.UNKNOWN
    assert not call.done()
    assert link.resolve(peer, reply(sent["id"], {"result": {"success": True, "n": 1}})) is ReplyOutcome.ACCEPTED
    assert await call == {"success": True, "n": 1}
    assert len(link) == 0
    assert counters["commandsSent"] == 1
    assert counters["wrongFileReplies"] == 1 and counters["unknownReplies"] == 1


async def test_a_timeout_sends_a_cancel_and_a_late_reply_is_told_apart(
    link: PluginLink, counters: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Timeout 0 takes the method's own from the plugin contract.
    monkeypatch.setattr(plugin_link, "command_timeout", lambda method, params: 0.2)
    peer = FakePeer()
    with pytest.raises(DesignError) as caught:
        await link.call(peer, "EXECUTE_CODE", {"code": "1"})
    assert caught.value.code is ErrorCode.TIMEOUT
    assert "EXECUTE_CODE sent to 'Test' (k1) got no answer within 0.2 s; a CANCEL was sent." in str(caught.value)
    command, cancel = peer.frames.get_nowait(), peer.frames.get_nowait()
    assert cancel["method"] == "CANCEL" and cancel["params"] == {"target": command["id"]}
    assert link.resolve(peer, reply(cancel["id"], {"result": {"success": True}})) is ReplyOutcome.CANCEL_ACK
    assert link.resolve(peer, reply(command["id"], {"result": {"success": True}})) is ReplyOutcome.LATE
    assert counters["commandsTimedOut"] == 1 and counters["lateRepliesDropped"] == 1


async def test_a_timeout_says_when_the_cancel_could_not_go(link: PluginLink) -> None:
    peer = FakePeer()
    peer.reachable = False
    with pytest.raises(DesignError, match="and the plugin is no longer connected"):
        await link.call(peer, "GET_SELECTION", timeout=0.1)


async def test_a_caller_that_gives_up_cancels_the_command_in_the_plugin(link: PluginLink) -> None:
    peer = FakePeer()
    call = asyncio.ensure_future(link.call(peer, "BATCH", timeout=30))
    command = await peer.frames.get()
    call.cancel()
    cancel = await asyncio.wait_for(peer.frames.get(), 5)
    assert cancel["method"] == "CANCEL" and cancel["params"] == {"target": command["id"]}
    assert link.resolve(peer, reply(command["id"], {"result": {}})) is ReplyOutcome.LATE


async def test_a_peer_that_does_not_take_the_frame_answers_for_it(link: PluginLink) -> None:
    peer = FakePeer()
    peer.stuck = True
    with pytest.raises(DesignError, match=r"stopped reading, so SET_IMAGE_FILL could not be sent within 0\.1 s"):
        await link.call(peer, "SET_IMAGE_FILL", timeout=0.1)
    assert peer.unsent_called == ["SET_IMAGE_FILL"]
    assert peer.frames.empty(), "no CANCEL for a command that never went out"


async def test_progress_arrives_in_order_and_before_the_result(link: PluginLink) -> None:
    peer = FakePeer()
    heard: list[tuple[float, float | None, str]] = []

    async def slow_report(done: float, total: float | None, message: str) -> None:
        # The first report is the slowest: order must not depend on how long each takes.
        await asyncio.sleep(0.05 if done == 1 else 0)
        heard.append((done, total, message))

    call = asyncio.ensure_future(link.call(peer, "BATCH", timeout=5, progress=slow_report))
    cid = (await peer.frames.get())["id"]
    link.progress(peer, cid, 1, 3, "one")
    link.progress(FakePeer(), cid, 9, 9, "from another peer")
    link.progress(peer, cid, 2, 3, "x" * 500)
    link.resolve(peer, reply(cid, {"result": {"success": True}}))
    assert await call == {"success": True}
    assert heard == [(1, 3, "one"), (2, 3, "x" * plugin_link.PROGRESS_CHARS)]


async def test_a_failing_peer_ends_only_its_own_commands(link: PluginLink) -> None:
    peer, other = FakePeer(), FakePeer("'Other' (k2)")
    first = asyncio.ensure_future(link.call(peer, "A", timeout=5))
    second = asyncio.ensure_future(link.call(other, "B", timeout=5))
    await peer.frames.get()
    cid = (await other.frames.get())["id"]
    link.fail_peer(peer, plugin_link.interrupted_error(peer.label, "reconnected"))
    with pytest.raises(DesignError, match="The plugin in 'Test' \\(k1\\) reconnected while the command was running"):
        await first
    assert not second.done()
    link.resolve(other, reply(cid, {"result": {"ok": 1}}))
    assert await second == {"ok": 1}


@pytest.mark.parametrize(
    ("body", "code", "text", "hint"),
    [
        ({"error": "Node 1:2 not found"}, ErrorCode.PLUGIN_ERROR, "X failed in 'Test' (k1): Node 1:2 not found", "Fix"),
        ({"error": "Unknown method: X", "code": "E1"}, ErrorCode.PLUGIN_ERROR, "method: X (code E1)", "lacks X"),
        ({"result": {"success": False, "error": "nope"}}, ErrorCode.PLUGIN_ERROR, "X failed in 'Test' (k1): nope", ""),
        ({"result": [1]}, ErrorCode.BAD_REPLY, "answered X with an unusable reply: a list instead", "Update"),
    ],
)
async def test_replies_that_are_failures_read_the_same_for_every_host(
    link: PluginLink, body: dict[str, Any], code: ErrorCode, text: str, hint: str
) -> None:
    peer = FakePeer()
    call = asyncio.ensure_future(link.call(peer, "X", timeout=5))
    link.resolve(peer, reply((await peer.frames.get())["id"], body))
    with pytest.raises(DesignError) as caught:
        await call
    assert caught.value.code is code and text in caught.value.message and hint in caught.value.hint
    if "lacks" in hint:
        assert caught.value.hint.endswith("re-import the plugin.")


async def test_close_fails_what_is_in_flight(link: PluginLink) -> None:
    peer = FakePeer()
    call = asyncio.ensure_future(link.call(peer, "A", timeout=30))
    await peer.frames.get()
    await link.close(DesignError(ErrorCode.DISCONNECTED, "shutting down"))
    with pytest.raises(DesignError, match="shutting down"):
        await call


async def test_params_encoded_already_go_out_as_they_are(link: PluginLink) -> None:
    # A worker's command (a token import's change set) crosses designd as the JSON the worker wrote.
    peer = FakePeer()
    params = {"values": [{"variable": "v1", "mode": "Light", "value": {"r": 0.5, "g": 0, "b": 1, "a": 1}}] * 3}
    call = asyncio.ensure_future(
        link.call(peer, "APPLY_TOKEN_CHANGES", {}, timeout=5, params_json=json.dumps(params).encode())
    )
    sent = await peer.frames.get()
    assert sent["method"] == "APPLY_TOKEN_CHANGES" and sent["params"] == params
    link.resolve(peer, reply(sent["id"], {"result": {"success": True}}))
    assert await call == {"success": True}
