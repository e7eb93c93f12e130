"""The floors of bench/bench_reference.py's figures: a stdio MCP server that answers every request at once, with no
process, socket or plugin behind it, so what the MCP client and its pipes cost alone shows in its round trips.

With ``--bridge PORT`` it is the least a server with a plugin can do: it listens for the bench's fake plugin on
``PORT`` and relays each tool call to it over that WebSocket as one command, answering when the plugin does. What
the plugin's hop adds (a loopback TCP round trip, and the fake plugin's own work) shows against the first floor.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
from typing import Any

TOOLS = [{"name": name, "inputSchema": {"type": "object"}} for name in ("design_execute", "design_get_console_logs")]


def answer(message: dict[str, Any]) -> object:
    """The result for one request: the handshake, the two tools, and a one-line text for any call."""
    method = message.get("method")
    if method == "initialize":
        params = message.get("params")
        version = params.get("protocolVersion") if isinstance(params, dict) else None
        server = {"name": "floor", "version": "1"}
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": server}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "1"}], "isError": False}
    return {}


def reply(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer(message)}).encode() + b"\n"


def instant() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" in message:
            out.write(reply(message))
            out.flush()


async def bridged(port: int) -> None:
    """Answer each tools/call after the plugin connected on ``port`` answered it as one command."""
    from websockets.asyncio.server import ServerConnection, serve

    loop = asyncio.get_running_loop()
    plugin: asyncio.Future[ServerConnection] = loop.create_future()
    waiting: dict[int, asyncio.Future[None]] = {}
    command_ids = itertools.count()

    async def on_plugin(ws: ServerConnection) -> None:
        if not plugin.done():
            plugin.set_result(ws)
        async for raw in ws:
            message = json.loads(raw)
            if isinstance(message, dict) and isinstance(command_id := message.get("id"), int):
                if (done := waiting.pop(command_id, None)) is not None:
                    done.set_result(None)

    async with serve(on_plugin, "127.0.0.1", port, compression=None, max_size=None):
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        out = sys.stdout.buffer
        while line := await reader.readline():
            message = json.loads(line)
            if "id" not in message:
                continue
            if message.get("method") == "tools/call":
                ws = await plugin
                command_id = next(command_ids)
                waiting[command_id] = loop.create_future()
                code = message["params"].get("arguments", {}).get("code", "")
                await ws.send(json.dumps({"id": command_id, "method": "EXECUTE_CODE", "params": {"code": code}}))
                await waiting[command_id]
            out.write(reply(message))
            out.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bridge", type=int, metavar="PORT", help="relay each tool call to a plugin on this port")
    port = parser.parse_args().bridge
    if port is None:
        instant()
    else:
        asyncio.run(bridged(port))


if __name__ == "__main__":
    main()
