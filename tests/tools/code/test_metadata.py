"""design_get_metadata through the whole chain: the login card (conftest.py) made in the real plugin's stand-in editor,
read back as an XML outline of its layers, whole and in budget-sized pages."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from fakes.chain import call, js, refused
from mcp import Client

pytestmark = pytest.mark.asyncio(loop_scope="module")


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


async def test_a_selection_of_more_than_50_layers_pages_to_its_end(client: Client) -> None:
    ids = await js(
        client,
        """
        const frame = figma.createFrame(); frame.name = "Picked"; figma.currentPage.appendChild(frame);
        const picked = [];
        for (let i = 0; i < 70; i++) { const r = figma.createRectangle(); frame.appendChild(r); picked.push(r); }
        figma.currentPage.selection = picked;
        return picked.map((r) => r.id);
        """,
    )
    # The plugin pushed the selection on the same socket, before the script's reply: designd has it.
    first = await call(client, "design_get_selection", {})
    assert first["count"] == 70 and [n["id"] for n in first["nodes"]] == ids
    seen: list[str] = []
    args: dict[str, Any] = {"maxTokens": 500}
    while True:
        answer = await call(client, "design_get_selection", args)
        seen += [n["id"] for n in answer["nodes"]]
        if "nextCursor" not in answer:
            break
        args["cursor"] = answer["nextCursor"]
    assert seen == ids and "cursor" in args
    await js(client, "figma.currentPage.selection = []; return 0;")
