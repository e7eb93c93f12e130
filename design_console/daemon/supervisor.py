"""Worker processes under designd's supervision: start, watch, restart with backoff, stop with a ladder.

Each worker kind (``api``, ``media``, ``tokens``) is one process that connects back to the control socket as
``worker:<kind>``. A worker starts on the first call that needs it (that call waits for it) and is stopped after
``DESIGN_WORKER_IDLE_SECONDS`` without calls, so a session that only talks to the plugin pays for no worker. A worker
that exits or stops answering is restarted; calls in flight on it fail with an error that says so, and the next
call goes to the new process.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import logging
import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import psutil

from design_console.config import Config
from design_console.daemon.control import ControlServer, Peer
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import (
    WORKER_HEARTBEAT_SECONDS,
    WORKER_PREFIX,
    Bye,
    Call,
    Cancel,
    Error,
    Progress,
    ToolOutput,
    ToolResult,
)
from design_console.runtime.adverts import process_start_time
from design_console.runtime.launch import WORKER_MODULE, WORKER_OF_VAR, worker_of
from design_console.runtime.platform.procs import child_kwargs
from design_console.runtime.user_files import FileScope
from design_console.tools.base import failure
from design_console.tools.context import ProgressFn

log = logging.getLogger("design_console.supervisor")

KINDS = ("api", "media", "tokens")
READY_TIMEOUT = 15.0
#: A worker silent for three missed heartbeats that used no CPU meanwhile is frozen (stopped or deadlocked).
MISSED_BEAT_LIMIT = 3 * WORKER_HEARTBEAT_SECONDS + 1.0
#: A worker that stays silent while it burns CPU is busy with one long computation; past this it is killed too.
HANG_LIMIT = 30.0
#: Less CPU than this during the silence counts as none (a stopped process accrues nothing).
IDLE_CPU_SECONDS = 0.05
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 30.0
#: A worker that ran this long without dying resets its backoff.
STABLE_AFTER = 60.0
STOP_GRACE = 2.0


class WorkerState(enum.StrEnum):
    """Where a worker is in its life; shown by ``designctl status``."""

    NOT_STARTED = "not started"
    STARTING = "starting"
    RUNNING = "running"
    BACKOFF = "backoff"
    #: Stopped because no call needed it for the idle period; the next call starts it again.
    IDLE_STOPPING = "idle-stopping"
    IDLE_STOPPED = "idle-stopped"
    STOPPING = "stopping"
    STOPPED = "stopped"


#: A call to a worker in one of these states starts it (and waits for it).
STARTABLE_STATES = frozenset({WorkerState.NOT_STARTED, WorkerState.IDLE_STOPPED})
#: States in which the process exists and is watched for exits and missed heartbeats.
WATCHED_STATES = frozenset({WorkerState.STARTING, WorkerState.RUNNING})
#: The states each state may be entered from; :meth:`Worker.move` refuses any other move.
ENTERED_FROM: dict[WorkerState, frozenset[WorkerState]] = {
    WorkerState.NOT_STARTED: frozenset(),
    WorkerState.STARTING: frozenset({WorkerState.NOT_STARTED, WorkerState.IDLE_STOPPED, WorkerState.BACKOFF}),
    WorkerState.RUNNING: frozenset({WorkerState.STARTING}),
    WorkerState.BACKOFF: frozenset({WorkerState.STARTING, WorkerState.RUNNING}),
    WorkerState.IDLE_STOPPING: frozenset({WorkerState.RUNNING}),
    WorkerState.IDLE_STOPPED: frozenset({WorkerState.IDLE_STOPPING}),
    # designd stops whatever each worker is doing; only a worker already stopping or stopped is not stopped again.
    WorkerState.STOPPING: frozenset(WorkerState) - {WorkerState.STOPPING, WorkerState.STOPPED},
    WorkerState.STOPPED: frozenset({WorkerState.STOPPING}),
}


class IllegalMove(RuntimeError):
    """A worker was asked to enter a state it cannot be entered from: a bug of the supervisor, never a user's."""


@dataclass
class Pending:
    future: asyncio.Future[ToolOutput]
    tool: str
    progress: ProgressFn


@dataclass
class Worker:
    """One supervised worker process."""

    kind: str
    _state: WorkerState = field(default=WorkerState.NOT_STARTED, init=False)
    proc: asyncio.subprocess.Process | None = None
    identity: bytes | None = None
    started_at: float = 0.0
    restarts: int = 0
    backoff: float = BACKOFF_FIRST
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set when a start ends without a hello (the process exited or was killed), to wake the calls waiting on it.
    start_failed: asyncio.Event = field(default_factory=asyncio.Event)
    #: The last lines the worker wrote to stderr: the reason a start failed, for the waiting call's error.
    tail: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=3))
    #: When a call last began or ended on it (monotonic); the idle period counts from here.
    last_used: float = 0.0
    #: The idle stop in progress (or done); a call arriving meanwhile waits for it, then starts a new process.
    stopped: asyncio.Task[None] | None = None
    pending: dict[str, Pending] = field(default_factory=dict)
    last_exit: int | None = None
    #: CPU seconds the process had used when it was last heard from.
    cpu_when_heard: float = 0.0

    @property
    def pid(self) -> int | None:
        """The process's pid while it exists (a stopped worker has none)."""
        return self.proc.pid if self.proc and self.proc.returncode is None else None

    @property
    def state(self) -> WorkerState:
        """Where the worker is in its life; only :meth:`move` changes it."""
        return self._state

    def move(self, target: WorkerState) -> None:
        """Enter ``target`` if :data:`ENTERED_FROM` allows it from the current state (else IllegalMove); every move
        is logged, so the log shows each worker's path."""
        if self._state not in ENTERED_FROM[target]:
            raise IllegalMove(f"the {self.kind} worker cannot go from {self._state} to {target}")
        log.debug("%s worker: %s -> %s", self.kind, self._state, target)
        self._state = target


class Supervisor:
    """Owns the worker processes of one daemon."""

    def __init__(self, config: Config, control: ControlServer, kinds: tuple[str, ...] = KINDS) -> None:
        self.config = config
        self.control = control
        self.workers = {kind: Worker(kind) for kind in kinds}
        self._watch: asyncio.Task[None] | None = None
        self._log_tasks: set[asyncio.Task[None]] = set()  # log relays and pending respawns
        self._closing = False

    async def start(self) -> None:
        """Start watching; no worker is started until a call needs it."""
        self._watch = asyncio.create_task(self._watchdog(), name="supervisor-watchdog")

    async def _spawn(self, worker: Worker) -> None:
        worker.move(WorkerState.STARTING)
        worker.ready.clear()
        worker.start_failed.clear()
        worker.tail.clear()
        worker.identity = None
        worker.proc = None  # the old process, if any, is gone: the watchdog must not judge the new start by it
        worker.last_used = time.monotonic()
        marker = worker_of(self.config.runtime_dir, os.getpid(), process_start_time(os.getpid()))
        worker.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-P",  # designd's working directory is its caller's: never import a design_console found there
            "-m",
            WORKER_MODULE,
            "--kind",
            worker.kind,
            "--parent",
            str(os.getpid()),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, WORKER_OF_VAR: marker},
            **child_kwargs(),
        )
        worker.started_at = time.time()
        task = asyncio.create_task(self._relay_log(worker, worker.proc), name=f"worker-log-{worker.kind}")
        self._log_tasks.add(task)
        task.add_done_callback(self._log_tasks.discard)
        log.info("started %s worker (pid %s)", worker.kind, worker.proc.pid)

    async def _relay_log(self, worker: Worker, proc: asyncio.subprocess.Process) -> None:
        """Workers log to stderr; their lines join designd's log so there is a single writer of the log file."""
        assert proc.stderr is not None
        logger = logging.getLogger(f"design_console.worker.{worker.kind}")
        async for raw in proc.stderr:
            line = raw.decode(errors="replace").rstrip()
            if line:
                worker.tail.append(line)
                logger.info("%s", line)

    def attach(self, peer: Peer) -> None:
        """A worker said hello: it is running once its pid matches the process we started."""
        kind = peer.kind.removeprefix(WORKER_PREFIX)
        worker = self.workers.get(kind)
        if worker is None or worker.pid != peer.pid or worker.state != WorkerState.STARTING:
            log.warning("unexpected worker hello from %s pid %s", peer.kind, peer.pid)
            return
        worker.identity = peer.identity
        worker.move(WorkerState.RUNNING)
        worker.ready.set()

    def detach(self, peer: Peer) -> None:
        for worker in self.workers.values():
            if worker.identity == peer.identity:
                worker.identity = None

    async def call(
        self,
        kind: str,
        tool: str,
        arguments: dict[str, object],
        active_file_key: str,
        progress: ProgressFn,
        file_scope: FileScope | None = None,
        *,
        access_token: str = "",
    ) -> ToolOutput:
        """Run ``tool`` on the worker of ``kind`` and wait for its result, starting the worker first if needed;
        ``access_token`` is the calling session's own design API token ("" for designd's)."""
        worker = self.workers[kind]
        if not worker.ready.is_set():
            await self._until_ready(worker, progress)
        call_id = uuid.uuid4().hex
        future: asyncio.Future[ToolOutput] = asyncio.get_running_loop().create_future()
        worker.pending[call_id] = Pending(future, tool, progress)
        worker.last_used = time.monotonic()
        try:
            assert worker.identity is not None
            sent = await self.control.send(
                worker.identity,
                Call(
                    id=call_id,
                    tool=tool,
                    arguments=arguments,
                    active_file_key=active_file_key,
                    cwd=str(file_scope.cwd or "") if file_scope else "",
                    roots=None
                    if file_scope is None or file_scope.roots is None
                    else [str(r) for r in file_scope.roots],
                    access_token=access_token,
                ),
            )
            if not sent:
                raise DesignError(ErrorCode.WORKER_UNAVAILABLE, f"The {kind} worker went away.", "Call again.")
            return await future
        except asyncio.CancelledError:
            # The caller is gone: the worker stops the tool too (and whatever it started, e.g. a browser).
            if worker.identity is not None:
                # Best effort: a worker that cannot be told finishes the call and its result is dropped.
                with contextlib.suppress(Exception):
                    await self.control.send(worker.identity, Cancel(id=call_id))
            raise
        finally:
            worker.pending.pop(call_id, None)
            worker.last_used = time.monotonic()

    async def _until_ready(self, worker: Worker, progress: ProgressFn) -> None:
        """Start the worker if it is not running and wait for its hello; a failed start raises at once."""
        if worker.stopped is not None and worker.state == WorkerState.IDLE_STOPPING:
            await asyncio.shield(worker.stopped)
        if self._closing:
            raise DesignError(ErrorCode.WORKER_UNAVAILABLE, f"The {worker.kind} worker is stopping with designd.")
        if worker.state in STARTABLE_STATES:
            await self._spawn(worker)
        if worker.state == WorkerState.STARTING:
            await progress(0, None, f"starting the {worker.kind} worker")
        ready = asyncio.ensure_future(worker.ready.wait())
        failed = asyncio.ensure_future(worker.start_failed.wait())
        try:
            await asyncio.wait({ready, failed}, timeout=READY_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
            failed.cancel()
        if worker.ready.is_set():
            return
        why = f": {worker.tail[-1]}" if worker.start_failed.is_set() and worker.tail else ""
        raise DesignError(
            ErrorCode.WORKER_UNAVAILABLE,
            f"The {worker.kind} worker could not start ({worker.state}){why}.",
            "It is retried by itself; call again in a few seconds, or see `designctl status` and `designctl logs`.",
        )

    async def on_reply(self, peer: Peer, frame: ToolResult | Error | Progress) -> None:
        worker = next((w for w in self.workers.values() if w.identity == peer.identity), None)
        pending = worker.pending.get(frame.id) if worker else None
        if pending is None or pending.future.done():
            return
        if isinstance(frame, Progress):
            await pending.progress(frame.progress, frame.total, frame.message)
        elif isinstance(frame, ToolResult):
            pending.future.set_result(frame.output)
        else:
            pending.future.set_result(failure(DesignError(ErrorCode.of(frame.code), frame.message)))

    def _fail_pending(self, worker: Worker, why: str) -> None:
        for pending in worker.pending.values():
            if not pending.future.done():
                pending.future.set_result(
                    failure(
                        DesignError(
                            ErrorCode.WORKER_CRASHED,
                            f"The {worker.kind} worker {why} while running {pending.tool}.",
                            "It is being restarted: call the tool again.",
                        )
                    )
                )
        worker.pending.clear()

    async def _watchdog(self) -> None:
        while not self._closing:
            await asyncio.sleep(0.2)
            for worker in self.workers.values():
                await self._check(worker)
                self._stop_if_idle(worker)

    def _stop_if_idle(self, worker: Worker) -> None:
        """Stop a running worker that no call has needed for the idle period; it starts again on the next call."""
        idle_for = self.config.worker_idle_seconds
        if (
            worker.state != WorkerState.RUNNING
            or worker.pending
            or idle_for <= 0
            or time.monotonic() - worker.last_used < idle_for
        ):
            return
        log.info("%s worker (pid %s) idle for %ss; stopping it", worker.kind, worker.pid, idle_for)
        worker.move(WorkerState.IDLE_STOPPING)
        worker.ready.clear()

        async def stop() -> None:
            await self._stop_process(worker)
            worker.identity = None
            worker.backoff = BACKOFF_FIRST
            worker.move(WorkerState.IDLE_STOPPED)

        worker.stopped = asyncio.create_task(stop(), name=f"idle-stop-{worker.kind}")
        self._log_tasks.add(worker.stopped)
        worker.stopped.add_done_callback(self._log_tasks.discard)

    async def _check(self, worker: Worker) -> None:
        proc = worker.proc
        if worker.state in WATCHED_STATES and proc is not None:
            if proc.returncode is not None:
                worker.last_exit = proc.returncode
                log.warning("%s worker (pid %s) exited with %s", worker.kind, proc.pid, proc.returncode)
                self._fail_pending(worker, f"stopped (exit code {proc.returncode})")
                self._restart_later(worker)
                return
            peer = self.control.peers.get(worker.identity) if worker.identity else None
            silent = time.monotonic() - peer.last_seen if peer else 0.0
            starting_too_long = worker.state == WorkerState.STARTING and time.time() - worker.started_at > READY_TIMEOUT
            if silent <= WORKER_HEARTBEAT_SECONDS:
                worker.cpu_when_heard = _cpu_seconds(proc.pid)
            frozen = silent > MISSED_BEAT_LIMIT and _cpu_seconds(proc.pid) - worker.cpu_when_heard < IDLE_CPU_SECONDS
            if frozen or silent > HANG_LIMIT or starting_too_long:
                log.warning("%s worker (pid %s) stopped answering; killing it", worker.kind, proc.pid)
                self._fail_pending(worker, "stopped answering")
                await self._kill(proc)
                self._restart_later(worker)

    def _restart_later(self, worker: Worker) -> None:
        """Move the worker to BACKOFF now and respawn it after its delay, without holding up the watchdog."""
        if worker.state == WorkerState.STARTING:
            worker.start_failed.set()
        worker.ready.clear()
        worker.identity = None
        if time.time() - worker.started_at > STABLE_AFTER:
            worker.backoff = BACKOFF_FIRST
        worker.move(WorkerState.BACKOFF)
        delay = worker.backoff
        worker.backoff = min(worker.backoff * 2, BACKOFF_MAX)

        async def respawn() -> None:
            await asyncio.sleep(delay)
            if not self._closing:
                worker.restarts += 1
                await self._spawn(worker)

        task = asyncio.create_task(respawn(), name=f"respawn-{worker.kind}")
        self._log_tasks.add(task)
        task.add_done_callback(self._log_tasks.discard)

    async def _kill(self, proc: asyncio.subprocess.Process) -> None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), STOP_GRACE)

    async def stop(self) -> None:
        """The shutdown ladder for every worker at once: ask (Bye), then terminate, then kill."""
        self._closing = True
        if self._watch is not None:
            self._watch.cancel()
            await asyncio.gather(self._watch, return_exceptions=True)
        await asyncio.gather(*(self._stop_one(worker) for worker in self.workers.values()))
        for task in list(self._log_tasks):
            task.cancel()

    async def _stop_one(self, worker: Worker) -> None:
        if worker.stopped is not None:
            await asyncio.gather(worker.stopped, return_exceptions=True)
        worker.move(WorkerState.STOPPING)
        self._fail_pending(worker, "was stopped with designd")
        await self._stop_process(worker)
        worker.move(WorkerState.STOPPED)

    async def _stop_process(self, worker: Worker) -> None:
        """The ladder for one worker: ask (Bye), then terminate (SIGTERM; on Windows already the end), then kill."""
        proc = worker.proc
        if proc is not None and proc.returncode is None:
            # A worker that never said hello cannot be asked; it goes straight to terminate.
            ladder: list[Callable[[], None] | None] = [proc.terminate, proc.kill]
            if worker.identity is not None:
                await self.control.send(worker.identity, Bye(reason="designd stopping"))
                ladder.insert(0, None)
            for rung in ladder:
                if rung is not None:
                    with contextlib.suppress(ProcessLookupError):
                        rung()
                try:
                    await asyncio.wait_for(proc.wait(), STOP_GRACE)
                    break
                except TimeoutError:
                    continue

    def status(self) -> list[dict[str, object]]:
        """Each worker's pid, state, uptime and restarts."""
        return [
            {
                "kind": w.kind,
                "state": str(w.state),
                "pid": w.pid,
                "uptime": round(time.time() - w.started_at, 1) if w.state == WorkerState.RUNNING else 0,
                "restarts": w.restarts,
                "inFlight": len(w.pending),
                "lastExit": w.last_exit,
            }
            for w in self.workers.values()
        ]


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process; 0 when it cannot be read (it is about to be found dead anyway)."""
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return 0.0
    return float(times.user + times.system)
