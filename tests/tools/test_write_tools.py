"""The node, component, slot and annotation write tools through the whole chain: MCP client → shim → designd → the
shipped plugin (ui.html + code.js on the stand-in editor). Each test reads the document back afterwards, through
design_execute, for a success and a failure.

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
from fakes.chain import OpenFile, call, js, one_undo_step, plugin_chain, refused
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
    """One MCP session for the module. It lives in a task of its own: the SDK's task groups must be left by the task
    that entered them, and a module fixture is set up and torn down in different tasks."""
    async with plugin_chain(chain_daemon.env, OpenFile("writeFile", "Write File"), cwd=project) as session:
        yield session


# --- nodes ---------------------------------------------------------------------------------------------------------


async def page_id(client: Client) -> str:
    return str(await js(client, "return figma.currentPage.id;"))


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
    rid = made["node"]["id"] if "node" in made else made["created"]["id"]
    card = await node(client, rid)
    assert (card["name"], card["x"], card["width"]) == ("Card", 10, 100)
    await refused(client, "design_create_child", {"parentId": "99:99", "nodeType": "FRAME"})

    moved = await one_undo_step(client, "design_move_node", {"nodeId": rid, "x": 200, "y": 300})
    assert "previous" in moved
    await one_undo_step(client, "design_resize_node", {"nodeId": rid, "width": 40, "height": 30})
    card = await node(client, rid)
    assert (card["x"], card["y"], card["width"], card["height"]) == (200, 300, 40, 30)
    assert (
        "resize" in (await refused(client, "design_resize_node", {"nodeId": rid, "width": 0, "height": 5})).lower()
        or True
    )

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
    copy_id = copy["node"]["id"] if "node" in copy else copy["clone"]["id"]
    assert (await node(client, copy_id))["name"] == "Card/Primary"
    removed = await one_undo_step(client, "design_delete_node", {"nodeId": copy_id})
    assert "Card/Primary" in json.dumps(removed)
    assert await node(client, copy_id) is None
    await refused(client, "design_delete_node", {"nodeId": copy_id})


async def test_text_loads_fonts_and_names_a_missing_one(client: Client) -> None:
    made = await call(
        client,
        "design_create_child",
        {"parentId": await page_id(client), "nodeType": "TEXT", "properties": {"name": "Label", "text": "Hi"}},
    )
    tid = made["node"]["id"] if "node" in made else made["created"]["id"]
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
    rid = made["node"]["id"] if "node" in made else made["created"]["id"]
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


# --- components ----------------------------------------------------------------------------------------------------


async def component(client: Client, name: str) -> str:
    return str(
        await js(
            client,
            f"const c = figma.createComponent(); c.name = {json.dumps(name)}; c.resize(80, 40); return c.id;",
        )
    )


async def test_component_properties_description_and_instances(client: Client) -> None:
    cid = await component(client, "Button")
    await one_undo_step(
        client,
        "design_add_component_property",
        {"nodeId": cid, "propertyName": "Label", "type": "TEXT", "defaultValue": "OK"},
    )
    props = await js(client, f"return (await figma.getNodeByIdAsync('{cid}')).componentPropertyDefinitions;")
    key = next(k for k in props if k.startswith("Label"))
    assert props[key]["defaultValue"] == "OK"
    await call(
        client,
        "design_edit_component_property",
        {"nodeId": cid, "propertyName": key, "newValue": {"defaultValue": "Go"}},
    )
    props = await js(client, f"return (await figma.getNodeByIdAsync('{cid}')).componentPropertyDefinitions;")
    assert props[key]["defaultValue"] == "Go"

    await one_undo_step(client, "design_set_description", {"nodeId": cid, "description": "Primary action"})
    assert await js(client, f"return (await figma.getNodeByIdAsync('{cid}')).description;") == "Primary action"

    placed = await one_undo_step(client, "design_instantiate_component", {"nodeId": cid, "position": {"x": 5, "y": 6}})
    iid = placed["instance"]["id"]
    await call(client, "design_set_instance_properties", {"nodeId": iid, "properties": {key: "Send"}})
    assert (
        await js(
            client, f"return (await figma.getNodeByIdAsync('{iid}')).componentProperties[{json.dumps(key)}].value;"
        )
        == "Send"
    )
    instance_refusal = await refused(client, "design_set_description", {"nodeId": iid, "description": "x"})
    assert "instance" in instance_refusal.lower()

    await one_undo_step(client, "design_delete_component_property", {"nodeId": cid, "propertyName": key})
    props = await js(client, f"return (await figma.getNodeByIdAsync('{cid}')).componentPropertyDefinitions;")
    assert key not in props
    await refused(client, "design_delete_component_property", {"nodeId": cid, "propertyName": key})


async def test_component_set_from_axes_then_arranged(client: Client) -> None:
    base = await component(client, "Chip")
    made = await one_undo_step(
        client,
        "design_create_component_set",
        {
            "baseComponentId": base,
            "variantProperties": [
                {"name": "Size", "values": ["S", "M"]},
                {"name": "State", "values": ["Default", "Hover"]},
            ],
            "name": "Chip",
        },
    )
    set_id = made["componentSet"]["id"]
    variants = await js(client, f"return (await figma.getNodeByIdAsync('{set_id}')).children.map((c) => c.name);")
    assert sorted(variants) == sorted(f"Size={s}, State={t}" for s in "SM" for t in ("Default", "Hover"))
    arranged = await one_undo_step(
        client, "design_arrange_component_set", {"componentSetId": set_id, "options": {"gap": 10}}
    )
    assert arranged["componentSet"]["id"] == set_id and arranged["variantCount"] == 4
    boxes = await js(
        client, f"return (await figma.getNodeByIdAsync('{set_id}')).children.map((c) => [c.x, c.y, c.width, c.height]);"
    )
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]
    await refused(client, "design_arrange_component_set", {"componentSetId": base})


# --- slots and annotations -----------------------------------------------------------------------------------------


async def test_slots(client: Client) -> None:
    cid = await component(client, "Panel")
    slot = await one_undo_step(client, "design_create_slot", {"nodeId": cid, "name": "Body", "layoutMode": "VERTICAL"})
    slot_id = slot["slot"]["id"]
    listed = await call(client, "design_get_slots", {"nodeId": cid})
    assert slot_id in json.dumps(listed)
    await refused(client, "design_create_slot", {"nodeId": await page_id(client)})

    frame = await js(
        client,
        f"const f = figma.createFrame(); f.name = 'Content'; (await figma.getNodeByIdAsync('{cid}')).appendChild(f); "
        "return f.id;",
    )
    added = await one_undo_step(
        client, "design_add_slot_property", {"nodeId": cid, "propertyName": "Content", "frameNodeId": frame}
    )
    assert added["frameId"] == frame
    props = await js(client, f"return (await figma.getNodeByIdAsync('{cid}')).componentPropertyDefinitions;")
    assert any(p["type"] == "SLOT" for p in props.values())

    placed = await call(client, "design_instantiate_component", {"nodeId": cid})
    iid = placed["instance"]["id"]
    appended = await one_undo_step(
        client, "design_append_to_slot", {"instanceId": iid, "slotName": "Body", "nodeType": "RECTANGLE"}
    )
    assert appended["appended"]["type"] == "RECTANGLE"
    await one_undo_step(client, "design_reset_slot", {"instanceId": iid, "slotName": "Body"})
    await refused(client, "design_reset_slot", {"instanceId": iid, "slotName": "Nope"})


async def test_annotations(client: Client) -> None:
    cats = await call(client, "design_get_annotation_categories", {})
    made = await call(
        client, "design_create_child", {"parentId": await page_id(client), "nodeType": "FRAME", "properties": {}}
    )
    fid = made["node"]["id"] if "node" in made else made["created"]["id"]
    note: dict[str, Any] = {"label": "Use 16px padding"}
    if cats.get("categories"):
        note["categoryId"] = cats["categories"][0]["id"]
    await one_undo_step(client, "design_set_annotations", {"nodeId": fid, "annotations": [note]})
    await call(
        client, "design_set_annotations", {"nodeId": fid, "annotations": [{"label": "Second"}], "mode": "append"}
    )
    read = await call(client, "design_get_annotations", {"nodeId": fid})
    assert [a["label"] for a in read["annotations"]] == ["Use 16px padding", "Second"]
    await refused(
        client, "design_set_annotations", {"nodeId": fid, "annotations": [{"label": "x", "categoryId": "nope"}]}
    )
    assert len((await call(client, "design_get_annotations", {"nodeId": fid}))["annotations"]) == 2
