"""The design-to-code tools through the whole chain: layers made in the real plugin's stand-in editor, read back as an
XML outline and as HTML, React and Vue code; the HTML rendered in Chromium lays the layers out where the design
has them."""

from __future__ import annotations

import io
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import call, chain_session, js, refused
from mcp import Client
from PIL import Image
from procs import TestEnv

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[3]
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"

#: A card without auto layout: a bound-colour title, an auto layout row (a fixed and a filling child, a gap bound to
#: a variable), a right-pinned badge, a hidden layer, a vector and an ellipse with a drop shadow.
BUILD = """
const coll = figma.variables.createVariableCollection("Brand");
coll.renameMode(coll.modes[0].modeId, "Light");
const dark = coll.addMode("Dark");
const brand = figma.variables.createVariable("color/brand-primary", coll, "COLOR");
brand.setValueForMode(coll.modes[0].modeId, { r: 0.2, g: 0.4, b: 1, a: 1 });
brand.setValueForMode(dark, { r: 0.4, g: 0.6, b: 1, a: 1 });
const space = figma.variables.createVariable("space/2", coll, "FLOAT");
space.setValueForMode(coll.modes[0].modeId, 8);
space.setValueForMode(dark, 8);
await figma.loadFontAsync({ family: "Inter", style: "Bold" });
const card = figma.createFrame();
card.name = "Login Card";
card.x = 100; card.y = 50; card.resize(400, 300);
card.fills = [{ type: "SOLID", color: { r: 1, g: 1, b: 1 } }];
card.cornerRadius = 12;
card.strokes = [{ type: "SOLID", color: { r: 0.8, g: 0.8, b: 0.8 } }];
card.strokeWeight = 1; card.strokeAlign = "INSIDE";
card.clipsContent = true;
figma.currentPage.appendChild(card);
const title = figma.createText();
title.name = "Title";
title.fontName = { family: "Inter", style: "Bold" };
title.characters = "Sign in <now>";
title.fontSize = 24;
title.lineHeight = { unit: "PIXELS", value: 32 };
title.letterSpacing = { unit: "PIXELS", value: 0.5 };
title.textAutoResize = "NONE";
const black = { type: "SOLID", color: { r: 0, g: 0, b: 0 } };
title.fills = [figma.variables.setBoundVariableForPaint(black, "color", brand)];
card.appendChild(title);
title.x = 24; title.y = 20; title.resize(300, 32);
const row = figma.createFrame();
row.name = "Row";
card.appendChild(row);
row.x = 24; row.y = 80; row.resize(352, 48);
row.layoutMode = "HORIZONTAL";
row.itemSpacing = 8; row.setBoundVariable("itemSpacing", space);
row.paddingLeft = 8; row.paddingRight = 8; row.paddingTop = 8; row.paddingBottom = 8;
row.fills = [{ type: "SOLID", color: { r: 0.96, g: 0.96, b: 0.96 } }];
const a = figma.createRectangle();
a.name = "Fixed"; row.appendChild(a); a.resize(40, 32);
a.fills = [{ type: "SOLID", color: { r: 1, g: 0, b: 0 } }];
a.layoutSizingHorizontal = "FIXED"; a.layoutSizingVertical = "FIXED";
const b = figma.createRectangle();
b.name = "Filling"; row.appendChild(b); b.resize(288, 32);
b.fills = [{ type: "SOLID", color: { r: 0, g: 0, b: 1 }, opacity: 0.5 }];
b.layoutSizingHorizontal = "FILL"; b.layoutSizingVertical = "FIXED";
const badge = figma.createRectangle();
badge.name = "Badge"; card.appendChild(badge);
badge.x = 340; badge.y = 20; badge.resize(40, 20);
badge.constraints = { horizontal: "MAX", vertical: "MIN" };
badge.fills = [{ type: "SOLID", color: { r: 0, g: 0.5, b: 0 } }];
const ghost = figma.createRectangle();
ghost.name = "Ghost"; card.appendChild(ghost); ghost.visible = false;
const icon = figma.createVector();
icon.name = "Icon"; card.appendChild(icon);
icon.x = 24; icon.y = 150; icon.resize(24, 24);
const dot = figma.createEllipse();
dot.name = "Dot"; card.appendChild(dot);
dot.x = 60; dot.y = 150; dot.resize(30, 30);
dot.fills = [{ type: "SOLID", color: { r: 1, g: 0.5, b: 0 } }];
dot.effects = [{ type: "DROP_SHADOW", visible: true, color: { r: 0, g: 0, b: 0, a: 0.25 }, offset: { x: 0, y: 2 },
                 radius: 4, spread: 0, blendMode: "NORMAL" }];
return { card: card.id, title: title.id, row: row.id, a: a.id, b: b.id, badge: badge.id, ghost: ghost.id,
         icon: icon.id, dot: dot.id };
"""

#: Three groups of 15 rectangles in a frame: an outline longer than the smallest page.
MANY = """
const frame = figma.createFrame(); frame.name = "Many"; figma.currentPage.appendChild(frame);
for (let g = 0; g < 3; g++) {
  const group = figma.createFrame(); group.name = "Group " + g; frame.appendChild(group);
  for (let i = 0; i < 15; i++) {
    const r = figma.createRectangle(); r.name = "Rectangle number " + i; group.appendChild(r); r.x = i * 10;
  }
}
return frame.id;
"""

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


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def made(client: Client) -> dict[str, str]:
    ids: dict[str, str] = await js(client, BUILD)
    return ids


# design_get_metadata ------------------------------------------------------------------------------------------------


async def test_the_outline_names_each_layer_by_type_with_its_box(client: Client, made: dict[str, str]) -> None:
    answer = await call(client, "design_get_metadata", {"nodeId": made["card"]})
    assert "nextCursor" not in answer and answer["layers"] == 9
    root = ET.fromstring(answer["xml"])
    (card,) = list(root)
    assert card.tag == "frame" and card.attrib == {
        "id": made["card"],
        "name": "Login Card",
        "x": "100",
        "y": "50",
        "width": "400",
        "height": "300",
    }
    assert [child.tag for child in card] == ["text", "frame", "rectangle", "rectangle", "vector", "ellipse"]
    title, row, _, ghost, _, _ = list(card)
    assert (title.get("x"), title.get("y"), title.get("width"), title.get("height")) == ("24", "20", "300", "32")
    assert ghost.get("hidden") == "true" and title.get("hidden") is None
    assert [c.get("id") for c in row] == [made["a"], made["b"]]


async def test_outline_pages_are_well_formed_and_continue_in_document_order(
    client: Client, made: dict[str, str]
) -> None:
    many = await js(client, MANY)
    whole = ET.fromstring((await call(client, "design_get_metadata", {"nodeId": many}))["xml"])
    order = [e.get("id") for e in whole.iter() if e.get("id")]
    assert len(order) == 1 + 3 * 16
    seen: list[str] = []
    args: dict[str, Any] = {"nodeId": many, "maxTokens": 1}
    pages = 0
    while True:
        answer = await call(client, "design_get_metadata", args)
        page = ET.fromstring(answer["xml"])
        pages += 1
        seen += [e.get("id") or "" for e in page.iter() if e.get("id") and e.get("continued") is None]
        if pages > 1:
            # A page that starts inside a layer re-opens its ancestors, marked as continued.
            assert next(iter(page)).get("continued") == "true"
        if "nextCursor" not in answer:
            break
        args["cursor"] = answer["nextCursor"]
    assert pages > 1 and seen == order


async def test_an_unknown_node_and_a_foreign_cursor_are_refused(client: Client, made: dict[str, str]) -> None:
    assert "No node 77:77" in await refused(client, "design_get_metadata", {"nodeId": "77:77"})
    first = await call(
        client, "design_get_design_context", {"nodeId": made["card"], "framework": "html", "maxTokens": 1}
    )
    text = await refused(client, "design_get_metadata", {"nodeId": made["card"], "cursor": first["nextCursor"]})
    assert "other arguments" in text


# design_get_design_context --------------------------------------------------------------------------------------------


async def test_html_renders_the_layers_where_the_design_has_them(
    client: Client, made: dict[str, str], browser: Any
) -> None:
    answer = await call(client, "design_get_design_context", {"nodeId": made["card"], "framework": "html"})
    assert answer["framework"] == "html" and "nextCursor" not in answer
    code = answer["code"]
    assert "var(--color-brand-primary)" in code and "var(--space-2)" in code
    assert "#3366ff" not in code.split("</style>")[1], "a bound colour is written as its variable"
    assert {t["cssVar"]: t["values"] for t in answer["tokens"]} == {
        "--color-brand-primary": {"Light": "#3366ff", "Dark": "#6699ff"},
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
    assert "text-[color:var(--color-brand-primary)]" in code and "gap-x-[var(--space-2)]" in code
    assert "flex-1" in code and "absolute" in code and "dangerouslySetInnerHTML" in code
    if not ESBUILD.exists():
        pytest.skip("esbuild is not installed in node_modules")
    source = tmp_path / "LoginCard.tsx"
    source.write_text(code)
    done = subprocess.run(
        [str(ESBUILD), str(source), "--jsx=automatic", "--format=esm", "--log-level=error"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "jsx" in done.stdout


async def test_vue_is_a_single_file_component(client: Client, made: dict[str, str]) -> None:
    answer = await call(client, "design_get_design_context", {"nodeId": made["card"], "framework": "vue"})
    code = answer["code"]
    assert code.startswith("<template>") and "<style scoped>" in code and 'v-html="svg0"' in code
    assert ":root {\n  --color-brand-primary: #3366ff;" in code
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


# design_get_variable_defs -----------------------------------------------------------------------------------------


async def test_variable_defs_list_what_the_layers_are_bound_to(client: Client, made: dict[str, str]) -> None:
    await js(
        client,
        "figma.testControl.addStyle({ id: 'S:surface', type: 'PAINT', name: 'Surface/Badge', key: 'k-surface' });"
        f'(await figma.getNodeByIdAsync("{made["badge"]}")).fillStyleId = "S:surface";',
    )
    answer = await call(client, "design_get_variable_defs", {"nodeId": made["card"]})
    assert answer["styles"] == [
        {"id": "S:surface", "name": "Surface/Badge", "type": "PAINT", "layers": 1, "appliedTo": ["fills"]}
    ]
    defs = {v["name"]: v for v in answer["variables"]}
    assert set(defs) == {"color/brand-primary", "space/2"}
    brand = defs["color/brand-primary"]
    assert brand["cssVar"] == "--color-brand-primary" and brand["collection"] == "Brand" and brand["type"] == "COLOR"
    assert brand["values"] == {"Light": "#3366ff", "Dark": "#6699ff"} and brand["resolved"] == brand["values"]
    assert brand["boundOn"] == ["fills"] and brand["layers"] == 1
    assert defs["space/2"]["boundOn"] == ["itemSpacing"] and defs["space/2"]["values"] == {
        "Light": "8px",
        "Dark": "8px",
    }
    only_row = await call(client, "design_get_variable_defs", {"nodeId": made["a"]})
    assert only_row["variables"] == [] and only_row["layers"] == 1
    assert "No node 77:77" in await refused(client, "design_get_variable_defs", {"nodeId": "77:77"})


# Code mappings ----------------------------------------------------------------------------------------------------

#: A Button component set (Size variants, a "Has icon" boolean) and a screen holding one Large instance.
COMPONENTS = """
const small = figma.createComponent(); small.name = "Size=Small"; small.resize(80, 32);
const large = figma.createComponent(); large.name = "Size=Large"; large.resize(120, 40);
const set = figma.combineAsVariants([small, large], figma.currentPage);
set.name = "Button";
set.addComponentProperty("Has icon", "BOOLEAN", true);
const avatar = figma.createComponent(); avatar.name = "Avatar"; avatar.resize(32, 32);
figma.currentPage.appendChild(avatar);
const screen = figma.createFrame(); screen.name = "Screen"; screen.resize(300, 200);
figma.currentPage.appendChild(screen);
const button = large.createInstance(); screen.appendChild(button); button.x = 10; button.y = 20;
const face = avatar.createInstance(); screen.appendChild(face); face.x = 200; face.y = 20;
const box = figma.createRectangle(); screen.appendChild(box);
return { set: set.id, large: large.id, avatar: avatar.id, screen: screen.id, button: button.id, box: box.id };
"""

BUTTON_TSX = """import React from "react";

type ButtonProps = { size: "Small" | "Large"; withIcon?: boolean; children?: React.ReactNode };

export function Button({ size, withIcon, children }: ButtonProps) {
  return <button data-size={size}>{withIcon ? "*" : null}{children}</button>;
}
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def parts(client: Client) -> dict[str, str]:
    ids: dict[str, str] = await js(client, COMPONENTS)
    return ids


async def test_a_mapping_is_stored_on_the_set_listed_and_used_by_the_code(
    client: Client, parts: dict[str, str]
) -> None:
    mapping = {
        "componentId": parts["set"],
        "source": "@/components/Button",
        "exportName": "Button",
        "props": {"Size": "size", "Has icon": "withIcon"},
    }
    stored = await call(client, "design_set_code_mapping", mapping)
    assert stored["changed"]["componentId"] == parts["set"] and stored["replaced"] is None
    raw = await js(
        client,
        f'return (await figma.getNodeByIdAsync("{parts["set"]}")).getSharedPluginData("design_console", "codeMapping")',
    )
    assert json.loads(raw) == {
        "source": "@/components/Button",
        "exportName": "Button",
        "props": {"Size": "size", "Has icon": "withIcon"},
    }
    listed = await call(client, "design_get_code_mappings", {})
    assert [(m["componentId"], m["name"], m["source"]) for m in listed["mappings"]] == [
        (parts["set"], "Button", "@/components/Button")
    ]
    react = await call(client, "design_get_design_context", {"nodeId": parts["screen"]})
    assert react["code"].startswith('import { Button } from "@/components/Button";')
    assert '<Button size={"Large"} withIcon={true} />' in react["code"]
    assert react["components"] == [{"componentId": parts["avatar"], "name": "Avatar", "instances": 1}]
    vue = await call(client, "design_get_design_context", {"nodeId": parts["screen"], "framework": "vue"})
    assert '<Button size="Large" :withIcon="true" />' in vue["code"]


async def test_a_bad_mapping_is_refused_and_changes_nothing(client: Client, parts: dict[str, str]) -> None:
    before = await call(client, "design_get_code_mappings", {})
    text = await refused(
        client, "design_set_code_mapping", {"componentId": parts["set"], "source": "x", "props": {"Colour": "color"}}
    )
    assert "no property Colour" in text and "Size" in text and "Has icon" in text
    text = await refused(client, "design_set_code_mapping", {"componentId": parts["box"], "source": "x"})
    assert "not a component" in text
    text = await refused(
        client, "design_set_code_mapping", {"componentId": parts["avatar"], "source": "x", "exportName": "not-ok"}
    )
    assert "not a JavaScript identifier" in text
    assert await call(client, "design_get_code_mappings", {}) == before


async def test_suggestions_match_design_components_to_the_codes(
    chain_env: TestEnv, client: Client, parts: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "src" / "components").mkdir(parents=True)
    (tmp_path / "src" / "components" / "Button.tsx").write_text(BUTTON_TSX)
    (tmp_path / "src" / "App.tsx").write_text(
        'import { Button } from "./components/Button";\nexport const App = () => <Button size="Small" />;\n'
    )
    async with chain_session(chain_env, cwd=tmp_path) as session:
        answer = await call(session, "design_suggest_code_mappings", {"targets": ["src"]})
    by_name = {s["name"]: s for s in answer["suggestions"]}
    button = by_name["Button"]
    # Same name, and Size matches; "Has icon" has no prop of its name (withIcon): 1.0 x (0.6 + 0.4 x 1/2).
    assert button["componentId"] == parts["set"] and button["confidence"] == 0.8
    assert button["mapping"]["source"] == str(tmp_path / "src" / "components" / "Button.tsx")
    assert button["mapping"]["exportName"] == "Button" and button["mapping"]["props"] == {"Size": "size"}
    assert button["why"] == ["same name (Button)", "1 of 2 properties match props", "Size options in common: 2 of 2"]
    mapped = {m["componentId"] for m in (await call(client, "design_get_code_mappings", {}))["mappings"]}
    assert button.get("alreadyMapped", False) == (parts["set"] in mapped)
    assert "Avatar" in answer["unmatched"]
