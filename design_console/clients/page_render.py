"""A web page laid out in a fresh headless browser, and a script evaluated in it: how a page is read for import.

The same Chromium-family browser and DevTools connection as :mod:`design_console.clients.axe`, but the page runs as
it would for a person: its own scripts run, and it may load what it needs from this machine. Unless the caller
allows remote addresses, nothing leaves the machine: every request but those to loopback addresses goes to a closed
proxy port, so a loopback page cannot reach the internet either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import websockets

from design_console.clients.axe import (
    MAX_MESSAGE_BYTES,
    START_TIMEOUT_S,
    _browsers,
    _Cdp,
    _drain,
    _endpoint,
    _kill,
    find_browser,
)
from design_console.errors import DesignError, ErrorCode
from design_console.runtime.platform.procs import group_kwargs, is_superuser

#: How often the page's load state is looked at while it loads.
LOAD_POLL_S = 0.05

_LOADED = """
new Promise((resolve) => {
  if (location.href === "about:blank") return resolve(false);
  if (document.readyState === "complete") return resolve(true);
  addEventListener("load", () => resolve(true), { once: true });
})
"""


def _flags(profile: str, width: int, height: int, allow_network: bool) -> list[str]:
    flags = [
        "--headless",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--mute-audio",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
    ]
    if not allow_network:
        # Every request goes to a closed proxy port, except to loopback addresses, which bypass a proxy by default:
        # the browser resolves no host name itself and reaches nothing but this machine.
        flags.append("--proxy-server=http://127.0.0.1:9")
    if is_superuser():
        flags.append("--no-sandbox")
    return [*flags, "about:blank"]


async def evaluate_in_page(
    *,
    url: str | None,
    html: str | None,
    width: int,
    height: int,
    script: str,
    argument: Any,
    timeout: float,
    allow_network: bool = False,
    browser: Path | None = None,
) -> Any:
    """Lay out ``url`` (or the markup ``html``) in a viewport ``width`` × ``height`` CSS px, wait for it to load,
    and return what ``script`` (a JS function expression, called with ``argument``) resolves to.

    Raises DesignError: ``unavailable`` when the page cannot be loaded or there is no browser, ``timeout`` when
    the whole run takes longer than ``timeout`` seconds.
    """
    command = find_browser(browser)
    async with _browsers:
        with tempfile.TemporaryDirectory(prefix="design-page-", ignore_cleanup_errors=True) as profile:
            proc = await asyncio.create_subprocess_exec(
                command,
                *_flags(profile, width, height, allow_network),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                **group_kwargs(),
            )
            drain: asyncio.Task[None] | None = None
            try:
                async with asyncio.timeout(timeout):
                    endpoint = await asyncio.wait_for(_endpoint(proc, []), START_TIMEOUT_S)
                    drain = asyncio.create_task(_drain(proc))
                    async with websockets.connect(endpoint, max_size=MAX_MESSAGE_BYTES, compression=None) as ws:
                        return await _run(_Cdp(ws), url, html, width, height, script, argument)
            except TimeoutError:
                raise DesignError(
                    ErrorCode.TIMEOUT,
                    f"The page did not load and lay out within {timeout:g} s.",
                    "Check that the page loads in a browser, or pass a smaller page.",
                ) from None
            finally:
                _kill(proc)
                await proc.wait()
                if drain is not None:
                    drain.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await drain


async def _run(
    cdp: _Cdp, url: str | None, html: str | None, width: int, height: int, script: str, argument: Any
) -> Any:
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


async def _loaded(cdp: _Cdp, session: str) -> bool:
    """Whether the navigated page has loaded. Asked while the navigation commits, the question may land in the
    blank page being replaced, whose context is then destroyed: that is a "not yet"."""
    try:
        return bool(await _evaluate(cdp, session, _LOADED))
    except DesignError:
        return False


async def _evaluate(cdp: _Cdp, session: str, expression: str) -> Any:
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
