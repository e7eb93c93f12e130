"""The shared loop of every worker process: connect to designd, run the tool calls it sends, answer.

Started by designd's supervisor as ``python -m design_console.workers.main --kind api --parent <pid>``. A worker
exits when designd says goodbye, when designd's process is gone, or on SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import logging
import os
import sys
import uuid
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import msgspec
import psutil
import zmq

from design_console.config import Config, load_config
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import command_timeout
from design_console.protocol import (
    PROTOCOL_VERSION,
    WORKER_HEARTBEAT_SECONDS,
    WORKER_PREFIX,
    BridgeCall,
    Bye,
    Call,
    Cancel,
    Error,
    Frame,
    Hello,
    Ping,
    Progress,
    Result,
    StateQuery,
    ToolOutput,
    ToolResult,
    decode,
    encode,
)
from design_console.runtime.logs import setup_logging
from design_console.runtime.platform.memory import Reclaimer
from design_console.runtime.signals import stop_on_signals
from design_console.runtime.socket_thread import Gone, SocketThread
from design_console.runtime.transport import client_socket, find_endpoint
from design_console.runtime.user_files import FileScope
from design_console.tools import catalog
from design_console.tools.base import Args, ToolSpec
from design_console.tools.calls import run_call
from design_console.tools.context import ApiContext, ProgressFn, StateQueryName

if TYPE_CHECKING:
    from design_console.clients.design_api import DesignApi

log = logging.getLogger("design_console.worker")

_json_encode = msgspec.json.Encoder().encode

PARENT_POLL = 0.5
#: Design API clients kept for sessions with a token of their own (each holds a connection pool).
MAX_SESSION_CLIENTS = 8


class WorkerCallContext:
    """What a handler running in a worker gets: the design API client, the bridge and state via designd, progress.

    It implements :class:`tools.context.ApiContext`, :class:`tools.context.MediaContext` and
    :class:`tools.context.TokensContext`.
    """

    def __init__(self, worker: WorkerProcess, call: Call) -> None:
        self._worker = worker
        self._call = call
        self.config = (
            msgspec.structs.replace(worker.config, access_token=call.access_token)
            if call.access_token
            else worker.config
        )
        self.active_file_key: str | None = call.active_file_key or None
        self.file_scope = FileScope.from_wire(call.cwd, call.roots)

    @property
    def api(self) -> DesignApi:
        return self._worker.api_for(self._call.access_token)

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        # The plugin's progress on a long command is this call's progress: the AI app's wait is kept alive by it.
        return await self._worker.bridge(method, params or {}, file_key, timeout, self.progress)

    async def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        await self._worker.send(Progress(id=self._call.id, progress=progress, total=total, message=message))

    async def state(self, what: StateQueryName, file_key: str = "") -> Any:
        """State the plugin pushed to designd, such as ``metadata_changes`` of a file."""
        return await self._worker.ask(StateQuery(what=what, file_key=file_key))


class WorkerProcess:
    """One worker: a DEALER on designd's control socket, driven by a thread (``runtime/socket_thread.py``)."""

    def __init__(self, config: Config, kind: str, parent: int) -> None:
        self.config = config
        self.kind = kind
        self.parent = parent
        self.tools: dict[str, ToolSpec] = {n: s for n, s in catalog().items() if s.runs_in == kind}
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        self._sock = client_socket(self._ctx, config, f"{WORKER_PREFIX}{kind}")
        self._link = SocketThread(self._ctx, self._sock, routed=False, name="control")
        self._waits: dict[str, asyncio.Future[Any]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._done = asyncio.Event()
        self._api: DesignApi | None = None
        #: Clients of sessions that brought their own token, most recently used last.
        self._session_apis: OrderedDict[str, DesignApi] = OrderedDict()
        self._closing: set[asyncio.Task[None]] = set()
        self._reclaimer = Reclaimer()
        #: Where the progress designd passes on for a bridge command in flight goes, by the command's frame id.
        self._bridge_progress: dict[str, ProgressFn] = {}

    @property
    def api(self) -> DesignApi:
        """The design API client, created on first use so a worker that never needs it never builds it."""
        if self._api is None:
            from design_console.clients.design_api import DesignApi

            self._api = DesignApi(self.config)
        return self._api

    def api_for(self, token: str) -> DesignApi:
        """The client for a call: designd's own, or one per token a session brought, each with a cache of its own so
        no session is answered from responses fetched with another's token."""
        if not token or token == self.config.access_token:
            return self.api
        client = self._session_apis.get(token)
        if client is None:
            from design_console.clients.design_api import DesignApi

            # A salted digest names the cache folder: the token itself is never written anywhere.
            folder = hashlib.sha256(b"design-console-mcp session cache\0" + token.encode()).hexdigest()[:32]
            config = msgspec.structs.replace(
                self.config, access_token=token, home=self.config.home / "session-caches" / folder
            )
            client = self._session_apis[token] = DesignApi(config)
            while len(self._session_apis) > MAX_SESSION_CLIENTS:
                retired = self._session_apis.popitem(last=False)[1]
                task = asyncio.get_running_loop().create_task(retired.aclose())
                self._closing.add(task)
                task.add_done_callback(self._closing.discard)
        self._session_apis.move_to_end(token)
        return client

    async def send(self, frame: Frame) -> None:
        self._link.send([encode(frame)])

    async def bridge(
        self, method: str, params: dict[str, Any], file_key: str, timeout: float, progress: ProgressFn
    ) -> dict[str, Any]:
        # Encoded here, once: designd passes the JSON on without reading it, so its timeout is reckoned here too.
        frame = BridgeCall(
            method=method,
            params_json=_json_encode(params),
            file_key=file_key,
            timeout=timeout or command_timeout(method, params),
        )
        frame.id = uuid.uuid4().hex
        self._bridge_progress[frame.id] = progress
        try:
            reply = await self.ask(frame)
        finally:
            self._bridge_progress.pop(frame.id, None)
        return reply if isinstance(reply, dict) else {"result": reply}

    async def ask(self, frame: BridgeCall | StateQuery) -> Any:
        """Send a request to designd and wait for its Result (an Error raises DesignError)."""
        frame.id = frame.id or uuid.uuid4().hex
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waits[frame.id] = future
        try:
            await self.send(frame)
            return await future
        finally:
            self._waits.pop(frame.id, None)

    async def run(self) -> None:
        endpoint = find_endpoint(self.config)
        if endpoint is None:
            log.info("designd's control socket is gone; exiting")
            self._done.set()
        else:
            self._sock.connect(endpoint)
        self._link.start()
        await self.send(Hello(peer=f"{WORKER_PREFIX}{self.kind}", version=PROTOCOL_VERSION, pid=os.getpid()))
        stop_on_signals(self._done)
        tasks = [
            asyncio.create_task(self._receive()),
            asyncio.create_task(self._heartbeat()),
            asyncio.create_task(self._watch_parent()),
        ]
        if self.kind == "media":
            from design_console.clients.media import sweep_periodically

            tasks.append(asyncio.create_task(sweep_periodically(self.config.media_dir)))
        await self._done.wait()
        for task in [*tasks, *self._tasks.values()]:
            task.cancel()
        await asyncio.gather(*tasks, *self._tasks.values(), return_exceptions=True)
        for client in [*([self._api] if self._api is not None else []), *self._session_apis.values()]:
            with contextlib.suppress(Exception):
                await client.aclose()
        self._link.close()
        self._sock.close(linger=0)
        self._ctx.term()

    async def _receive(self) -> None:
        while True:
            item = await self._link.receive()
            if isinstance(item, Gone):
                log.info("designd's connection ended (%s); exiting", item.reason)
                self._done.set()
                return
            try:
                frame = decode(item[0])
            except Exception as exc:
                log.warning("undecodable frame from designd: %s", exc)
                continue
            if isinstance(frame, Call):
                self._tasks[frame.id] = asyncio.create_task(self._run_call(frame))
            elif isinstance(frame, Cancel) and frame.id in self._tasks:
                self._tasks[frame.id].cancel()
            elif isinstance(frame, Progress) and frame.id in self._bridge_progress:
                await self._bridge_progress[frame.id](frame.progress, frame.total, frame.message)
            elif isinstance(frame, Result | Error) and frame.id in self._waits:
                future = self._waits[frame.id]
                if not future.done():
                    if isinstance(frame, Result):
                        future.set_result(frame.data)
                    else:
                        future.set_exception(DesignError(ErrorCode.of(frame.code), frame.message))
            elif isinstance(frame, Bye):
                self._done.set()

    async def _run_call(self, call: Call) -> None:
        async def run(spec: ToolSpec, args: Args) -> ToolOutput:
            # One context serves every kind of worker: an ApiContext has all a MediaContext or a TokensContext has.
            context: ApiContext = WorkerCallContext(self, call)
            return await spec.handler(context, args)

        try:
            # The output is handed over without a name, so nothing of it outlives its frame.
            await self.send(ToolResult(id=call.id, output=await run_call(self.tools, call.tool, call.arguments, run)))
        finally:
            self._tasks.pop(call.id, None)
            self._reclaimer.after_job()

    async def _heartbeat(self) -> None:
        while True:
            await self.send(Ping())
            await asyncio.sleep(WORKER_HEARTBEAT_SECONDS)

    async def _watch_parent(self) -> None:
        """Exit when designd's process is gone (by pid and start time: a reused pid is not designd)."""
        try:
            parent = psutil.Process(self.parent)
        except psutil.Error:
            parent = None
        while True:
            if parent is None or not _running(parent):
                break
            await asyncio.sleep(PARENT_POLL)
        log.info("designd (pid %s) is gone; exiting", self.parent)
        self._done.set()


def _running(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="design-console-worker")
    parser.add_argument("--kind", required=True)
    parser.add_argument("--parent", type=int, required=True)
    opts = parser.parse_args(argv)
    config = load_config()
    setup_logging(config, f"worker-{opts.kind}", [], to_file=False)
    if psutil.Process().ppid() != opts.parent:
        sys.exit(0)
    asyncio.run(WorkerProcess(config, opts.kind, opts.parent).run())


if __name__ == "__main__":
    main()
