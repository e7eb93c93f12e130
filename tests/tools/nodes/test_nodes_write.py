"""The node write tools through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html + code.js on
the stand-in editor). Each test reads the document back afterwards, through design_execute, for a success and a
failure.

One designd, one plugin window and one MCP session serve the module; each test makes its own nodes.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import OpenFile, call, js, one_undo_step, page_id, plugin_chain, refused
from mcp import Client
from PIL import Image
from procs import DaemonProcess

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 3), (10, 200, 10)).save(out, "PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The AI app's working directory, which is also its one MCP root; a secret lies beside it."""
    base = tmp_path_factory.mktemp("files")
    root = base / "app"
    (root / "img").mkdir(parents=True)
    (root / "img" / "logo.png").write_bytes(_png())
    (base / "secret.png").write_bytes(_png())
    (root / "escape.png").symlink_to(base / "secret.png")
    return root


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess, project: Path) -> AsyncIterator[Client]:
    async with plugin_chain(chain_daemon.env, OpenFile("nodesFile", "Nodes"), cwd=project) as session:
        yield session


async def node(client: Client, node_id: str) -> Any:
    """A node's state, or None when it does not exist. (An object with id, name and type would come back as a node
    summary, so the kind is named ``kind``.)"""
    return await js(
        client,
        f"""const n = await figma.getNodeByIdAsync({json.dumps(node_id)});
        if (!n) return null;
        return {{ name: n.name, kind: n.type, x: n.x, y: n.y, width: n.width, height: n.height,
                 parent: n.parent && n.parent.id, fills: n.fills, strokes: n.strokes, strokeWeight: n.strokeWeight,
                 characters: n.characters }};""",
    )


async def test_create_move_resize_paint_rename_clone_delete(client: Client) -> None:
    made = await one_undo_step(
        client,
        "design_create_child",
        {
            "parentId": await page_id(client),
            "nodeType": "RECTANGLE",
            "properties": {"name": "Card", "x": 10, "y": 20, "width": 100, "height": 50},
        },
    )
    rid = made["node"]["id"]
    card = await node(client, rid)
    assert (card["name"], card["x"], card["width"]) == ("Card", 10, 100)

    moved = await one_undo_step(client, "design_move_node", {"nodeId": rid, "x": 200, "y": 300})
    assert "previous" in moved
    await one_undo_step(client, "design_resize_node", {"nodeId": rid, "width": 40, "height": 30})
    card = await node(client, rid)
    assert (card["x"], card["y"], card["width"], card["height"]) == (200, 300, 40, 30)
    text = await refused(client, "design_resize_node", {"nodeId": rid, "width": 0, "height": 5})
    assert "Expected `float` > 0.0 - at `$.width`" in text
    card = await node(client, rid)
    assert (card["width"], card["height"]) == (40, 30)

    await one_undo_step(client, "design_set_fills", {"nodeId": rid, "fills": [{"color": "#0000ff", "opacity": 0.5}]})
    fill = (await node(client, rid))["fills"][0]
    assert fill["color"]["b"] == 1 and fill["opacity"] == 0.5
    bad_colour = await refused(client, "design_set_fills", {"nodeId": rid, "fills": [{"color": "blue-ish"}]})
    assert "colour" in bad_colour or "color" in bad_colour
    assert (await node(client, rid))["fills"][0]["color"]["b"] == 1

    await one_undo_step(
        client, "design_set_strokes", {"nodeId": rid, "strokes": [{"color": "rgb(255,0,0)"}], "strokeWeight": 3}
    )
    framed = await node(client, rid)
    assert framed["strokes"][0]["color"]["r"] == 1 and framed["strokeWeight"] == 3

    await call(client, "design_rename_node", {"nodeId": rid, "newName": "Card/Primary"})
    assert (await node(client, rid))["name"] == "Card/Primary"
    copy = await one_undo_step(client, "design_clone_node", {"nodeId": rid})
    copy_id = copy["node"]["id"]
    assert (await node(client, copy_id))["name"] == "Card/Primary"
    removed = await one_undo_step(client, "design_delete_node", {"nodeId": copy_id})
    assert "Card/Primary" in json.dumps(removed)
    assert await node(client, copy_id) is None
    assert f"Node {copy_id} was not found" in await refused(client, "design_delete_node", {"nodeId": copy_id})


async def test_a_batch_of_edits_is_checked_first_and_one_undo_step(client: Client) -> None:
    page = await page_id(client)
    made = [
        (await call(client, "design_create_child", {"parentId": page, "nodeType": "RECTANGLE"}))["node"]["id"]
        for _ in range(3)
    ]
    before = [await node(client, n) for n in made]
    edits: list[dict[str, Any]] = [
        {"nodeId": n, "x": 10 * i, "width": 40, "name": f"cell/{i}"} for i, n in enumerate(made)
    ]
    assert "opacity" in await refused(
        client, "design_batch_edit_nodes", {"edits": [*edits, {"nodeId": made[0], "opacity": 2}]}
    )
    assert "edits[3]: Node 99:99" in await refused(
        client, "design_batch_edit_nodes", {"edits": [*edits, {"nodeId": "99:99", "x": 1}]}
    )
    assert [await node(client, n) for n in made] == before
    done = await one_undo_step(client, "design_batch_edit_nodes", {"edits": edits})
    assert done["count"] == 3 and done["edited"] == made
    after = [await node(client, n) for n in made]
    assert [(a["x"], a["width"], a["name"]) for a in after] == [
        (0, 40, "cell/0"),
        (10, 40, "cell/1"),
        (20, 40, "cell/2"),
    ]


async def test_text_loads_fonts_and_names_a_missing_one(client: Client) -> None:
    made = await call(
        client,
        "design_create_child",
        {"parentId": await page_id(client), "nodeType": "TEXT", "properties": {"name": "Label", "text": "Hi"}},
    )
    tid = made["node"]["id"]
    await one_undo_step(client, "design_set_text", {"nodeId": tid, "text": "Hello there", "fontSize": 18})
    assert (await node(client, tid))["characters"] == "Hello there"
    missing = await refused(
        client, "design_set_text", {"nodeId": tid, "text": "x", "fontFamily": "No Such Font", "fontStyle": "Bold"}
    )
    assert "No Such Font" in missing
    assert (await node(client, tid))["characters"] == "Hello there"


async def test_image_fill_from_a_path_relative_to_the_apps_directory(client: Client) -> None:
    made = await call(
        client,
        "design_create_child",
        {"parentId": await page_id(client), "nodeType": "RECTANGLE", "properties": {"width": 40, "height": 30}},
    )
    rid = made["node"]["id"]
    filled = await one_undo_step(client, "design_set_image_fill", {"nodeIds": [rid], "imageData": "img/logo.png"})
    assert filled["image"] == {"format": "png", "width": 4, "height": 3, "bytes": len(_png())}
    assert (await node(client, rid))["fills"][0]["type"] == "IMAGE"
    data_url = "data:image/png;base64," + base64.b64encode(_png()).decode()
    await call(client, "design_set_image_fill", {"nodeIds": [rid], "imageData": data_url, "scaleMode": "FIT"})
    for outside in ("../secret.png", "escape.png"):
        text = await refused(client, "design_set_image_fill", {"nodeIds": [rid], "imageData": outside})
        assert "outside the folders this AI app shares" in text
    for local in ("https://127.0.0.1:9/logo.png", "https://[::1]:9/logo.png", "https://169.254.169.254/logo.png"):
        text = await refused(client, "design_set_image_fill", {"nodeIds": [rid], "imageData": local})
        assert "DESIGN_IMAGE_PRIVATE_HOSTS" in text, "refused before any connection, by default"


async def test_each_node_tool_names_a_missing_node_and_changes_nothing(client: Client) -> None:
    count = "return figma.currentPage.children.length;"
    before = await js(client, count)
    for name, args in (
        ("design_create_child", {"parentId": "99:99", "nodeType": "FRAME"}),
        ("design_move_node", {"nodeId": "99:99", "x": 1, "y": 2}),
        ("design_rename_node", {"nodeId": "99:99", "newName": "x"}),
        ("design_clone_node", {"nodeId": "99:99"}),
        ("design_delete_node", {"nodeId": "99:99"}),
    ):
        text = await refused(client, name, args)
        assert "Node 99:99 was not found in this file (Nodes)" in text and "(code not_found)" in text, name
    assert await js(client, count) == before


async def test_text_and_strokes_are_refused_on_the_wrong_node_or_colour(client: Client) -> None:
    made = await call(client, "design_create_child", {"parentId": await page_id(client), "nodeType": "RECTANGLE"})
    rid = made["node"]["id"]
    text = await refused(client, "design_set_text", {"nodeId": rid, "text": "x"})
    assert "is a RECTANGLE, expected TEXT" in text and "(code wrong_node_type)" in text
    text = await refused(client, "design_set_strokes", {"nodeId": rid, "strokes": [{"color": "nope"}]})
    assert "'strokes[0].color' is not a hex colour" in text
    assert (await node(client, rid))["strokes"] == []
