"""The design ↔ code loop: each page of our own is built as layers by design_generate_from_web, written back as HTML by
design_get_design_context, and the two rendered at the same width in the same Chromium must look alike: most pixels
agree, every visible text of the page is a text layer with the same characters, drawn where the page draws it, and
the React output of the same layers compiles.

The page's reference (its text runs and their boxes, its screenshot) is read with Playwright directly, not through
either tool.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from fakes.chain import call, js
from fakes.pixels import pixel_agreement
from helpers import compile_react
from mcp import Client
from PIL import Image
from playwright.async_api import Browser, Page

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

PAGES = ["form.html", "pricing.html", "nav_hero.html", "table.html"]
WIDTH = 1280
VIEWPORT_HEIGHT = 800
#: The share of pixels that must agree between the page and the code written from its layers.
AGREEMENT = 0.95
#: How far a text's top-left in the written code may be from the page's text box.
TEXT_TOLERANCE_PX = 4.0

#: The ids of the text layers under a root.
TEXT_LAYERS = """
const root = await figma.getNodeByIdAsync(%r);
return root.findAll((n) => n.type === "TEXT" && n.visible).map((n) => n.id);
"""

#: Every visible run of text on a page with the top-left of its box, and the text shown in its form fields (drawn
#: inside the browser's own field, where a page cannot measure it).
PAGE_TEXTS = """
() => {
  const out = [];
  const fields = [...document.querySelectorAll("input:not([type=hidden]):not([type=checkbox]):not([type=radio])")]
    .map((i) => (i.type === "password" ? "\u2022".repeat(i.value.length) : i.value) || i.placeholder)
    .filter(Boolean);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(t);
    const r = range.getBoundingClientRect();
    if (!r.width || !r.height || !t.data.trim()) continue;
    out.push({ text: t.data.replace(/\\s+/g, " ").trim(), x: r.left + scrollX, y: r.top + scrollY });
  }
  return { texts: out, fields };
}
"""

#: Each text layer's element in the written code: its characters and the top-left of the text it draws.
CODE_TEXTS = """
(ids) => ids.map((id) => {
  const element = document.querySelector(`[data-node-id="${id}"]`);
  if (!element) return { id, text: null, x: 0, y: 0 };
  const range = document.createRange();
  range.selectNodeContents(element);
  const r = range.getBoundingClientRect();
  return { id, text: element.textContent, x: r.left + scrollX, y: r.top + scrollY };
})
"""


def image_size(png: bytes) -> tuple[int, int]:
    size: tuple[int, int] = Image.open(io.BytesIO(png)).size
    return size


async def whole_code(client: Client, node_id: str, framework: str) -> str:
    """The code of a node in ``framework``, every page of the answer joined."""
    args: dict[str, Any] = {"nodeId": node_id, "framework": framework}
    parts: list[str] = []
    while True:
        answer = await call(client, "design_get_design_context", args)
        parts.append(answer.get("code", ""))
        if "nextCursor" not in answer:
            return "".join(parts)
        args["cursor"] = answer["nextCursor"]


async def rendered(browser: Browser, *, url: str | None = None, html: str | None = None) -> tuple[bytes, Page]:
    """A full-page screenshot at the loop's width, and the page still open to read from (the caller closes it)."""
    page = await browser.new_page(viewport={"width": WIDTH, "height": VIEWPORT_HEIGHT})
    try:
        if url is not None:
            await page.goto(url)
        else:
            await page.set_content(html or "")
        await page.evaluate("document.fonts.ready")
        return await page.screenshot(full_page=True), page
    except BaseException:
        await page.close()
        raise


@pytest.mark.parametrize("name", PAGES)
async def test_a_page_built_as_layers_and_written_back_as_html_looks_like_the_page(
    client: Client, browser: Browser, site: str, name: str, tmp_path: Path
) -> None:
    url = f"{site}/{name}"
    made = await call(client, "design_generate_from_web", {"url": url, "width": WIDTH, "height": VIEWPORT_HEIGHT})
    code = await whole_code(client, made["rootId"], "html")
    text_ids: list[str] = await js(client, TEXT_LAYERS % made["rootId"])

    original, page = await rendered(browser, url=url)
    try:
        page_texts: dict[str, Any] = await page.evaluate(PAGE_TEXTS)
    finally:
        await page.close()
    written, page = await rendered(browser, html=code)
    try:
        code_texts: list[dict[str, Any]] = await page.evaluate(CODE_TEXTS, text_ids)
    finally:
        await page.close()

    assert image_size(written) == image_size(original)
    agreement = pixel_agreement(original, written)
    assert agreement >= AGREEMENT, f"{name}: {agreement:.2%} of pixels agree"
    # Every visible run of text is a text layer with the same characters, drawn where the page draws it.
    unmatched = list(code_texts)
    for ref in page_texts["texts"]:
        match = next(
            (
                t
                for t in unmatched
                if t["text"] == ref["text"]
                and abs(t["x"] - ref["x"]) <= TEXT_TOLERANCE_PX
                and abs(t["y"] - ref["y"]) <= TEXT_TOLERANCE_PX
            ),
            None,
        )
        assert match is not None, f"{name}: {ref} has no text layer there; the code has {unmatched}"
        unmatched.remove(match)
    # What is left is the fields' text, and nothing the page does not show.
    assert sorted(t["text"] for t in unmatched) == sorted(page_texts["fields"])

    compile_react(await whole_code(client, made["rootId"], "react-tailwind"), tmp_path / "Page.tsx")
