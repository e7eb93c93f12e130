"""Reaching the public internet only: one policy for every URL a caller (or a page) names, image fills and web pages.

A host name is resolved here, once, and every address it gives is checked: loopback, link-local (cloud metadata at
169.254.169.254), private (10/8, 172.16/12, 192.168/16, fc00::/7), shared and reserved ranges are refused unless the
user set DESIGN_IMAGE_PRIVATE_HOSTS=1. The connection then goes to the address that was checked, and later
connections to the same host in the same job reuse it: neither a redirect nor a second DNS answer can move a request
onto this machine or its network. TLS still verifies the name.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable

import httpcore
import httpx

from design_console.clients import addresses
from design_console.errors import DesignError, ErrorCode


class Pins:
    """The address each host name was resolved to and checked at, for one job (an image download, a page render)."""

    def __init__(self, *, allow_private: bool, what: str, instead: str) -> None:
        #: DESIGN_IMAGE_PRIVATE_HOSTS: local servers and private networks are allowed.
        self.allow_private = allow_private
        #: What the job is and what to do instead, for the refusal's message: "image URLs", "Pass the image as …".
        self._what = what
        self._instead = instead
        self._addresses: dict[str, str] = {}
        self._lock = asyncio.Lock()

    async def address(self, host: str, port: int, url: str) -> str:
        """The checked address of ``host`` (resolved on first use, then pinned). Raises DesignError
        ``url_not_allowed`` naming ``url`` when it leads to this machine or a private network."""
        key = host.lower()
        async with self._lock:
            if key not in self._addresses:
                self._addresses[key] = await self._resolve(host, port, url)
            return self._addresses[key]

    async def _resolve(self, host: str, port: int, url: str) -> str:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from None
        found = list(dict.fromkeys(str(info[4][0]) for info in infos))
        refused = [a for a in found if not addresses.is_public_address(a)]
        if refused and not self.allow_private:
            raise DesignError(
                ErrorCode.URL_NOT_ALLOWED,
                f"{url} leads to {host} ({', '.join(refused)}), an address of this machine or a private network: "
                f"{self._what} must be on the public internet.",
                f"{self._instead}, or set DESIGN_IMAGE_PRIVATE_HOSTS=1 to allow local servers and private networks.",
            )
        return found[0]


class _CheckedBackend(httpcore.AsyncNetworkBackend):
    """Connects only to addresses that :class:`Pins` checked and pinned."""

    def __init__(self, pins: Pins, url: str) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._pins = pins
        self._url = url

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = await self._pins.address(host, port, self._url)
        return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("public downloads use TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def checked_transport(pins: Pins, url: str) -> httpx.AsyncHTTPTransport:
    """An httpx transport whose every connection goes through ``pins`` (``url`` names the job in refusals)."""
    # Given explicitly, the transport also keeps proxies from the environment out: they would resolve the name
    # where it cannot be checked.
    context = httpx.create_ssl_context()
    transport = httpx.AsyncHTTPTransport(verify=context)
    transport._pool = httpcore.AsyncConnectionPool(ssl_context=context, network_backend=_CheckedBackend(pins, url))
    return transport
