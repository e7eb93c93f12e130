"""design_get_design_context through the whole chain: the login card (conftest.py) made in the real plugin's stand-in
editor, read back as HTML, React and Vue code; the HTML rendered in Chromium lays the layers out where the design has
them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from fakes.chain import call, js, refused
from helpers import compile_react
from mcp import Client
from PIL import Image

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


#: Where each layer of BUILD lies inside the card (x, y, width, height).
BOXES = {
    "title": (24, 20, 300, 32),
    "row": (24, 80, 352, 48),
    "a": (32, 88, 40, 32),
    "b": (80, 88, 288, 32),
    "badge": (340, 20, 40, 20),
    "icon": (24, 150, 24, 24),
    "dot": (60, 150, 30, 30),
}


#: Colours the HTML paints at points of the card (x, y inside it): the inside stroke, the background, the fixed and the
#: half-transparent filling rectangle over the row's grey, the badge pinned right, the ellipse.
PIXELS = {
    (0, 250): (204, 204, 204),
    (200, 250): (255, 255, 255),
    (50, 104): (255, 0, 0),
    (200, 104): (122, 122, 250),
    (360, 30): (0, 128, 0),
    (75, 165): (255, 128, 0),
}


async def test_html_renders_the_layers_where_the_design_has_them(
    client: Client, made: dict[str, str], browser: Any
) -> None:
    answer = await call(client, "design_get_design_context", {"nodeId": made["card"], "framework": "html"})
    assert answer["framework"] == "html" and "nextCursor" not in answer
    code = answer["code"]
    assert "var(--color-brand-primary)" in code and "var(--space-2)" in code
    assert "#3366FF" not in code.split("</style>")[1], "a bound colour is written as its variable"
    assert {t["cssVar"]: t["values"] for t in answer["tokens"]} == {
        "--color-brand-primary": {"Light": "#3366FF", "Dark": "#6699FF"},
        "--space-2": {"Light": "8px", "Dark": "8px"},
    }
    assert "Sign in &lt;now&gt;" in code and made["ghost"] not in code
    page = await browser.new_page(viewport={"width": 800, "height": 600})
    try:
        await page.set_content(code)
        origin = await page.eval_on_selector(
            f'[data-node-id="{made["card"]}"]', "e => e.getBoundingClientRect().toJSON()"
        )
        assert (origin["width"], origin["height"]) == (400, 300)
        for key, (x, y, w, h) in BOXES.items():
            box = await page.eval_on_selector(
                f'[data-node-id="{made[key]}"]', "e => e.getBoundingClientRect().toJSON()"
            )
            got = (box["x"] - origin["x"], box["y"] - origin["y"], box["width"], box["height"])
            assert got == pytest.approx((x, y, w, h), abs=0.5), key
        styles = await page.evaluate(
            """ids => ids.map(id => { const s = getComputedStyle(document.querySelector(`[data-node-id="${id}"]`));
                 return { bg: s.backgroundColor, color: s.color, radius: s.borderTopLeftRadius, outline: s.outline,
                          shadow: s.boxShadow, size: s.fontSize, lh: s.lineHeight, ls: s.letterSpacing,
                          weight: s.fontWeight, overflow: s.overflow }; })""",
            [made["card"], made["title"], made["b"], made["dot"]],
        )
        card, title, filling, dot = styles
        assert card["bg"] == "rgb(255, 255, 255)" and card["radius"] == "12px" and card["overflow"] == "hidden"
        assert card["outline"] == "rgb(204, 204, 204) solid 1px"
        assert (title["color"], title["size"], title["lh"], title["ls"], title["weight"]) == (
            "rgb(51, 102, 255)",
            "24px",
            "32px",
            "0.5px",
            "700",
        )
        assert filling["bg"] == "rgba(0, 0, 255, 0.5)"
        assert dot["radius"] == "50%" and dot["shadow"] == "rgba(0, 0, 0, 0.25) 0px 2px 4px 0px"
        shot = Image.open(io.BytesIO(await page.screenshot())).convert("RGB")
        x0, y0 = round(origin["x"]), round(origin["y"])
        for (x, y), expected in PIXELS.items():
            assert shot.getpixel((x0 + x, y0 + y)) == pytest.approx(expected, abs=2), (x, y)
    finally:
        await page.close()


async def test_react_tailwind_is_a_module_that_compiles(client: Client, made: dict[str, str], tmp_path: Path) -> None:
    answer = await call(client, "design_get_design_context", {"nodeId": made["card"]})
    assert answer["framework"] == "react-tailwind"
    code = answer["code"]
    assert "export default function LoginCard()" in code
    # A colour in the Tailwind v4 export's colour namespace is its theme key; a gap variable outside the spacing
    # namespace is Tailwind's variable shorthand.
    assert "text-brand-primary" in code and "gap-(--space-2)" in code
    assert "flex-1" in code and "absolute" in code and "dangerouslySetInnerHTML" in code
    assert "jsx" in compile_react(code, tmp_path / "LoginCard.tsx")


async def test_vue_is_a_single_file_component(client: Client, made: dict[str, str]) -> None:
    answer = await call(client, "design_get_design_context", {"nodeId": made["card"], "framework": "vue"})
    code = answer["code"]
    assert code.startswith("<template>") and "<style scoped>" in code and 'v-html="svg0"' in code
    assert ":root {\n  --color-brand-primary: #3366FF;" in code
    assert "v-pre>Sign in &lt;now&gt;</div>" in code


async def test_code_pages_join_into_the_whole(client: Client, made: dict[str, str]) -> None:
    whole = (await call(client, "design_get_design_context", {"nodeId": made["card"], "framework": "html"}))["code"]
    args: dict[str, Any] = {"nodeId": made["card"], "framework": "html", "maxTokens": 1}
    parts: list[str] = []
    rename = 'const t = await figma.getNodeByIdAsync("%s"); t.characters = %s; return t.characters;'
    try:
        while True:
            answer = await call(client, "design_get_design_context", args)
            parts.append(answer.get("code", ""))
            if len(parts) == 1:
                # The later pages are cut from the code of the first, even when the layers change meanwhile.
                await js(client, rename % (made["title"], json.dumps("Welcome")))
            if "nextCursor" not in answer:
                break
            args["cursor"] = answer["nextCursor"]
        assert len(parts) > 1 and "".join(parts) == whole
        fresh = await call(client, "design_get_design_context", {"nodeId": made["card"], "framework": "html"})
        assert ">Welcome</div>" in fresh["code"]
    finally:
        await js(client, rename % (made["title"], json.dumps("Sign in <now>")))


async def test_an_unknown_node_and_framework_are_refused(client: Client, made: dict[str, str]) -> None:
    text = await refused(client, "design_get_design_context", {"nodeId": "77:77", "framework": "html"})
    assert "No node 77:77" in text
    text = await refused(client, "design_get_design_context", {"nodeId": made["card"], "framework": "svelte"})
    assert "svelte" in text and "react-tailwind, html, vue" in text
