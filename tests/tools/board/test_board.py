"""Every FigJam tool through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html + code.js on
the stand-in editor), with a whiteboard, a slides file and a design file connected at once, so that a tool of one
editor is seen refused in another. Each test reads the document back through design_execute, for a success and a
failure. (The Slides tools have tests/tools/slides/test_slides.py.)

One designd, three plugin windows and one MCP session serve the module; each test makes the nodes it reads.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import OpenFile, call, js, one_undo_step, plugin_chain, refused
from mcp import Client
from procs import DaemonProcess

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOARD = "boardFile"
DECK = "deckFile"
DESIGN = "designFile"


#: Every node of some types on the current page, as {id: {type, x, y, width, height, text}}.
NODES = """
const types = %s;
const out = {};
for (const n of figma.currentPage.findAll((n) => types.includes(n.type))) {
  out[n.id] = { type: n.type, x: n.x, y: n.y, width: n.width, height: n.height, parent: n.parent && n.parent.id,
                text: n.text ? n.text.characters : n.characters };
}
return out;
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess) -> AsyncIterator[Client]:
    files = (OpenFile(BOARD, "Board", "figjam"), OpenFile(DECK, "Deck", "slides"), OpenFile(DESIGN, "Design"))
    async with plugin_chain(chain_daemon.env, *files) as session:
        yield session


async def use(client: Client, key: str) -> None:
    """Make ``key`` the active file and keep it so, whatever file spoke last."""
    await call(client, "design_navigate", {"url": key, "lock": True})


async def nodes(client: Client, *types: str) -> dict[str, Any]:
    return dict(await js(client, NODES % json.dumps(list(types))))


# --- the editor type -----------------------------------------------------------------------------------------------


async def test_a_tool_of_another_editor_is_refused_before_anything_is_sent(client: Client) -> None:
    await use(client, DECK)
    before = await js(client, "return figma.testControl.undoCommits;")
    text = await refused(client, "design_create_sticky", {"text": "Lost"})
    assert "FigJam" in text
    assert "'Deck'" in text and "slides" in text and "design_navigate" in text and "design_list_open_files" in text
    # Nothing reached the plugin: it would have answered with its own refusal, and its dispatcher commits an undo
    # step after every write it runs, refused or not (the reading itself commits the one counted here).
    assert "only available" not in text
    assert await js(client, "return figma.testControl.undoCommits;") == before + 1
    await use(client, DESIGN)
    text = await refused(client, "design_list_slides", {})
    assert "Slides" in text and "'Design'" in text and "design file (figma)" in text
    listed = await call(client, "design_list_open_files", {})
    assert {f["fileKey"]: f.get("editorType") for f in listed["files"]}[BOARD] == "figjam"
    await use(client, BOARD)
    assert all(n["text"] != "Lost" for n in (await nodes(client, "STICKY")).values())


# --- FigJam ------------------------------------------------------------------------------------------------------


async def test_create_sticky(client: Client) -> None:
    await use(client, BOARD)
    made = (await one_undo_step(client, "design_create_sticky", {"text": "Idea", "color": "BLUE", "x": 10, "y": 20}))[
        "node"
    ]
    node = (await nodes(client, "STICKY"))[made["id"]]
    assert (node["text"], node["x"], node["y"]) == ("Idea", 10, 20)
    fill = await js(client, f"return (await figma.getNodeByIdAsync('{made['id']}')).fills[0].color;")
    assert round(fill["b"], 2) == 1.0  # BLUE is #A8DAFF
    count = len(await nodes(client, "STICKY"))
    assert "TEAL" in await refused(client, "design_create_sticky", {"text": "x", "color": "TEAL"})
    assert len(await nodes(client, "STICKY")) == count


async def test_create_stickies_is_all_or_nothing(client: Client) -> None:
    await use(client, BOARD)
    before = await nodes(client, "STICKY")
    made = await one_undo_step(
        client,
        "design_create_stickies",
        {"stickies": [{"text": "a", "x": 0, "y": 0}, {"text": "b", "color": "PINK"}, {"text": "c", "y": 500}]},
    )
    assert made["count"] == 3
    after = await nodes(client, "STICKY")
    assert sorted(after[n["id"]]["text"] for n in made["nodes"]) == ["a", "b", "c"]
    # A bad entry anywhere refuses the whole batch.
    text = await refused(
        client, "design_create_stickies", {"stickies": [{"text": "ok"}, {"text": "x", "color": "TEAL"}]}
    )
    assert "stickies" in text
    assert await nodes(client, "STICKY") == after
    # The editor failing midway: the stickies already made are removed again.
    await js(client, "figma.testControl.failOn('createSticky', 3); return true;")
    text = await refused(client, "design_create_stickies", {"stickies": [{"text": str(i)} for i in range(5)]})
    assert "createSticky" in text
    assert await nodes(client, "STICKY") == after
    assert len(after) == len(before) + 3


async def test_create_connector(client: Client) -> None:
    await use(client, BOARD)
    pair = (await call(client, "design_create_stickies", {"stickies": [{"text": "from"}, {"text": "to"}]}))["nodes"]
    made = await one_undo_step(
        client,
        "design_create_connector",
        {"startNodeId": pair[0]["id"], "endNodeId": pair[1]["id"], "label": "leads", "endMagnet": "LEFT"},
    )
    ends = await js(
        client,
        f"const c = await figma.getNodeByIdAsync('{made['node']['id']}');"
        "return [c.connectorStart.endpointNodeId, c.connectorEnd.endpointNodeId, c.connectorEnd.magnet, "
        "c.text.characters];",
    )
    assert ends == [pair[0]["id"], pair[1]["id"], "LEFT", "leads"]
    count = len(await nodes(client, "CONNECTOR"))
    await refused(client, "design_create_connector", {"startNodeId": pair[0]["id"], "endNodeId": "9:9999"})
    assert len(await nodes(client, "CONNECTOR")) == count


async def test_create_shape_with_text(client: Client) -> None:
    await use(client, BOARD)
    made = await one_undo_step(
        client,
        "design_create_shape_with_text",
        {"text": "DB", "shapeType": "ENG_DATABASE", "width": 120, "height": 80, "strokeDashPattern": "4,2", "x": 5},
    )
    shape = await js(
        client,
        f"const s = await figma.getNodeByIdAsync('{made['node']['id']}');"
        "return [s.shapeType, s.width, s.height, s.dashPattern, s.text.characters, s.x];",
    )
    assert shape == ["ENG_DATABASE", 120, 80, [4, 2], "DB", 5]
    count = len(await nodes(client, "SHAPE_WITH_TEXT"))
    assert "shapeType" in await refused(client, "design_create_shape_with_text", {"shapeType": "HEXAGON"})
    assert len(await nodes(client, "SHAPE_WITH_TEXT")) == count


async def test_create_section(client: Client) -> None:
    await use(client, BOARD)
    made = await one_undo_step(client, "design_create_section", {"name": "Zone", "width": 600, "x": -100})
    section = (await nodes(client, "SECTION"))[made["node"]["id"]]
    assert (section["width"], section["height"], section["x"]) == (600, 800, -100)
    count = len(await nodes(client, "SECTION"))
    assert "width" in await refused(client, "design_create_section", {"width": 0})
    assert len(await nodes(client, "SECTION")) == count


async def test_create_table(client: Client) -> None:
    await use(client, BOARD)
    made = await one_undo_step(
        client, "design_create_table", {"rows": 2, "columns": 3, "data": [["a", "b", "c"], ["d"]]}
    )
    cells = await js(
        client,
        f"const t = await figma.getNodeByIdAsync('{made['node']['id']}');"
        "return [t.numRows, t.numColumns, t.cellAt(0, 2).text.characters, t.cellAt(1, 0).text.characters];",
    )
    assert cells == [2, 3, "c", "d"]
    count = len(await nodes(client, "TABLE"))
    assert "rows" in await refused(client, "design_create_table", {"rows": 101, "columns": 2})
    assert len(await nodes(client, "TABLE")) == count


async def test_create_code_block(client: Client) -> None:
    await use(client, BOARD)
    made = await one_undo_step(client, "design_create_code_block", {"code": "print(1)", "language": "python"})
    block = await js(
        client, f"const b = await figma.getNodeByIdAsync('{made['node']['id']}'); return [b.code, b.codeLanguage];"
    )
    assert block == ["print(1)", "PYTHON"]
    count = await js(client, "return figma.currentPage.findAll((n) => n.type === 'CODE_BLOCK').length;")
    assert "klingon" in await refused(client, "design_create_code_block", {"code": "x", "language": "klingon"})
    assert await js(client, "return figma.currentPage.findAll((n) => n.type === 'CODE_BLOCK').length;") == count


def _overlap(a: dict[str, Any], b: dict[str, Any], gap: float) -> bool:
    return (
        a["x"] < b["x"] + b["width"] + gap
        and b["x"] < a["x"] + a["width"] + gap
        and a["y"] < b["y"] + b["height"] + gap
        and b["y"] < a["y"] + a["height"] + gap
    )


async def test_auto_arrange_never_overlaps_and_keeps_connectors(client: Client) -> None:
    await use(client, BOARD)
    stickies = await call(client, "design_create_stickies", {"stickies": [{"text": str(i)} for i in range(4)]})
    shapes = [
        (await call(client, "design_create_shape_with_text", {"width": w, "height": h}))["node"]
        for w, h in ((400, 90), (60, 300))
    ]
    ids = [n["id"] for n in stickies["nodes"]] + [s["id"] for s in shapes]
    link = await call(client, "design_create_connector", {"startNodeId": ids[0], "endNodeId": ids[5]})
    for layout, extra in (("grid", {"columns": 2}), ("horizontal", {}), ("vertical", {}), ("grid", {})):
        arranged = await one_undo_step(
            client,
            "design_auto_arrange",
            {"nodeIds": [*ids, link["node"]["id"]], "layout": layout, "spacing": 30, **extra},
        )
        assert arranged["skippedConnectors"] == [link["node"]["id"]]
        placed = await nodes(client, "STICKY", "SHAPE_WITH_TEXT")
        boxes = [placed[i] for i in ids]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not _overlap(a, b, 30 - 0.001), (layout, a, b)
        if layout == "horizontal":
            assert len({round(b["y"]) for b in boxes}) == 1
        if layout == "vertical":
            assert len({round(b["x"]) for b in boxes}) == 1
    ends = await js(
        client,
        f"const c = await figma.getNodeByIdAsync('{link['node']['id']}');"
        "return [c.connectorStart.endpointNodeId, c.connectorEnd.endpointNodeId];",
    )
    assert ends == [ids[0], ids[5]]
    placed = await nodes(client, "STICKY", "SHAPE_WITH_TEXT")
    assert "twice" in await refused(client, "design_auto_arrange", {"nodeIds": [ids[0], ids[0]]})
    section = (await call(client, "design_create_section", {}))["node"]["id"]
    await js(
        client, f"(await figma.getNodeByIdAsync('{section}')).appendChild(await figma.getNodeByIdAsync('{ids[1]}'));"
    )
    assert "parent" in await refused(client, "design_auto_arrange", {"nodeIds": [ids[0], ids[1]]})
    after = await nodes(client, "STICKY", "SHAPE_WITH_TEXT")
    assert {i: (after[i]["x"], after[i]["y"]) for i in ids} == {i: (placed[i]["x"], placed[i]["y"]) for i in ids}


async def test_board_contents_group_by_section_and_page(client: Client) -> None:
    await use(client, BOARD)
    section = (await call(client, "design_create_section", {"name": "Ideas"}))["node"]["id"]
    inside = (await call(client, "design_create_stickies", {"stickies": [{"text": "in1"}, {"text": "in2"}]}))["nodes"]
    await js(
        client,
        f"const s = await figma.getNodeByIdAsync('{section}');"
        + "".join(f"s.appendChild(await figma.getNodeByIdAsync('{n['id']}'));" for n in inside)
        + "return true;",
    )
    link = await call(client, "design_create_connector", {"startNodeId": inside[0]["id"], "endNodeId": inside[1]["id"]})
    board = await call(client, "design_get_board_contents", {"nodeTypes": ["STICKY", "SECTION", "CONNECTOR"]})
    assert "nextCursor" not in board
    group = next(s for s in board["sections"] if s["id"] == section)
    assert group["name"] == "Ideas" and [n["text"] for n in group["nodes"]] == ["in1", "in2"]
    assert {"id": link["node"]["id"], "from": inside[0]["id"], "to": inside[1]["id"]} in board["edges"]
    assert all(n["type"] == "STICKY" for n in board["loose"])
    stickies = await nodes(client, "STICKY")
    assert board["total"] == len(stickies) + len(await nodes(client, "SECTION", "CONNECTOR"))

    # A small budget: the same board in parts, each within it, together every node once.
    seen: list[str] = []
    cursor = None
    parts = 0
    while True:
        args: dict[str, Any] = {"nodeTypes": ["STICKY"], "maxTokens": 500}
        if cursor:
            args["cursor"] = cursor
        result = await client.call_tool("design_get_board_contents", args)
        assert len(result.content[0].text) <= 500 * 4
        part = json.loads(result.content[0].text)
        seen += [n["id"] for s in part.get("sections", []) for n in s["nodes"]] + [
            n["id"] for n in part.get("loose", [])
        ]
        parts += 1
        cursor = part.get("nextCursor")
        if not cursor:
            break
    assert parts > 1 and sorted(seen) == sorted(stickies)
    assert "WIDGET" in await refused(client, "design_get_board_contents", {"nodeTypes": ["WIDGET"]})
    assert "cursor" in await refused(client, "design_get_board_contents", {"cursor": "bm90IG91cnM"})


async def test_get_connections(client: Client) -> None:
    await use(client, BOARD)
    pair = (await call(client, "design_create_stickies", {"stickies": [{"text": "x"}, {"text": "y"}]}))["nodes"]
    link = await call(
        client, "design_create_connector", {"startNodeId": pair[1]["id"], "endNodeId": pair[0]["id"], "label": "back"}
    )
    edges = (await call(client, "design_get_connections", {}))["edges"]
    assert {"id": link["node"]["id"], "from": pair[1]["id"], "to": pair[0]["id"], "label": "back"} in edges
    assert len(edges) == len(await nodes(client, "CONNECTOR"))
    assert "cursor" in await refused(client, "design_get_connections", {"cursor": "bm90IG91cnM"})
