"""A web page laid out in a fresh headless browser, and a script evaluated in it: how a page is read for import.

The same Chromium-family browser and DevTools connection as :mod:`design_console.clients.axe`, but the page runs as
it would for a person: its own scripts run, and it may load what it needs from this machine. Unless the caller
allows remote addresses, nothing leaves the machine: every request but those to loopback addresses goes to a closed
proxy port, so a loopback page cannot reach the internet either.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from design_console.clients.axe import _browsers, _Cdp, devtools, find_browser
from design_console.errors import DesignError, ErrorCode

#: How often the page's load state is looked at while it loads.
LOAD_POLL_S = 0.05

_LOADED = """
new Promise((resolve) => {
  if (location.href === "about:blank") return resolve(false);
  if (document.readyState === "complete") return resolve(true);
  addEventListener("load", () => resolve(true), { once: true });
})
"""


def _flags(width: int, height: int, allow_network: bool) -> list[str]:
    flags = ["--hide-scrollbars", f"--window-size={width},{height}"]
    if not allow_network:
        # Every request goes to a closed proxy port, except to loopback addresses, which bypass a proxy by default:
        # the browser resolves no host name itself and reaches nothing but this machine.
        flags.append("--proxy-server=http://127.0.0.1:9")
    return flags


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
        try:
            async with (
                asyncio.timeout(timeout),
                devtools(command, _flags(width, height, allow_network), "design-page-") as cdp,
            ):
                return await _run(cdp, url, html, width, height, script, argument)
        except TimeoutError:
            raise DesignError(
                ErrorCode.TIMEOUT,
                f"The page did not load and lay out within {timeout:g} s.",
                "Check that the page loads in a browser, or pass a smaller page.",
            ) from None


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
