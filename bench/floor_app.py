"""The floor Remote Mode is measured against: a bare Starlette app on the same uvicorn settings as
``design-console-remote`` that checks a bearer token and an MCP session and answers ``tools/list`` with the same body
(the same catalog, in one JSON body as the lean path answers it). Nothing can answer ``tools/list`` over HTTP on this
machine much faster than this.

Run: ``python bench/floor_app.py PORT TOKEN SESSION`` (``bench/bench_remote.py`` starts it).
"""

from __future__ import annotations

import sys

import msgspec
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from design_console.config import load_config
from design_console.remote.serving import SlowClientGuard, backlog_for, connection_cap, guarded_h11, raise_open_files
from design_console.remote.tools import remote_catalog
from design_console.tools.wire.frames import encode, result_frame
from design_console.tools.wire.listing import tool_entries


class _Id(msgspec.Struct):
    id: int | str | None = None
    method: str | None = None


def floor_app(token: str, session: str) -> Starlette:
    """The app: POST /mcp with ``Authorization: Bearer <token>`` and ``Mcp-Session-Id: <session>``."""
    listing = encode({"tools": tool_entries(remote_catalog(load_config()).values())})
    decode = msgspec.json.Decoder(_Id).decode
    bearer = f"Bearer {token}"

    async def mcp(request: Request) -> Response:
        if request.headers.get("authorization") != bearer:
            return Response(status_code=401)
        if request.headers.get("mcp-session-id") != session:
            return Response(status_code=404)
        message = decode(await request.body())
        if message.method != "tools/list" or message.id is None:
            return Response(status_code=400)
        body = result_frame(message.id, listing)
        return Response(body, headers={"mcp-session-id": session}, media_type="application/json")

    return Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])


def main() -> None:
    port, token, session = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    open_files = raise_open_files()
    guard = SlowClientGuard(connection_cap(open_files), 10, 30)
    uvicorn.run(
        floor_app(token, session),
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        proxy_headers=True,
        http=guarded_h11(guard),
        backlog=backlog_for(open_files),
        server_header=False,
    )


if __name__ == "__main__":
    main()
