"""Remote Mode's headless browser: design_navigate, design_get_console_logs and design_take_screenshot without the
plugin (spec 1 rule 3).

One Chromium (Debian's, driven by Playwright) serves every user of the server; each user gets an isolated browser
context (own cookies, storage and cache) holding one page, closed after it has been idle for a while. Every navigation
of that page, its frames and its popups is checked against REMOTE_BROWSER_ALLOWLIST before it leaves the browser,
redirect hops included: Chromium follows redirects without asking Playwright, so a document request is fetched here
without following redirects, and a redirect is answered with a tiny page that moves on to its target, which is then
checked like any other navigation. A page's other requests may go anywhere public (the design tool loads from CDNs),
but not to a private or loopback address named literally, unless it is on the allowlist. At most REMOTE_BROWSER_MAX
operations run at once and REMOTE_BROWSER_PER_USER of one user's; at most REMOTE_BROWSER_QUEUE wait their turn (and
say so through progress), and a call beyond is answered "busy, try again in N s" at once. Console entries have the
shape of spec 2.1 with source ``browser``; Remote Mode never claims the plugin's sandbox console (spec 1 rule 5).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import urljoin, urlsplit

import msgspec
from msgspec import Meta

from design_console.clients.devtools import WEBRTC_FLAGS
from design_console.clients.media import DEFAULT_JPEG_QUALITY, DEFAULT_MAX_EDGE, process_image
from design_console.config import Config
from design_console.engines.console_entry import ConsoleEntry, cap_message
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.remote.admission import Admission
from design_console.runtime.platform.devtools_pipe import browser_env
from design_console.tools.args import ConsoleLevelFilter
from design_console.tools.base import Args, image, ok
from design_console.tools.core.connection import fit_encoded

try:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeoutError
    from playwright.async_api import async_playwright

    HAVE_PLAYWRIGHT = True
except ImportError:  # the `remote` extra is not installed: every call says how to enable the browser
    HAVE_PLAYWRIGHT = False

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Playwright, Request, Route

log = logging.getLogger("design_console.remote.browser")

#: Reports waiting and progress to the caller: (progress, total, message), like a tool context's ``progress``.
Progress = Callable[[float, float | None, str], Awaitable[None]]
ShotFormat = Literal["png", "jpg", "jpeg"]

#: Flags for Debian's chromium on a server: no GPU, no traffic of its own (updates, sync, safe browsing lists).
CHROMIUM_ARGS = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    *WEBRTC_FLAGS,
)
VIEWPORT = {"width": 1280, "height": 800}
#: A user's context is closed after this long without a call (its page, cookies and console go with it).
IDLE_SECONDS = 300.0
#: Starting Chromium has its own limit: a slow first start should not eat a short BROWSER_TIMEOUT.
LAUNCH_TIMEOUT_MS = 60_000
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
#: Like a browser's own limit: a loop of redirects ends with an error, not a hang.
MAX_REDIRECTS = 20
#: Playwright's console message types that are not plainly one of spec 2.1's levels; the rest count as ``log``.
LEVELS = {"error": "error", "assert": "error", "warning": "warn", "info": "info", "debug": "debug", "trace": "debug"}
REMOTE_NOTE = (
    "Remote Mode shows the console of the page design_navigate opened in a headless browser; the Desktop Bridge "
    "plugin's own console is only captured in Local Mode."
)
BLANK_WARNING = "The image is a single colour: the page may be empty or not drawn yet. Take it again in a moment."
NOT_ENABLED = "Browser Rendering not enabled"
#: What a browser call is assumed to take before any has run (the busy answer's estimate starts from it).
TYPICAL_SECONDS = 5.0


def host_allowed(url: str, allowlist: Iterable[str]) -> bool:
    """Whether ``url`` is an http(s) URL whose host (and port, when an entry names one) is on ``allowlist``.

    ``example.com`` matches that host only; ``*.example.com`` matches its subdomains.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https"):
        return False
    host = (parts.hostname or "").rstrip(".")
    if not host:
        return False
    port = port or (443 if parts.scheme == "https" else 80)
    for entry in allowlist:
        name, _, wanted = entry.partition(":")
        if wanted and int(wanted) != port:
            continue
        if host == name or (name.startswith("*.") and host.endswith(name[1:])):
            return True
    return False


def private_address(url: str) -> bool:
    """Whether ``url`` names a loopback, private, link-local or otherwise non-public IP address (or localhost)
    literally: a page's own requests may not reach the server's network that way, cloud metadata included."""
    try:
        host = (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not address.is_global


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _first_line(exc: BaseException) -> str:
    text = getattr(exc, "message", "") or str(exc)
    return text.strip().splitlines()[0].rstrip(".") if text.strip() else type(exc).__name__


def _redirect_page(target: str) -> str:
    """A page that replaces itself with ``target``: that next hop is a navigation of its own, checked again."""
    quoted = msgspec.json.encode(target).decode().replace("<", "\\u003c")
    return f'<!doctype html><meta name="referrer" content="no-referrer"><script>location.replace({quoted})</script>'


class RemoteNavigateArgs(Args):
    url: Annotated[str, Meta(min_length=1, max_length=4096, description="http(s) page on the server's allowlist")]


class RemoteConsoleArgs(Args):
    count: Annotated[int, Meta(ge=1, le=1000, description="Newest N entries.")] = 100
    level: ConsoleLevelFilter = "all"
    since: Annotated[int, Meta(ge=0, description="Only entries after this time (ms since epoch).")] = 0


class RemoteScreenshotArgs(Args, kw_only=True):
    url: Annotated[str, Meta(min_length=1, max_length=4096, description="Navigate here first")] | None = None
    format: ShotFormat = "png"
    quality: Annotated[int, Meta(ge=1, le=100, description="JPEG quality")] = DEFAULT_JPEG_QUALITY
    scale: Annotated[float, Meta(gt=0, le=1, description="Shrink the image (1 = CSS pixels)")] = 1.0
    fullPage: bool = False


#: The Remote Mode variants of the three browser tools: name → (description, argument struct). Their schemas come
#: from the structs like every catalog tool's (``tools.schema.input_schema``); a call reaches :meth:`BrowserPool.run`
#: as any tool call does, through ``tools.calls.run_call`` (``remote.tools.remote_catalog`` makes their ToolSpecs).
BROWSER_TOOLS: dict[str, tuple[str, type[Args]]] = {
    "design_navigate": (
        "Open a page of the design tool in this server's headless browser (allowlisted hosts only) and wait for it "
        "to load.",
        RemoteNavigateArgs,
    ),
    "design_get_console_logs": (
        "Console output of the page design_navigate opened (not the plugin's): newest `count`, filtered by level "
        "and since.",
        RemoteConsoleArgs,
    ),
    "design_take_screenshot": (
        "Image of the page design_navigate opened (url: navigate first). png is lossless; jpg (or jpeg) takes quality.",
        RemoteScreenshotArgs,
    ),
}


@dataclass
class _Outcome:
    """How the navigation of a user's main frame ended: the document URL it reached, or why it did not."""

    url: str
    status: int = 0
    blocked: bool = False
    timed_out: bool = False
    error: str = ""


class _Session:
    """One user's isolated context, its page and its console ring."""

    def __init__(self, user: str, context: BrowserContext, capacity: int) -> None:
        self.user = user
        self.context = context
        self.page: Page | None = None
        self.console: deque[ConsoleEntry] = deque(maxlen=capacity)
        #: Entries pushed out of the ring by newer ones.
        self.dropped = 0
        self.crashed = False
        self.last_used = time.monotonic()
        #: Set while design_navigate waits for its main-frame navigation to end.
        self.outcome: asyncio.Future[_Outcome] | None = None
        self.redirects = 0
        self.tasks: set[asyncio.Task[None]] = set()

    def add(self, level: str, message: str, source: str = "browser") -> None:
        if len(self.console) == self.console.maxlen:
            self.dropped += 1
        self.console.append(ConsoleEntry(timestamp=_now_ms(), level=level, message=cap_message(message), source=source))

    def settle(self, page: Page | None, outcome: _Outcome) -> None:
        """End design_navigate's wait, if ``page`` (whose main frame the outcome is about) is still the user's page:
        a request of a page dropped after a timeout may end long after a newer navigation began."""
        if page is not None and page is self.page and self.outcome is not None and not self.outcome.done():
            self.outcome.set_result(outcome)

    def read(self, level: str, since: int, count: int) -> list[ConsoleEntry]:
        """The newest ``count`` entries of ``level`` newer than ``since``, oldest first."""
        picked: list[ConsoleEntry] = []
        for entry in reversed(self.console):
            if entry.timestamp <= since:
                break
            if level != "all" and entry.level != level:
                continue
            picked.append(entry)
            if len(picked) >= count:
                break
        picked.reverse()
        return picked


class BrowserPool:
    """The headless browser of one Remote Mode server: start it in the server's lifespan, stop it at shutdown.

    Every public call takes the caller's identity (``user``, any string that is stable per user, e.g. the OAuth
    subject) and returns a :class:`ToolOutput` shaped like the Local Mode tool of the same name, or raises
    :class:`DesignError`.
    """

    def __init__(self, config: Config, *, idle_seconds: float = IDLE_SECONDS) -> None:
        self.config = config
        self.idle_seconds = idle_seconds
        self._timeout_ms = config.browser_timeout_ms
        self.admission = Admission(
            "browser",
            "browsers",
            slots=config.remote_browser_max,
            per_user=config.remote_browser_per_user,
            queue=config.remote_browser_queue,
            typical_seconds=TYPICAL_SECONDS,
            wait_limit=self._timeout_ms / 1000,
        )
        self._busy = 0
        self._user_locks: dict[str, asyncio.Lock] = {}
        self._sessions: dict[str, _Session] = {}
        self._launch_lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._reaper: asyncio.Task[None] | None = None

    # --- lifespan ---------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Begin closing idle contexts. Chromium itself starts with the first call that needs it."""
        if self._reaper is None:
            self._reaper = asyncio.create_task(self._reap_idle(), name="browser-idle-reaper")

    async def stop(self) -> None:
        """Close every context, Chromium and Playwright's driver; safe to call twice."""
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        for user in list(self._sessions):
            await self._close_session(user)
        async with self._launch_lock:
            await self._close_browser()
            if self._playwright is not None:
                await self._playwright.stop()
                self._playwright = None

    def available(self) -> bool:
        """Whether the browser tools can run here: enabled, with Playwright and Chromium installed."""
        try:
            self._check_available()
        except DesignError:
            return False
        return True

    def status(self) -> dict[str, Any]:
        """What a health or diagnose report shows about the browser."""
        return {
            "enabled": self.config.remote_browser_enabled,
            "running": self._browser is not None and self._browser.is_connected(),
            "sessions": len(self._sessions),
            "busy": self._busy,
            "waiting": self.admission.waiting,
            "max": self.config.remote_browser_max,
            "allowlist": list(self.config.remote_browser_allowlist),
        }

    def users(self) -> list[str]:
        """The users whose context is open."""
        return list(self._sessions)

    # --- the three tools --------------------------------------------------------------------------------------

    async def navigate(self, user: str, url: str, *, progress: Progress | None = None) -> ToolOutput:
        """design_navigate: open ``url`` in the user's page and wait until it has loaded."""
        self._check_url(url)
        async with self._turn(user, progress) as (session, queued_ms):
            data = await self._navigate(session, url)
        if queued_ms:
            data["queuedMs"] = queued_ms
        return ok(data)

    async def console_logs(
        self, user: str, *, count: int = 100, level: ConsoleLevelFilter = "all", since: int = 0
    ) -> ToolOutput:
        """design_get_console_logs: the newest ``count`` console entries of the user's page (spec 2.1 shape)."""
        self._check_available()
        session = self._sessions.get(user)
        data: dict[str, Any] = {}
        entries: list[ConsoleEntry] = []
        if session is None:
            data["url"] = None
            data["hint"] = "No page is open for you: call design_navigate first."
        else:
            session.last_used = time.monotonic()
            data["url"] = session.page.url if session.page is not None else None
            entries = session.read(level, since, count)
        kept, omitted = fit_encoded(entries)
        data["logs"] = msgspec.Raw(b"[" + b",".join(kept) + b"]")
        data["count"] = len(kept)
        data["buffered"] = len(session.console) if session else 0
        if session is not None and session.dropped:
            data["dropped"] = session.dropped
        if omitted:
            data["omitted"] = omitted
            data["hint"] = "Older entries were left out to fit the result; pass since or a smaller count to page."
        if kept:
            data["newestTimestamp"] = entries[-1].timestamp
        data["note"] = REMOTE_NOTE
        return ok(data)

    async def screenshot(
        self,
        user: str,
        *,
        format: ShotFormat = "png",
        quality: int = DEFAULT_JPEG_QUALITY,
        scale: float = 1.0,
        full_page: bool = False,
        url: str | None = None,
        progress: Progress | None = None,
    ) -> ToolOutput:
        """design_take_screenshot: an image of the user's page (``url`` first navigates there), PNG or JPEG.

        The page is captured at CSS pixels (viewport 1280×800, or the whole page with ``full_page``); ``scale`` below 1
        shrinks it, and the long edge is capped at 1568 px like every screenshot the tools return.
        """
        if not 0 < scale <= 1:
            raise DesignError(ErrorCode.BAD_ARGUMENT, f"scale={scale} is out of range.", "Use a number in (0, 1].")
        output: Literal["png", "jpeg"] = "png" if format == "png" else "jpeg"
        if url is not None:
            self._check_url(url)
        else:
            self._check_available()
        async with self._turn(user, progress) as (session, queued_ms):
            if url is not None:
                await self._navigate(session, url)
            page = session.page
            if page is None or page.url in ("", "about:blank"):
                raise DesignError(
                    ErrorCode.BAD_ARGUMENT, "No page is open for you.", "Call design_navigate first, or pass url."
                )
            async with self._bounded(session, "take the screenshot"):
                raw = await page.screenshot(type="png", full_page=full_page, timeout=self._timeout_ms)
                title = await page.title()
            page_url = page.url
        # A PNG's IHDR holds its size at bytes 16..24: the capped edge is known before decoding.
        long_edge = max(int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big"))
        processed = await asyncio.to_thread(
            process_image,
            raw,
            output=output,
            quality=quality if output == "jpeg" else None,
            max_edge=max(1, min(DEFAULT_MAX_EDGE, round(long_edge * scale))),
        )
        meta: dict[str, Any] = {
            "url": page_url,
            "title": title,
            "source": "browser",
            "format": processed.format,
            "width": processed.width,
            "height": processed.height,
            "bytes": len(processed.data),
            "fullPage": full_page,
            "scale": scale,
        }
        if processed.resized:
            meta["resizedFrom"] = {"width": processed.source_width, "height": processed.source_height}
        if processed.blank:
            meta["warning"] = BLANK_WARNING
        if queued_ms:
            meta["queuedMs"] = queued_ms
        return image(processed.data, processed.mime_type, meta)

    async def run(self, user: str, args: Args, *, progress: Progress | None = None) -> ToolOutput:
        """Run the browser tool whose parsed arguments ``args`` are (one of the structs of :data:`BROWSER_TOOLS`)."""
        if isinstance(args, RemoteNavigateArgs):
            return await self.navigate(user, args.url, progress=progress)
        if isinstance(args, RemoteConsoleArgs):
            return await self.console_logs(user, count=args.count, level=args.level, since=args.since)
        if not isinstance(args, RemoteScreenshotArgs):
            raise TypeError(f"{type(args).__name__} is not the arguments of a browser tool")
        return await self.screenshot(
            user,
            format=args.format,
            quality=args.quality,
            scale=args.scale,
            full_page=args.fullPage,
            url=args.url,
            progress=progress,
        )

    # --- checks -----------------------------------------------------------------------------------------------

    def _check_available(self) -> None:
        """Raise the spec's "Browser Rendering not enabled" error, with how to enable it, when no browser can run."""
        path = self.config.remote_browser_path
        how = (
            "design_navigate, design_get_console_logs and design_take_screenshot need it in Remote Mode; "
            "the server's operator enables it"
        )
        if not self.config.remote_browser_enabled:
            raise DesignError(
                ErrorCode.BROWSER_UNAVAILABLE,
                f"{NOT_ENABLED} on this server (REMOTE_BROWSER_ENABLED is off).",
                f"{how} with REMOTE_BROWSER_ENABLED=1 and Debian's chromium installed (apt-get install chromium).",
            )
        if not HAVE_PLAYWRIGHT:
            raise DesignError(
                ErrorCode.BROWSER_UNAVAILABLE,
                f"{NOT_ENABLED}: the playwright package is not installed on this server.",
                f"{how} by installing the remote extra: pip install 'design-console-mcp[remote]'.",
            )
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise DesignError(
                ErrorCode.BROWSER_UNAVAILABLE,
                f"{NOT_ENABLED}: no Chromium at {path}.",
                f"{how} by installing Debian's chromium (apt-get install chromium) or setting REMOTE_BROWSER_PATH.",
            )

    def _check_url(self, url: str) -> None:
        self._check_available()
        if not host_allowed(url, self.config.remote_browser_allowlist):
            raise self._refused(url)

    def _refused(self, url: str) -> DesignError:
        allowed = ", ".join(self.config.remote_browser_allowlist)
        return DesignError(
            ErrorCode.URL_NOT_ALLOWED,
            f"Navigation to {url} is refused: only http(s) pages on the allowlist may be opened ({allowed}).",
            "Open a page of the design tool, or ask the server's operator to add the host to REMOTE_BROWSER_ALLOWLIST.",
        )

    # --- turns: REMOTE_BROWSER_PER_USER calls per user, REMOTE_BROWSER_MAX at once, REMOTE_BROWSER_QUEUE waiting ---

    @contextlib.asynccontextmanager
    async def _turn(self, user: str, progress: Progress | None) -> AsyncIterator[tuple[_Session, int]]:
        """Hold a browser slot and the user's session; yields the session and how long the call waited for its slot
        (ms; 0 when it did not). A call over the user's or the queue's limit is refused at once (busy)."""
        async with self.admission.turn(user, progress) as queued_ms:
            lock = self._user_locks.setdefault(user, asyncio.Lock())
            async with lock:
                self._busy += 1
                try:
                    try:
                        session = await self._session(user)
                    except PlaywrightError as exc:
                        raise DesignError(
                            ErrorCode.PAGE_FAILED,
                            f"The browser could not open a context for you: {_first_line(exc)}.",
                            "Retry; the browser is started again if it went away.",
                        ) from None
                    yield session, queued_ms
                    session.last_used = time.monotonic()
                finally:
                    self._busy -= 1

    @contextlib.asynccontextmanager
    async def _bounded(self, session: _Session, what: str) -> AsyncIterator[None]:
        """Run a browser step within BROWSER_TIMEOUT, turning Playwright's failures into DesignErrors; a page that
        timed out or crashed is replaced before the user's next call."""
        try:
            async with asyncio.timeout(self._timeout_ms / 1000):
                yield
        except (TimeoutError, PlaywrightTimeoutError):
            await self._drop_page(session)
            raise self._timed_out(what) from None
        except PlaywrightError as exc:
            crashed = session.crashed
            await self._drop_page(session)
            if crashed:
                raise DesignError(
                    ErrorCode.PAGE_FAILED,
                    f"The page crashed while the browser tried to {what}.",
                    "Call design_navigate again: you get a fresh page (your console entries are kept).",
                ) from None
            raise DesignError(
                ErrorCode.PAGE_FAILED,
                f"The browser could not {what}: {_first_line(exc)}.",
                "Check the URL and retry.",
            ) from None

    def _timed_out(self, what: str) -> DesignError:
        return DesignError(
            ErrorCode.TIMEOUT,
            f"The browser could not {what} within {self._timeout_ms} ms (BROWSER_TIMEOUT).",
            "Check that the page answers and loads, then retry; the operator can raise BROWSER_TIMEOUT.",
        )

    # --- navigation -------------------------------------------------------------------------------------------

    async def _navigate(self, session: _Session, url: str) -> dict[str, Any]:
        session.outcome = asyncio.get_running_loop().create_future()
        session.redirects = 0
        started = time.perf_counter()
        try:
            async with self._bounded(session, f"load {url}"):
                page = await self._page(session)
                try:
                    response = await page.goto(url, wait_until="commit", timeout=self._timeout_ms)
                except PlaywrightError:
                    if not session.outcome.done():
                        raise
                    response = None
                outcome = await session.outcome
                if outcome.blocked:
                    raise self._refused(outcome.url)
                if outcome.timed_out:
                    raise self._timed_out(f"load {url}")
                if outcome.error:
                    raise DesignError(
                        ErrorCode.PAGE_FAILED,
                        f"The page {outcome.url} could not be loaded: {outcome.error}.",
                        "Check the URL and retry.",
                    )
                target = outcome.url
                await page.wait_for_url(
                    lambda current: current.split("#", 1)[0] == target, wait_until="load", timeout=self._timeout_ms
                )
                title = await page.title()
        except DesignError:
            # Whatever the page shows now (an error page, half a load) is not the page the user asked for.
            await self._drop_page(session)
            raise
        finally:
            session.outcome = None
        data: dict[str, Any] = {
            "url": page.url,
            "title": title,
            "status": outcome.status or (response.status if response is not None else 0),
            "loadMs": round((time.perf_counter() - started) * 1000),
            "source": "browser",
        }
        if session.redirects:
            data["redirects"] = session.redirects
        data["console"] = {"buffered": len(session.console)}
        return data

    async def _route(self, session: _Session, route: Route) -> None:
        """Check every navigation request of the user's context against the allowlist (see the module docstring)."""
        request = route.request
        try:
            if not request.is_navigation_request():
                allowlist = self.config.remote_browser_allowlist
                if private_address(request.url) and not host_allowed(request.url, allowlist):
                    session.add("error", f"[design-console-mcp] Request to {request.url} refused.", "navigation")
                    await route.abort("blockedbyclient")
                else:
                    await route.continue_()
                return
            main = self._main_page(session, request)
            url = request.url
            if not host_allowed(url, self.config.remote_browser_allowlist):
                await self._block(session, route, url, main)
                return
            try:
                response = await route.fetch(max_redirects=0, timeout=self._timeout_ms)
            except PlaywrightError as exc:
                await route.abort("timedout" if isinstance(exc, PlaywrightTimeoutError) else "failed")
                timed_out = isinstance(exc, PlaywrightTimeoutError)
                session.settle(main, _Outcome(url, timed_out=timed_out, error=_first_line(exc)))
                return
            location = response.headers.get("location")
            if response.status in REDIRECT_STATUSES and location:
                target = urljoin(url, location)
                if not host_allowed(target, self.config.remote_browser_allowlist):
                    await self._block(session, route, target, main)
                    return
                if main is not None and main is session.page:
                    session.redirects += 1
                    if session.redirects > MAX_REDIRECTS:
                        await route.abort("failed")
                        session.settle(main, _Outcome(url, error=f"more than {MAX_REDIRECTS} redirects"))
                        return
                skip = {"location", "content-length", "content-type", "content-encoding", "transfer-encoding"}
                headers = {k: v for k, v in response.headers.items() if k.lower() not in skip}
                headers["content-type"] = "text/html; charset=utf-8"
                headers["cache-control"] = "no-store"
                await route.fulfill(status=200, headers=headers, body=_redirect_page(target))
                return
            await route.fulfill(response=response)
            session.settle(main, _Outcome(url, status=response.status))
        except PlaywrightError as exc:
            # The page or context closed while the request was in flight (a timeout, the idle reaper, shutdown).
            log.debug("route of %s ended early: %s", request.url, _first_line(exc))

    async def _block(self, session: _Session, route: Route, url: str, main: Page | None) -> None:
        session.add("error", f"[design-console-mcp] Navigation to {url} refused: not on the allowlist.", "navigation")
        await route.abort("blockedbyclient")
        session.settle(main, _Outcome(url, blocked=True))

    @staticmethod
    def _main_page(session: _Session, request: Request) -> Page | None:
        """The user's page when ``request`` is a navigation of its main frame, else None."""
        try:
            frame = request.frame
        except PlaywrightError:  # a popup's first request comes before its frame exists
            return None
        return session.page if frame.parent_frame is None and frame.page == session.page else None

    # --- sessions and the browser -----------------------------------------------------------------------------

    async def _browser_running(self) -> Browser:
        async with self._launch_lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            if self._browser is not None:
                log.warning("Chromium went away; starting it again")
                self._sessions.clear()
                self._browser = None
            if self._playwright is None:
                self._playwright = await async_playwright().start()
            path = self.config.remote_browser_path
            env: dict[str, str | float | bool] = {**browser_env(os.environ)}
            try:
                self._browser = await self._playwright.chromium.launch(
                    executable_path=str(path),
                    args=list(CHROMIUM_ARGS),
                    timeout=LAUNCH_TIMEOUT_MS,
                    env=env,
                )
            except PlaywrightError as exc:
                raise DesignError(
                    ErrorCode.BROWSER_UNAVAILABLE,
                    f"{NOT_ENABLED}: Chromium at {path} did not start ({_first_line(exc)}).",
                    "The server's operator checks the chromium install (apt-get install chromium) or "
                    "REMOTE_BROWSER_PATH.",
                ) from None
            return self._browser

    async def _session(self, user: str) -> _Session:
        session = self._sessions.get(user)
        if session is not None and self._browser is not None and self._browser.is_connected():
            return session
        browser = await self._browser_running()
        context = await browser.new_context(
            viewport=VIEWPORT,  # type: ignore[arg-type]
            service_workers="block",
            accept_downloads=False,
        )
        context.set_default_timeout(self._timeout_ms)
        session = _Session(user, context, self.config.max_console_logs)
        await context.route("**/*", lambda route: self._route(session, route))
        context.on("page", lambda page: self._on_page(session, page))
        self._sessions[user] = session
        return session

    async def _page(self, session: _Session) -> Page:
        """The user's page, a fresh one when there is none or it crashed."""
        if session.page is not None and not session.crashed and not session.page.is_closed():
            return session.page
        await self._drop_page(session)
        page = await session.context.new_page()
        session.page = page
        session.crashed = False
        page.on("console", lambda msg: session.add(LEVELS.get(msg.type, "log"), msg.text))
        page.on("pageerror", lambda err: session.add("error", f"Uncaught {err.name or 'Error'}: {err.message}"))
        page.on("crash", lambda _: self._on_crash(session))
        return page

    def _on_page(self, session: _Session, page: Page) -> None:
        """Popups are closed: each user has one page, and a popup's own navigation was already checked."""
        if page is session.page or session.page is None:
            return
        session.add("info", "[design-console-mcp] The page opened a popup; it was closed (one page per user).")
        task = asyncio.create_task(page.close())
        session.tasks.add(task)
        task.add_done_callback(session.tasks.discard)

    @staticmethod
    def _on_crash(session: _Session) -> None:
        session.crashed = True
        session.add("error", "[design-console-mcp] The page crashed.", "browser")
        session.settle(session.page, _Outcome(session.page.url if session.page else "", error="the page crashed"))

    async def _drop_page(self, session: _Session) -> None:
        page, session.page = session.page, None
        if page is not None:
            with contextlib.suppress(PlaywrightError):
                await page.close()

    async def _close_session(self, user: str) -> None:
        session = self._sessions.pop(user, None)
        if session is None:
            return
        with contextlib.suppress(PlaywrightError):
            await session.context.close()
        lock = self._user_locks.get(user)
        if lock is not None and not lock.locked():
            del self._user_locks[user]

    async def _close_browser(self) -> None:
        browser, self._browser = self._browser, None
        if browser is not None:
            with contextlib.suppress(PlaywrightError):
                await browser.close()

    async def _reap_idle(self) -> None:
        """Close contexts idle for ``idle_seconds``; Chromium itself once no context is left."""
        while True:
            await asyncio.sleep(min(max(self.idle_seconds / 4, 0.05), 30.0))
            cutoff = time.monotonic() - self.idle_seconds
            for user, session in list(self._sessions.items()):
                lock = self._user_locks.get(user)
                if session.last_used < cutoff and not (lock is not None and lock.locked()):
                    await self._close_session(user)
            if not self._sessions and self._browser is not None and not self._busy:
                async with self._launch_lock:
                    if not self._sessions and not self._busy:
                        await self._close_browser()
