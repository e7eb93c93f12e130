"""What the design ↔ code loop is measured by, on a page and the code written from its layers: the one definition
that the real-page benchmark (bench/bench_real_pages.py) and its suite test share.

- texts found: each visible run of text of the page has the same characters in the written code, drawn within
  :data:`TEXT_TOLERANCE_PX` of where the page draws them (a run may sit inside a longer text of the code, as when a
  paragraph with a link is one text layer with styled ranges);
- arbitrary classes: the share of the React module's Tailwind classes that carry an arbitrary value or property
  (``h-[48px]``, ``bg-(--brand)``, ``[outline:…]``) rather than a utility of Tailwind's scale or of the theme;
- auto layout: the share of layers under the root whose parent lays them out (auto layout, not placed absolutely);
- asset paths: the images the React module imports and the ``assets`` the answer lists, as the same paths.

:func:`measure` runs one page through the whole loop and takes every figure.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers import compile_react
from mcp import Client
from PIL import Image
from playwright.async_api import Browser, Page

from fakes.pixels import pixel_agreement
from fakes.real_pages import keep_offline

#: How far a text's top-left in the written code may be from the page's text box.
TEXT_TOLERANCE_PX = 4.0

#: Every visible run of text of the document (a text node with a box), whitespace collapsed, and the top-left of
#: its box; form fields' own text (values, placeholders) is drawn by the browser inside the field and not read.
PAGE_TEXTS = """
() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const parent = t.parentElement;
    if (!t.data.trim() || (parent && getComputedStyle(parent).visibility !== "visible")) continue;
    const range = document.createRange();
    range.selectNodeContents(t);
    const r = range.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    out.push({ text: t.data.replace(/\\s+/g, " ").trim(), x: r.left + scrollX, y: r.top + scrollY });
  }
  return out;
}
"""

#: Which of the wanted runs ({text, x, y}) the document draws with the same characters within ``tolerance`` px:
#: each occurrence of the characters in a text node (whitespace collapsed) is measured with a range of its own.
FIND_TEXTS = """
([wanted, tolerance]) => {
  const nodes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    // The collapsed text and, for each of its characters, its offset in the node's own text.
    let text = "";
    const offsets = [];
    let space = true;
    for (let i = 0; i < t.data.length; i++) {
      const blank = /\\s/.test(t.data[i]);
      if (blank && space) continue;
      text += blank ? " " : t.data[i];
      offsets.push(i);
      space = blank;
    }
    offsets.push(t.data.length);
    if (text.trim()) nodes.push({ node: t, text, offsets });
  }
  const range = document.createRange();
  return wanted.map((want) => {
    for (const { node, text, offsets } of nodes) {
      for (let at = text.indexOf(want.text); at >= 0; at = text.indexOf(want.text, at + 1)) {
        range.setStart(node, offsets[at]);
        range.setEnd(node, offsets[at + want.text.length - 1] + 1);
        const r = range.getBoundingClientRect();
        if (Math.abs(r.left + scrollX - want.x) <= tolerance && Math.abs(r.top + scrollY - want.y) <= tolerance) {
          return true;
        }
      }
    }
    return false;
  });
}
"""

#: Layers under a root, and how many of them their parent lays out (auto layout, not placed absolutely).
AUTO_LAYOUT = """
const root = await figma.getNodeByIdAsync(%r);
const all = root.findAll(() => true);
const flowing = all.filter((n) => n.parent && "layoutMode" in n.parent && n.parent.layoutMode !== "NONE"
  && n.layoutPositioning !== "ABSOLUTE");
return { layers: all.length, inAutoLayout: flowing.length };
"""

_CLASS_NAME = re.compile(r'className="([^"]*)"')
_ASSET_IMPORT = re.compile(r'^import \w+ from "(\./assets/[^"]+)";$', re.MULTILINE)


@dataclass(frozen=True)
class TextMatch:
    """The page's visible text runs, and those the code draws in the same place."""

    total: int
    found: int
    missing: list[str]

    @property
    def share(self) -> float:
        return self.found / self.total if self.total else 1.0


async def page_texts(page: Page) -> list[dict[str, Any]]:
    """The visible text runs of an open page with the top-left of each (see :data:`PAGE_TEXTS`)."""
    texts: list[dict[str, Any]] = await page.evaluate(PAGE_TEXTS)
    return texts


async def texts_found(wanted: list[dict[str, Any]], code_page: Page) -> TextMatch:
    """Which of the page's text runs ``wanted`` the rendered code draws with the same characters, in place."""
    hits: list[bool] = await code_page.evaluate(FIND_TEXTS, [wanted, TEXT_TOLERANCE_PX])
    missing = [w["text"] for w, hit in zip(wanted, hits, strict=True) if not hit]
    return TextMatch(len(wanted), len(wanted) - len(missing), missing)


def tailwind_classes(code: str) -> list[str]:
    """Every class of every ``className`` in a React module."""
    return [cls for attr in _CLASS_NAME.findall(code) for cls in attr.replace("&quot;", '"').split()]


def is_arbitrary(cls: str) -> bool:
    """Whether a Tailwind class carries an arbitrary value or property rather than a scale or theme utility."""
    return "[" in cls or "(" in cls


def arbitrary_share(code: str) -> float:
    """The share (0..1) of a React module's Tailwind classes that are arbitrary."""
    classes = tailwind_classes(code)
    return sum(map(is_arbitrary, classes)) / len(classes) if classes else 0.0


def imported_assets(code: str) -> list[str]:
    """The image paths a React module imports (``./assets/…``), in order."""
    return _ASSET_IMPORT.findall(code)


def side_by_side(left: bytes, right: bytes) -> Image.Image:
    """Two screenshots next to each other (the page, the round trip) on white, with a grey rule between them."""
    first, second = (Image.open(io.BytesIO(png)).convert("RGB") for png in (left, right))
    gap = 8
    canvas = Image.new("RGB", (first.width + gap + second.width, max(first.height, second.height)), "white")
    canvas.paste(first, (0, 0))
    canvas.paste((160, 160, 160), (first.width, 0, first.width + gap, canvas.height))
    canvas.paste(second, (first.width + gap, 0))
    return canvas


#: The width pages are laid out at, and the viewport's height.
WIDTH = 1280
HEIGHT = 800


@dataclass
class Figures:
    """One page through the loop: what was built (``layers`` in all, ``under_root`` below the root), how the written
    code compares, how long the import took."""

    layers: int
    under_root: int
    in_auto_layout: int
    import_seconds: float
    texts: TextMatch
    agreement: float
    arbitrary: float
    react_error: str | None
    imported: list[str]
    assets: list[str]
    warnings: list[str]
    code_warnings: list[str]
    shots: tuple[bytes, bytes] = field(repr=False)
    react: str = field(repr=False, default="")

    @property
    def auto_layout_share(self) -> float:
        return self.in_auto_layout / self.under_root if self.under_root else 0.0

    @property
    def layers_per_second(self) -> float:
        return self.layers / self.import_seconds if self.import_seconds else 0.0


async def _call(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, args)
    text = str(getattr(result.content[0], "text", "")) if result.content else ""
    if result.is_error:
        raise RuntimeError(f"{name}: {text}")
    answer: dict[str, Any] = json.loads(text)
    return answer


async def code_of(client: Client, node_id: str, framework: str) -> tuple[str, dict[str, Any]]:
    """The whole code of a node in ``framework`` (its pages joined, up to the first image data) and the first
    page's answer (assets, tokens, warnings)."""
    args: dict[str, Any] = {"nodeId": node_id, "framework": framework}
    first = answer = await _call(client, "design_get_design_context", args)
    parts = [answer.get("code", "")]
    while "nextCursor" in answer and "assetData" not in answer:
        args["cursor"] = answer["nextCursor"]
        answer = await _call(client, "design_get_design_context", args)
        parts.append(answer.get("code", ""))
    return "".join(parts), first


async def _open(browser: Browser, *, url: str | None = None, html: str = "") -> tuple[bytes, Page]:
    """A full-page screenshot at the loop's width, and the page still open to read from (the caller closes it)."""
    page = await browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    try:
        await keep_offline(page)
        if url is not None:
            await page.goto(url)
        else:
            await page.set_content(html)
        await page.evaluate("document.fonts.ready")
        return await page.screenshot(full_page=True), page
    except BaseException:
        await page.close()
        raise


def react_compile_error(code: str) -> str | None:
    """esbuild's message when the React module does not compile (as a user's bundler would), else None."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            compile_react(code, Path(folder) / "Page.tsx")
        except AssertionError as error:
            return str(error).strip() or "esbuild failed"
    return None


async def _reference(browser: Browser, url: str) -> tuple[bytes, list[dict[str, Any]]]:
    """The page's own screenshot and visible text runs."""
    original, page = await _open(browser, url=url)
    try:
        return original, await page_texts(page)
    finally:
        await page.close()


async def _import(client: Client, url: str) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    made = await _call(client, "design_generate_from_web", {"url": url, "width": WIDTH, "height": HEIGHT})
    return made, time.perf_counter() - started


async def measure(client: Client, browser: Browser, url: str, *, overlap: bool = False) -> Figures:
    """Build the page at ``url`` as layers, write them back as HTML and React, and take every figure of the loop.
    A tool that refuses raises RuntimeError with its message. With ``overlap``, the page's own rendering runs while
    it is imported: faster, but the import's time then shares the machine with it."""
    if overlap:
        (made, seconds), (original, wanted) = await asyncio.gather(_import(client, url), _reference(browser, url))
    else:
        made, seconds = await _import(client, url)
        original, wanted = await _reference(browser, url)
    root = made["rootId"]
    html, _ = await code_of(client, root, "html")
    react, head = await code_of(client, root, "react-tailwind")
    result = await _call(client, "design_execute", {"code": AUTO_LAYOUT % root})
    counts = result["result"]
    written, page = await _open(browser, html=html)
    try:
        texts = await texts_found(wanted, page)
    finally:
        await page.close()
    return Figures(
        layers=sum(int(n) for n in made.get("counts", {}).values()),
        under_root=int(counts["layers"]),
        in_auto_layout=int(counts["inAutoLayout"]),
        import_seconds=seconds,
        texts=texts,
        agreement=pixel_agreement(original, written),
        arbitrary=arbitrary_share(react),
        react_error=react_compile_error(react),
        imported=imported_assets(react),
        assets=[str(a["path"]) for a in head.get("assets", [])],
        warnings=list(made.get("warnings", [])),
        code_warnings=list(head.get("warnings", [])),
        shots=(original, written),
        react=react,
    )
