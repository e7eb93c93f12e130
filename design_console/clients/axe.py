"""axe-core, the accessibility engine, run on caller-supplied HTML in a headless Chromium-family browser.

A real browser, not a DOM emulation: colour contrast, visibility and focusability need layout and computed styles,
which jsdom does not have (axe reports contrast there as "needs review"). The browser is whichever Chromium,
Chrome, Edge or Brave the machine has (``DESIGN_BROWSER`` names one); we talk to it over the DevTools protocol with
the ``websockets`` package we already depend on, so neither Node nor Playwright is needed. The page gets no script
execution of its own and no network: only axe runs, from the copy of ``axe.min.js`` shipped in the package
(``axe-core/`` beside this module, the npm package's file unmodified, with its MPL-2.0 licence), so a Python install
needs no Node; a test pins it to the version package-lock.json names.

The browser is a subprocess in its own session with a throwaway profile; a timeout or a cancelled call kills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

from design_console.errors import DesignError, ErrorCode
from design_console.runtime.platform.procs import group_kwargs, is_superuser, kill_tree

#: The accessibility engine, shipped as package data.
AXE_SCRIPT = resources.files("design_console.clients") / "axe-core" / "axe.min.js"
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
#: A headless browser prints its DevTools endpoint on stderr within a second or two; a cold start may take longer.
START_TIMEOUT_S = 20.0
#: Results of a large page run to a few MB of JSON before they are cut down.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: Each scan starts its own browser (100-200 MB); more scans than this at once wait for a turn.
MAX_BROWSERS = 2
_browsers = asyncio.Semaphore(MAX_BROWSERS)
#: Lines of the browser's stderr kept to explain a failed start.
STDERR_TAIL = 20

_ENDPOINT = re.compile(r"DevTools listening on (ws://\S+)")

_DOCTYPE = re.compile(r"\s*<!doctype[^>]*>", re.IGNORECASE)
_POLICY = (
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
    "style-src 'unsafe-inline' data:; img-src data:; font-src data:\">"
)

#: Runs in the page once axe is loaded: checks the scope, runs axe, and keeps only the fields the tool reports.
_RUN = """
(async (opts) => {
  if (location.href !== "about:blank") return { error: "the page navigated away (a meta refresh?) before the scan" };
  if (opts.context) {
    let found;
    try { found = document.querySelectorAll(opts.context).length; }
    catch (e) { return { error: "context " + JSON.stringify(opts.context) + " is not a valid CSS selector" }; }
    if (!found) return { error: "context " + JSON.stringify(opts.context) + " matches no element of the page" };
  }
  const unknown = opts.tags.filter((t) => !axe.getRules([t]).length);
  if (unknown.length) return { error: "no axe rule has the tags " + unknown.join(", ") };
  const options = { resultTypes: ["violations", "incomplete"] };
  if (opts.tags.length) options.runOnly = { type: "tag", values: opts.tags };
  if (opts.skip.length) options.rules = Object.fromEntries(opts.skip.map((id) => [id, { enabled: false }]));
  let r;
  try { r = await axe.run(opts.context || document, options); }
  catch (e) { return { error: String(e && e.message || e) }; }
  const rule = (x, withNodes) => ({
    id: x.id, impact: x.impact, tags: x.tags, help: x.help, helpUrl: x.helpUrl,
    nodeCount: x.nodes.length,
    nodes: withNodes ? x.nodes.slice(0, opts.maxNodes).map((n) => ({
      target: n.target, html: n.html, impact: n.impact, failureSummary: n.failureSummary,
    })) : [],
  });
  return {
    engine: "axe-core " + axe.version,
    violations: r.violations.map((x) => rule(x, true)),
    incomplete: r.incomplete.map((x) => rule(x, true)),
    passes: opts.passes ? r.passes.map((x) => rule(x, false)) : [],
    inapplicable: r.inapplicable.length,
  };
})
"""


def with_policy(html: str) -> str:
    """``html`` with a content security policy that forbids its own scripts, frames and fetches, placed first in its
    head (after a doctype, which must stay first so the page keeps its rendering mode).

    The browser stops the page's scripts and event handlers; axe, evaluated through the DevTools protocol, still
    runs (disabling scripts outright would also stop the timers axe itself waits on).
    """
    doctype = _DOCTYPE.match(html)
    cut = doctype.end() if doctype else 0
    return f"{html[:cut]}{_POLICY}{html[cut:]}"


def find_browser(configured: Path | None = None) -> str:
    """The browser to run axe in: ``configured`` (DESIGN_BROWSER) if set, else the first one installed."""
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
        "No Chromium-family browser was found to run axe-core in (looked for "
        + ", ".join(BROWSER_COMMANDS[:4])
        + " on PATH and the usual install folders).",
        "Install Chromium or Google Chrome (e.g. `apt install chromium`, or from google.com/chrome), or set "
        "DESIGN_BROWSER to the path of one, then call again.",
    )


def _axe_source() -> str:
    try:
        return AXE_SCRIPT.read_text(encoding="utf-8")
    except OSError as exc:
        raise DesignError(
            ErrorCode.UNAVAILABLE,
            f"This installation's copy of axe-core cannot be read ({exc.strerror or exc}).",
            "Reinstall design-console-mcp (pipx reinstall design-console-mcp, or pip install --force-reinstall).",
        ) from exc


def _flags(profile: str, extra: Sequence[str]) -> list[str]:
    """A quiet headless browser on ``profile`` whose DevTools listen on a loopback port of the system's choosing,
    with ``extra`` flags, opening a blank page."""
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
        *extra,
        f"--user-data-dir={profile}",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
    ]
    # Chromium refuses to start its sandbox as root (containers, CI); it runs without it there.
    if is_superuser():
        flags.append("--no-sandbox")
    return [*flags, "about:blank"]


#: What the scan's browser adds: no network for the page, every host fails to resolve and every connection goes to a
#: closed proxy port.
_SCAN_FLAGS = (
    "--window-size=1280,800",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
)


class _Cdp:
    """Commands over one DevTools connection, answered in order (events in between are skipped)."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._ids = itertools.count(1)

    async def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        msg_id = next(self._ids)
        frame: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            frame["sessionId"] = session
        await self._ws.send(json.dumps(frame))
        while True:
            reply = json.loads(await self._ws.recv())
            if reply.get("id") != msg_id:
                continue
            if "error" in reply:
                raise DesignError(
                    ErrorCode.INTERNAL,
                    f"The browser refused {method}: {reply['error'].get('message')}.",
                    "Try again; if it persists, set DESIGN_BROWSER to another Chromium-family browser.",
                )
            return reply.get("result", {})


async def _endpoint(proc: asyncio.subprocess.Process, tail: list[str]) -> str:
    assert proc.stderr is not None
    while True:
        raw = await proc.stderr.readline()
        if not raw:
            detail = " | ".join(tail[-5:]) or "no output"
            raise DesignError(
                ErrorCode.UNAVAILABLE,
                f"The browser exited before it was ready (exit {await proc.wait()}): {detail}.",
                "Check that it starts on this machine (run it with --headless), or set DESIGN_BROWSER to another.",
            )
        line = raw.decode(errors="replace").strip()
        tail.append(line)
        del tail[:-STDERR_TAIL]
        found = _ENDPOINT.search(line)
        if found:
            return found.group(1)


async def _drain(proc: asyncio.subprocess.Process) -> None:
    """Read the browser's stderr to the end, so that a chatty browser never blocks on a full pipe."""
    assert proc.stderr is not None
    while await proc.stderr.read(65536):
        pass


def _kill(proc: asyncio.subprocess.Process) -> None:
    """End the browser and every process it started (its own session's group)."""
    if proc.returncode is not None:
        return
    kill_tree(proc.pid)


@contextlib.asynccontextmanager
async def devtools(command: str, flags: Sequence[str], prefix: str) -> AsyncIterator[_Cdp]:
    """The DevTools connection of a fresh headless ``command`` started with ``flags`` on a profile of its own
    (a temporary directory named from ``prefix``); on exit the browser and its children are stopped and the profile
    removed. Raises DesignError ``unavailable`` when the browser does not start."""
    # The browser's last child processes may still be leaving files as the profile is removed: not worth failing.
    with tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True) as profile:
        proc = await asyncio.create_subprocess_exec(
            command,
            *_flags(profile, flags),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            **group_kwargs(),
        )
        drain: asyncio.Task[None] | None = None
        try:
            tail: list[str] = []
            try:
                url = await asyncio.wait_for(_endpoint(proc, tail), START_TIMEOUT_S)
            except TimeoutError:
                raise DesignError(
                    ErrorCode.UNAVAILABLE,
                    f"The browser {command} did not open its DevTools endpoint within {START_TIMEOUT_S:g} s.",
                    "Check that it starts on this machine (run it with --headless), or set DESIGN_BROWSER to "
                    "another Chromium-family browser.",
                ) from None
            drain = asyncio.create_task(_drain(proc))
            async with websockets.connect(url, max_size=MAX_MESSAGE_BYTES, compression=None) as ws:
                yield _Cdp(ws)
        finally:
            _kill(proc)
            await proc.wait()
            if drain is not None:
                drain.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await drain


async def run_axe(
    html: str,
    *,
    tags: list[str],
    context: str | None,
    include_passes: bool,
    timeout: float,
    max_nodes: int = 1000,
    skip: list[str] | None = None,
    browser: Path | None = None,
) -> dict[str, Any]:
    """Run axe-core on ``html`` in a fresh headless browser and return its results, reduced to what a report needs:
    each rule's element count and its first ``max_nodes`` elements. Rules named in ``skip`` do not run. At most
    MAX_BROWSERS scans run at once.

    Raises DesignError: ``timeout`` when the whole run (start, load, scan) takes longer than ``timeout`` seconds,
    ``unavailable`` without a browser, ``bad_argument`` for a bad ``context`` selector or unknown ``tags``.
    """
    command = find_browser(browser)
    source = _axe_source()
    async with _browsers:
        return await _run(command, source, html, tags, context, include_passes, timeout, max_nodes, skip or [])


async def _run(
    command: str,
    source: str,
    html: str,
    tags: list[str],
    context: str | None,
    include_passes: bool,
    timeout: float,
    max_nodes: int,
    skip: list[str],
) -> dict[str, Any]:
    try:
        async with asyncio.timeout(timeout), devtools(command, _SCAN_FLAGS, "design-axe-") as cdp:
            result = await _scan(cdp, html, source, tags, context, include_passes, max_nodes, skip)
    except TimeoutError:
        raise DesignError(
            ErrorCode.TIMEOUT,
            f"The accessibility scan did not finish within {timeout:g} s.",
            "Scan a smaller part of the page (context) or fewer rules (tags), or split the HTML.",
        ) from None
    if "error" in result:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"axe-core could not scan the page: {result['error']}.",
            "Fix context (a CSS selector of the HTML) or tags (e.g. wcag2a, wcag2aa, wcag21aa, best-practice).",
        )
    return result


async def _scan(
    cdp: _Cdp,
    html: str,
    source: str,
    tags: list[str],
    context: str | None,
    include_passes: bool,
    max_nodes: int,
    skip: list[str],
) -> dict[str, Any]:
    target = (await cdp.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    session = (await cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    frame = (await cdp.send("Page.getFrameTree", {}, session))["frameTree"]["frame"]["id"]
    await cdp.send("Page.setDocumentContent", {"frameId": frame, "html": with_policy(html)}, session)
    loaded = await cdp.send("Runtime.evaluate", {"expression": source + "\n;typeof axe"}, session)
    if loaded.get("result", {}).get("value") != "object":
        raise DesignError(
            ErrorCode.INTERNAL, "axe-core did not load in the browser.", "Reinstall the package and try again."
        )
    options = json.dumps(
        {"tags": tags, "context": context or "", "passes": include_passes, "maxNodes": max_nodes, "skip": skip}
    )
    reply = await cdp.send(
        "Runtime.evaluate",
        {"expression": f"{_RUN}({options})", "awaitPromise": True, "returnByValue": True},
        session,
    )
    if "exceptionDetails" in reply:
        detail = reply["exceptionDetails"].get("exception", {}).get("description") or reply["exceptionDetails"]
        raise DesignError(ErrorCode.INTERNAL, f"axe-core failed in the browser: {detail}.", "Try again.")
    value: dict[str, Any] = reply["result"]["value"]
    return value
