"""Answers shaped exactly like the real plugin's, for the tools that read the design system through it: a design
file's components, a variables snapshot, a deep component tree, a variant analysis, a team library; and
:func:`run_in_plugin`, which runs EXECUTE_CODE through the plugin's own dispatcher in Node over such a library."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

from fakes.fake_plugin import FakePluginError

ROOT = Path(__file__).resolve().parents[2]
#: The file the payloads describe.
FILE_KEY = "dsFile1"
NODE_SECONDS = 30.0

# The stand-in editor for scripts: figma.teamLibrary and figma.variables over a library fixture, with the plugin's
# real dispatcher and executeCode (so results are serialised exactly as the plugin does, caps included).
NODE_RUNNER = r"""
import { readFileSync } from "node:fs";
const root = process.argv[1];
const { Dispatcher } = await import(root + "/plugin/src/code/dispatch.js");
const { executeCode } = await import(root + "/plugin/src/code/methods/execute.js");
const input = JSON.parse(readFileSync(0, "utf8"));
const lib = input.library;
const findVariable = (key) => {
  for (const c of lib.collections) {
    const v = c.variables.find((x) => x.key === key);
    if (v) return { c, v };
  }
  return null;
};
globalThis.figma = {
  editorType: "figma",
  teamLibrary: {
    async getAvailableLibraryVariableCollectionsAsync() {
      if (lib.unavailable) throw new Error(lib.unavailable);
      return lib.collections.map((c) => ({ name: c.name, key: c.key, libraryName: c.libraryName }));
    },
    async getVariablesInLibraryCollectionAsync(key) {
      const c = lib.collections.find((x) => x.key === key);
      if (!c || lib.failing.includes(key)) throw new Error("Failed to fetch variables of collection " + key);
      return c.variables.map((v) => ({ name: v.name, key: v.key, resolvedType: v.resolvedType }));
    },
  },
  variables: {
    async importVariableByKeyAsync(key) {
      const hit = findVariable(key);
      if (!hit) throw new Error("Could not find a published variable with key " + key);
      return {
        id: "VariableID:" + key + "/7:1", name: hit.v.name, key: key, resolvedType: hit.v.resolvedType,
        remote: true, variableCollectionId: "VariableCollectionId:" + hit.c.key + "/7:0",
      };
    },
    async getVariableCollectionByIdAsync(id) {
      const c = lib.collections.find((x) => id === "VariableCollectionId:" + x.key + "/7:0");
      return c ? { id: id, name: c.name } : null;
    },
  },
};
const dispatcher = new Dispatcher({ EXECUTE_CODE: executeCode });
const reply = await dispatcher.run({ id: "1", method: "EXECUTE_CODE", params: input.params }, "route");
process.stdout.write(JSON.stringify(reply));
"""


# Payloads as the plugin builds them (plugin/src/code/methods/components.js, variables.js, nodes.js) --------------


def page(page_id: str, name: str) -> dict[str, Any]:
    return {"id": page_id, "name": name}


def component(
    node_id: str, name: str, *, key: str, on: dict[str, Any], description: str = "", props: Any = None
) -> dict[str, Any]:
    """describeComponent of a standalone COMPONENT, plus its page (GET_LOCAL_COMPONENTS)."""
    out: dict[str, Any] = {
        "id": node_id,
        "name": name,
        "type": "COMPONENT",
        "x": 0,
        "y": 0,
        "width": 24,
        "height": 24,
        "parentId": on["id"],
        "key": key,
        "description": description,
    }
    if props is not None:
        out["componentPropertyDefinitions"] = props
    out["page"] = on
    return out


def component_set(
    node_id: str, name: str, *, key: str, on: dict[str, Any], axes: dict[str, list[str]], description: str = ""
) -> dict[str, Any]:
    """describeComponent of a COMPONENT_SET with one variant per combination of ``axes``."""
    combos: list[dict[str, str]] = [{}]
    for axis, values in axes.items():
        combos = [{**c, axis: v} for c in combos for v in values]
    variants = [
        {
            "id": f"{node_id}{i}",
            "name": ", ".join(f"{k}={v}" for k, v in combo.items()),
            "key": f"{key}-v{i}",
            "variantProperties": combo,
        }
        for i, combo in enumerate(combos)
    ]
    definitions = {
        axis: {"type": "VARIANT", "defaultValue": values[0], "variantOptions": values} for axis, values in axes.items()
    }
    definitions["Label#12:0"] = {"type": "TEXT", "defaultValue": name}
    return {
        "id": node_id,
        "name": name,
        "type": "COMPONENT_SET",
        "x": 0,
        "y": 0,
        "width": 400,
        "height": 200,
        "parentId": on["id"],
        "key": key,
        "description": description,
        "componentPropertyDefinitions": definitions,
        "variants": variants,
        "page": on,
    }


def local_components(components: list[dict[str, Any]], sets: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "success": True,
        "components": components,
        "componentSets": sets,
        "totalComponents": len(components),
        "totalComponentSets": len(sets),
        "timestamp": 1_700_000_000_000,
    }


def design_file() -> dict[str, Any]:
    """A small design system: buttons and inputs on one page, icons on another."""
    comps, icons = page("1:0", "Components"), page("2:0", "Icons")
    return local_components(
        [
            component("2:1", "Icon/Close", key="k-close", on=icons),
            component("2:2", "Icon/Check", key="k-check", on=icons, description="Confirm"),
            component(
                "2:3",
                "Avatar",
                key="k-avatar",
                on=comps,
                props={"Initials#3:0": {"type": "TEXT", "defaultValue": "AB"}},
            ),
        ],
        [
            component_set(
                "1:1",
                "Button/Primary",
                key="k-button",
                on=comps,
                axes={"Size": ["S", "M", "L"], "State": ["Default", "Hover"]},
                description="Main call to action",
            ),
            component_set("1:2", "Button/Secondary", key="k-button2", on=comps, axes={"State": ["Default", "Hover"]}),
            component_set("1:3", "Input", key="k-input", on=comps, axes={"State": ["Empty", "Filled", "Error"]}),
        ],
    )


def colour(r: float, g: float, b: float, hex_value: str) -> dict[str, Any]:
    return {"r": r, "g": g, "b": b, "a": 1, "hex": hex_value}


def variable(
    var_id: str, name: str, kind: str, collection: str, values: dict[str, Any], scopes: list[str] | None = None
) -> dict[str, Any]:
    """describeVariable."""
    return {
        "id": var_id,
        "name": name,
        "key": "key-" + var_id,
        "resolvedType": kind,
        "description": "",
        "variableCollectionId": collection,
        "valuesByMode": values,
        "scopes": scopes or ["ALL_SCOPES"],
        "hiddenFromPublishing": False,
        "remote": False,
    }


def variables_snapshot() -> dict[str, Any]:
    """variablesSnapshot: primitives (one mode), semantic colours aliasing them (light/dark), and sizes."""
    prim, sem, size = "VariableCollectionId:1:0", "VariableCollectionId:2:0", "VariableCollectionId:3:0"
    variables = [
        variable("VariableID:1:1", "blue/500", "COLOR", prim, {"1:0": colour(0, 0, 1, "#0000FF")}),
        variable("VariableID:1:2", "gray/900", "COLOR", prim, {"1:0": colour(0.1, 0.1, 0.1, "#1A1A1A")}),
        variable(
            "VariableID:2:1",
            "color/primary",
            "COLOR",
            sem,
            {
                "2:0": {"type": "VARIABLE_ALIAS", "id": "VariableID:1:1"},
                "2:1": {"type": "VARIABLE_ALIAS", "id": "VariableID:1:2"},
            },
        ),
        variable("VariableID:3:1", "space/sm", "FLOAT", size, {"3:0": 8}),
        variable("VariableID:3:2", "stack", "FLOAT", size, {"3:0": 16}, scopes=["GAP"]),
        variable("VariableID:3:3", "radius/md", "FLOAT", size, {"3:0": 6}, scopes=["CORNER_RADIUS"]),
        variable("VariableID:3:4", "font/family", "STRING", size, {"3:0": "Inter"}),
    ]
    collections = [
        {
            "id": cid,
            "name": name,
            "key": "ck-" + cid,
            "modes": modes,
            "defaultModeId": modes[0]["modeId"],
            "variableIds": [v["id"] for v in variables if v["variableCollectionId"] == cid],
            "hiddenFromPublishing": False,
            "remote": False,
        }
        for cid, name, modes in (
            (prim, "Primitives", [{"modeId": "1:0", "name": "Value"}]),
            (sem, "Semantic", [{"modeId": "2:0", "name": "Light"}, {"modeId": "2:1", "name": "Dark"}]),
            (size, "Sizes", [{"modeId": "3:0", "name": "Default"}]),
        )
    ]
    return {
        "success": True,
        "timestamp": 1_700_000_000_000,
        "fileKey": FILE_KEY,
        "variables": variables,
        "variableCollections": collections,
    }


def deep_tree() -> dict[str, Any]:
    """deepGetComponent's tree (describeTree + resolveVariableNames): a card with a header and a button row."""
    blue = [{"type": "SOLID", "color": "#0000FF", "variableId": "VariableID:1:1"}]

    def node(node_id: str, name: str, kind: str, parent: str, **extra: Any) -> dict[str, Any]:
        box = {"x": 0, "y": 0, "width": 100, "height": 40}
        return {"id": node_id, "name": name, "type": kind, **box, "parentId": parent, **extra}

    label = node(
        "5:4",
        "Label",
        "TEXT",
        "5:3",
        fills=[{"type": "SOLID", "color": "#FFFFFF"}],
        characters="Save",
        fontSize=14,
        fontName={"family": "Inter", "style": "Medium"},
    )
    button = node(
        "5:3",
        "Button",
        "INSTANCE",
        "5:2",
        fills=blue,
        cornerRadius=6,
        boundVariables={"fills": [{"id": "VariableID:1:1", "name": "blue/500"}]},
        componentProperties={"State": {"type": "VARIANT", "value": "Default"}},
        children=[label],
    )
    row = node(
        "5:2",
        "Actions",
        "FRAME",
        "5:1",
        fills=[],
        layout={
            "mode": "HORIZONTAL",
            "itemSpacing": 8,
            "padding": [8, 8, 8, 8],
            "primaryAxisAlignItems": "MAX",
            "counterAxisAlignItems": "CENTER",
        },
        children=[button],
    )
    header = node("5:5", "Title", "TEXT", "5:1", fills=[], characters="Settings", fontSize=20)
    return node(
        "5:1",
        "Card",
        "COMPONENT",
        "1:0",
        fills=[{"type": "SOLID", "color": "#F5F5F5"}],
        description="A settings card",
        children=[header, row],
    )


def analysis(variant_count: int = 6) -> dict[str, Any]:
    """analyzeComponentSet of a button set: Size × State, the default variant first."""
    sizes, states = ["S", "M", "L"], ["Default", "Hover"]
    combos = [(s, t) for s in sizes for t in states][:variant_count]
    base = {"width": 80, "height": 32, "fills": [{"type": "SOLID", "color": "#0000FF"}]}
    variants = []
    for i, (size, state) in enumerate(combos):
        changes: dict[str, Any] = {}
        if size != "S":
            changes["width"] = {"from": 80, "to": 80 + 20 * sizes.index(size)}
        if state == "Hover":
            changes["fills"] = {"from": base["fills"], "to": [{"type": "SOLID", "color": "#0000AA"}]}
        variants.append(
            {
                "id": f"6:{i + 1}",
                "name": f"Size={size}, State={state}",
                "variantProperties": {"Size": size, "State": state},
                "changes": changes,
            }
        )
    return {
        "success": True,
        "componentSet": {"id": "6:0", "name": "Button", "key": "k-set", "variantCount": len(variants)},
        "axes": {"Size": sizes, "State": states},
        "defaultVariant": {"id": "6:1", "name": "Size=S, State=Default"},
        "states": {"axis": "State", "values": states},
        "variants": variants,
    }


def library(**overrides: Any) -> dict[str, Any]:
    """Two enabled libraries with three variable collections."""
    lib: dict[str, Any] = {
        "unavailable": None,
        "failing": [],
        "collections": [
            {
                "name": "Brand colours",
                "key": "lc-brand",
                "libraryName": "Acme Core",
                "variables": [
                    {"name": "brand/red", "key": "lv-red", "resolvedType": "COLOR"},
                    {"name": "brand/blue", "key": "lv-blue", "resolvedType": "COLOR"},
                ],
            },
            {
                "name": "Spacing",
                "key": "lc-space",
                "libraryName": "Acme Core",
                "variables": [{"name": "space/1", "key": "lv-s1", "resolvedType": "FLOAT"}],
            },
            {
                "name": "Marketing",
                "key": "lc-mkt",
                "libraryName": "Acme Web",
                "variables": [
                    {"name": "hero/title", "key": "lv-hero", "resolvedType": "STRING"},
                    {"name": "promo/on", "key": "lv-promo", "resolvedType": "BOOLEAN"},
                ],
            },
        ],
    }
    lib.update(overrides)
    return lib


# Running scripts -----------------------------------------------------------------------------------------------------


async def run_in_plugin(params: dict[str, Any], lib: dict[str, Any]) -> Any:
    """EXECUTE_CODE through the plugin's dispatcher and executeCode in Node; returns the result or raises its error."""
    node = shutil.which("node")
    assert node, "Node.js is needed to run the plugin's executeCode (apt-get install nodejs)"
    proc = await asyncio.create_subprocess_exec(
        node,
        "--no-warnings",
        "--input-type=module",
        "-e",
        NODE_RUNNER,
        str(ROOT),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(NODE_SECONDS):
            out, err = await proc.communicate(json.dumps({"params": params, "library": lib}).encode())
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode()[-3000:]
    reply = json.loads(out)
    if "error" in reply:
        raise FakePluginError(reply["error"], reply.get("code"))
    return reply["result"]


def deep_reply(params: dict[str, Any]) -> dict[str, Any]:
    if params.get("nodeId") != "5:1":
        raise FakePluginError(
            f"Node {params.get('nodeId')} was not found in this file (Design System). Node ids are specific to a "
            "file and session and go stale: look the node up again.",
            "not_found",
        )
    return {"success": True, "component": deep_tree(), "nodeCount": 6, "truncated": False}


def analysis_reply(params: dict[str, Any]) -> dict[str, Any]:
    if params.get("nodeId") != "6:0":
        raise FakePluginError(
            f"Cannot analyse variants: node {params.get('nodeId')} (Card) is a FRAME, expected COMPONENT_SET.",
            "wrong_node_type",
        )
    return analysis()


def component_reply(params: dict[str, Any]) -> dict[str, Any]:
    """GET_COMPONENT of a component or component set of :func:`design_file` (describeComponent, without the page
    GET_LOCAL_COMPONENTS adds)."""
    listed = design_file()
    for found in listed["components"] + listed["componentSets"]:
        if found["id"] == params.get("nodeId"):
            return {"success": True, "component": {k: v for k, v in found.items() if k != "page"}}
    raise FakePluginError(
        f"Node {params.get('nodeId')} was not found in this file (Design System). Node ids are specific to a file and "
        "session and go stale: look the node up again.",
        "not_found",
    )
