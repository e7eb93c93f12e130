"""The variable write tools through the whole chain: MCP client → shim → designd → the shipped plugin on the stand-in
editor. Each test reads the document's variables back afterwards, through design_execute, for a success and a
failure.

One designd, one plugin window and one MCP session serve the module; each test makes its own collections.
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


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess) -> AsyncIterator[Client]:
    """One MCP session for the module, over one plugin window."""
    async with plugin_chain(chain_daemon.env, OpenFile("variablesFile", "Variables File")) as session:
        yield session


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


async def collection(client: Client, name: str, modes: list[str]) -> dict[str, Any]:
    data = await call(
        client,
        "design_create_variable_collection",
        {"name": name, "initialModeName": modes[0], "additionalModes": modes[1:]},
    )
    made = data["collection"]
    return {"id": made["id"], "modes": {m["name"]: m["modeId"] for m in made["modes"]}}


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
        client, "design_batch_create_variables", {"collectionId": c["id"], "variables": items * 51}
    )
    assert "5000" in too_many

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


async def test_batch_delete_checks_every_id_first(client: Client) -> None:
    c = await collection(client, "Sizes", ["Base"])
    base = c["modes"]["Base"]
    items = [{"name": f"size/{i}", "resolvedType": "FLOAT", "valuesByMode": {base: i}} for i in range(3)]
    ids = list(
        (await call(client, "design_batch_create_variables", {"collectionId": c["id"], "variables": items}))[
            "created"
        ].values()
    )
    before = await js(client, SNAPSHOT)
    missing = await refused(client, "design_batch_delete_variables", {"variableIds": [ids[0], "VariableID:404:404"]})
    assert "variableIds[1]" in missing
    assert await js(client, SNAPSHOT) == before
    deleted = await one_undo_step(client, "design_batch_delete_variables", {"variableIds": ids})
    assert deleted["count"] == 3 and set(deleted["deleted"]) == set(ids)
    assert not {v["id"] for v in (await js(client, SNAPSHOT))["variables"]} & set(ids)


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


async def test_writes_to_a_missing_variable_collection_or_mode_are_refused(client: Client) -> None:
    c = await collection(client, "Refusals", ["Base"])
    before = await js(client, SNAPSHOT)
    missing_variable = await refused(client, "design_rename_variable", {"variableId": "VariableID:9:9", "newName": "x"})
    assert "VariableID:9:9" in missing_variable
    missing_collection = {"collectionId": "VariableCollectionId:9:9"}
    assert "VariableCollectionId:9:9" in await refused(
        client, "design_add_mode", {**missing_collection, "modeName": "Dark"}
    )
    assert "VariableCollectionId:9:9" in await refused(client, "design_delete_variable_collection", missing_collection)
    blank = await refused(client, "design_rename_variable", {"variableId": "VariableID:9:9", "newName": ""})
    assert "newName" in blank
    assert await js(client, SNAPSHOT) == before
    await call(client, "design_delete_variable_collection", {"collectionId": c["id"]})
