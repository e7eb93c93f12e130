"""Limits per client address: whom a request comes from (an IPv6 client by its /64, which one subscriber holds
whole) and a fixed-window count of its requests to an endpoint, kept in the store so every instance shares it."""

from __future__ import annotations

import ipaddress
import math
import time

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from design_console.remote.store import Store

#: Requests are counted per address over windows of this many seconds.
RATE_WINDOW = 60.0
#: The network an IPv6 subscriber is given whole: counting its addresses one by one would count nothing.
IPV6_PREFIX = 64


def client_key(host: str) -> str:
    """The key a client's requests are counted under: its IPv4 address, or the /64 of its IPv6 address.

    ``host`` is the address uvicorn reports: the peer, or the client a trusted proxy names (FORWARDED_ALLOW_IPS).
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)


def window_left(now: float | None = None) -> int:
    """Whole seconds until the current counting window ends (at least 1)."""
    now = time.time() if now is None else now
    return max(1, math.ceil(RATE_WINDOW - now % RATE_WINDOW))


async def over_limit(store: Store, kind: str, host: str, limit: int) -> bool:
    """Count one request of ``host`` to ``kind`` in the current window; True when it goes over ``limit``."""
    window = int(time.time() // RATE_WINDOW)
    return await store.count(kind, f"{client_key(host)}@{window}", RATE_WINDOW * 2) > limit


class PerAddressLimit:
    """Answers 429 with ``Retry-After`` once an address made more than ``limit`` requests to the wrapped endpoint in
    the current minute (OAuth error shape, as the endpoints it guards answer)."""

    def __init__(self, app: ASGIApp, store: Store, kind: str, limit: int) -> None:
        self.app = app
        self.store = store
        self.kind = kind
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = scope["client"][0] if scope.get("client") else ""
        if await over_limit(self.store, self.kind, host, self.limit):
            wait = window_left()
            body = {
                "error": "too_many_requests",
                "error_description": f"Too many requests from your address; try again in {wait} s.",
            }
            headers = {"Retry-After": str(wait), "Cache-Control": "no-store"}
            await JSONResponse(body, status_code=429, headers=headers)(scope, receive, send)
            return
        await self.app(scope, receive, send)
