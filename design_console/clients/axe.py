"""axe-core, the accessibility engine, run on caller-supplied HTML in a headless Chromium-family browser.

A real browser, not a DOM emulation: colour contrast, visibility and focusability need layout and computed styles,
which jsdom does not have (axe reports contrast there as "needs review"). The browser is whichever Chromium,
Chrome, Edge or Brave the machine has (``DESIGN_BROWSER`` names one), driven over the DevTools pipes of
:mod:`design_console.clients.devtools`, so neither Node nor Playwright is needed. The page gets no script
execution of its own and no network: only axe runs, from the copy of ``axe.min.js`` shipped in the package
(``axe-core/`` beside this module, the npm package's file unmodified, with its MPL-2.0 licence), so a Python install
needs no Node; a test pins it to the version package-lock.json names.

The browser is a subprocess in its own process group with a throwaway profile; a timeout or a cancelled call kills it.
"""

from __future__ import annotations

import asyncio
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from design_console.clients.devtools import Cdp, browsers, devtools, find_browser, network_flags
from design_console.errors import DesignError, ErrorCode

#: The accessibility engine, shipped as package data.
AXE_SCRIPT = resources.files("design_console.clients") / "axe-core" / "axe.min.js"

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


def _axe_source() -> str:
    try:
        return AXE_SCRIPT.read_text(encoding="utf-8")
    except OSError as exc:
        raise DesignError(
            ErrorCode.UNAVAILABLE,
            f"This installation's copy of axe-core cannot be read ({exc.strerror or exc}).",
            "Reinstall design-console-mcp (pipx reinstall design-console-mcp, or pip install --force-reinstall).",
        ) from exc


#: What the scan's browser adds: no network for the page at all.
_SCAN_FLAGS = ("--window-size=1280,800", *network_flags(loopback=False))


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
    async with browsers:
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
    cdp: Cdp,
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
