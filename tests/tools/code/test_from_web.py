"""design_generate_from_web through the whole chain: pages of our own served on loopback, read in the local headless
Chromium, built by the shipped plugin in the stand-in editor, and read back through design_execute.

The reference for each page (its visible text and where each text box is) is read separately, with Playwright in
the same Chromium, not through the tool's own walk.
"""

from __future__ import annotations

import json
import re
import socket
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import call, chain_session, js, one_undo_step, refused
from fakes.real_plugin import RealPlugin
from mcp import Client
from playwright.async_api import Browser
from procs import TestEnv

from design_console.tools.code.from_web import component_names

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "web"
PAGES = ["form.html", "pricing.html", "nav_hero.html", "table.html"]
WIDTH = 1280
#: How far a text layer's top-left may be from the page's text box.
TEXT_TOLERANCE_PX = 4.0

#: Every layer under a root: type, characters, text case, page position (absolute minus the root's) and bindings.
TREE = """
const root = await figma.getNodeByIdAsync(%r);
const out = [];
const abs = (n) => n.absoluteBoundingBox;
const r = abs(root);
const walk = (n) => {
  const b = abs(n);
  const paints = Array.isArray(n.fills) ? n.fills : [];
  out.push({ type: n.type, name: n.name, characters: n.type === "TEXT" ? n.characters : null,
             textCase: n.textCase || null, x: b.x - r.x, y: b.y - r.y, layoutMode: n.layoutMode || null,
             fillVars: paints.filter((p) => p.boundVariables && p.boundVariables.color)
               .map((p) => p.boundVariables.color.id),
             bound: Object.keys(n.boundVariables || {}) });
  (n.children || []).forEach(walk);
};
walk(root);
return out;
"""

#: The names of the layers under a root that have an image fill.
IMAGE_FILLED = """
const root = await figma.getNodeByIdAsync(%r);
return root.findAll((n) => Array.isArray(n.fills) && n.fills.some((p) => p.type === "IMAGE")).map((n) => n.name);
"""

#: Every visible run of text on the page with its box, read by Playwright (as a person sees the page).
PAGE_TEXTS = """
() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(t);
    const r = range.getBoundingClientRect();
    if (!r.width || !r.height || !t.data.trim()) continue;
    out.push({ text: t.data.replace(/\\s+/g, " ").trim(), x: r.left + scrollX, y: r.top + scrollY });
  }
  const fields = [...document.querySelectorAll("input:not([type=hidden]):not([type=checkbox]):not([type=radio])")]
    .map((i) => i.value || i.placeholder);
  const words = [document.body.innerText, ...fields].join(" ").split(/\\s+/).filter(Boolean);
  return { texts: out, words: words };
}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("webproject")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_env: TestEnv, real_plugin: RealPlugin, project: Path) -> AsyncIterator[Client]:
    async with chain_session(chain_env, cwd=project) as session:
        yield session


async def page_reference(browser: Browser, url: str) -> dict[str, Any]:
    page = await browser.new_page(viewport={"width": WIDTH, "height": 800})
    try:
        await page.goto(url)
        found: dict[str, Any] = await page.evaluate(PAGE_TEXTS)
        return found
    finally:
        await page.close()


def _cased(text: str, case: str | None) -> str:
    return text.upper() if case == "UPPER" else text


async def page_count(client: Client) -> int:
    return int(await js(client, "return figma.currentPage.children.length;"))


@pytest.mark.parametrize("page", PAGES)
async def test_each_page_is_built_with_its_texts_where_the_page_has_them(
    client: Client, browser: Browser, site: str, page: str
) -> None:
    url = f"{site}/{page}"
    made = await one_undo_step(client, "design_generate_from_web", {"url": url})
    assert made["width"] == WIDTH and made["height"] >= 300
    assert made["counts"]["FRAME"] >= 2 and made["counts"]["TEXT"] >= 4
    layers = await js(client, TREE % made["rootId"])
    assert Counter(layer["type"] for layer in layers) == Counter(made["counts"])
    texts = [layer for layer in layers if layer["type"] == "TEXT"]
    reference = await page_reference(browser, url)
    # Every word a person sees is in a text layer, and nothing else is.
    words = [w for t in texts for w in _cased(t["characters"], t["textCase"]).split()]
    assert sorted(words) == sorted(reference["words"])
    # Each run of text is one layer with the same characters, its top-left where the page's text box is.
    unmatched = list(texts)
    for ref in reference["texts"]:
        match = next(
            t
            for t in unmatched
            if t["characters"] == ref["text"]
            and abs(t["x"] - ref["x"]) <= TEXT_TOLERANCE_PX
            and abs(t["y"] - ref["y"]) <= TEXT_TOLERANCE_PX
        )
        unmatched.remove(match)


async def test_flex_rows_become_auto_layout_and_images_and_svgs_carry(client: Client, site: str) -> None:
    made = await call(client, "design_generate_from_web", {"url": f"{site}/nav_hero.html", "name": "Home"})
    assert made["name"] == "Home"
    layers = await js(client, TREE % made["rootId"])
    nav = next(layer for layer in layers if layer["name"] == "nav")
    assert nav["layoutMode"] == "HORIZONTAL"
    images = await js(
        client,
        IMAGE_FILLED % made["rootId"],
    )
    assert sorted(images) == ["div.art", "img"]
    assert made["counts"].get("VECTOR") == 1
    assert any("Inter" in w for w in made["warnings"]) is False


async def test_values_equal_to_local_variables_are_bound(client: Client, site: str) -> None:
    await js(
        client,
        """const c = figma.variables.createVariableCollection("Web brand");
        const m = c.modes[0].modeId;
        const blue = figma.variables.createVariable("Brand/Primary", c, "COLOR");
        blue.setValueForMode(m, { r: 37 / 255, g: 99 / 255, b: 235 / 255, a: 1 });
        const gap = figma.variables.createVariable("Space/Card gap", c, "FLOAT");
        gap.setValueForMode(m, 16);
        return [blue.id, gap.id];""",
    )
    made = await call(client, "design_generate_from_web", {"url": f"{site}/form.html"})
    bound = {b["name"]: b for b in made["boundVariables"]}
    assert bound["Brand/Primary"]["cssVar"] == "--brand-primary" and bound["Brand/Primary"]["uses"] >= 1
    assert bound["Space/Card gap"]["cssVar"] == "--space-card-gap"
    layers = await js(client, TREE % made["rootId"])
    button = next(layer for layer in layers if layer["name"] == "button")
    assert button["fillVars"] == [bound["Brand/Primary"]["id"]]
    card = next(layer for layer in layers if layer["name"] == "form.card")
    assert card["layoutMode"] == "VERTICAL" and "itemSpacing" in card["bound"]


async def test_html_markup_and_a_parent_are_taken(client: Client) -> None:
    parent = await js(client, "const f = figma.createFrame(); f.name = 'Holder'; return f.id;")
    html = "<body style='margin:0'><div style='background:#ff0000;width:100px;height:50px'>Hi</div></body>"
    made = await call(client, "design_generate_from_web", {"html": html, "parentId": parent, "width": 400})
    placed = await js(client, f"return (await figma.getNodeByIdAsync({made['rootId']!r})).parent.id;")
    assert placed == parent
    assert made["counts"] == {"FRAME": 2, "TEXT": 1}


async def test_refusals_change_nothing(client: Client, site: str, project: Path) -> None:
    before = await page_count(client)
    remote = await refused(client, "design_generate_from_web", {"url": "https://example.com/"})
    assert "not a loopback address: pass allowRemote: true" in remote
    assert "not an http(s) address" in await refused(client, "design_generate_from_web", {"url": "ftp://127.0.0.1/"})
    outside = await refused(client, "design_generate_from_web", {"url": (PAGES_DIR / "form.html").as_uri()})
    assert "outside the folders" in outside
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    unreachable = await refused(client, "design_generate_from_web", {"url": f"http://127.0.0.1:{closed}/"})
    assert "could not be loaded" in unreachable
    too_big = await refused(client, "design_generate_from_web", {"url": f"{site}/pricing.html", "maxNodes": 10})
    assert re.search(r"maxNodes is 10\b", too_big)
    bad_parent = await refused(client, "design_generate_from_web", {"url": f"{site}/table.html", "parentId": "999:999"})
    assert "999:999" in bad_parent
    assert "one of them" in await refused(client, "design_generate_from_web", {})
    assert await page_count(client) == before


async def test_a_file_page_in_the_shared_folder_is_read_with_its_images(client: Client, project: Path) -> None:
    for name in ("nav_hero.html", "hero.png", "logo.png"):
        (project / name).write_bytes((PAGES_DIR / name).read_bytes())
    made = await call(client, "design_generate_from_web", {"url": (project / "nav_hero.html").as_uri()})
    assert not [w for w in made["warnings"] if "image" in w]
    count = await js(
        client,
        IMAGE_FILLED % made["rootId"],
    )
    assert len(count) == 2


async def test_a_long_page_reports_progress_and_is_built_whole(client: Client) -> None:
    rows = "".join(f"<tr><td>Row {i}</td><td>{i * 3} items</td></tr>" for i in range(300))
    html = f"<body style='font-family: Arial'><table>{rows}</table></body>"
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    result = await client.call_tool("design_generate_from_web", {"html": html}, progress_callback=on_progress)
    assert result.is_error is False, result.content[0].text
    made = json.loads(result.content[0].text)
    assert made["counts"]["TEXT"] == 600
    assert made["height"] > 300 * 18
    assert [p for p, _, _ in seen] == sorted(p for p, _, _ in seen) and seen[-1][0] == seen[-1][1]
    layers = sum(made["counts"].values())
    assert any(message and f"Building {layers:,} layers" in message for _, _, message in seen)
    # Each row is a row of auto layout, the rows a column of it.
    assert made["counts"]["FRAME"] >= 300


async def test_a_typed_password_is_carried_as_dots_only(client: Client) -> None:
    html = "<body><input type='password' value='hunter2'><input value='visible'></body>"
    made = await call(client, "design_generate_from_web", {"html": html})
    texts = [layer["characters"] for layer in await js(client, TREE % made["rootId"]) if layer["type"] == "TEXT"]
    assert sorted(texts) == ["visible", "\u2022" * 7]


async def test_allow_remote_lets_a_remote_address_through_to_its_resolution(client: Client) -> None:
    # .invalid never resolves: the name was looked up, which without allowRemote it never is.
    error = await refused(client, "design_generate_from_web", {"url": "http://page.invalid/", "allowRemote": True})
    assert "http://page.invalid/ could not be loaded (cannot resolve page.invalid" in error


async def test_markers_and_pseudo_text_are_carried_and_what_cannot_be_is_named(client: Client) -> None:
    html = (
        "<style>li::before { content: '> ' } .icon::before { content: 'i'; position: absolute }"
        " body { font-family: 'Nonexistent Display', serif }</style><body><ul><li>One</li><li>Two</li></ul>"
        "<ol style='list-style-type: georgian'><li>Three</li></ol><span class='icon'></span>"
        "<ul><li><div>Rich item</div></li></ul>"
        "<canvas width='40' height='40'></canvas></body>"
    )
    made = await call(client, "design_generate_from_web", {"html": html})
    texts = [layer["characters"] for layer in await js(client, TREE % made["rootId"]) if layer["type"] == "TEXT"]
    # An item holding a block has its marker beside its first line too (its ::before text is not carried).
    assert sorted(texts) == ["> One", "> Three", "> Two", "Rich item", "\u2022", "\u2022", "\u2022"]
    # A rule the walk cannot read ahead (a nested one) still gives its text.
    nested = "<style>.nest { &::after { content: ' \u00bb' } }</style><body><p class='nest'>Nested</p></body>"
    made_nested = await call(client, "design_generate_from_web", {"html": nested})
    nested_texts = [layer["characters"] for layer in await js(client, TREE % made_nested["rootId"])]
    assert "Nested \u00bb" in nested_texts
    warnings = made["warnings"]
    assert "2 ::before/::after contents (icons, shapes) are not carried" in warnings
    assert "1 list markers or counters the design cannot show are not carried" in warnings
    assert "the content of <canvas> elements is not carried (their box is)" in warnings
    assert "font Nonexistent Display is not available here: Inter used instead; no serif font is installed" in warnings


#: Each text layer's characters and its styled ranges (font, size, link), under a root.
RANGES = """
const root = await figma.getNodeByIdAsync(%r);
return root.findAll((n) => n.type === "TEXT").map((n) => {
  const cut = [];
  for (let i = 1; i < n.characters.length; i++) {
    if (JSON.stringify(n.getRangeFontName(i - 1, i)) !== JSON.stringify(n.getRangeFontName(i, i + 1))
        || n.getRangeFontSize(i - 1, i) !== n.getRangeFontSize(i, i + 1)
        || JSON.stringify(n.getRangeHyperlink(i - 1, i)) !== JSON.stringify(n.getRangeHyperlink(i, i + 1))) cut.push(i);
  }
  const bounds = [0, ...cut, n.characters.length];
  return { characters: n.characters, name: n.name, runs: bounds.slice(1).map((end, k) => {
    const start = bounds[k];
    const link = n.getRangeHyperlink(start, end);
    return { text: n.characters.slice(start, end), font: n.getRangeFontName(start, end),
             size: n.getRangeFontSize(start, end), link: link ? link.value : null };
  }) };
});
"""

#: Every frame and vector under a root: name, type, rotation, blend mode, fill types and effect types.
PAINTS = """
const root = await figma.getNodeByIdAsync(%r);
return root.findAll((n) => n.type !== "TEXT").map((n) => ({ name: n.name, type: n.type, rotation: n.rotation || 0,
  blendMode: n.blendMode || "PASS_THROUGH", fills: (Array.isArray(n.fills) ? n.fills : []).map((p) => p.type),
  effects: (n.effects || []).map((e) => e.type), positioning: n.layoutPositioning || "AUTO" }));
"""


async def test_a_page_of_real_parts_is_built_whole_and_what_is_left_out_is_named(client: Client, site: str) -> None:
    made = await call(client, "design_generate_from_web", {"url": f"{site}/parts/real_parts.html"})
    warnings = made["warnings"]
    # The one image no browser can show is named by its element and left out; everything else is built.
    broken = [w for w in warnings if "broken.png" in w]
    assert len(broken) == 1 and broken[0].startswith("image of body > div.pics")
    assert broken[0].endswith("left out")
    assert not [w for w in warnings if "images[" in w]
    # A flat translate3d() is a flat transform, and what a video holds is not read as boxes.
    assert not [w for w in warnings if "transform" in w]
    texts = {t["characters"]: t for t in await js(client, RANGES % made["rootId"])}
    byline = texts["January 1, 2021 by Mark"]
    assert [(r["text"], r["font"]["style"], r["link"]) for r in byline["runs"]] == [
        ("January 1, 2021 by ", "Regular", None),
        ("Mark", "Bold", "https://example.com/mark"),
    ]
    assert [(r["text"], r["size"]) for r in texts["$0/mo"]["runs"]] == [("$0", 40), ("/mo", 16)]
    assert "Email (Optional) and npm install" in texts and "Name *" in texts
    # A headline set solid (line-height 1) wraps where the page wraps it: its glyph boxes overlap the next line's.
    tight = await js(
        client,
        f"""const root = await figma.getNodeByIdAsync({made["rootId"]!r});
        const t = root.findOne((n) => n.type === "TEXT" && n.characters === "Showcase your app beautifully.");
        return [t.height, t.textAutoResize];""",
    )
    assert tight == [144, "HEIGHT"]
    assert sorted(c for c, t in texts.items() if t["name"] == "marker") == ["1.", "2.", "\u2022"]
    # system-ui stands for the interface font: Inter here, never Roboto, which comes later in the stack.
    assert byline["runs"][0]["font"]["family"] == "Inter"
    assert any(w.startswith("font Playfair Display, Georgia is not available here") and "serif" in w for w in warnings)
    layers = {layer["name"]: layer for layer in await js(client, PAINTS % made["rootId"])}
    assert layers["div.turned"]["rotation"] == -30
    assert layers["div.banner"]["fills"] == ["GRADIENT_LINEAR"]
    assert layers["div.glass"]["fills"] == ["GRADIENT_RADIAL"] and layers["div.glass"]["blendMode"] == "MULTIPLY"
    assert layers["div.glass"]["effects"] == ["LAYER_BLUR"]
    assert layers["img.webp"]["fills"] == ["IMAGE"] and layers["img.avif"]["fills"] == ["IMAGE"]
    assert layers["button.toggler"]["fills"] == ["IMAGE"]
    assert layers["background"]["fills"] == ["IMAGE"]
    assert {"border-left", "border-bottom"} <= set(layers)
    assert made["counts"].get("VECTOR", 0) >= 2  # the SVG logo, drawn as vectors


async def test_an_element_naming_a_mapped_component_is_built_as_its_instance(client: Client) -> None:
    button = await js(
        client,
        """const c = figma.createComponent(); c.name = "Primary button"; c.resize(120, 40);
        await figma.loadFontAsync({ family: "Inter", style: "Regular" });
        const t = figma.createText(); t.characters = "Label"; c.appendChild(t); return c.id;""",
    )
    await call(client, "design_set_code_mapping", {"componentId": button, "source": "@/components/Button"})
    html = (
        "<body style='margin:0'><div style='display:flex;gap:8px;padding:8px'>"
        "<button data-component='Button' style='width:90px;height:32px'>Buy now</button>"
        "<button data-component='Unmapped' style='width:90px;height:32px'>Later</button></div></body>"
    )
    made = await call(client, "design_generate_from_web", {"html": html})
    layers = await js(client, PAINTS % made["rootId"])
    instances = [layer for layer in layers if layer["type"] == "INSTANCE"]
    assert [layer["name"] for layer in instances] == ["button"]
    texts = [t["characters"] for t in await js(client, RANGES % made["rootId"])]
    # The instance says what the page's button says; the button no component maps is built as layers.
    assert sorted(texts) == ["Buy now", "Later"]


def test_a_data_component_value_names_a_mapped_component_by_export_module_or_name() -> None:
    mappings = [
        {"componentId": "1:2", "name": "Primary button", "source": "src/ui/Button.tsx", "exportName": "default"},
        {"componentId": "1:3", "name": "Card", "source": "src/Card.tsx", "exportName": "InfoCard"},
        {"componentId": "1:4", "name": "Badge", "type": "COMPONENT", "invalid": "{not json"},
    ]
    wanted = {"Button", "InfoCard", "Card", "Badge", "default", "Nothing"}
    assert component_names(mappings, wanted) == {"Button": "1:2", "InfoCard": "1:3", "Card": "1:3"}
