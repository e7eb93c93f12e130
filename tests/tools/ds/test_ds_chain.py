"""The design_ds tools through the whole chain: MCP client → shim → designd → tokens worker, on the real shadcn app of
tests/tools/ds/test_ds_extract.py copied into the AI app's working directory (its one MCP root). Each tool is called
once to succeed and once to be refused; the unit tests there go deeper."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from fakes.chain import call, chain_session, refused
from fakes.codebases import FRESH_MAIN, FRESH_PREVIEW, SHADCN_APP
from mcp import Client
from procs import DaemonProcess, TestEnv

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("ds") / "work"
    shutil.copytree(SHADCN_APP, base / "app")
    return base


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_env: TestEnv, chain_daemon: DaemonProcess, project: Path) -> AsyncIterator[Client]:
    async with chain_session(chain_env, cwd=project) as session:
        yield session


async def test_from_a_codebase_to_a_verified_package(client: Client, project: Path) -> None:
    analysed = await call(client, "design_ds_analyze", {"targets": ["app"], "outDir": "ds", "maxFiles": 100})
    assert analysed["frameworks"][0] == "react" and analysed["components"]["top"][1]["name"] == "Button"
    assert "outside the folders" in await refused(client, "design_ds_analyze", {"targets": ["/"]})

    mined = await call(client, "design_ds_extract_tokens", {"outDir": "ds", "formats": ["dtcg", "tailwind-v4"]})
    assert mined["tokens"] == 64 and (project / "ds" / "tokens" / "tailwind-v4.css").is_file()
    assert "minFrequency" in await refused(client, "design_ds_extract_tokens", {"outDir": "ds", "minFrequency": 1})

    await call(client, "design_ds_scaffold", {"outDir": "ds", "framework": "react"})
    assert json.loads((project / "ds" / "package.json").read_text())["name"] == "ds"
    assert "design_ds_extract_tokens" in await refused(client, "design_ds_scaffold", {"outDir": "elsewhere"})

    assert "npm create storybook" in await refused(client, "design_ds_setup_storybook", {"outDir": "ds"})
    (project / "ds" / ".storybook").mkdir()
    (project / "ds" / ".storybook" / "main.ts").write_text(FRESH_MAIN)
    (project / "ds" / ".storybook" / "preview.tsx").write_text(FRESH_PREVIEW)
    patched = await call(client, "design_ds_setup_storybook", {"outDir": "ds"})
    assert patched["modes"] == ["default", "dark"]

    manifest = await call(client, "design_ds_extract_component", {"outDir": "ds", "component": "Alert"})
    assert manifest["variants"] == {"variant": ["default", "destructive"]}
    assert "design_ds_analyze" in await refused(
        client, "design_ds_extract_component", {"outDir": "ds", "component": "Zz"}
    )

    checked = await call(client, "design_ds_verify", {"outDir": "ds"})
    assert checked["ok"] is True, checked
    assert "design_ds_extract_tokens" in await refused(client, "design_ds_verify", {"outDir": "nothing-here"})

    status = await call(
        client, "design_ds_status", {"outDir": "ds", "update": {"component": "Alert", "status": "ported"}}
    )
    assert status["counts"] == {"ported": 1}
    assert "not a component" in await refused(
        client, "design_ds_status", {"outDir": "ds", "update": {"component": "Zz"}}
    )
