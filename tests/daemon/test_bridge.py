"""The bridge over real sockets, with fake plugins as its clients."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import sys
import time
from asyncio.subprocess import PIPE
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
from fakes.bridge import TOKEN, BridgeFactory, PluginFactory, make_config
from fakes.fake_plugin import NO_REPLY, FakePlugin, FakePluginError
from helpers import http_request_async, wait_until
from PIL import Image
from procs import DaemonProcess, isolated, make_env
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from design_console import __version__
from design_console.daemon.bridge import Bridge, is_older
from design_console.errors import PREFIX, DesignError
from design_console.plugin_contract import BRIDGE_PROTOCOL, bridge_proof, command_timeout
from design_console.runtime.adverts import Advert, advert_path, now_ms, process_start_time, user_folder, write_advert
from design_console.runtime.ports import COMMAND_WIDTH


async def _connected(bridge: Bridge, key: str) -> None:
    await wait_until(lambda: any(f.file_key == key and f.connected for f in bridge.files()), what=f"file {key}")


async def _plugin(bridge: Bridge, connect_plugin: PluginFactory, key: str = "A", **options: Any) -> FakePlugin:
    plugin = await connect_plugin(bridge, file_key=key, file_name=f"File {key}", **options)
    await _connected(bridge, key)
    return plugin


async def _never_answer(plugin: FakePlugin, params: dict[str, Any]) -> Any:
    return NO_REPLY


# --- handshake and authentication -----------------------------------------------------------------------------


async def test_handshake_identifies_the_file(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    plugin = await _plugin(bridge, connect_plugin)
    hello = plugin.server_hello
    assert hello["port"] == bridge.port and hello["protocol"] == 3 == BRIDGE_PROTOCOL and hello["authRequired"] is True
    assert plugin.server_proven
    assert isinstance(hello["pid"], int) and isinstance(hello["startedAt"], int) and hello["serverVersion"]
    assert bridge.is_connected() and bridge.active_file_key() == "A"
    (info,) = bridge.files()
    assert info.file_name == "File A" and info.authenticated and info.current_page == "Page 1"
    assert info.editor_type == "figma" and info.connected_at > 0
    result = await bridge.command("GET_FILE_INFO")
    assert result["fileInfo"]["fileKey"] == "A"
    assert not any(p.get("type") == "PLUGIN_UPDATE_AVAILABLE" for p in plugin.pushes)


@pytest.mark.parametrize(
    ("options", "counter"),
    [
        ({"token": "wrong-token"}, "failedProofs"),
        ({"hello": "wrong-proof"}, "failedProofs"),
        ({"token": ""}, "failedProofs"),
        ({"send_hello": False}, "unauthenticatedRejects"),
    ],
)
async def test_bad_or_missing_proof_is_closed_4401(
    bridge: Bridge, connect_plugin: PluginFactory, options: dict[str, Any], counter: str
) -> None:
    plugin = await connect_plugin(bridge, file_key="A", **options)
    assert await plugin.wait_closed() == (4401, "authentication required")
    assert bridge.files() == [] and not bridge.is_connected()
    assert bridge.stats()[counter] == 1
    assert not any(p.get("type") == "SERVER_PROOF" for p in plugin.pushes)


async def test_every_socket_gets_a_fresh_nonce_of_at_least_128_bits(
    bridge: Bridge, connect_plugin: PluginFactory
) -> None:
    first = await _plugin(bridge, connect_plugin, "A")
    second = await _plugin(bridge, connect_plugin, "B")
    nonces = [first.server_hello["nonce"], second.server_hello["nonce"]]
    await first.reconnect()
    nonces.append(first.server_hello["nonce"])
    assert len(set(nonces)) == 3
    assert all(len(bytes.fromhex(n)) >= 16 for n in nonces)


async def test_a_protocol_2_plugin_sending_the_token_is_told_to_update_and_refused(
    bridge: Bridge, connect_plugin: PluginFactory, caplog: pytest.LogCaptureFixture
) -> None:
    plugin = await connect_plugin(bridge, file_key="A", hello="token", plugin_version="0.0.9")
    assert await plugin.wait_closed() == (4401, "authentication required")
    update = next(p for p in plugin.pushes if p.get("type") == "PLUGIN_UPDATE_AVAILABLE")
    assert update["pluginVersion"] == "0.0.9"
    assert bridge.files() == [] and bridge.stats()["failedProofs"] == 1
    assert TOKEN not in caplog.text


async def test_a_proof_made_for_another_port_is_refused(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    """A rogue server on another port of the range that relays designd's nonce gets a proof bound to its own port."""
    assert bridge.port is not None
    relayed = await connect_plugin(bridge, file_key="A", proof_port=bridge.port + 1)
    assert await relayed.wait_closed() == (4401, "authentication required")
    assert bridge.files() == [] and bridge.stats()["failedProofs"] == 1


async def test_a_replayed_hello_is_refused(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    """A HELLO seen on one socket does not verify on another: each socket has its own nonce."""
    assert bridge.port is not None
    sent: list[str] = []
    plugin = await _plugin(bridge, connect_plugin)
    original = plugin.send_json

    async def record(message: Any) -> bool:
        sent.append(json.dumps(message))
        return await original(message)

    plugin.send_json = record  # type: ignore[method-assign]
    await plugin.reconnect()
    hello = next(frame for frame in sent if '"HELLO"' in frame)
    async with ws_connect(f"ws://127.0.0.1:{bridge.port}/", origin="null") as ws:  # type: ignore[arg-type]
        await ws.recv()
        await ws.send(hello)
        await asyncio.wait_for(ws.wait_closed(), 5)
        assert (ws.close_code, ws.close_reason) == (4401, "authentication required")
    assert bridge.stats()["failedProofs"] == 1


async def test_auth_off_serves_a_protocol_2_plugin_unauthenticated(
    make_bridge: BridgeFactory, connect_plugin: PluginFactory
) -> None:
    bridge = await make_bridge(DESIGN_BRIDGE_AUTH="off")
    await _plugin(bridge, connect_plugin, hello="token")
    (info,) = bridge.files()
    assert not info.authenticated and bridge.stats()["failedProofs"] == 1


async def test_reply_without_hello_is_closed_4401(bridge: Bridge) -> None:
    assert bridge.port is not None
    async with ws_connect(f"ws://127.0.0.1:{bridge.port}/", origin="null") as ws:  # type: ignore[arg-type]
        await ws.recv()
        await ws.send(json.dumps({"id": "1", "result": {"success": True}}))
        await ws.wait_closed()
        assert (ws.close_code, ws.close_reason) == (4401, "authentication required")


async def test_auth_off_accepts_a_plugin_without_hello(
    make_bridge: BridgeFactory, connect_plugin: PluginFactory
) -> None:
    bridge = await make_bridge(DESIGN_BRIDGE_AUTH="off")
    plugin = await _plugin(bridge, connect_plugin, send_hello=False, token="")
    assert plugin.server_hello["authRequired"] is False
    (info,) = bridge.files()
    assert not info.authenticated
    stats = bridge.stats()
    assert stats["authMode"] == "off" and stats["unauthenticatedFiles"] == 1
    assert bridge.health()["authRequired"] is False
    assert (await bridge.command("EXECUTE_CODE", {"code": "return 3"}))["result"] == 3


async def test_identification_timeout_closes_the_socket(make_bridge: BridgeFactory) -> None:
    bridge = await make_bridge(identify_timeout=0.2)
    async with ws_connect(f"ws://127.0.0.1:{bridge.port}/", origin="null") as ws:  # type: ignore[arg-type]
        server_nonce = json.loads(await ws.recv())["data"]["nonce"]
        nonce = "ab" * 16
        proof = bridge_proof(TOKEN, "plugin", bridge.port, server_nonce, nonce)
        hello = {"pluginVersion": "0.1.0", "protocol": BRIDGE_PROTOCOL, "nonce": nonce, "proof": proof}
        await ws.send(json.dumps({"type": "HELLO", "data": hello}))
        answer = json.loads(await ws.recv())
        assert answer == {
            "type": "SERVER_PROOF",
            "data": {"proof": bridge_proof(TOKEN, "server", bridge.port, nonce, server_nonce)},
        }
        await asyncio.wait_for(ws.wait_closed(), 5)
        assert (ws.close_code, ws.close_reason) == (1000, "File identification timeout")
    assert bridge.stats()["identificationTimeouts"] == 1


# --- HTTP checks ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("origin", ["https://evil.example", "http://localhost:3000", "https://figma.com.evil.example"])
async def test_foreign_origin_gets_403(bridge: Bridge, origin: str) -> None:
    with pytest.raises(InvalidStatus) as caught:
        async with ws_connect(f"ws://127.0.0.1:{bridge.port}/", origin=origin):  # type: ignore[arg-type]
            pass
    assert caught.value.response.status_code == 403
    assert bridge.stats()["originRejects"] == 1 and bridge.stats()["socketsAccepted"] == 0


@pytest.mark.parametrize("origin", [None, "null", "https://www.figma.com", "https://figma.com"])
async def test_allowed_origins(bridge: Bridge, connect_plugin: PluginFactory, origin: str | None) -> None:
    await _plugin(bridge, connect_plugin, origin=origin)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:9223", "192.0.2.1", "localhost.evil.example"])
async def test_bad_host_gets_403(bridge: Bridge, host: str) -> None:
    assert bridge.port is not None
    status, _, _ = await http_request_async(bridge.port, headers={"Host": host})
    assert status == 403
    upgrade = {
        "Host": host,
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": base64.b64encode(b"0123456789abcdef").decode(),
        "Sec-WebSocket-Version": "13",
    }
    status, _, _ = await http_request_async(bridge.port, path="/", headers=upgrade)
    assert status == 403
    assert bridge.stats()["hostRejects"] == 2


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "127.0.0.2", "[::1]"])
async def test_loopback_hosts_are_allowed(bridge: Bridge, host: str) -> None:
    assert bridge.port is not None
    status, _, _ = await http_request_async(bridge.port, headers={"Host": f"{host}:{bridge.port}"})
    assert status == 200


async def test_health_cors_options_and_404(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    assert bridge.port is not None
    await _plugin(bridge, connect_plugin)
    for path in ("/health", "/", "/health?probe=1"):
        status, headers, body = await http_request_async(bridge.port, path=path, headers={"Origin": "null"})
        assert status == 200 and headers["content-type"] == "application/json"
        assert headers["access-control-allow-origin"] == "*"
        health = json.loads(body)
        assert health["status"] == "ok" and isinstance(health["version"], str)
        assert health["clients"] == 1 and health["connectedClients"] == 1
        assert health["port"] == bridge.port and health["protocol"] == BRIDGE_PROTOCOL
        assert health["authRequired"] is True
        assert health["service"] == "design-console-mcp" and isinstance(health["pid"], int)
        assert health["uptime"] >= 0
        assert health["files"] == [{"active": True, "connected": True, "editorType": "figma", "pluginVersion": "0.1.0"}]
        assert "File A" not in body.decode()
    status, headers, body = await http_request_async(bridge.port, method="OPTIONS", path="/health")
    assert status == 204 and body == b"" and headers["access-control-allow-origin"] == "*"
    for method, path in (("GET", "/nope"), ("POST", "/health"), ("DELETE", "/")):
        status, headers, _ = await http_request_async(bridge.port, method=method, path=path)
        assert status == 404 and "access-control-allow-origin" not in headers


# --- files, active file, lock ---------------------------------------------------------------------------------


async def test_two_files_active_lock_and_targeting(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    a = await _plugin(bridge, connect_plugin, "A")
    b = await _plugin(bridge, connect_plugin, "B")
    assert bridge.active_file_key() == "B"
    assert [f.file_key for f in bridge.files()] == ["B", "A"]
    await bridge.command("EXECUTE_CODE", {"code": "return 1"})
    assert [c["method"] for c in b.commands] == ["EXECUTE_CODE"] and a.commands == []

    await a.selection(["1:2"])
    await wait_until(lambda: bridge.active_file_key() == "A", what="selection to make A active")
    await bridge.command("EXECUTE_CODE", {"code": "return 2"})
    assert len(a.commands) == 1

    await b.page("0:2")
    await wait_until(lambda: bridge.active_file_key() == "B", what="page change to make B active")
    assert bridge.files()[0].current_page == "Page 2"

    info = bridge.navigate("A", lock=True)
    assert info.file_key == "A" and bridge.locked and bridge.active_file_key() == "A"
    await b.selection(["1:3"])
    await b.console("log", "marker")
    await wait_until(lambda: bool(bridge._state.console("B")), what="B's events")
    assert bridge.active_file_key() == "A"

    await bridge.command("EXECUTE_CODE", {"code": "return 3"}, file_key="B")
    assert len(b.commands) == 2 and len(a.commands) == 1

    with pytest.raises(DesignError) as caught:
        bridge.navigate("nope", lock=False)
    assert caught.value.code == "unknown_file" and "(A)" in str(caught.value) and "(B)" in str(caught.value)
    with pytest.raises(DesignError) as caught:
        await bridge.command("GET_FILE_INFO", file_key="nope")
    assert caught.value.code == "unknown_file" and str(caught.value).startswith(PREFIX)

    await a.close()
    await wait_until(lambda: [f.file_key for f in bridge.files()] == ["B"], what="A to expire after grace")
    assert not bridge.locked and bridge.active_file_key() == "B"


async def test_console_of_a_file_outlives_its_grace_period(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    a = await _plugin(bridge, connect_plugin, "A")
    await a.selection(["1:2"])
    await a.console("error", "crashed while loading")
    await wait_until(lambda: bool(bridge._state.console("A")), what="A's console entry")
    await a.close()
    await wait_until(lambda: bridge.files() == [], what="A to expire after grace")
    assert bridge._state.get("A") is None and bridge._state.selection("A") is None
    assert [e.message for e in bridge._state.console("A")] == ["crashed while loading"]
    assert [(e.file_key, e.file_name) for e in bridge._state.console_all()] == [("A", "File A")]


async def test_not_connected_error_gives_setup_steps(bridge: Bridge) -> None:
    with pytest.raises(DesignError) as caught:
        await bridge.command("GET_FILE_INFO")
    assert caught.value.code == "not_connected"
    assert "manifest.json" in str(caught.value) and str(caught.value).startswith(PREFIX)
    with pytest.raises(DesignError) as caught:
        bridge.navigate("A", lock=True)
    assert caught.value.code == "not_connected"


async def test_same_file_key_replaces_the_old_socket(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    first = await _plugin(bridge, connect_plugin, "A")
    first.handlers["EXECUTE_CODE"] = _never_answer
    running = asyncio.create_task(bridge.command("EXECUTE_CODE", {"code": "x", "timeout": 20_000}))
    await first.wait_command("EXECUTE_CODE")
    second = await connect_plugin(bridge, file_key="A", file_name="File A")
    assert await first.wait_closed() == (1000, "Replaced by same file reconnection")
    with pytest.raises(DesignError) as caught:
        await running
    assert caught.value.code == "disconnected" and "reconnected" in str(caught.value)
    assert len(bridge.files()) == 1 and bridge.stats()["replacedSockets"] == 1
    assert (await bridge.command("EXECUTE_CODE", {"code": "return 5"}))["result"] == 5
    assert len(second.commands) == 1


@pytest.mark.parametrize("version", ["0.0.9", None])
async def test_older_plugin_is_told_to_update(
    bridge: Bridge, connect_plugin: PluginFactory, version: str | None
) -> None:
    plugin = await _plugin(bridge, connect_plugin, plugin_version=version)
    push = await plugin.wait_push("PLUGIN_UPDATE_AVAILABLE")
    assert push["bundledPluginVersion"] == "0.1.0" and push["serverVersion"] and "data" not in push
    assert push["pluginVersion"] == (version or "unknown")


def test_semver_comparison() -> None:
    assert is_older("0.9.9", "0.10.0") and is_older(None, "1.0.0") and is_older("", "1.0.0")
    assert not is_older("1.0.0", "1.0.0") and not is_older("v1.2.0", "1.1.9") and not is_older("2.0.0-beta", "1.9.0")


# --- commands ------------------------------------------------------------------------------------------------


def test_per_method_timeouts() -> None:
    assert command_timeout("EXECUTE_CODE", {"code": "", "timeout": 1000}) == 3.0
    assert command_timeout("EXECUTE_CODE", {"code": ""}) == 7.0
    assert command_timeout("EXECUTE_CODE", {"timeout": 10**9}) == 32.0
    assert command_timeout("GET_FILE_INFO", None) == 3
    assert command_timeout("REFRESH_VARIABLES", None) == 300
    assert command_timeout("RENAME_NODE", {}) == 15


def _axes(**sizes: int) -> list[dict[str, Any]]:
    """variantProperties as the plugin and the tool catalog take them: a list of {name, values}."""
    return [{"name": name, "values": [f"{name}{i}" for i in range(n)]} for name, n in sizes.items()]


def test_component_set_timeout_scales_with_its_variants() -> None:
    """min(120, max(30, 1.2 × variants)) + 5 s, with the variants counted from the params the plugin reads."""

    def timeout(**params: Any) -> float:
        return command_timeout("CREATE_COMPONENT_SET", params)

    assert timeout() == 35.0
    assert timeout(componentIds=["a"] * 50) == 65.0
    assert timeout(baseComponentId="1:2", variantProperties=_axes(size=4, state=10)) == 53.0
    assert timeout(baseComponentId="1:2", variantProperties=_axes(size=20, state=10)) == 125.0
    assert timeout(baseComponentId="1:2", variantProperties=_axes(size=3, state=3)) == 35.0
    assert timeout(baseComponentId="1:2", properties={"size": ["s"] * 5, "state": ["a"] * 10}) == 65.0
    # The plugin combines the listed components when it is given some, and prefers variantProperties to properties.
    assert timeout(componentIds=["a"] * 50, variantProperties=_axes(size=20, state=10)) == 65.0
    assert timeout(variantProperties=_axes(size=4, state=10), properties={"size": ["s"] * 100}) == 53.0


async def test_timeout_sends_cancel_and_raises(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    plugin = await _plugin(bridge, connect_plugin)
    plugin.handlers["EXECUTE_CODE"] = _never_answer
    started = time.monotonic()
    with pytest.raises(DesignError) as caught:
        await bridge.command("EXECUTE_CODE", {"code": "while(true){}", "timeout": 100})
    assert 2.0 <= time.monotonic() - started < 5
    error = caught.value
    assert error.code == "timeout" and "EXECUTE_CODE" in str(error) and "File A" in str(error)
    assert "design_get_status" in str(error) and "CANCEL" in str(error)
    command = plugin.commands[0]
    cancel = await plugin.wait_command("CANCEL")
    assert cancel["params"] == {"target": command["id"]}
    stats = bridge.stats()
    assert stats["commandsTimedOut"] == 1 and stats["commandsFailed"] == 1 and stats["lastError"] == str(error)


async def test_explicit_timeout_and_late_reply_is_dropped(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    plugin = await _plugin(bridge, connect_plugin)
    release = asyncio.Event()

    async def slow(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return {"success": True, "late": True}

    plugin.handlers["RENAME_NODE"] = slow
    plugin.handlers["CANCEL"] = lambda plugin, params: {"success": True, "cancelled": False}
    with pytest.raises(DesignError) as caught:
        await bridge.command("RENAME_NODE", {"nodeId": "1:2", "newName": "x"}, timeout=0.2)
    assert caught.value.code == "timeout"
    await plugin.wait_command("CANCEL")
    release.set()
    await wait_until(lambda: bridge.stats()["lateRepliesDropped"] == 1, what="the late reply")
    assert bridge.stats()["unknownReplies"] == 0
    assert (await bridge.command("EXECUTE_CODE", {"code": "return 1"}))["result"] == 1


async def test_reply_from_another_file_is_ignored(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    a = await _plugin(bridge, connect_plugin, "A")
    b = await _plugin(bridge, connect_plugin, "B")
    release = asyncio.Event()

    async def held(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return {"success": True, "from": plugin.file_key}

    a.handlers["GET_COMPONENT"] = held
    running = asyncio.create_task(bridge.command("GET_COMPONENT", {"nodeId": "1:2"}, file_key="A"))
    command = await a.wait_command("GET_COMPONENT")
    await b.send_json({"id": command["id"], "result": {"success": True, "from": "B"}})
    await wait_until(lambda: bridge.stats()["wrongFileReplies"] == 1, what="the wrong-file reply")
    assert not running.done()
    release.set()
    assert (await running)["from"] == "A"


async def test_plugin_errors(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    plugin = await _plugin(bridge, connect_plugin)
    with pytest.raises(DesignError) as caught:
        await bridge.command("EXECUTE_CODE", {"code": 'throw new Error("boom in script")'})
    assert caught.value.code == "plugin_error" and "boom in script" in str(caught.value)

    def coded(plugin: FakePlugin, params: dict[str, Any]) -> Any:
        raise FakePluginError("Node not found: 9:9", "node_not_found")

    plugin.handlers["DELETE_NODE"] = coded
    with pytest.raises(DesignError) as caught:
        await bridge.command("DELETE_NODE", {"nodeId": "9:9"})
    assert "Node not found: 9:9" in str(caught.value) and "node_not_found" in str(caught.value)

    plugin.handlers["RESIZE_NODE"] = lambda plugin, params: {"success": False}
    with pytest.raises(DesignError) as caught:
        await bridge.command("RESIZE_NODE", {"nodeId": "1:2"})
    assert caught.value.code == "plugin_error" and "without a reason" in str(caught.value)

    with pytest.raises(DesignError) as caught:
        await bridge.command("NOT_A_METHOD")
    assert caught.value.code == "plugin_error" and "re-import" in str(caught.value)

    plugin.handlers["MOVE_NODE"] = lambda plugin, params: [1, 2]
    with pytest.raises(DesignError) as caught:
        await bridge.command("MOVE_NODE", {})
    assert caught.value.code == "bad_reply" and str(caught.value).startswith(PREFIX)
    assert bridge.stats()["commandsFailed"] == 5


async def test_disconnect_mid_command_fails_after_grace(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    plugin = await _plugin(bridge, connect_plugin)
    plugin.handlers["EXECUTE_CODE"] = _never_answer
    running = asyncio.create_task(bridge.command("EXECUTE_CODE", {"code": "x", "timeout": 20_000}))
    await plugin.wait_command("EXECUTE_CODE")
    await plugin.close()
    with pytest.raises(DesignError) as caught:
        await asyncio.wait_for(running, 5)
    assert caught.value.code == "disconnected" and "File A" in str(caught.value)
    assert bridge.files() == [] and bridge.active_file_key() is None


async def test_grace_keeps_state_and_reconnect_resumes(
    make_bridge: BridgeFactory, connect_plugin: PluginFactory
) -> None:
    bridge = await make_bridge(grace=30)
    plugin = await _plugin(bridge, connect_plugin)
    await plugin.console("warn", "before the drop")
    release = asyncio.Event()

    async def held(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return {"success": True, "socket": plugin.connections}

    plugin.handlers["LINT_DESIGN"] = held
    in_flight = asyncio.create_task(bridge.command("LINT_DESIGN"))
    await plugin.wait_command("LINT_DESIGN")
    assert plugin.ws is not None
    await plugin.ws.close()
    await wait_until(lambda: not bridge.is_connected(), what="the drop")
    (info,) = bridge.files()
    assert info.connected is False and bridge.active_file_key() == "A"
    assert [e.message for e in bridge._state.console("A")] == ["before the drop"]
    queued = asyncio.create_task(bridge.command("EXECUTE_CODE", {"code": "return 9"}))

    await plugin.open()
    assert await asyncio.wait_for(queued, 5) == {"success": True, "result": 9}
    release.set()
    assert (await asyncio.wait_for(in_flight, 5))["socket"] == 2
    assert bridge.files()[0].connected and [e.message for e in bridge._state.console("A")] == ["before the drop"]


async def test_reload_ui_reconnects(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    plugin = await _plugin(bridge, connect_plugin)
    assert await bridge.command("RELOAD_UI") == {"success": True}
    await wait_until(lambda: plugin.connections == 2 and bridge.is_connected(), what="the reload")
    assert (await bridge.command("EXECUTE_CODE", {"code": "return true"}))["result"] is True


async def test_screenshot_and_console_from_code(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    await _plugin(bridge, connect_plugin)
    shot = await bridge.command("CAPTURE_SCREENSHOT", {"nodeId": "1:2", "format": "PNG", "scale": 2})
    image = Image.open(io.BytesIO(base64.b64decode(shot["image"]["base64"])))
    assert image.format == "PNG" and image.size == (240, 160) and image.getpixel((0, 0)) == (0, 0, 255)
    result = await bridge.command("EXECUTE_CODE", {"code": 'console.warn("careful"); return [1, "two"]'})
    assert result["result"] == [1, "two"]
    entries = bridge._state.console("A")
    assert [(e.level, e.message) for e in entries] == [("warn", "careful")]


# --- hostile or broken input ----------------------------------------------------------------------------------


async def test_bad_frames_are_counted_and_serving_continues(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    plugin = await _plugin(bridge, connect_plugin)
    for frame in ["{not json", "[1,2,3]", '"text"', "42", "null", b"\x00\xff binary"]:
        assert await plugin.send_raw(frame)
    await plugin.send_json({"type": "WHAT_IS_THIS", "data": {}})
    await plugin.send_json({"id": "never-sent-id", "result": {"success": True}})
    await plugin.send_json({"type": "CONSOLE_CAPTURE", "data": {"level": "log", "message": 5}})
    await plugin.send_json({"type": "CONSOLE_CAPTURE", "data": "not an object"})
    assert (await bridge.command("EXECUTE_CODE", {"code": "return 1"}))["result"] == 1
    stats = bridge.stats()
    assert stats["badFrames"] == 6 and stats["unknownTypes"] == 1 and stats["unknownReplies"] == 1
    assert stats["malformedEvents"] == 2 and bridge._state.console("A") == []
    assert bridge.is_connected() and plugin.close_code is None


async def test_oversized_frame_closes_only_that_socket(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    big = await _plugin(bridge, connect_plugin, "BIG")
    other = await _plugin(bridge, connect_plugin, "OTHER")
    await big.send_raw("x" * (100 * 1024 * 1024))
    code, _ = await big.wait_closed()
    assert code == 1009
    await wait_until(lambda: bridge.stats()["oversizedFrames"] == 1, what="the oversized frame count")
    assert (await bridge.command("EXECUTE_CODE", {"code": "return 2"}, file_key="OTHER"))["result"] == 2
    assert len(other.commands) == 1


async def test_console_flood_is_absorbed(bridge: Bridge, connect_plugin: PluginFactory) -> None:
    plugin = await _plugin(bridge, connect_plugin)
    assert plugin.ws is not None
    frames = [
        json.dumps({"type": "CONSOLE_CAPTURE", "data": {"level": "log", "message": f"line {i}", "timestamp": i + 1}})
        for i in range(100_000)
    ]
    for frame in frames:
        await plugin.ws.send(frame)
    await wait_until(
        lambda: bool(entries := bridge._state.console("A", count=1)) and entries[-1].message == "line 99999",
        timeout=60,
        what="the last flood entry",
    )
    assert len(bridge._state.console("A", count=None)) == 1000
    assert bridge.port is not None
    started = time.monotonic()
    status, _, _ = await http_request_async(bridge.port)
    assert status == 200
    assert (await bridge.command("EXECUTE_CODE", {"code": "return 1"}))["result"] == 1
    assert time.monotonic() - started < 2


async def test_silent_peer_is_dropped_unless_busy(make_bridge: BridgeFactory, connect_plugin: PluginFactory) -> None:
    bridge = await make_bridge(ping_interval=0.1, grace=30)
    plugin = await _plugin(bridge, connect_plugin)
    release = asyncio.Event()

    async def held(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return {"success": True}

    plugin.handlers["GET_LOCAL_COMPONENTS"] = held
    assert plugin.ws is not None
    busy = asyncio.create_task(bridge.command("GET_LOCAL_COMPONENTS"))
    await plugin.wait_command("GET_LOCAL_COMPONENTS")
    plugin.ws.transport.pause_reading()
    try:
        pings = bridge.stats()["pingsSent"]
        await wait_until(lambda: bridge.stats()["pingsSent"] >= pings + 5, what="five unanswered pings")
        assert bridge.is_connected() and bridge.stats()["pingDrops"] == 0
        busy.cancel()
        await wait_until(lambda: not bridge.is_connected(), timeout=5, what="the silent peer to be dropped")
        assert bridge.stats()["pingDrops"] == 1
    finally:
        plugin.ws.transport.abort()


# --- ports ------------------------------------------------------------------------------------------------------


HoldPorts = Callable[..., Awaitable[asyncio.subprocess.Process]]

#: A foreign program whose long command line names us: neither the words nor the length may mislead the diagnosis.
DECOY = "/opt/design-console-mcp/design_console.daemon.main/designd " + "x" * 300


@pytest.fixture
async def port_holder() -> AsyncIterator[HoldPorts]:
    """Start foreign processes that listen on given ports of the range; they are terminated at the end."""
    holders: list[asyncio.subprocess.Process] = []
    script = (
        "import socket, sys\n"
        "held = []\n"
        "for p in map(int, sys.argv[2:]):\n"
        "    s = socket.socket(); s.bind(('127.0.0.1', p)); s.listen(); held.append(s)\n"
        "print('ready', flush=True)\n"
        "sys.stdin.read()\n"
    )

    async def hold(ports: list[int], label: str = DECOY) -> asyncio.subprocess.Process:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, label, *map(str, ports), stdin=PIPE, stdout=PIPE
        )
        holders.append(proc)
        assert proc.stdout is not None
        assert await asyncio.wait_for(proc.stdout.readline(), 10) == b"ready\n"
        return proc

    yield hold
    for proc in holders:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 10)


def _holder_lines(text: str) -> list[str]:
    """The ``ports: holder`` parts of a ports_busy message."""
    body = text.split("cannot listen. ", 1)[1].split(". Nothing was stopped", 1)[0]
    return body.split("; ")


async def test_first_busy_port_is_skipped(make_bridge: BridgeFactory, port_holder: HoldPorts, port_range: int) -> None:
    await port_holder([port_range])
    bridge = await make_bridge()
    assert bridge.port == port_range + 1


async def test_all_ports_busy_names_the_holders(
    make_bridge: BridgeFactory, port_holder: HoldPorts, port_range: int
) -> None:
    proc = await port_holder(list(range(port_range, port_range + 10)))
    with pytest.raises(DesignError) as caught:
        await make_bridge()
    error = caught.value
    text = str(error)
    assert error.code == "ports_busy" and text.startswith(PREFIX)
    [line] = _holder_lines(text)
    assert line.startswith(f"{port_range}-{port_range + 9}: pid {proc.pid} (")
    assert line.endswith(f"), not ours (user {psutil.Process(proc.pid).username()})")
    command = line.split(" (", 1)[1].rsplit("), not ours", 1)[0]
    assert len(command) <= COMMAND_WIDTH and "..." in command and "\n" not in command
    assert "Nothing was stopped" in text and "DESIGN_WS_PORT" in text
    assert proc.returncode is None and psutil.Process(proc.pid).status() != psutil.STATUS_ZOMBIE


async def test_ports_busy_tells_our_daemons_from_others(
    make_bridge: BridgeFactory, port_holder: HoldPorts, port_range: int, tmp_path: Path
) -> None:
    """A process that advertises a port the way designd does is ours; a look-alike command line is not."""
    ours = await port_holder(list(range(port_range, port_range + 4)), "holder")
    other = await port_holder(list(range(port_range + 4, port_range + 10)))
    temp = tmp_path / "tmp"
    temp.mkdir()
    now = now_ms()
    advert = Advert(
        pid=ours.pid,
        process_start_time=process_start_time(ours.pid),
        port=port_range,
        host="localhost",
        version=__version__,
        started_at=now,
        last_seen=now,
    )
    folder = user_folder(make_config(tmp_path, port_range, TMPDIR=str(temp)))
    folder.mkdir(mode=0o700)
    write_advert(advert_path(folder, port_range), advert)
    with pytest.raises(DesignError) as caught:
        await make_bridge(TMPDIR=str(temp))
    first, second = _holder_lines(str(caught.value))
    assert first.startswith(f"{port_range}-{port_range + 3}: pid {ours.pid} (")
    assert first.endswith("), ours: a designd of this user")
    assert second.startswith(f"{port_range + 4}-{port_range + 9}: pid {other.pid} (")
    assert second.endswith(f"), not ours (user {psutil.Process(other.pid).username()})")


async def test_ports_busy_knows_a_designd_by_its_entry_point(
    make_bridge: BridgeFactory, port_holder: HoldPorts, port_range: int
) -> None:
    """A designd of another installation (its advert and lock are elsewhere) is still ours: it runs our daemon."""
    with contextmanager(isolated)(make_env(DESIGN_WS_PORT=str(port_range))) as env:
        designd = DaemonProcess(env).start()
        try:
            assert designd.port == port_range
            other = await port_holder(list(range(port_range + 1, port_range + 10)))
            with pytest.raises(DesignError) as caught:
                await make_bridge()
        finally:
            designd.stop()
            if designd.proc is not None and designd.proc.stderr is not None:
                designd.proc.stderr.close()
    first, second = _holder_lines(str(caught.value))
    assert first.startswith(f"{port_range}: pid {designd.pid} (") and first.endswith("), ours: a designd of this user")
    assert second.startswith(f"{port_range + 1}-{port_range + 9}: pid {other.pid} (") and "not ours" in second


# --- shutdown, exposure, thread mode --------------------------------------------------------------------------


async def test_close_fails_commands_and_says_going_away(
    make_bridge: BridgeFactory, connect_plugin: PluginFactory
) -> None:
    bridge = await make_bridge()
    plugin = await _plugin(bridge, connect_plugin)
    plugin.handlers["EXECUTE_CODE"] = _never_answer
    running = asyncio.create_task(bridge.command("EXECUTE_CODE", {"code": "x"}))
    await plugin.wait_command("EXECUTE_CODE")
    await bridge.close()
    with pytest.raises(DesignError) as caught:
        await running
    assert caught.value.code == "disconnected" and "shutting down" in str(caught.value)
    assert await plugin.wait_closed() == (1001, "")
    with pytest.raises(DesignError) as caught:
        await bridge.command("GET_FILE_INFO")
    assert caught.value.code == "not_connected"


async def test_wildcard_host_keeps_auth_required(
    make_bridge: BridgeFactory, connect_plugin: PluginFactory, caplog: pytest.LogCaptureFixture
) -> None:
    bridge = await make_bridge(DESIGN_WS_HOST="0.0.0.0", DESIGN_BRIDGE_AUTH="off")
    assert bridge.auth_required and bridge.stats()["authMode"] == "required"
    assert any("reachable from other machines" in r.getMessage() for r in caplog.records)
    assert any("DESIGN_BRIDGE_AUTH=off is ignored" in r.getMessage() for r in caplog.records)
    anonymous = await connect_plugin(bridge, file_key="A", send_hello=False)
    assert await anonymous.wait_closed() == (4401, "authentication required")
    await _plugin(bridge, connect_plugin, "B")
    assert TOKEN not in caplog.text


async def test_bound_host_name_is_an_allowed_host(make_bridge: BridgeFactory) -> None:
    bridge = await make_bridge(DESIGN_WS_HOST="127.0.0.1")
    assert bridge.port is not None
    status, _, _ = await http_request_async(bridge.port, headers={"Host": f"127.0.0.1:{bridge.port}"})
    assert status == 200


async def test_fake_plugin_in_a_thread(bridge: Bridge) -> None:
    assert bridge.port is not None
    plugin = await asyncio.to_thread(FakePlugin.start_in_thread, bridge.port, TOKEN, file_key="T")
    try:
        await _connected(bridge, "T")
        await asyncio.to_thread(plugin.run, plugin.console("error", "from a thread"))
        await wait_until(lambda: bool(bridge._state.console("T")), what="the console entry")
        result = await bridge.command("EXECUTE_CODE", {"code": "await sleep(50); return 7", "timeout": 1000})
        assert result["result"] == 7 and plugin.commands[0]["params"]["timeout"] == 1000
    finally:
        await asyncio.to_thread(plugin.stop)
    await wait_until(lambda: not bridge.is_connected(), what="the thread plugin to disconnect")


# --- progress of long commands ----------------------------------------------------------------------------------


async def test_progress_frames_reach_the_caller_of_that_command_only(
    bridge: Bridge, connect_plugin: PluginFactory
) -> None:
    a = await _plugin(bridge, connect_plugin, "A")
    b = await _plugin(bridge, connect_plugin, "B")
    seen: list[tuple[float, float | None, str]] = []

    async def report(done: float, total: float | None, message: str) -> None:
        seen.append((done, total, message))

    async def batch(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
        cid = plugin.commands[-1]["id"]
        # Progress for this command from the other file, for an unknown id, and unreadable: all ignored.
        await b.event("PROGRESS", {"id": cid, "progress": 99, "total": 100})
        await plugin.event("PROGRESS", {"id": "no-such-command", "progress": 1})
        await plugin.send_json({"type": "PROGRESS", "data": {"id": cid, "progress": "lots"}})
        for done in (10, 20):
            await plugin.event("PROGRESS", {"id": cid, "progress": done, "total": 20, "message": f"{done} of 20"})
        return {"success": True, "created": 20}

    a.handlers["BATCH_CREATE_VARIABLES"] = batch
    result = await bridge.command("BATCH_CREATE_VARIABLES", {"variables": []}, file_key="A", progress=report)
    assert result["created"] == 20
    await wait_until(lambda: len(seen) == 2, 5)
    assert seen == [(10, 20, "10 of 20"), (20, 20, "20 of 20")]
    assert bridge.stats()["badFrames"] == 1


async def test_a_plugin_that_stops_reading_costs_no_more_than_the_timeout(
    bridge: Bridge, connect_plugin: PluginFactory
) -> None:
    """A plugin window paused in its dev tools stops reading: the write is within the deadline, and the socket that
    does not drain is dropped instead of holding every later command."""
    plugin = await _plugin(bridge, connect_plugin)
    assert plugin.ws is not None
    plugin.ws.transport.pause_reading()
    started = time.monotonic()
    with pytest.raises(DesignError) as caught:
        await bridge.command("SET_IMAGE_FILL", {"nodeIds": ["1:2"], "imageData": "A" * 40_000_000}, timeout=1.5)
    assert time.monotonic() - started < 5
    assert caught.value.code == "timeout" and "stopped reading" in str(caught.value)
    assert bridge.stats()["stalledSockets"] == 1
    await wait_until(lambda: not any(f.connected for f in bridge.files()), 5)
    plugin.ws.transport.abort()


# --- descriptors: idle sockets cannot pile up ---------------------------------------------------------------------


async def test_a_socket_that_never_authenticates_is_closed(make_bridge: BridgeFactory) -> None:
    bridge = await make_bridge(handshake_timeout=0.3)
    async with ws_connect(f"ws://127.0.0.1:{bridge.port}/", origin="null") as ws:  # type: ignore[arg-type]
        await ws.recv()
        await asyncio.wait_for(ws.wait_closed(), 5)
        assert (ws.close_code, ws.close_reason) == (4401, "authentication required")
    assert bridge.stats()["handshakeTimeouts"] == 1


async def test_a_flood_of_idle_sockets_pushes_out_the_oldest_and_never_locks_the_plugin_out(
    make_bridge: BridgeFactory, connect_plugin: PluginFactory
) -> None:
    bridge = await make_bridge(max_waiting=3)
    idle = []
    try:
        for _ in range(6):
            ws = await ws_connect(f"ws://127.0.0.1:{bridge.port}/", origin="null")  # type: ignore[arg-type]
            await ws.recv()
            idle.append(ws)
        for ws in idle[:3]:
            await asyncio.wait_for(ws.wait_closed(), 5)
            assert ws.close_code == 1013
        await _plugin(bridge, connect_plugin)
        assert bridge.stats()["waitingSocketsEvicted"] >= 4
    finally:
        for ws in idle:
            await ws.close()


# --- out of descriptors: the accept error is logged once a second, not once per waiting connection ---------------

_LOW_LIMIT_BRIDGE = """
import asyncio, logging, resource, sys
from design_console import PLUGIN_VERSION, __version__
from design_console.config import load_config
from design_console.daemon.bridge import Bridge
from design_console.daemon.state import State

async def main() -> None:
    home, port = sys.argv[1], sys.argv[2]
    config = load_config({"HOME": home, "DESIGN_RUNTIME_DIR": home + "/run", "DESIGN_WS_PORT": port})
    state = State(config)
    bridge = Bridge(config, token="t" * 32, server_version=__version__, plugin_version=PLUGIN_VERSION, state=state)
    await bridge.start()
    print(bridge.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await bridge.close()

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[3]), resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
asyncio.run(main())
"""


async def test_running_out_of_descriptors_logs_the_accept_error_once_a_second(tmp_path: Path, port_range: int) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _LOW_LIMIT_BRIDGE,
        str(tmp_path),
        str(port_range),
        "64",
        stdin=PIPE,
        stdout=PIPE,
        stderr=PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None
    held: list[asyncio.StreamWriter] = []
    try:
        port = int(await asyncio.wait_for(proc.stdout.readline(), 30))
        for _ in range(150):  # slow clients: connected, never a byte sent
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            held.append(writer)
        started = time.monotonic()
        await asyncio.sleep(2.5)  # the window whose log lines are counted
        for writer in held:
            writer.close()
        proc.stdin.write(b"\n")
        await proc.stdin.drain()
        _, err = await asyncio.wait_for(proc.communicate(), 30)
        seconds = time.monotonic() - started
    finally:
        for writer in held:
            writer.close()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    lines = [line for line in err.decode().splitlines() if "out of system resource" in line]
    assert lines, "the descriptor limit was reached: " + err.decode()[-2000:]
    assert len(lines) <= 2 * seconds + 2, f"{len(lines)} lines in {seconds:.1f} s"
    assert "similar suppressed" in err.decode()
