"""A ZeroMQ socket for code on an asyncio loop, on every loop and every system.

Where the running loop can watch descriptors (the selector loops, the default everywhere but Windows), the loop
drives the socket itself: it watches the socket's ``zmq.FD``, receives and sends in its own callbacks, and no frame
crosses a thread inside the process. That descriptor is edge-triggered (it signals that the socket's state may have
changed, not that a message waits), so every turn reads until ``EAGAIN`` and looks at ``zmq.EVENTS`` again after
each send, which may have taken the signal a new message raised.

Windows' default loop (Proactor) has no ``add_reader``. There one thread owns the socket instead: it blocks in
``zmq.Poller``, hands each received message to the loop (one ``call_soon_threadsafe`` per batch), and sends what
the loop queued when an ``inproc://`` PAIR wakes it. The choice is made once, at :meth:`SocketThread.start`, by
asking the loop, so nothing above this module knows which one runs.

Either way a socket monitor tells when a peer's connection ends, which is handed on as :class:`Gone`, so a peer
that dies is noticed at once, not when it stops answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import zmq

from design_console.runtime.logs import LogThrottle
from design_console.runtime.platform.loops import watch_readable
from design_console.runtime.transport import LINK_ENDED, NOBLOCK, REFUSED, monitor_event, readable

log = logging.getLogger("design_console.socket")

#: Messages received and not yet taken by the loop; past this the thread stops reading. Kept small: what stays in
#: ZeroMQ's queues is taken from each peer in turn, so a peer that floods designd does not hold up another's frame.
INBOX_LIMIT = 500
#: The most messages the thread reads before it sends what the loop queued: a steady stream in must not hold up the
#: replies going out.
READ_BATCH = 64
#: How often a peer's backlog is retried while its queue is full.
SEND_RETRY = 0.005
#: A peer whose queue stays full this long (it stopped reading) is given up; its frames wait in a backlog meanwhile.
SEND_STALL_LIMIT = 10.0
#: How long reading rests after a receive failed (out of descriptors or memory), so the failure does not spin.
FAILURE_REST = 0.05


class Gone(NamedTuple):
    """A peer's connection ended (``peer`` is b"" on a socket with one peer): its process died or it closed it."""

    peer: bytes
    reason: str


Incoming = list[bytes] | Gone


@dataclass
class _Backlog:
    """Frames for a peer whose queue was full, in order, and when one last went out."""

    since: float
    frames: deque[list[bytes]] = field(default_factory=deque)


class SocketThread:
    """Owns ``sock`` from :meth:`start` to :meth:`close`: the loop only calls :meth:`send` and :meth:`receive`.

    Driven by the loop where it can watch the socket's descriptor, by a thread of its own otherwise (module doc).

    ``routed``: a ROUTER, whose messages start with the peer's identity (sends are routed by it, and each peer's
    connection is tracked); otherwise a socket with one peer (a DEALER), whose lost connection is one :class:`Gone`.
    """

    def __init__(
        self,
        ctx: zmq.Context[zmq.Socket[bytes]],
        sock: zmq.Socket[bytes],
        *,
        routed: bool,
        name: str,
        stall_limit: float = SEND_STALL_LIMIT,
    ) -> None:
        self.sock = sock
        self.routed = routed
        self.stall_limit = stall_limit
        #: Receives that failed (out of descriptors or memory for a moment); each counted, none ends the thread.
        self.receive_errors = 0
        #: Connections refused during the handshake (a peer without the user's CURVE key, or not ZeroMQ at all).
        self.refused = 0
        self._throttle = LogThrottle(log)
        self._monitor = sock.get_monitor_socket(zmq.EVENT_DISCONNECTED | REFUSED if routed else LINK_ENDED)
        wake = f"inproc://socket-thread-{uuid.uuid4().hex}"
        self._wake_rx: zmq.Socket[bytes] = ctx.socket(zmq.PAIR)
        self._wake_rx.bind(wake)
        self._wake_tx: zmq.Socket[bytes] = ctx.socket(zmq.PAIR)
        self._wake_tx.connect(wake)
        self._helpers: dict[zmq.Socket[bytes], Callable[[], None]] = {}
        self._out: deque[list[bytes]] = deque()
        self._backlogs: dict[bytes, _Backlog] = {}
        self._inbox: deque[Incoming] = deque()
        #: Set by the loop when it woke the thread, cleared by the thread before it takes the queued frames.
        self._woken = False
        #: Set by the thread when it told the loop about new messages, cleared by the loop before it looks again.
        self._notified = False
        self._paused = False
        self._closing = False
        #: Which connection (descriptor) each peer of a routed socket speaks through, and the reverse.
        self._fd_of: dict[bytes, int] = {}
        self._peers_on: dict[int, set[bytes]] = {}
        self._leaving: list[Gone] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._arrived: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        #: Whether the loop drives the socket (decided by :meth:`start`), and that side's pending callbacks.
        self._on_loop = False
        self._turn_due = False
        self._retry: asyncio.TimerHandle | None = None
        self._resting = False

    @property
    def driver(self) -> str:
        """Who drives the socket once started: "loop" (it watches descriptors) or "thread" (Windows' default loop)."""
        return "loop" if self._on_loop else "thread"

    def watch(self, sock: zmq.Socket[bytes], handler: Callable[[], None]) -> None:
        """Have ``handler`` called whenever ``sock`` is readable, by whichever side drives the socket (call before
        :meth:`start`)."""
        self._helpers[sock] = handler

    def start(self) -> None:
        """Start driving the socket: from the running loop where it can watch descriptors, else from the thread.
        Messages go to the running loop either way."""
        loop = self._loop = asyncio.get_running_loop()
        self._arrived = asyncio.Event()
        if not watch_readable(loop, self.sock.FD, self._turn):
            self._thread.start()
            return
        self._on_loop = True
        watch_readable(loop, self._monitor.FD, self._monitor_turn)
        for sock, handler in self._helpers.items():
            turn = self._helper_turn(sock, handler)
            watch_readable(loop, sock.FD, turn)
            loop.call_soon(turn)
        # Edge-triggered: what arrived before the descriptors were watched raised no signal the loop will see. And a
        # new socket's first messages raise none at all until it has once been found empty, which for the monitor
        # only a read of its own does (:meth:`_monitor_turn`).
        self._events()
        self._turn_soon()

    # --- the loop's side ------------------------------------------------------------------------------------------

    def send(self, parts: list[bytes]) -> None:
        """Queue one message (a routed one starts with the peer's identity); it keeps its order behind the others."""
        self._out.append(parts)
        if self._on_loop:
            self._flush()
            self._after_io(sent=True)
        else:
            self._wake()

    def _wake(self) -> None:
        if self._on_loop:
            self._turn_soon()
        elif not self._woken:
            self._woken = True
            try:
                self._wake_tx.send(b"", zmq.NOBLOCK)
            except zmq.Again:
                pass  # the thread has wake-ups waiting already

    async def receive(self) -> Incoming:
        """The next message or :class:`Gone`, in the order the thread saw them."""
        arrived = self._arrived
        assert arrived is not None
        while True:
            if self._inbox:
                item = self._inbox.popleft()
                if self._paused and len(self._inbox) < INBOX_LIMIT // 2:
                    self._wake()
                return item
            arrived.clear()
            self._notified = False
            if not self._inbox:
                await arrived.wait()

    def close(self) -> None:
        """Stop driving the socket once what was queued is sent, and close the sockets it owned but ``sock``."""
        if self._on_loop:
            self._stop_watching()
            self._flush()
        self._closing = True
        self._woken = False
        if not self._on_loop:
            self._wake()
        if self._thread.is_alive():
            self._thread.join(5.0)
        # Monitoring off before its socket closes: libzmq blocks for good sending an event to a closed monitor.
        with contextlib.suppress(zmq.ZMQError):
            self.sock.disable_monitor()
        for sock in (self._monitor, self._wake_rx, self._wake_tx):
            sock.close(linger=0)

    # --- driven by the loop ---------------------------------------------------------------------------------------

    def _turn_soon(self) -> None:
        if not self._turn_due and self._loop is not None and not self._closing:
            self._turn_due = True
            self._loop.call_soon(self._turn)

    def _monitor_turn(self) -> None:
        """The monitor's descriptor stirred: its events first, then the messages that came before them."""
        if not self._closing:
            self._events()
            self._turn()

    def _turn(self) -> None:
        """One turn of the loop's side: a batch of messages, the ends of connections the monitor told, then what
        waits to go out.

        The monitor is read only when its own descriptor stirs (:meth:`_monitor_turn`): nothing but that read
        clears its signal, so no event is missed, and a turn for a message does not pay for a look at it.
        """
        self._turn_due = False
        if self._closing:
            return
        drained = False
        if not self._resting and not self._paused:
            drained = self._read()
        while self._leaving:
            self._deliver(self._leaving.pop(0))
        if len(self._inbox) >= INBOX_LIMIT:
            self._paused = True  # back-pressure: peers' frames wait in ZeroMQ until receive() takes some
        elif self._paused and len(self._inbox) < INBOX_LIMIT // 2:
            self._paused = False
        sent = self._flush()
        self._after_io(sent=sent or not drained)

    def _after_io(self, *, sent: bool) -> None:
        """Come back for what the last receive or send left: more messages, or backlogs to retry.

        ``sent``: a send ran (or reading stopped before the socket said it was empty). A send may have taken the
        signal of a message that arrived meanwhile, so only then is the socket asked again.
        """
        if self._closing:
            return
        if sent and not self._paused and not self._resting and readable(self.sock):
            self._turn_soon()
        if self._backlogs and self._retry is None and self._loop is not None:
            self._retry = self._loop.call_later(SEND_RETRY, self._retry_backlogs)

    def _retry_backlogs(self) -> None:
        self._retry = None
        self._turn()

    def _rest_over(self) -> None:
        self._resting = False
        self._turn()

    def _helper_turn(self, sock: zmq.Socket[bytes], handler: Callable[[], None]) -> Callable[[], None]:
        def turn() -> None:
            handler()
            # The handler's own sends may have taken the signal of a request that arrived meanwhile.
            if readable(sock) and self._loop is not None:
                self._loop.call_soon(turn)

        return turn

    def _stop_watching(self) -> None:
        loop = self._loop
        assert loop is not None
        for sock in (self.sock, self._monitor, *self._helpers):
            with contextlib.suppress(RuntimeError, ValueError, OSError):
                loop.remove_reader(sock.FD)
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None

    # --- the thread's side ----------------------------------------------------------------------------------------

    def _deliver(self, item: Incoming) -> None:
        self._inbox.append(item)
        if self._on_loop:
            arrived = self._arrived
            assert arrived is not None
            arrived.set()
            return
        if not self._notified:
            self._notified = True
            loop, arrived = self._loop, self._arrived
            assert loop is not None and arrived is not None
            try:
                loop.call_soon_threadsafe(arrived.set)
            except RuntimeError:
                pass  # the loop is closed: nobody is waiting any more

    def _run(self) -> None:
        poller = zmq.Poller()
        for sock in (self._wake_rx, self._monitor, self.sock, *self._helpers):
            poller.register(sock, zmq.POLLIN)
        while not self._closing:
            try:
                ready = dict(poller.poll(int(SEND_RETRY * 1000) if self._backlogs else None))
            except zmq.ZMQError as exc:
                self._failed(exc)
                time.sleep(FAILURE_REST)
                continue
            if self._wake_rx in ready:
                self._drain_wake()
            for sock, handler in self._helpers.items():
                if sock in ready:
                    handler()
            if self._monitor in ready:
                self._events()
            if (self.sock in ready or self._leaving) and not self._paused:
                self._read()
            while self._leaving:
                self._deliver(self._leaving.pop(0))
            self._flush()
            if not self._paused and len(self._inbox) >= INBOX_LIMIT:
                # Back-pressure instead of memory: peers' frames wait in ZeroMQ until the loop catches up.
                poller.unregister(self.sock)
                self._paused = True
            elif self._paused and len(self._inbox) < INBOX_LIMIT // 2:
                poller.register(self.sock, zmq.POLLIN)
                self._paused = False
        self._flush()

    def _failed(self, exc: zmq.ZMQError) -> None:
        self.receive_errors += 1
        self._throttle.warning("receive", "control socket receive failed: %s", exc)

    def _read_failed(self, exc: zmq.ZMQError) -> None:
        self._failed(exc)
        if not self._on_loop:
            time.sleep(FAILURE_REST)
        elif not self._resting and self._loop is not None:
            self._resting = True
            self._loop.call_later(FAILURE_REST, self._rest_over)

    def _drain_wake(self) -> None:
        # Drain first, then clear the flag (the queued frames are flushed after this): cleared first, a wake-up the
        # loop sent while the drain ran would be swallowed with the flag left set, and the loop would never wake the
        # thread again until some other socket stirred it (a reply stalled until the next ping, 2 s later).
        while True:
            try:
                self._wake_rx.recv(zmq.NOBLOCK)
            except zmq.Again:
                break
        self._woken = False

    def _read(self) -> bool:
        """Take a batch of messages; True when the socket said it has no more (which also re-arms its descriptor).

        ``EVENTS`` is asked before each receive rather than receiving until ``Again``: pyzmq builds that exception
        in Python, which costs more than the question.
        """
        for _ in range(READ_BATCH):
            if len(self._inbox) >= INBOX_LIMIT:
                return False
            try:
                if not readable(self.sock):
                    return True
                if not self.routed:
                    self._deliver(self.sock.recv_multipart(NOBLOCK))
                    continue
                frames = self.sock.recv_multipart(NOBLOCK, copy=False)
            except zmq.Again:
                return True
            except zmq.ZMQError as exc:
                self._read_failed(exc)
                return False
            parts = [frame.bytes for frame in frames]
            if parts[0] not in self._fd_of:
                self._track(parts[0], frames[-1])
            self._deliver(parts)
        return False

    def _track(self, peer: bytes, frame: zmq.Frame) -> None:
        """Note which connection a new peer speaks through, so its end is known as that peer's.

        The monitor is read first: a connection that ended before this peer's first frame arrived may have had the
        same descriptor, and its end must not be taken for this one's.
        """
        self._events()
        fd = frame.get(zmq.SRCFD)
        if isinstance(fd, int) and fd >= 0:
            self._fd_of[peer] = fd
            self._peers_on.setdefault(fd, set()).add(peer)

    def _events(self) -> None:
        while True:
            if not self._monitor.poll(0):
                return
            kind, value = monitor_event(self._monitor)
            name = zmq.Event(kind).name or str(kind)
            if kind & REFUSED:
                self.refused += 1
                self._throttle.warning("refused", "refused a control connection: %s", name)
            if not self.routed:
                self._leaving.append(Gone(b"", name))
            elif kind == zmq.EVENT_DISCONNECTED:
                for peer in self._peers_on.pop(value, ()):
                    self._fd_of.pop(peer, None)
                    self._leaving.append(Gone(peer, "disconnected"))

    def _flush(self) -> bool:
        """Send what waits, backlogs first; True when any send was tried."""
        if not self._out and not self._backlogs:
            return False
        now = time.monotonic()
        for peer, backlog in list(self._backlogs.items()):
            while backlog.frames and self._send_now(peer, backlog.frames[0]):
                backlog.frames.popleft()
                backlog.since = now
            if not backlog.frames:
                del self._backlogs[peer]
            elif now - backlog.since > self.stall_limit:
                del self._backlogs[peer]
                self._throttle.warning("stalled", "peer %r stopped reading; dropping it", peer[:48])
                self._deliver(Gone(peer, "stopped reading"))
        while self._out:
            parts = self._out.popleft()
            peer = parts[0] if self.routed else b""
            waiting = self._backlogs.get(peer)
            if waiting is not None:
                waiting.frames.append(parts)  # behind the frames already waiting: replies keep their order
            elif not self._send_now(peer, parts):
                self._backlogs[peer] = _Backlog(now, deque([parts]))
        return True

    def _send_now(self, peer: bytes, parts: list[bytes]) -> bool:
        """Send without blocking; False when the peer's queue is full. A peer that is gone is reported and its
        frames dropped."""
        try:
            self.sock.send_multipart(parts, NOBLOCK)
        except zmq.Again:
            return False
        except zmq.ZMQError as exc:
            self._deliver(Gone(peer, "unreachable" if exc.errno == zmq.EHOSTUNREACH else str(exc)))
        return True
