"""The annotation tools through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html + code.js
on the stand-in editor). Each test reads the document back, for a success and a failure.

One designd, one plugin window and one MCP session serve the module; each test makes its own nodes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from fakes.chain import OpenFile, call, one_undo_step, page_id, plugin_chain, refused
from mcp import Client
from procs import DaemonProcess

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess) -> AsyncIterator[Client]:
    async with plugin_chain(chain_daemon.env, OpenFile("annotationsFile", "Annotations")) as session:
        yield session


async def test_annotations(client: Client) -> None:
    cats = await call(client, "design_get_annotation_categories", {})
    assert [(c["id"], c["label"]) for c in cats["categories"]] == [("cat:1", "Interaction"), ("cat:2", "Accessibility")]
    made = await call(
        client, "design_create_child", {"parentId": await page_id(client), "nodeType": "FRAME", "properties": {}}
    )
    fid = made["node"]["id"]
    note: dict[str, Any] = {"label": "Use 16px padding", "categoryId": cats["categories"][0]["id"]}
    await one_undo_step(client, "design_set_annotations", {"nodeId": fid, "annotations": [note]})
    await call(
        client, "design_set_annotations", {"nodeId": fid, "annotations": [{"label": "Second"}], "mode": "append"}
    )
    read = await call(client, "design_get_annotations", {"nodeId": fid})
    assert [a["label"] for a in read["annotations"]] == ["Use 16px padding", "Second"]
    assert read["annotations"][0].get("categoryId") == "cat:1"
    text = await refused(
        client, "design_set_annotations", {"nodeId": fid, "annotations": [{"label": "x", "categoryId": "nope"}]}
    )
    assert "Annotation category nope not found" in text and "design_get_annotation_categories" in text
    assert len((await call(client, "design_get_annotations", {"nodeId": fid}))["annotations"]) == 2


async def test_annotations_of_a_missing_node_are_refused(client: Client) -> None:
    for name, args in (
        ("design_get_annotations", {"nodeId": "99:99"}),
        ("design_set_annotations", {"nodeId": "99:99", "annotations": [{"label": "x"}]}),
    ):
        text = await refused(client, name, args)
        assert "Node 99:99 was not found in this file (Annotations)" in text and "(code not_found)" in text, name
    text = await refused(client, "design_get_annotation_categories", {"x": 1})
    assert "Invalid arguments for design_get_annotation_categories: Object contains unknown field `x`" in text
