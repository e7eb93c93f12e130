"""A fresh headless Chromium-family browser and its DevTools protocol, for the accessibility scan and page import.

The browser is whichever Chromium, Chrome, Edge or Brave the machine has (``DESIGN_BROWSER`` names one). It speaks
the protocol over two pipes that only this process holds (:mod:`design_console.runtime.platform.devtools_pipe`):
it opens no TCP port, so no other local user or program can drive it or read files through it. Each run gets a
throwaway profile and its own process group; leaving the context, a timeout or a cancelled call kills the browser
and every process it started.

Flags every run gets keep the browser from reaching the network behind the caller's back: WebRTC sends no UDP that
bypasses the proxy (it would carry data past any HTTP-level guard and leak the host's addresses), and background
services stay off. What a page may request is each caller's own decision (see :mod:`.page_render`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from design_console.errors import DesignError, ErrorCode
from design_console.runtime.platform.devtools_pipe import PipedBrowser, start_piped
from design_console.runtime.platform.procs import is_superuser

#: Names of Chromium-family browsers on PATH, tried in this order.
BROWSER_COMMANDS = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
    "microsoft-edge-stable",
    "brave-browser",
)
#: Where macOS and Windows install them (not on PATH there).
BROWSER_PATHS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
    r"C:\Program Files\Google\Chrome\Application\chrome.exe",
    r"C:\Program Files (x86)\Google\Chrome\Application\chrome.exe",
    r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe",
)
#: A headless browser answers its first command within a second or two; a cold start may take longer.
START_TIMEOUT_S = 20.0
#: Each run starts its own browser (100-200 MB); more runs than this at once wait for a turn.
MAX_BROWSERS = 2
browsers = asyncio.Semaphore(MAX_BROWSERS)
#: Bytes of the browser's stderr kept to explain a failed start.
STDERR_TAIL_BYTES = 2000
#: One read from the browser's pipe; a message may span many.
READ_CHUNK = 1 << 16

#: WebRTC may use no UDP that does not go through the (closed) proxy: no STUN or TURN packets leave, and no ICE
#: candidate carries one of the host's addresses.
WEBRTC_FLAGS = (
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)

#: The names the browser may still resolve: this machine's, which never leave it (the rules match IP literals too).
_LOOPBACK_EXCLUDES = "EXCLUDE localhost, EXCLUDE 127.*, EXCLUDE ::1, EXCLUDE [::1]"


def network_flags(*, loopback: bool) -> tuple[str, ...]:
    """Flags under which the browser reaches nothing by itself: no host name resolves and every connection goes to
    a closed proxy port. With ``loopback``, this machine's addresses bypass the proxy (a page served here loads its
    own parts); without, they go to the closed proxy too, WebSockets included, which no request gate sees."""
    flags = [f"--host-resolver-rules=MAP * ~NOTFOUND, {_LOOPBACK_EXCLUDES}", "--proxy-server=http://127.0.0.1:9"]
    if not loopback:
        flags.append("--proxy-bypass-list=<-loopback>")
    return tuple(flags)


EventHandler = Callable[[dict[str, Any], str | None], None]


def find_browser(configured: Path | None = None) -> str:
    """The browser to run: ``configured`` (DESIGN_BROWSER) if set, else the first one installed."""
    if configured is not None:
        if not os.access(configured, os.X_OK) or configured.is_dir():
            raise DesignError(
                ErrorCode.BAD_CONFIG,
                f"DESIGN_BROWSER={configured} is not an executable file.",
                "Point it at a Chromium, Chrome, Edge or Brave executable, or unset it to use the one on PATH.",
            )
        return str(configured)
    for name in BROWSER_COMMANDS:
        found = shutil.which(name)
        if found:
            return found
    for path in BROWSER_PATHS:
        if os.access(path, os.X_OK):
            return path
    raise DesignError(
        ErrorCode.UNAVAILABLE,
        "No Chromium-family browser was found (looked for "
        + ", ".join(BROWSER_COMMANDS[:4])
        + " on PATH and the usual install folders).",
        "Install Chromium or Google Chrome (e.g. `apt install chromium`, or from google.com/chrome), or set "
        "DESIGN_BROWSER to the path of one, then call again.",
    )


def _flags(profile: str, extra: Sequence[str]) -> list[str]:
    """A quiet headless browser on ``profile`` with ``extra`` flags, opening a blank page."""
    flags = [
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--mute-audio",
        *WEBRTC_FLAGS,
        *extra,
        f"--user-data-dir={profile}",
    ]
    # Chromium refuses to start its sandbox as root (containers, CI); it runs without it there.
    if is_superuser():
        flags.append("--no-sandbox")
    return [*flags, "about:blank"]


class Cdp:
    """The DevTools protocol over a started browser's pipes: commands answered by id, events passed to handlers.

    A thread reads the browser's pipe and decodes each message off the event loop (an axe report or a page walk can
    be megabytes); commands are written in a thread too, one at a time, so a large document never stalls the loop.
    """

    def __init__(self, browser: PipedBrowser) -> None:
        self._browser = browser
        self._loop = asyncio.get_running_loop()
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._handlers: dict[str, EventHandler] = {}
        self._write_lock = asyncio.Lock()
        self._gone: str | None = None
        self._reader = threading.Thread(target=self._read, name="devtools-pipe", daemon=True)
        self._reader.start()

    def on(self, event: str, handler: EventHandler) -> None:
        """Call ``handler(params, session_id)`` on the loop for each ``event`` (one handler per event)."""
        self._handlers[event] = handler

    async def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        """Send one command and return its result; DesignError when the browser refuses it or has gone."""
        if self._gone is not None:
            raise self._gone_error()
        msg_id = next(self._ids)
        frame: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            frame["sessionId"] = session
        reply = self._loop.create_future()
        self._pending[msg_id] = reply
        data = json.dumps(frame).encode() + b"\0"
        try:
            async with self._write_lock:
                await asyncio.to_thread(self._write, data)
            answer = await reply
        finally:
            self._pending.pop(msg_id, None)
        if "error" in answer:
            raise DesignError(
                ErrorCode.INTERNAL,
                f"The browser refused {method}: {answer['error'].get('message')}.",
                "Try again; if it persists, set DESIGN_BROWSER to another Chromium-family browser.",
            )
        return answer.get("result", {})

    def _write(self, data: bytes) -> None:
        try:
            self._browser.to_browser.write(data)
        except OSError:
            # The browser is gone; the reader's end of file fails every pending command with the reason.
            pass

    def _read(self) -> None:
        buffer = bytearray()
        try:
            while chunk := self._browser.from_browser.read(READ_CHUNK):
                buffer += chunk
                while (end := buffer.find(b"\0")) >= 0:
                    message = json.loads(buffer[:end])
                    del buffer[: end + 1]
                    self._post(self._dispatch, message)
        except (OSError, ValueError):
            pass
        self._post(self._ended)

    def _post(self, callback: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is waiting any more
            self._loop.call_soon_threadsafe(callback, *args)

    def _dispatch(self, message: dict[str, Any]) -> None:
        msg_id = message.get("id")
        if msg_id is not None:
            reply = self._pending.get(msg_id)
            if reply is not None and not reply.done():
                reply.set_result(message)
            return
        handler = self._handlers.get(message.get("method", ""))
        if handler is not None:
            handler(message.get("params", {}), message.get("sessionId"))

    def _ended(self) -> None:
        self._gone = self._gone or "the browser closed its DevTools pipe"
        for reply in self._pending.values():
            if not reply.done():
                reply.set_exception(self._gone_error())

    def _gone_error(self) -> DesignError:
        return DesignError(
            ErrorCode.UNAVAILABLE,
            f"The browser stopped answering ({self._gone}).",
            "Try again; if it persists, check that the browser starts on this machine or set DESIGN_BROWSER.",
        )

    def close(self, reason: str) -> None:
        """Mark the connection closed with ``reason`` (the browser is being stopped)."""
        self._gone = self._gone or reason


def _stderr_tail(path: str) -> str:
    try:
        with open(path, "rb") as log:
            log.seek(max(0, os.path.getsize(path) - STDERR_TAIL_BYTES))
            lines = log.read().decode(errors="replace").strip().splitlines()
    except OSError:
        return "no output"
    return " | ".join(lines[-5:]) or "no output"


@contextlib.asynccontextmanager
async def devtools(command: str, flags: Sequence[str], prefix: str) -> AsyncIterator[Cdp]:
    """The DevTools connection of a fresh headless ``command`` started with ``flags`` on a profile of its own
    (a temporary directory named from ``prefix``); on exit the browser and its children are stopped and the profile
    removed. Raises DesignError ``unavailable`` when the browser does not start."""
    # The browser's last child processes may still be leaving files as the profile is removed: not worth failing.
    with tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True) as home:
        profile = os.path.join(home, "profile")
        stderr_path = os.path.join(home, "stderr.log")
        try:
            browser = start_piped([command, *_flags(profile, flags)], stderr_path)
        except OSError as exc:
            raise DesignError(
                ErrorCode.UNAVAILABLE,
                f"The browser {command} could not be started ({exc.strerror or exc}).",
                "Check that it is installed and executable, or set DESIGN_BROWSER to another Chromium-family browser.",
            ) from None
        cdp = Cdp(browser)
        try:
            try:
                await asyncio.wait_for(cdp.send("Browser.getVersion"), START_TIMEOUT_S)
            except TimeoutError:
                raise DesignError(
                    ErrorCode.UNAVAILABLE,
                    f"The browser {command} did not answer on its DevTools pipe within {START_TIMEOUT_S:g} s.",
                    "Check that it starts on this machine (run it with --headless), or set DESIGN_BROWSER to "
                    "another Chromium-family browser.",
                ) from None
            except DesignError:
                raise DesignError(
                    ErrorCode.UNAVAILABLE,
                    f"The browser exited before it was ready: {_stderr_tail(stderr_path)}.",
                    "Check that it starts on this machine (run it with --headless), or set DESIGN_BROWSER to another.",
                ) from None
            yield cdp
        finally:
            cdp.close("the run is over")
            browser.kill()
            await asyncio.to_thread(browser.wait)
            browser.close()
