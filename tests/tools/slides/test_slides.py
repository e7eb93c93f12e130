"""Every Slides tool through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html + code.js on the
stand-in editor) open in a slides file. Each test reads the deck back through design_execute, for a success and a
failure.

One designd, one plugin window and one MCP session serve the module; each test makes the slides it reads.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import OpenFile, call, js, one_undo_step, plugin_chain, refused
from mcp import Client
from procs import DaemonProcess

pytestmark = pytest.mark.asyncio(loop_scope="module")

GRID = "return figma.getSlideGrid().map((row) => row.map((s) => s.id));"
FLAT = "return figma.getSlideGrid().flat().map((s) => s.id);"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess) -> AsyncIterator[Client]:
    async with plugin_chain(chain_daemon.env, OpenFile("deckFile", "Deck", "slides")) as session:
        yield session


async def slide(client: Client) -> str:
    return str((await call(client, "design_create_slide", {}))["slide"]["id"])


async def test_create_delete_duplicate_slides(client: Client) -> None:
    before = await js(client, GRID)
    made = (await one_undo_step(client, "design_create_slide", {}))["slide"]["id"]
    grid = await js(client, GRID)
    assert made in grid[-1] and sum(map(len, grid)) == sum(map(len, before)) + 1
    assert "row" in await refused(client, "design_create_slide", {"row": -1})
    assert await js(client, GRID) == grid

    copy = await one_undo_step(client, "design_duplicate_slide", {"slideId": made})
    assert copy["sourceId"] == made and copy["slide"]["id"] in await js(client, FLAT)
    assert "Node 9:9999 was not found in this file (Deck)" in await refused(
        client, "design_duplicate_slide", {"slideId": "9:9999"}
    )

    deleted = await one_undo_step(client, "design_delete_slide", {"slideId": copy["slide"]["id"]})
    assert deleted["deleted"]["id"] == copy["slide"]["id"]
    assert await js(client, GRID) == grid
    text = (await call(client, "design_add_text_to_slide", {"slideId": made, "text": "kept"}))["node"]["id"]
    assert "is a TEXT, expected SLIDE" in await refused(client, "design_delete_slide", {"slideId": text})
    assert await js(client, f"return !!(await figma.getNodeByIdAsync('{text}'));") is True


async def test_slide_outline_and_content(client: Client) -> None:
    first, second = await slide(client), await slide(client)
    await call(client, "design_add_text_to_slide", {"slideId": first, "text": "Body line", "y": 300, "fontSize": 20})
    await call(client, "design_add_text_to_slide", {"slideId": first, "text": "Our plan", "y": 50, "fontSize": 60})
    await call(client, "design_add_text_to_slide", {"slideId": second, "text": "Thanks", "fontSize": 48})
    outline = await call(client, "design_list_slides", {})
    order = await js(client, FLAT)
    assert [s["id"] for s in outline["slides"]] == order
    entry = {s["id"]: s for s in outline["slides"]}
    assert entry[first]["title"] == "Our plan" and entry[first]["text"] == ["Body line"]
    assert entry[second]["title"] == "Thanks"
    assert "not one this tool handed out" in await refused(client, "design_list_slides", {"cursor": "bm90IG91cnM"})
    # A small budget: the outline in parts, in slide order, together every slide once.
    for _ in range(8):
        await slide(client)
    order = await js(client, FLAT)
    seen: list[str] = []
    parts = 0
    args: dict[str, Any] = {"maxTokens": 500}
    while True:
        part = await call(client, "design_list_slides", args)
        seen += [s["id"] for s in part["slides"]]
        parts += 1
        if "nextCursor" not in part:
            break
        args = {"maxTokens": 500, "cursor": part["nextCursor"]}
    assert seen == order and parts > 1

    content = await call(client, "design_get_slide_content", {"slideId": first})
    assert (content["title"], content["text"]) == ("Our plan", ["Body line"])
    assert len(content["tree"]["children"]) == 2
    small = await call(client, "design_get_slide_content", {"slideId": first, "maxTokens": 500})
    assert small["title"] == "Our plan" and "tree" not in small and "maxTokens" in small["notes"][0]
    assert "Node 9:9999 was not found" in await refused(client, "design_get_slide_content", {"slideId": "9:9999"})


async def test_slide_grid_and_reorder(client: Client) -> None:
    await slide(client)
    grid = (await call(client, "design_get_slide_grid", {}))["grid"]
    assert grid == await js(client, GRID)
    assert "unknown" in (await refused(client, "design_get_slide_grid", {"rows": 1})).lower()
    flat = [slide_id for row in grid for slide_id in row]
    # Ids as URLs write them (1-2) are taken too, however deep in the grid.
    as_in_urls = [i.replace(":", "-") for i in reversed(flat)]
    reordered = await one_undo_step(client, "design_reorder_slides", {"grid": [as_in_urls]})
    assert reordered["grid"] == [list(reversed(flat))] == await js(client, GRID)
    text = await refused(client, "design_reorder_slides", {"grid": [flat[1:]]})
    assert flat[0] in text
    text = await refused(client, "design_reorder_slides", {"grid": [[flat[1], *flat[1:]]]})
    assert "repeated" in text and flat[1] in text
    assert await js(client, GRID) == [list(reversed(flat))]


async def test_transitions(client: Client) -> None:
    s = await slide(client)
    set_ = await one_undo_step(
        client,
        "design_set_slide_transition",
        {"slideId": s, "style": "PUSH_FROM_LEFT", "duration": 0.8, "curve": "GENTLE"},
    )
    assert set_["transition"]["style"] == "PUSH_FROM_LEFT"
    read = (await call(client, "design_get_slide_transition", {"slideId": s}))["transition"]
    assert (read["style"], read["duration"], read["curve"]) == ("PUSH_FROM_LEFT", 0.8, "GENTLE")
    assert "style" in await refused(client, "design_set_slide_transition", {"slideId": s, "style": "SPIN"})
    assert (await call(client, "design_get_slide_transition", {"slideId": s}))["transition"][
        "style"
    ] == "PUSH_FROM_LEFT"
    assert "Node 9:9999 was not found" in await refused(client, "design_get_slide_transition", {"slideId": "9:9999"})


async def test_focus_skip_and_view(client: Client) -> None:
    s = await slide(client)
    assert (await call(client, "design_focus_slide", {"slideId": s}))["slide"]["id"] == s
    assert (await call(client, "design_get_focused_slide", {}))["slide"]["id"] == s
    assert await js(client, "return figma.currentPage.focusedSlide.id;") == s
    assert "Node 9:9999 was not found" in await refused(client, "design_focus_slide", {"slideId": "9:9999"})
    assert "unknown field `slideId`" in await refused(client, "design_get_focused_slide", {"slideId": s})

    assert (await one_undo_step(client, "design_skip_slide", {"slideId": s, "skip": True}))["isSkipped"] is True
    assert await js(client, f"return (await figma.getNodeByIdAsync('{s}')).isSkippedSlide;") is True
    assert "skip" in await refused(client, "design_skip_slide", {"slideId": s})
    skipped = next(e for e in (await call(client, "design_list_slides", {}))["slides"] if e["id"] == s)
    assert skipped["skipped"] is True

    await call(client, "design_set_slides_view_mode", {"mode": "single-slide"})
    assert await js(client, "return figma.viewport.slidesView;") == "single-slide"
    assert "Invalid enum value 'list' - at `$.mode`" in await refused(
        client, "design_set_slides_view_mode", {"mode": "list"}
    )
    assert await js(client, "return figma.viewport.slidesView;") == "single-slide"


async def test_text_shape_and_background(client: Client) -> None:
    s = await slide(client)
    text = await one_undo_step(
        client,
        "design_add_text_to_slide",
        {"slideId": s, "text": "Hello", "fontSize": 40, "color": "#ff0000", "textAlign": "CENTER", "textCase": "UPPER"},
    )
    read = await js(
        client,
        f"const t = await figma.getNodeByIdAsync('{text['node']['id']}');"
        "return [t.parent.id, t.characters, t.fontSize, t.textAlignHorizontal, t.textCase, t.x, t.y, "
        "t.fills[0].color.r];",
    )
    assert read == [s, "Hello", 40, "CENTER", "UPPER", 100, 100, 1]
    children = f"return (await figma.getNodeByIdAsync('{s}')).children.length;"
    count = await js(client, children)
    assert "colour" in await refused(
        client, "design_add_text_to_slide", {"slideId": s, "text": "x", "color": "blurple"}
    )
    assert await js(client, children) == count

    shape = await one_undo_step(
        client,
        "design_add_shape_to_slide",
        {"slideId": s, "shapeType": "ELLIPSE", "x": 1, "y": 2, "width": 30, "height": 40},
    )
    read = await js(
        client,
        f"const e = await figma.getNodeByIdAsync('{shape['node']['id']}');"
        "return [e.type, e.parent.id, e.width, e.height, e.fills[0].color.r];",
    )
    assert read[:4] == ["ELLIPSE", s, 30, 40] and round(read[4], 2) == 0.8  # #CCCCCC by default
    assert "width" in await refused(
        client,
        "design_add_shape_to_slide",
        {"slideId": s, "shapeType": "ELLIPSE", "x": 0, "y": 0, "width": 0, "height": 1},
    )
    assert await js(client, children) == count + 1

    await one_undo_step(client, "design_set_slide_background", {"slideId": s, "color": "rgb(0, 0, 255)"})
    fill = f"return (await figma.getNodeByIdAsync('{s}')).fills[0].color;"
    assert await js(client, fill) == {"r": 0, "g": 0, "b": 1}
    assert "`color`: 'nope' is not a colour" in await refused(
        client, "design_set_slide_background", {"slideId": s, "color": "nope"}
    )
    assert await js(client, fill) == {"r": 0, "g": 0, "b": 1}


async def test_text_styles(client: Client) -> None:
    await js(
        client,
        "figma.testControl.addStyle({id: 'S:title', type: 'TEXT', name: 'Title', key: 'k1', "
        "fontName: {family: 'Inter', style: 'Bold'}, fontSize: 64, description: ''}); return true;",
    )
    styles = (await call(client, "design_get_text_styles", {}))["styles"]
    assert [(s["name"], s["fontSize"]) for s in styles] == [("Title", 64)]
    assert "unknown field `all`" in await refused(client, "design_get_text_styles", {"all": True})
