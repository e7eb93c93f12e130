"""The code-mapping tools through the whole chain: a mapping stored on a component set in the real plugin's stand-in
editor, listed, used by the generated code, refused when it names what the component lacks, and suggested from a
codebase shared as the AI app's root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_asyncio
from fakes.chain import call, chain_session, js, refused
from helpers import compile_react
from mcp import Client
from procs import TestEnv

pytestmark = pytest.mark.asyncio(loop_scope="module")


#: A Button component set (Size variants, a "Has icon" boolean) and a screen holding one Large instance.
COMPONENTS = """
const small = figma.createComponent(); small.name = "Size=Small"; small.resize(80, 32);
const large = figma.createComponent(); large.name = "Size=Large"; large.resize(120, 40);
const set = figma.combineAsVariants([small, large], figma.currentPage);
set.name = "Button";
set.addComponentProperty("Has icon", "BOOLEAN", true);
const avatar = figma.createComponent(); avatar.name = "Avatar"; avatar.resize(32, 32);
figma.currentPage.appendChild(avatar);
const screen = figma.createFrame(); screen.name = "Screen"; screen.resize(300, 200);
figma.currentPage.appendChild(screen);
const button = large.createInstance(); screen.appendChild(button); button.x = 10; button.y = 20;
const face = avatar.createInstance(); screen.appendChild(face); face.x = 200; face.y = 20;
const box = figma.createRectangle(); screen.appendChild(box);
return { set: set.id, large: large.id, avatar: avatar.id, screen: screen.id, button: button.id, box: box.id };
"""

BUTTON_TSX = """import React from "react";

type ButtonProps = { size: "Small" | "Large"; withIcon?: boolean; children?: React.ReactNode };

export function Button({ size, withIcon, children }: ButtonProps) {
  return <button data-size={size}>{withIcon ? "*" : null}{children}</button>;
}
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def parts(client: Client) -> dict[str, str]:
    ids: dict[str, str] = await js(client, COMPONENTS)
    return ids


async def test_a_mapping_is_stored_on_the_set_listed_and_used_by_the_code(
    client: Client, parts: dict[str, str]
) -> None:
    mapping = {
        "componentId": parts["set"],
        "source": "@/components/Button",
        "exportName": "Button",
        "props": {"Size": "size", "Has icon": "withIcon"},
    }
    stored = await call(client, "design_set_code_mapping", mapping)
    assert stored["changed"]["componentId"] == parts["set"] and stored["replaced"] is None
    raw = await js(
        client,
        f'return (await figma.getNodeByIdAsync("{parts["set"]}")).getSharedPluginData("design_console", "codeMapping")',
    )
    assert json.loads(raw) == {
        "source": "@/components/Button",
        "exportName": "Button",
        "props": {"Size": "size", "Has icon": "withIcon"},
    }
    listed = await call(client, "design_get_code_mappings", {})
    assert [(m["componentId"], m["name"], m["source"]) for m in listed["mappings"]] == [
        (parts["set"], "Button", "@/components/Button")
    ]
    react = await call(client, "design_get_design_context", {"nodeId": parts["screen"]})
    assert react["code"].startswith('import { Button } from "@/components/Button";')
    assert '<Button size={"Large"} withIcon={true} />' in react["code"]
    assert react["components"] == [{"componentId": parts["avatar"], "name": "Avatar", "instances": 1}]
    vue = await call(client, "design_get_design_context", {"nodeId": parts["screen"], "framework": "vue"})
    assert '<Button size="Large" :withIcon="true" />' in vue["code"]


async def test_a_bad_mapping_is_refused_and_changes_nothing(client: Client, parts: dict[str, str]) -> None:
    before = await call(client, "design_get_code_mappings", {})
    text = await refused(
        client, "design_set_code_mapping", {"componentId": parts["set"], "source": "x", "props": {"Colour": "color"}}
    )
    assert "no property Colour" in text and "Size" in text and "Has icon" in text
    text = await refused(client, "design_set_code_mapping", {"componentId": parts["box"], "source": "x"})
    assert "not a component" in text
    text = await refused(
        client, "design_set_code_mapping", {"componentId": parts["avatar"], "source": "x", "exportName": "not-ok"}
    )
    assert "not a JavaScript identifier" in text
    text = await refused(client, "design_set_code_mapping", {"componentId": "99:99", "source": "x"})
    assert "No node 99:99 in this file" in text
    text = await refused(client, "design_get_code_mappings", {"componentId": parts["set"]})
    assert "Invalid arguments for design_get_code_mappings: Object contains unknown field `componentId`" in text
    assert await call(client, "design_get_code_mappings", {}) == before


async def test_suggestions_match_design_components_to_the_codes(
    chain_env: TestEnv, client: Client, parts: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "src" / "components").mkdir(parents=True)
    (tmp_path / "src" / "components" / "Button.tsx").write_text(BUTTON_TSX)
    (tmp_path / "src" / "App.tsx").write_text(
        'import { Button } from "./components/Button";\nexport const App = () => <Button size="Small" />;\n'
    )
    async with chain_session(chain_env, cwd=tmp_path) as session:
        answer = await call(session, "design_suggest_code_mappings", {"targets": ["src"]})
    by_name = {s["name"]: s for s in answer["suggestions"]}
    button = by_name["Button"]
    # Same name, and Size matches; "Has icon" has no prop of its name (withIcon): 1.0 x (0.6 + 0.4 x 1/2).
    assert button["componentId"] == parts["set"] and button["confidence"] == 0.8
    assert button["mapping"]["source"] == str(tmp_path / "src" / "components" / "Button.tsx")
    assert button["mapping"]["exportName"] == "Button" and button["mapping"]["props"] == {"Size": "size"}
    assert button["why"] == ["same name (Button)", "1 of 2 properties match props", "Size options in common: 2 of 2"]
    mapped = {m["componentId"] for m in (await call(client, "design_get_code_mappings", {}))["mappings"]}
    assert button.get("alreadyMapped", False) == (parts["set"] in mapped)
    assert "Avatar" in answer["unmatched"]


async def test_suggestions_read_only_the_folders_the_app_shares(chain_env: TestEnv, tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    async with chain_session(chain_env, cwd=tmp_path / "shared") as session:
        text = await refused(session, "design_suggest_code_mappings", {"targets": [str(tmp_path)]})
    assert f"resolves to {tmp_path}, outside the folders this AI app shares" in text


#: Plugin API code that reads the Avatar component's stored mapping (``%s``: its id).
READ_MAPPING = 'return (await figma.getNodeByIdAsync("%s")).getSharedPluginData("design_console", "codeMapping");'


async def test_a_mappings_text_is_stored_and_written_as_data(
    client: Client, parts: dict[str, str], tmp_path: Path
) -> None:
    # Were the caller's text put into the plugin's script as code, this property name would end the string the
    # source is in and run before the script refuses the property.
    hostile = {"componentId": parts["set"], "source": "__PROPS__", "props": {"+(globalThis.__pwned=1)+": "size"}}
    assert "no property +(globalThis.__pwned=1)+" in await refused(client, "design_set_code_mapping", hostile)
    assert await js(client, "return globalThis.__pwned ?? null") is None
    # A source and an export that name the script's own placeholders are stored and imported as written.
    mapping = {"source": "__PROPS__,x=(globalThis.__pwned=1)//__ARGS__", "exportName": "__NS__"}
    avatar = parts["avatar"]
    try:
        stored = await call(client, "design_set_code_mapping", {"componentId": avatar, **mapping})
        assert stored["changed"]["mapping"] == mapping
        assert json.loads(await js(client, READ_MAPPING % avatar)) == mapping
        assert await js(client, "return globalThis.__pwned ?? null") is None
        react = (await call(client, "design_get_design_context", {"nodeId": parts["screen"]}))["code"]
        assert f"import {{ __NS__ as NS }} from {json.dumps(mapping['source'])};" in react
        compile_react(react, tmp_path / "Screen.tsx")
    finally:
        clear = '(await figma.getNodeByIdAsync("%s")).setSharedPluginData("design_console", "codeMapping", "");'
        await js(client, clear % avatar)


async def test_a_mapping_that_names_a_url_or_no_prop_is_refused(client: Client, parts: dict[str, str]) -> None:
    before = await call(client, "design_get_code_mappings", {})
    for source in ("https://evil.example/Button.js", "data:text/javascript,alert(1)", "//evil.example/b.js", "a\nb"):
        text = await refused(client, "design_set_code_mapping", {"componentId": parts["avatar"], "source": source})
        assert "is not a module to import" in text, source
    text = await refused(
        client,
        "design_set_code_mapping",
        {"componentId": parts["set"], "source": "@/components/Button", "props": {"Size": "x={alert(1)}"}},
    )
    assert "props" in text
    assert await call(client, "design_get_code_mappings", {}) == before
