"""The component write tools through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html +
code.js on the stand-in editor). Each test reads the document back through design_execute, for a success and a
failure.

One designd, one plugin window and one MCP session serve the module; each test makes its own components.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from fakes.chain import OpenFile, call, js, new_component, one_undo_step, plugin_chain, refused
from mcp import Client
from procs import DaemonProcess

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess) -> AsyncIterator[Client]:
    async with plugin_chain(chain_daemon.env, OpenFile("componentsFile", "Components")) as session:
        yield session


async def test_component_properties_description_and_instances(client: Client) -> None:
    cid = await new_component(client, "Button")
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
    text = await refused(client, "design_delete_component_property", {"nodeId": cid, "propertyName": key})
    assert f"Component property '{key}' is not on Button" in text


async def test_component_set_from_axes_then_arranged(client: Client) -> None:
    base = await new_component(client, "Chip")
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
    text = await refused(client, "design_arrange_component_set", {"componentSetId": base})
    assert "expected COMPONENT_SET" in text


async def test_component_tools_refuse_what_is_not_a_component_or_property(client: Client) -> None:
    cid = await new_component(client, "Tag")
    rect = await js(client, "const r = figma.createRectangle(); return r.id;")
    for name, args, expected in (
        ("design_instantiate_component", {"nodeId": rect}, "expected COMPONENT or COMPONENT_SET"),
        (
            "design_add_component_property",
            {"nodeId": rect, "propertyName": "L", "type": "TEXT", "defaultValue": "a"},
            "expected COMPONENT or COMPONENT_SET",
        ),
        (
            "design_create_component_set",
            {"baseComponentId": rect, "variantProperties": [{"name": "Size", "values": ["S"]}]},
            "expected COMPONENT.",
        ),
        ("design_set_instance_properties", {"nodeId": rect, "properties": {"a": "b"}}, "expected INSTANCE"),
        ("design_arrange_component_set", {"componentSetId": cid}, "is a COMPONENT, expected COMPONENT_SET"),
    ):
        text = await refused(client, name, args)
        assert expected in text and "(code wrong_node_type)" in text, name
    for name, args in (
        ("design_edit_component_property", {"nodeId": cid, "propertyName": "Nope#1:0", "newValue": {"name": "X"}}),
        ("design_delete_component_property", {"nodeId": cid, "propertyName": "Nope#1:0"}),
    ):
        assert "Component property 'Nope#1:0' is not on Tag. Its properties: none." in await refused(client, name, args)
    placed = await call(client, "design_instantiate_component", {"nodeId": cid})
    text = await refused(
        client, "design_set_instance_properties", {"nodeId": placed["instance"]["id"], "properties": {"Nope": "x"}}
    )
    assert "Property 'Nope' is not on this instance" in text
    assert await js(client, f"return (await figma.getNodeByIdAsync('{cid}')).componentPropertyDefinitions;") == {}
