"""design_get_variable_defs through the whole chain: the variables and styles the login card's layers (conftest.py) are
bound to, read back from the real plugin's stand-in editor."""

from __future__ import annotations

import pytest
from fakes.chain import call, js, refused
from mcp import Client

pytestmark = pytest.mark.asyncio(loop_scope="module")


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
    assert brand["values"] == {"Light": "#3366FF", "Dark": "#6699FF"} and brand["resolved"] == brand["values"]
    assert brand["boundOn"] == ["fills"] and brand["layers"] == 1
    assert defs["space/2"]["boundOn"] == ["itemSpacing"] and defs["space/2"]["values"] == {
        "Light": "8px",
        "Dark": "8px",
    }
    only_row = await call(client, "design_get_variable_defs", {"nodeId": made["a"]})
    assert only_row["variables"] == [] and only_row["layers"] == 1
    assert "No node 77:77" in await refused(client, "design_get_variable_defs", {"nodeId": "77:77"})
