"""Every write tool through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html + code.js on the
stand-in editor). Each test reads the document back afterwards, through design_execute, for a success and a failure.

One designd, one plugin window and one MCP session serve the module; each test makes its own nodes and variables.
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


#: Every local variable and collection, as a comparable snapshot of the document's variables.
SNAPSHOT = """
const cs = await figma.variables.getLocalVariableCollectionsAsync();
const vs = await figma.variables.getLocalVariablesAsync();
return {
  collections: cs.map((c) => ({ id: c.id, name: c.name, modes: c.modes.map((m) => [m.modeId, m.name]) })),
  variables: vs.map((v) => ({ id: v.id, name: v.name, type: v.resolvedType, values: v.valuesByMode,
                               description: v.description })),
};
"""


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


async def collection(client: Client, name: str, modes: list[str]) -> dict[str, Any]:
    data = await call(
        client,
        "design_create_variable_collection",
        {"name": name, "initialModeName": modes[0], "additionalModes": modes[1:]},
    )
    made = data["collection"]
    return {"id": made["id"], "modes": {m["name"]: m["modeId"] for m in made["modes"]}}


# --- variables ---------------------------------------------------------------------------------------------------


async def test_collections_and_modes(client: Client) -> None:
    brand = await collection(client, "Brand", ["Light", "Dark"])
    snap = await js(client, SNAPSHOT)
    made = next(c for c in snap["collections"] if c["id"] == brand["id"])
    assert [m[1] for m in made["modes"]] == ["Light", "Dark"]
    text = await refused(client, "design_create_variable_collection", {"name": "Brand"})
    assert "Brand" in text
    assert [c["name"] for c in (await js(client, SNAPSHOT))["collections"]].count("Brand") == 1

    added = await one_undo_step(client, "design_add_mode", {"collectionId": brand["id"], "modeName": "Dim"})
    mode_id = added["modeId"]
    await call(client, "design_rename_mode", {"collectionId": brand["id"], "modeId": mode_id, "newName": "Dusk"})
    modes = next(c for c in (await js(client, SNAPSHOT))["collections"] if c["id"] == brand["id"])["modes"]
    assert [m[1] for m in modes] == ["Light", "Dark", "Dusk"]
    await refused(client, "design_rename_mode", {"collectionId": brand["id"], "modeId": "1:999", "newName": "X"})


async def test_create_update_rename_delete_a_variable(client: Client) -> None:
    c = await collection(client, "Palette", ["Light", "Dark"])
    light, dark = c["modes"]["Light"], c["modes"]["Dark"]
    made = await one_undo_step(
        client,
        "design_create_variable",
        {
            "name": "color/brand",
            "collectionId": c["id"],
            "resolvedType": "COLOR",
            "valuesByMode": {light: "#f00", dark: "rgb(0, 0, 255)"},
        },
    )
    vid = made["variable"]["id"]
    values = next(v for v in (await js(client, SNAPSHOT))["variables"] if v["id"] == vid)["values"]
    assert values[light]["r"] == 1 and values[light]["b"] == 0 and values[dark]["b"] == 1

    wrong = await refused(
        client,
        "design_create_variable",
        {"name": "space/s", "collectionId": c["id"], "resolvedType": "FLOAT", "valuesByMode": {light: "wide"}},
    )
    assert "FLOAT" in wrong or "number" in wrong
    assert not [v for v in (await js(client, SNAPSHOT))["variables"] if v["name"] == "space/s"]

    updated = await one_undo_step(
        client,
        "design_update_variable",
        {"variableId": vid, "modeId": dark, "value": "#00ff00", "description": "Primary"},
    )
    assert (updated["previous"], updated["value"], updated["previousDescription"]) == ("#0000FF", "#00FF00", "")
    assert "success" not in updated
    after = next(v for v in (await js(client, SNAPSHOT))["variables"] if v["id"] == vid)
    assert after["values"][dark]["g"] == 1 and after["description"] == "Primary"
    missing = await refused(client, "design_update_variable", {"variableId": "VariableID:9:9", "value": "#fff"})
    assert "design_get_variables" in missing
    assert "Nothing to update" in await refused(client, "design_update_variable", {"variableId": vid})

    await call(client, "design_rename_variable", {"variableId": vid, "newName": "color/primary"})
    assert next(v for v in (await js(client, SNAPSHOT))["variables"] if v["id"] == vid)["name"] == "color/primary"

    gone = await one_undo_step(client, "design_delete_variable", {"variableId": vid})
    assert "color/primary" in json.dumps(gone) and "COLOR" in json.dumps(gone)
    assert not [v for v in (await js(client, SNAPSHOT))["variables"] if v["id"] == vid]
    await refused(client, "design_delete_variable", {"variableId": vid})

    await one_undo_step(client, "design_delete_variable_collection", {"collectionId": c["id"]})
    assert not [x for x in (await js(client, SNAPSHOT))["collections"] if x["id"] == c["id"]]


async def test_batch_create_is_all_or_nothing_and_compact(client: Client) -> None:
    c = await collection(client, "Spacing", ["Base"])
    base = c["modes"]["Base"]
    items = [{"name": f"space/{i}", "resolvedType": "FLOAT", "valuesByMode": {base: i * 4}} for i in range(100)]
    too_many = await refused(
        client, "design_batch_create_variables", {"collectionId": c["id"], "variables": [*items, items[0]]}
    )
    assert "100" in too_many

    before = await js(client, SNAPSHOT)
    await js(client, "figma.testControl.failOn('createVariable', 57); return true;")
    failed = await refused(client, "design_batch_create_variables", {"collectionId": c["id"], "variables": items})
    assert "space/56" in failed and "Nothing was kept" in failed
    assert await js(client, SNAPSHOT) == before

    result = await client.call_tool("design_batch_create_variables", {"collectionId": c["id"], "variables": items})
    assert result.is_error is False
    assert len(result.content[0].text) < 8_000, "a batch of 100 must answer in well under 2,000 tokens"
    made = json.loads(result.content[0].text)
    assert made["count"] == 100
    names = {v["name"] for v in (await js(client, SNAPSHOT))["variables"]}
    assert {f"space/{i}" for i in range(100)} <= names


async def test_batch_update_checks_every_value_first(client: Client) -> None:
    c = await collection(client, "Radius", ["Base"])
    base = c["modes"]["Base"]
    made = await call(
        client,
        "design_batch_create_variables",
        {
            "collectionId": c["id"],
            "variables": [
                {"name": f"radius/{i}", "resolvedType": "FLOAT", "valuesByMode": {base: i}} for i in range(3)
            ],
        },
    )
    ids = list(made["created"].values())
    before = await js(client, SNAPSHOT)
    bad = [{"variableId": ids[0], "modeId": base, "value": 10}, {"variableId": ids[1], "modeId": base, "value": "x"}]
    await refused(client, "design_batch_update_variables", {"updates": bad})
    assert await js(client, SNAPSHOT) == before
    good = [{"variableId": vid, "modeId": base, "value": 20 + n} for n, vid in enumerate(ids)]
    changed = await one_undo_step(client, "design_batch_update_variables", {"updates": good})
    assert changed["count"] == 3
    values = {v["id"]: v["values"][base] for v in (await js(client, SNAPSHOT))["variables"] if v["id"] in ids}
    assert values == {vid: 20 + n for n, vid in enumerate(ids)}


async def test_setup_design_tokens_with_aliases_and_rollback(client: Client) -> None:
    tokens = [
        {"name": "color/blue/500", "resolvedType": "COLOR", "values": {"Light": "#3366ff", "Dark": "#6699ff"}},
        {
            "name": "color/primary",
            "resolvedType": "COLOR",
            "values": {"Light": "{color.blue.500}", "Dark": "{color.blue.500}"},
        },
    ] + [{"name": f"size/{i}", "resolvedType": "FLOAT", "values": {"Light": i, "Dark": i}} for i in range(60)]
    before = await js(client, SNAPSHOT)
    await js(client, "figma.testControl.failOn('setValueForMode', 57); return true;")
    failed = await refused(
        client, "design_setup_design_tokens", {"collectionName": "Tokens", "modes": ["Light", "Dark"], "tokens": tokens}
    )
    assert "size/26" in failed and "Nothing was kept" in failed
    assert await js(client, SNAPSHOT) == before

    made = await one_undo_step(
        client, "design_setup_design_tokens", {"collectionName": "Tokens", "modes": ["Light", "Dark"], "tokens": tokens}
    )
    assert made["count"] == len(tokens)
    snap = await js(client, SNAPSHOT)
    by_name = {v["name"]: v for v in snap["variables"]}
    light = made["modes"]["Light"]
    assert by_name["color/primary"]["values"][light] == {
        "type": "VARIABLE_ALIAS",
        "id": by_name["color/blue/500"]["id"],
    }
    cycle = [
        {"name": "a", "resolvedType": "COLOR", "values": {"M": "{b}"}},
        {"name": "b", "resolvedType": "COLOR", "values": {"M": "{a}"}},
    ]
    assert "a" in await refused(
        client, "design_setup_design_tokens", {"collectionName": "Loop", "modes": ["M"], "tokens": cycle}
    )
    assert "Loop" not in [c["name"] for c in (await js(client, SNAPSHOT))["collections"]]


async def test_long_batches_report_progress(client: Client) -> None:
    c = await collection(client, "Progress", ["Base"])
    items = [
        {"name": f"p/{i}", "resolvedType": "BOOLEAN", "valuesByMode": {c["modes"]["Base"]: True}} for i in range(100)
    ]
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    result = await client.call_tool(
        "design_batch_create_variables", {"collectionId": c["id"], "variables": items}, progress_callback=on_progress
    )
    assert result.is_error is False
    assert seen and seen[-1][0] == seen[-1][1]
    assert [p for p, _ in seen] == sorted(p for p, _ in seen)


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
