"""The socket thread's hand-over with the loop, interleaved by hand where a real run only races now and then."""

from __future__ import annotations

from typing import Any

import zmq

from design_console.runtime.socket_thread import SocketThread


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
