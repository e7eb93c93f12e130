"""design_export_tokens through the whole chain: variables made in the real plugin, converted in the tokens worker,
written as files under the AI app's working directory (its one MCP root)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from fakes.chain import OpenFile, call, plugin_chain, refused
from mcp import Client
from procs import DaemonProcess

pytestmark = pytest.mark.asyncio(loop_scope="module")


TOKENS = [
    {"name": "color/blue/500", "resolvedType": "COLOR", "values": {"Light": "#3366ff", "Dark": "#6699ff"}},
    {
        "name": "color/primary",
        "resolvedType": "COLOR",
        "values": {"Light": "{color.blue.500}", "Dark": "{color.blue.500}"},
    },
    {"name": "space/4", "resolvedType": "FLOAT", "values": {"Light": 16, "Dark": 16}},
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("tokens")
    (base / "app").mkdir()
    return base / "app"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_daemon: DaemonProcess, project: Path) -> AsyncIterator[Client]:
    async with plugin_chain(chain_daemon.env, OpenFile("tokenFile", "Token File"), cwd=project) as session:
        await call(
            session,
            "design_setup_design_tokens",
            {"collectionName": "Brand", "modes": ["Light", "Dark"], "tokens": TOKENS},
        )
        yield session


async def test_inline_export_in_two_formats(client: Client) -> None:
    dtcg = await call(client, "design_export_tokens", {"format": "dtcg"})
    assert dtcg["collections"] == ["Brand"] and dtcg["tokens"] == 3
    ((_name, text),) = dtcg["files"].items()
    tree = json.loads(text)
    assert tree["Brand"]["color"]["blue"]["500"]["$value"] == "#3366FF"
    assert tree["Brand"]["color"]["primary"]["$value"] == "{Brand.color.blue.500}"
    css = await call(client, "design_export_tokens", {"format": "css-vars", "modes": "Dark"})
    body = next(iter(css["files"].values()))
    assert "--color-blue-500: #6699FF" in body and "var(--color-blue-500)" in body and "#3366FF" not in body


async def test_written_files_follow_the_file_rules(client: Client, project: Path) -> None:
    made = await call(client, "design_export_tokens", {"format": "css-vars", "outputPath": "tokens/brand.css"})
    assert made["files"][0]["action"] == "created"
    written = (project / "tokens" / "brand.css").read_text()
    assert "--color-blue-500: #3366FF" in written

    again = await call(client, "design_export_tokens", {"format": "css-vars", "outputPath": "tokens/brand.css"})
    assert again["files"][0]["action"] == "unchanged"
    vid = await _variable_id(client, "space/4")
    await call(client, "design_update_variable", {"variableId": vid, "value": 20})
    preview = await call(
        client, "design_export_tokens", {"format": "css-vars", "outputPath": "tokens/brand.css", "strategy": "dry-run"}
    )
    assert preview["files"][0]["action"] == "would-replace" and "+  --space-4: 20px" in preview["files"][0]["diff"]
    assert (project / "tokens" / "brand.css").read_text() == written

    outside = await refused(client, "design_export_tokens", {"format": "css-vars", "outputPath": "../elsewhere.css"})
    assert "outside the folders this AI app shares" in outside
    assert not (project.parent / "elsewhere.css").exists()


async def test_merge_keeps_tokens_only_the_file_has_and_replace_drops_them(client: Client, project: Path) -> None:
    path = project / "flat.json"
    await call(client, "design_export_tokens", {"format": "json-flat", "outputPath": "flat.json"})
    data = json.loads(path.read_text())
    collection = next(iter(data))
    for mode in data[collection]:
        data[collection][mode]["legacy/only"] = "#000000"
    path.write_text(json.dumps(data, indent=2))

    merged = await call(client, "design_export_tokens", {"format": "json-flat", "outputPath": "flat.json"})
    assert merged["strategy"] == "merge"
    kept = json.loads(path.read_text())
    assert all("legacy/only" in values for values in kept[collection].values())
    assert all("color/blue/500" in values for values in kept[collection].values())

    await call(
        client, "design_export_tokens", {"format": "json-flat", "outputPath": "flat.json", "strategy": "replace"}
    )
    assert all("legacy/only" not in values for values in json.loads(path.read_text())[collection].values())


async def test_split_files_go_into_a_folder_and_bad_scopes_are_refused(client: Client, project: Path) -> None:
    split = await call(client, "design_export_tokens", {"format": "scss", "splitByMode": True, "outputPath": "scss"})
    assert sorted(Path(f["path"]).name for f in split["files"]) == ["tokens.dark.scss", "tokens.light.scss"]
    assert (project / "scss" / "tokens.dark.scss").read_text().count("$color-blue-500") >= 1
    assert "collectionIds" in await refused(client, "design_export_tokens", {"scope": "collection"})
    assert "design_get_variables" in await refused(client, "design_export_tokens", {"collectionIds": ["nope"]})


async def _variable_id(client: Client, name: str) -> str:
    found = await call(
        client,
        "design_execute",
        {"code": f"return (await figma.variables.getLocalVariablesAsync()).find((v) => v.name === {name!r}).id;"},
    )
    return str(found["result"])
