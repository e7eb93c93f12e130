"""A web page laid out in a fresh headless browser, and a script evaluated in it: how a page is read for import.

The same browser and DevTools pipes as :mod:`design_console.clients.devtools`, but the page runs as it would for a
person: its own scripts run, and it may load its own parts. Every request the page, its frames or its workers make
is paused and decided here (:class:`RequestGate`), not by a proxy the page could route around:

- ``data:``, ``blob:`` and ``about:`` always load; ``file:`` only inside the folders the AI app shares;
- this machine (loopback) only when the page itself was served from it;
- anything else only with ``allowRemote``, and then fetched here, not by the browser, through the public-network
  policy of :mod:`design_console.clients.public_net` (each host checked once and pinned, redirects checked hop by hop).

Each refusal is counted and named in the answer. Beneath the gate, the browser itself resolves no host name, sends
every connection it makes on its own to a closed proxy port (this machine too, unless the page is served from it)
and lets WebRTC send no UDP past that proxy.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpcore
import httpx

from design_console import __version__
from design_console.clients.addresses import is_loopback
from design_console.clients.devtools import Cdp, browsers, devtools, find_browser, network_flags
from design_console.clients.downloads import read_at_most
from design_console.clients.public_net import Pins, checked_transport
from design_console.errors import DesignError, ErrorCode
from design_console.runtime.user_files import FileScope, resolve

#: How often the page's load state is looked at while it loads.
LOAD_POLL_S = 0.05
#: One response fetched for a remote page; a larger one is refused (and named), the page goes on without it.
MAX_RESPONSE_BYTES = 20 * 1024 * 1024
#: The longest wait for one connect or read of a remote page's request.
FETCH_TIMEOUT_S = 20.0
#: Refusals named one by one in the answer; the rest are counted.
NAMED_REFUSALS = 10
#: Response headers that describe the body as it travelled, not as it is handed to the browser (decoded, whole).
_TRANSPORT_HEADERS = {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}
#: Request headers httpx sets itself from the URL and body.
_OWN_REQUEST_HEADERS = {"host", "content-length", "connection", "accept-encoding"}

_LOADED = """
new Promise((resolve) => {
  if (location.href === "about:blank") return resolve(false);
  if (document.readyState === "complete") return resolve(true);
  addEventListener("load", () => resolve(true), { once: true });
})
"""


@dataclass(slots=True)
class PageReading:
    """What the script resolved to, and each request of the page that was refused (``url: reason``)."""

    value: Any
    refused: list[str] = field(default_factory=list)

    def refusal_warnings(self) -> list[str]:
        """The refusals as warnings for an answer: the first few named, the rest counted."""
        if not self.refused:
            return []
        named = [f"request refused: {entry}" for entry in self.refused[:NAMED_REFUSALS]]
        rest = len(self.refused) - NAMED_REFUSALS
        if rest > 0:
            named.append(f"{rest} more requests of the page were refused")
        return named


class RequestGate:
    """Decides every request of one render (see the module docstring) and carries out remote ones for the page."""

    def __init__(self, cdp: Cdp, page_url: str | None, *, allow_remote: bool, pins: Pins, scope: FileScope) -> None:
        self._cdp = cdp
        parts = urlsplit(page_url or "")
        self._page_is_local = parts.scheme in ("http", "https") and is_loopback(parts.hostname or "")
        self._allow_remote = allow_remote
        self._pins = pins
        self._scope = scope
        self._client: httpx.AsyncClient | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.refused: list[str] = []

    async def start(self) -> None:
        """Pause every request of every target of the browser from now on."""
        self._cdp.on("Fetch.requestPaused", self._paused)
        await self._cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})

    async def aclose(self) -> None:
        """Drop requests still being decided and the remote client."""
        for task in self._tasks:
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, DesignError):
                await task
        if self._client is not None:
            await self._client.aclose()

    def verdict(self, url: str) -> str:
        """``continue`` (the browser loads it), ``fetch`` (fetched here for the page) or why it is refused."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme in ("data", "blob", "about"):
            return "continue"
        if scheme == "file":
            try:
                resolve(unquote(parts.path), self._scope, argument="url")
            except DesignError:
                return "a file outside the folders the AI app shares"
            return "continue"
        if scheme not in ("http", "https") or not parts.hostname:
            return f"{scheme}: requests are not made for imported pages"
        if is_loopback(parts.hostname):
            if self._page_is_local:
                return "continue"
            return "an address of this machine, which only a page served from this machine may reach"
        if self._allow_remote:
            return "fetch"
        return "not on this machine, and allowRemote is off"

    def _paused(self, params: dict[str, Any], session: str | None) -> None:
        task = asyncio.create_task(self._decide(params, session))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _decide(self, params: dict[str, Any], session: str | None) -> None:
        request = params["request"]
        url = str(request["url"])
        request_id = params["requestId"]
        verdict = self.verdict(url)
        try:
            if verdict == "continue":
                await self._cdp.send("Fetch.continueRequest", {"requestId": request_id}, session)
            elif verdict == "fetch":
                await self._fetch(request_id, request, session)
            else:
                await self._refuse(request_id, url, verdict, session)
        except DesignError:
            # The request ended first (its frame went away) or the browser is stopping: nothing to answer.
            return

    async def _refuse(self, request_id: str, url: str, reason: str, session: str | None) -> None:
        self.refused.append(f"{url[:200]}: {reason}")
        await self._cdp.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"}, session)

    async def _fetch(self, request_id: str, request: dict[str, Any], session: str | None) -> None:
        url = str(request["url"])
        headers = {k: v for k, v in (request.get("headers") or {}).items() if k.lower() not in _OWN_REQUEST_HEADERS}
        body = request.get("postData")
        try:
            async with self._http().stream(
                str(request.get("method", "GET")),
                url,
                headers=headers,
                content=body.encode() if isinstance(body, str) else None,
            ) as response:
                data = await read_at_most(response, MAX_RESPONSE_BYTES)
                if data is None:
                    await self._refuse(request_id, url, f"larger than {MAX_RESPONSE_BYTES:,} bytes", session)
                    return
                kept = [
                    {"name": name, "value": value}
                    for name, value in response.headers.multi_items()
                    if name.lower() not in _TRANSPORT_HEADERS
                ]
                status = response.status_code
        except DesignError as exc:
            await self._refuse(request_id, url, exc.message, session)
            return
        except httpx.HTTPError as exc:
            self.refused.append(f"{url[:200]}: could not be fetched ({exc or type(exc).__name__})")
            await self._cdp.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "Failed"}, session)
            return
        await self._cdp.send(
            "Fetch.fulfillRequest",
            {
                "requestId": request_id,
                "responseCode": status,
                "responseHeaders": kept,
                "body": base64.b64encode(data).decode(),
            },
            session,
        )

    def _http(self) -> httpx.AsyncClient:
        # Redirects go back to the browser, which asks again for the next hop: each hop passes the gate.
        if self._client is None:
            self._client = httpx.AsyncClient(
                transport=checked_transport(self._pins, "the page"),
                follow_redirects=False,
                timeout=FETCH_TIMEOUT_S,
                headers={"User-Agent": f"design-console-mcp/{__version__}"},
            )
        return self._client


def _flags(width: int, height: int, page_url: str | None) -> list[str]:
    host = urlsplit(page_url or "").hostname or ""
    local = (page_url or "").startswith(("http:", "https:")) and is_loopback(host)
    return ["--hide-scrollbars", f"--window-size={width},{height}", *network_flags(loopback=local)]


async def evaluate_in_page(
    *,
    url: str | None,
    html: str | None,
    width: int,
    height: int,
    script: str,
    argument: Any,
    timeout: float,
    scope: FileScope,
    allow_remote: bool = False,
    allow_private: bool = False,
    browser: Path | None = None,
) -> PageReading:
    """Lay out ``url`` (or the markup ``html``) in a viewport ``width`` × ``height`` CSS px, wait for it to load,
    and return what ``script`` (a JS function expression, called with ``argument``) resolves to, with the page's
    refused requests. ``scope`` holds the folders whose files the page may load; ``allow_remote`` lets it load from
    the public internet (``allow_private``: private networks too, DESIGN_IMAGE_PRIVATE_HOSTS).

    Raises DesignError: ``unavailable`` when the page cannot be loaded or there is no browser, ``timeout`` when
    the whole run takes longer than ``timeout`` seconds, ``url_not_allowed`` when a remote page's own address is on
    this machine's network.
    """
    command = find_browser(browser)
    pins = Pins(
        allow_private=allow_private,
        what="pages read with allowRemote",
        instead="Serve the page on this machine (a loopback address) instead",
    )
    if url is not None and allow_remote:
        # Refused before a browser starts, and the address checked here is the one the page is fetched from.
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.hostname and not is_loopback(parts.hostname):
            try:
                await pins.address(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), url)
            except httpcore.ConnectError as exc:
                raise DesignError(
                    ErrorCode.UNAVAILABLE,
                    f"{url} could not be loaded ({exc}).",
                    "Check that the address is right and reachable from this machine, then call again.",
                ) from None
    async with browsers:
        try:
            async with asyncio.timeout(timeout), devtools(command, _flags(width, height, url), "design-page-") as cdp:
                gate = RequestGate(cdp, url, allow_remote=allow_remote, pins=pins, scope=scope)
                try:
                    await gate.start()
                    value = await _run(cdp, url, html, width, height, script, argument)
                finally:
                    await gate.aclose()
                return PageReading(value, gate.refused)
        except TimeoutError:
            raise DesignError(
                ErrorCode.TIMEOUT,
                f"The page did not load and lay out within {timeout:g} s.",
                "Check that the page loads in a browser, or pass a smaller page.",
            ) from None


async def _run(cdp: Cdp, url: str | None, html: str | None, width: int, height: int, script: str, argument: Any) -> Any:
    target = (await cdp.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    session = (await cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    await cdp.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        session,
    )
    if url is not None:
        nav = await cdp.send("Page.navigate", {"url": url}, session)
        if nav.get("errorText"):
            raise DesignError(
                ErrorCode.UNAVAILABLE,
                f"{url} could not be loaded ({nav['errorText']}).",
                "Check that the address is right and its server is running, then call again.",
            )
        # Until the navigation commits, the page asked is still the blank one it replaces.
        while True:
            if await _loaded(cdp, session):
                break
            await asyncio.sleep(LOAD_POLL_S)
    else:
        frame = (await cdp.send("Page.getFrameTree", {}, session))["frameTree"]["frame"]["id"]
        await cdp.send("Page.setDocumentContent", {"frameId": frame, "html": html or ""}, session)
    return await _evaluate(cdp, session, f"({script})({json.dumps(argument)})")


async def _loaded(cdp: Cdp, session: str) -> bool:
    """Whether the navigated page has loaded. Asked while the navigation commits, the question may land in the
    blank page being replaced, whose context is then destroyed: that is a "not yet"."""
    try:
        return bool(await _evaluate(cdp, session, _LOADED))
    except DesignError:
        return False


async def _evaluate(cdp: Cdp, session: str, expression: str) -> Any:
    reply = await cdp.send(
        "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session
    )
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        detail = details.get("exception", {}).get("description") or details.get("text")
        raise DesignError(
            ErrorCode.INTERNAL,
            f"Reading the page failed in the browser: {detail}.",
            "Try again; if the page changes itself while it loads, wait for it to settle and pass its HTML instead.",
        )
    return reply.get("result", {}).get("value")
