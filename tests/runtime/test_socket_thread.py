"""The socket driver on both of its sides, the loop's and the thread's: real sockets in order, a burst, a peer's
death, and the thread's hand-over with the loop interleaved by hand where a real run only races now and then."""

from __future__ import annotations

import asyncio
import contextlib
import select
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVarTuple

import pytest
import zmq

from design_console.runtime.socket_thread import INBOX_LIMIT, Gone, SocketThread

if TYPE_CHECKING:
    from _typeshed import FileDescriptorLike

Ts = TypeVarTuple("Ts")


class _LoopWakesDuringDrain:
    """The thread's wake socket, as seen when the loop queues a frame (and wakes the thread) mid-drain."""

    def __init__(self, real: zmq.Socket[bytes], thread: SocketThread) -> None:
        self.real, self.thread, self.fired = real, thread, False

    def recv(self, flags: int = 0) -> Any:
        got = self.real.recv(flags)
        if not self.fired:
            self.fired = True
            self.thread.send([b"peer", b"frame queued while the thread drained its wake-ups"])
        return got


def test_a_wake_up_sent_while_the_thread_drains_is_not_lost() -> None:
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    thread = SocketThread(ctx, sock, routed=True, name="test")
    real = thread._wake_rx
    try:
        thread.send([b"peer", b"first"])
        thread._wake_rx = _LoopWakesDuringDrain(real, thread)  # type: ignore[assignment]
        thread._drain_wake()
        thread._wake_rx = real
        # The thread flushes both queued frames next; then the loop queues one more, which must wake it.
        thread._out.clear()
        thread.send([b"peer", b"later"])
        assert real.poll(100, zmq.POLLIN), (
            "the loop's wake-up was swallowed: the thread would sleep until some peer spoke"
        )
    finally:
        thread._wake_rx = real
        sock.disable_monitor()
        for s in (thread._monitor, thread._wake_rx, thread._wake_tx, sock):
            s.close(linger=0)
        ctx.term()


class _ProactorLike(asyncio.SelectorEventLoop):
    """A loop that cannot watch descriptors, as Windows' default (Proactor) loop."""

    def add_reader(self, fd: FileDescriptorLike, callback: Callable[[*Ts], object], *args: *Ts) -> None:
        raise NotImplementedError


LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "selector": asyncio.SelectorEventLoop,
    "proactor-like": _ProactorLike,
}


@contextlib.contextmanager
def _router_and_peer() -> Iterator[tuple[zmq.Context[zmq.Socket[bytes]], zmq.Socket[bytes], zmq.Socket[bytes]]]:
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.ROUTER_MANDATORY, 1)
    endpoint = f"tcp://127.0.0.1:{router.bind_to_random_port('tcp://127.0.0.1')}"
    peer = ctx.socket(zmq.DEALER)
    peer.setsockopt(zmq.LINGER, 0)
    peer.setsockopt(zmq.IDENTITY, b"peer")
    peer.connect(endpoint)
    try:
        yield ctx, router, peer
    finally:
        peer.close(linger=0)
        router.close(linger=0)
        ctx.term()


def _recv(peer: zmq.Socket[bytes], timeout: float = 5.0) -> bytes:
    assert peer.poll(int(timeout * 1000)), "no reply arrived"
    return peer.recv()


@pytest.mark.parametrize("loop", LOOPS)
def test_the_loop_drives_the_socket_where_it_can_and_a_thread_where_it_cannot(loop: str) -> None:
    async def main() -> None:
        with _router_and_peer() as (ctx, router, peer):
            link = SocketThread(ctx, router, routed=True, name="test")
            link.start()
            try:
                assert link.driver == ("loop" if loop == "selector" else "thread")
                assert link._thread.is_alive() == (loop != "selector")
                peer.send(b"ping")
                assert await asyncio.wait_for(link.receive(), 5) == [b"peer", b"ping"]
                link.send([b"peer", b"pong"])
                assert await asyncio.to_thread(_recv, peer) == b"pong"
            finally:
                link.close()

    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(main())


@pytest.mark.parametrize("loop", LOOPS)
def test_a_burst_is_answered_in_full_and_in_order_while_replies_go_out(loop: str) -> None:
    """Replies sent between receives may take the descriptor's only signal of the next message: none may wait."""
    count = 3 * INBOX_LIMIT

    async def main() -> None:
        with _router_and_peer() as (ctx, router, peer):
            link = SocketThread(ctx, router, routed=True, name="test")
            link.start()
            try:

                def burst() -> list[bytes]:
                    for n in range(count):
                        peer.send(b"%d" % n)
                    return [_recv(peer) for _ in range(count)]

                replies = asyncio.create_task(asyncio.to_thread(burst))
                for n in range(count):
                    item = await asyncio.wait_for(link.receive(), 5)
                    assert item == [b"peer", b"%d" % n]
                    link.send([b"peer", b"re %d" % n])
                    if n % 7 == 0:
                        await asyncio.sleep(0)  # the loop also turns between some replies, as designd's does
                assert await asyncio.wait_for(replies, 10) == [b"re %d" % n for n in range(count)]
            finally:
                link.close()

    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(main())


@pytest.mark.parametrize("loop", LOOPS)
def test_a_peer_that_dies_is_gone_within_a_second(loop: str) -> None:
    async def main() -> None:
        with _router_and_peer() as (ctx, router, peer):
            link = SocketThread(ctx, router, routed=True, name="test")
            link.start()
            try:
                peer.send(b"hello")
                assert await asyncio.wait_for(link.receive(), 5) == [b"peer", b"hello"]
                started = time.monotonic()
                peer.close(linger=0)
                gone = await asyncio.wait_for(link.receive(), 5)
                assert gone == Gone(b"peer", "disconnected")
                assert time.monotonic() - started < 1.0
            finally:
                link.close()

    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(main())


def test_a_message_whose_signal_a_send_took_is_still_received() -> None:
    """The socket's descriptor signals once; a send that processes the socket's commands clears it. The loop's side
    must look at EVENTS after that send, or the message waits until something else stirs the socket."""

    async def main() -> None:
        with _router_and_peer() as (ctx, router, peer):
            link = SocketThread(ctx, router, routed=True, name="test")
            link.start()
            try:
                assert link.driver == "loop"
                peer.send(b"first")
                assert await asyncio.wait_for(link.receive(), 5) == [b"peer", b"first"]
                peer.send(b"second")
                # Without letting the loop turn: wait until the descriptor signals the new message, then send.
                assert select.select([router.FD], [], [], 5)[0], "the message never arrived"
                link.send([b"peer", b"reply"])
                assert await asyncio.wait_for(link.receive(), 1) == [b"peer", b"second"]
            finally:
                link.close()

    with asyncio.Runner(loop_factory=asyncio.SelectorEventLoop) as runner:
        runner.run(main())
