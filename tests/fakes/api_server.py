"""The fake design API as a real HTTP server: in a thread of the test process, or as a process of its own.

In tests, one :class:`ApiServer` serves the whole run (the ``fake_api_server`` fixture of ``tests/conftest.py``) and
:meth:`ApiServer.reset` swaps in a fresh :class:`~fakes.design_api.FakeDesignApi` before each test that asks for
``fake_api``, so no test sees another's comments, versions, faults or request log. Tests read and change the fake
directly (``server.fake.seen``, ``server.fake.files``) or through its HTTP controls (``server.control("fail", …)``).

As a process, from the repository root: ``python -m tests.fakes.api_server --port 0 [--huge-mb MB]`` (or from
``tests/``: ``python -m fakes.api_server``); it prints ``LISTENING <port>`` once it listens on 127.0.0.1. Stop it
with SIGTERM. Benchmarks use :func:`api_process`, so that the fake's work is not counted as theirs.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from design_console.config import Config, load_config

from .design_api import PERSONAL_TOKEN, FakeDesignApi, prepare

START_TIMEOUT = 30.0
METHODS = ["GET", "POST", "PUT", "DELETE"]


def _bound_socket(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock


def _uvicorn(app: Starlette) -> uvicorn.Server:
    # A request held by /_fake/delay must not hold up a stop: shutdown waits a second at most.
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    return uvicorn.Server(config)


class ApiServer:
    """A fake design API on 127.0.0.1, served from a background thread of this process."""

    def __init__(self, fake: FakeDesignApi | None = None, port: int = 0) -> None:
        prepare()
        self._sock = _bound_socket(port)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self.fake = fake or FakeDesignApi()
        self.fake.base_url = self.url
        app = Starlette(routes=[Route("/{path:path}", self._handle, methods=METHODS)])
        self._server = _uvicorn(app)
        self._thread: threading.Thread | None = None

    async def _handle(self, request: Request) -> Response:
        # Looked up per request, so that reset() takes effect at once.
        return await self.fake.handle(request)

    def start(self) -> ApiServer:
        """Serve until :meth:`stop`; returns once the server accepts connections."""
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            async def main() -> None:
                task = asyncio.create_task(self._server.serve(sockets=[self._sock]))
                while not self._server.started:
                    if task.done():
                        break
                    await asyncio.sleep(0.01)
                started.set()
                await task

            try:
                asyncio.run(main())
            except BaseException as exc:  # reported to the caller waiting for the start
                failure.append(exc)
                started.set()

        self._thread = threading.Thread(target=run, name="fake-design-api", daemon=True)
        self._thread.start()
        if not started.wait(START_TIMEOUT) or failure:
            self.stop()
            raise RuntimeError(f"the fake design API did not start: {failure[0] if failure else 'timed out'}")
        return self

    def stop(self) -> None:
        """Shut the server down and wait for its thread."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(START_TIMEOUT)
        self._sock.close()

    def reset(self, fake: FakeDesignApi | None = None) -> FakeDesignApi:
        """Serve a fresh fake (or ``fake``) from now on; the spec checks already passed are kept, as they hold for
        any fake."""
        fresh = fake or FakeDesignApi()
        fresh.base_url = self.url
        fresh.valid = self.fake.valid
        self.fake = fresh
        return fresh

    def control(self, path: str, payload: dict[str, Any] | None = None) -> Any:
        """Call one of the fake's HTTP test controls (``/_fake/<path>``), as a test in another process would."""
        return httpx.post(f"{self.url}/_fake/{path}", json=payload or {}, timeout=10).json()

    def requests(self) -> list[dict[str, Any]]:
        """Every /v1 request the fake saw since it was reset."""
        return list(self.fake.seen)

    def client_config(self, home: Path, token: str | None = PERSONAL_TOKEN, **env: str) -> Config:
        """The config of a design API client pointed at this server: see :func:`client_config`."""
        return client_config(self.url, home, token, **env)


def client_config(url: str, home: Path, token: str | None = PERSONAL_TOKEN, **env: str) -> Config:
    """The config of a design API client (an api or media worker) pointed at the fake at ``url``; its home and temp
    dir (where the media folder lives) are ``home``; ``token`` None leaves DESIGN_ACCESS_TOKEN unset."""
    base = {"HOME": str(home), "DESIGN_CONSOLE_HOME": str(home), "TMPDIR": str(home), "DESIGN_API_URL": url}
    if token is not None:
        base["DESIGN_ACCESS_TOKEN"] = token
    return load_config({**base, **env})


@contextmanager
def api_process(huge_mb: float = 0.0) -> Iterator[str]:
    """Run the fake as a process of its own (with a generated file of ``huge_mb`` MB); yields its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "fakes.api_server", "--port", "0", "--huge-mb", str(huge_mb)],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("LISTENING "):
            raise RuntimeError(f"the fake design API did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        process.terminate()
        try:
            process.wait(START_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def main() -> None:
    """Entry point: ``python -m tests.fakes.api_server [--port N] [--huge-mb MB]``; SIGTERM ends it."""
    parser = argparse.ArgumentParser(description="A fake design API that checks requests against the OpenAPI spec.")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one, printed)")
    parser.add_argument("--huge-mb", type=float, default=0.0, help="size of the generated file HUGE_KEY serves")
    args = parser.parse_args()
    server = ApiServer(FakeDesignApi(args.huge_mb), args.port).start()
    print(f"LISTENING {server.url.rsplit(':', 1)[1]}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
