"""The slot tools through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html + code.js on the
stand-in editor). Each test reads the document back through design_execute, for a success and a failure.

One designd, one plugin window and one MCP session serve the module; each test makes its own components.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from fakes.chain import OpenFile, call, js, new_component, one_undo_step, page_id, plugin_chain, refused
from mcp import Client
from procs import DaemonProcess

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess) -> AsyncIterator[Client]:
    async with plugin_chain(chain_daemon.env, OpenFile("slotsFile", "Slots")) as session:
        yield session


async def test_slots(client: Client) -> None:
    cid = await new_component(client, "Panel")
    slot = await one_undo_step(client, "design_create_slot", {"nodeId": cid, "name": "Body", "layoutMode": "VERTICAL"})
    slot_id = slot["slot"]["id"]
    listed = await call(client, "design_get_slots", {"nodeId": cid})
    assert slot_id in json.dumps(listed)
    text = await refused(client, "design_create_slot", {"nodeId": await page_id(client)})
    assert "Cannot create a slot" in text and "is a PAGE, expected COMPONENT or COMPONENT_SET" in text

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
    text = await refused(client, "design_reset_slot", {"instanceId": iid, "slotName": "Nope"})
    assert "No slot named 'Nope' in instance" in text and "Body" in text


async def test_slot_tools_name_what_is_missing(client: Client) -> None:
    cid = await new_component(client, "Empty")
    assert await call(client, "design_get_slots", {"nodeId": cid}) == {"nodeId": cid, "slots": []}
    rect = await js(client, "const r = figma.createRectangle(); return r.id;")
    text = await refused(client, "design_get_slots", {"nodeId": rect})
    assert "Cannot list slots" in text and "is a RECTANGLE" in text
    iid = (await call(client, "design_instantiate_component", {"nodeId": cid}))["instance"]["id"]
    text = await refused(
        client, "design_append_to_slot", {"instanceId": iid, "slotName": "Body", "nodeType": "RECTANGLE"}
    )
    assert "No slot named 'Body' in instance" in text and "Its slots: none." in text
    text = await refused(
        client, "design_add_slot_property", {"nodeId": cid, "propertyName": "Content", "frameNodeId": "99:99"}
    )
    assert "Node 99:99 was not found" in text
    assert await js(client, f"return (await figma.getNodeByIdAsync('{cid}')).componentPropertyDefinitions;") == {}
