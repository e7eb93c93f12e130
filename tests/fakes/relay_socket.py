"""A plugin's relay socket in process: what the relay's routing tests attach to a :class:`Relays` in place of a
plugin connected over a WebSocket."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from design_console.config import load_remote_config
from design_console.remote.relay import Relays, _Session


class FakePluginSocket:
    """Stands for a plugin's socket: answers each command at once, or (``silent``) keeps it and answers nothing."""

    def __init__(self, relays: Relays) -> None:
        self.relays = relays
        self.session: _Session | None = None
        self.silent = False
        self.received: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def send_text(self, text: str) -> None:
        frame = json.loads(text)
        self.received.put_nowait(frame)
        if not self.silent and self.session is not None:
            answer = {"id": frame["id"], "result": {"success": True, "ran": frame["params"].get("code")}}
            asyncio.get_running_loop().call_soon(self.relays._on_message, self.session, json.dumps(answer))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Nothing to close."""


def attach(relays: Relays, relay: str) -> FakePluginSocket:
    socket = FakePluginSocket(relays)
    socket.session = _Session(socket, relay, relays)  # type: ignore[arg-type]
    relays._sessions[relay] = socket.session
    return socket


def config() -> Any:
    return load_remote_config({"HOME": "/tmp/nowhere", "DESIGN_REMOTE_BASE_URL": "https://mcp.example.com"})
