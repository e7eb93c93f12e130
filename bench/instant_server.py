"""The floor of bench/bench_reference.py's figures: a stdio MCP server that answers every request at once, with no
process, socket or plugin behind it. What the MCP client and its pipes cost alone shows in its round trips."""

from __future__ import annotations

import json
import sys

TOOLS = [{"name": name, "inputSchema": {"type": "object"}} for name in ("design_execute", "design_get_console_logs")]


def answer(message: dict[str, object]) -> object:
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


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" in message:
            out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer(message)}).encode() + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
