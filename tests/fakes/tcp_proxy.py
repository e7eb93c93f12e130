"""A TCP proxy on a free loopback port, run in a thread of the test process, that can cut or freeze every connection
through it at once: a network drop between two real programs (reset, or silent like a sleeping laptop's), with neither
of them told."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from helpers import free_port_range

START_TIMEOUT = 10.0


class TcpProxy:
    """Forwards ``127.0.0.1:port`` to the first of ``target_ports`` that accepts (a load balancer's failover);
    :meth:`drop` aborts the connections open now, :meth:`freeze` silences them."""

    def __init__(self, target_ports: tuple[int, ...]) -> None:
        self.target_ports = target_ports
        self.port = free_port_range(1)
        self.loop = asyncio.new_event_loop()
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for target in self.target_ports:
            try:
                upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", target)
                break
            except OSError:
                continue
        else:
            writer.close()
            return
        self._writers |= {writer, upstream_writer}
        try:
            await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))
        finally:
            self._writers -= {writer, upstream_writer}

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    def _drop(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()

    def drop(self) -> None:
        """Cut every connection through the proxy (both sides see it reset); new connections still go through."""
        self.loop.call_soon_threadsafe(self._drop)

    def _freeze(self) -> None:
        for writer in list(self._writers):
            writer.transport.pause_reading()

    def freeze(self) -> None:
        """Stop carrying data on every connection open now, both ways, and keep them open: neither end sees a reset
        or a close (a half-open connection); new connections still go through."""
        self.loop.call_soon_threadsafe(self._freeze)

    async def _stop(self) -> None:
        self._drop()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


@contextmanager
def tcp_proxy(*target_ports: int) -> Iterator[TcpProxy]:
    """A running :class:`TcpProxy` to ``target_ports``; stopped (and its thread joined) when the block ends."""
    proxy = TcpProxy(target_ports)
    thread = threading.Thread(target=proxy.loop.run_forever, name="tcp-proxy", daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(proxy._start(), proxy.loop).result(START_TIMEOUT)
    try:
        yield proxy
    finally:
        asyncio.run_coroutine_threadsafe(proxy._stop(), proxy.loop).result(START_TIMEOUT)
        proxy.loop.call_soon_threadsafe(proxy.loop.stop)
        thread.join(START_TIMEOUT)
        proxy.loop.close()
