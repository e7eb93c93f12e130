"""design_get_component, design_get_component_for_development and design_get_component_image: a component as the
design API describes it, through the real client against the fake API."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext, data, error_text
from fakes.design_api import ENTERPRISE_KEY

from design_console.errors import DesignError

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


async def test_component_metadata_and_reconstruction(ctx: FakeContext) -> None:
    meta = data(await ctx.call("design_get_component", {"fileUrl": FILE_URL, "nodeId": "1:2", "enrich": True}))
    assert meta["type"] == "COMPONENT_SET" and len(meta["variants"]) == 3
    assert "unavailable" in meta["plugin"]
    tree = data(
        await ctx.call("design_get_component", {"fileUrl": FILE_URL, "nodeId": "1:2", "format": "reconstruction"})
    )
    assert tree["nodes"][0]["id"] == "1:2" and "fills" in tree["nodes"][0]
    with pytest.raises(DesignError, match="`nodeId`: 'x' is not a node id"):
        await ctx.run("design_get_component", {"fileUrl": FILE_URL, "nodeId": "x"})


async def test_component_for_development(ctx: FakeContext) -> None:
    ctx.plugin = {"GET_ANNOTATIONS": {"success": True, "annotations": [{"label": "Primary action"}]}}
    result = data(await ctx.call("design_get_component_for_development", {"fileUrl": FILE_URL, "nodeId": "2:1"}))
    assert result["annotations"]["annotations"][0]["label"] == "Primary action"
    assert result["image"]["imageUrl"].endswith(".png")
    assert len(result["nodes"]) == 4
    missing = await ctx.call("design_get_component_for_development", {"fileUrl": FILE_URL, "nodeId": "9:9"})
    assert "No node 9:9 in this file" in error_text(missing)


async def test_component_image(ctx: FakeContext, fake_api: ApiServer) -> None:
    args = {"fileUrl": FILE_URL, "nodeId": "1:3", "scale": 1, "format": "svg"}
    first = data(await ctx.call("design_get_component_image", args))
    assert first["imageUrl"].endswith(".svg")
    assert await ctx.api.get_bytes(first["imageUrl"])
    again = data(await ctx.call("design_get_component_image", args))
    assert again == first
    assert sum(1 for r in fake_api.requests() if r["path"].startswith("/v1/images/")) == 1
    missing = await ctx.call("design_get_component_image", {"fileUrl": FILE_URL, "nodeId": "9:9"})
    assert "rendered nothing" in error_text(missing)
    with pytest.raises(DesignError, match="scale"):
        await ctx.run("design_get_component_image", {"nodeId": "1:3", "scale": 9})


async def test_component_for_development_finds_the_code_in_a_codebase(ctx: FakeContext, tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "components" / "SignIn").mkdir(parents=True)
    (src / "components" / "SignIn" / "index.tsx").write_text("export { SignIn } from './SignIn';\n")
    (src / "components" / "SignIn" / "SignIn.tsx").write_text(
        "import React from 'react';\n\nexport function SignIn() {\n  return null;\n}\n"
    )
    (src / "components" / "SignIn" / "sign-in.stories.tsx").write_text("export default { title: 'Sign in' };\n")
    (src / "node_modules" / "lib").mkdir(parents=True)
    (src / "node_modules" / "lib" / "SignIn.js").write_text("export const SignIn = 1;\n")
    (src / "Other.tsx").write_text("export const SignInButton = 1;\n")
    args = {"fileUrl": FILE_URL, "nodeId": "2:1", "includeImage": False, "codebasePath": str(src)}
    result = data(await ctx.call("design_get_component_for_development", args))
    found = result["codebase"]
    assert found["codeNames"] == ["SignIn"] and found["scannedFiles"] == 4
    assert {(m["path"], m["kind"], m.get("line")) for m in found["matches"]} == {
        ("components/SignIn/index.tsx", "file", None),
        ("components/SignIn/SignIn.tsx", "file", None),
        ("components/SignIn/SignIn.tsx", "export", 3),
        ("components/SignIn/sign-in.stories.tsx", "story", None),
    }
    missing = await ctx.call(
        "design_get_component_for_development", {**args, "codebasePath": str(tmp_path / "nowhere")}
    )
    assert "codebasePath" in error_text(missing) and "absolute path" in error_text(missing)
    relative = await ctx.call("design_get_component_for_development", {**args, "codebasePath": "src"})
    assert "codebasePath" in error_text(relative)
