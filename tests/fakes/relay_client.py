"""A bridge client that speaks the relay's side of the plugin protocol from Python: for the redemption race, where
a hundred sockets must present one code at once, and for checks of the handshake the real plugin cannot get wrong."""

from __future__ import annotations

import json
import secrets
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from design_console.plugin_contract import BRIDGE_PROTOCOL, bridge_proof


def ws_url(http_url: str) -> str:
    """The ``/ws/pair`` address of a server whose HTTP address is ``http_url``."""
    return http_url.replace("http://", "ws://", 1) + "/ws/pair"


async def redeem(url: str, code: str) -> dict[str, Any]:
    """Present ``code``; returns the first frame (PAIRED or PAIR_REFUSED) and closes."""
    async with connect(f"{ws_url(url)}?code={code}") as ws:
        first: dict[str, Any] = json.loads(await ws.recv())
        return first


async def handshake(ws: ClientConnection, credential: str) -> dict[str, Any]:
    """Answer SERVER_HELLO with a proof keyed by the credential; returns the server's SERVER_PROOF data after checking
    it."""
    hello = json.loads(await ws.recv())
    assert hello["type"] == "SERVER_HELLO", hello
    server_nonce = hello["data"]["nonce"]
    nonce = secrets.token_hex(32)
    proof = bridge_proof(credential, "plugin", hello["data"]["port"], server_nonce, nonce)
    await ws.send(
        json.dumps(
            {
                "type": "HELLO",
                "data": {"pluginVersion": "0.1.0", "protocol": BRIDGE_PROTOCOL, "nonce": nonce, "proof": proof},
            }
        )
    )
    answer = json.loads(await ws.recv())
    assert answer["type"] == "SERVER_PROOF", answer
    assert answer["data"]["proof"] == bridge_proof(credential, "server", hello["data"]["port"], nonce, server_nonce)
    data: dict[str, Any] = answer["data"]
    return data
