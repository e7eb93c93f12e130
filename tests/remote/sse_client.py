"""A client of the HTTP+SSE transport by hand, for the tests of /sse."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from fakes.remote import RemoteServer

WAIT = 20.0
Answer = tuple[int, str, list[Any]]


class SseSession:
    """A client of the HTTP+SSE transport by hand: the stream, and POSTs whose answers are read off it."""

    def __init__(self, server: RemoteServer, token: str | None = None) -> None:
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.AsyncClient(base_url=server.url, headers=auth, timeout=30)
        self.endpoint = ""
        self.headers: dict[str, str] = {}

    async def __aenter__(self) -> SseSession:
        self._stream = self.http.stream("GET", "/sse")
        response = await self._stream.__aenter__()
        assert response.status_code == 200, await response.aread()
        self.headers = {k: response.headers.get(k, "") for k in ("content-type", "cache-control", "x-accel-buffering")}
        self._lines = response.aiter_lines()
        kind, self.endpoint = await self.event()
        assert kind == "endpoint"
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stream.__aexit__(None, None, None)
        await self.http.aclose()

    async def event(self) -> tuple[str, str]:
        """The next event on the stream (keep-alive comments skipped)."""
        kind, data = "", ""
        async with asyncio.timeout(WAIT):
            async for line in self._lines:
                if line.startswith("event: "):
                    kind = line[len("event: ") :]
                elif line.startswith("data: "):
                    data = line[len("data: ") :]
                elif not line and kind:
                    return kind, data
        raise AssertionError("the stream ended")

    async def frame(self) -> Any:
        kind, data = await self.event()
        assert kind == "message", kind
        return json.loads(data)

    async def post(self, message: dict[str, Any] | bytes, endpoint: str | None = None) -> httpx.Response:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        headers = {"content-type": "application/json"}
        return await self.http.post(endpoint or self.endpoint, content=body, headers=headers)

    async def ask(self, message: dict[str, Any] | bytes) -> Answer:
        """POST ``message``; for a request, the frames on the stream up to and including its answer."""
        response = await self.post(message)
        frames: list[Any] = []
        request_id = message.get("id") if isinstance(message, dict) else None
        if response.status_code == 202 and request_id is not None:
            while not frames or frames[-1].get("id") != request_id or "method" in frames[-1]:
                frames.append(await self.frame())
        return response.status_code, response.text, frames


def initialize(version: str, request_id: int = 0) -> dict[str, Any]:
    client = {"name": "pin", "version": "1"}
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": client}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}
