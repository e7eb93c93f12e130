"""A file's styles through the design API: the published ones, else the local ones the file names."""

from __future__ import annotations

from typing import Any

import pytest
from fakes.api_server import ApiServer
from fakes.context import FakeContext
from fakes.design_api import STYLES_KEY, FakeFile

from design_console.tools.styles.style_data import file_styles


async def test_published_styles_come_with_their_key_and_node(ctx: FakeContext, fake_api: ApiServer) -> None:
    styles = await file_styles(ctx, STYLES_KEY)
    by_name = {s["name"]: s for s in styles}
    assert set(by_name) == {"Surface/Default", "Brand/Primary", "Text/Body", "Text/Heading", "Shadow/Card"}
    surface = by_name["Surface/Default"]
    assert surface["type"] == "FILL" and surface["nodeId"] == "S:surface" and surface["key"]
    assert [r["path"] for r in fake_api.requests()] == [f"/v1/files/{STYLES_KEY}/styles"]


async def test_a_file_without_published_styles_lists_its_local_ones(
    ctx: FakeContext, fake_api: ApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def none_published(fake: FakeFile, kind: str) -> list[dict[str, Any]]:
        return []

    monkeypatch.setattr(fake_api.fake, "published", none_published)
    styles = await file_styles(ctx, STYLES_KEY)
    by_name = {s["name"]: s for s in styles}
    assert by_name["Text/Heading"]["type"] == "TEXT" and by_name["Text/Heading"]["id"] == "S:heading"
    assert "nodeId" not in by_name["Text/Heading"] and len(styles) == 5
    file_reads = [r for r in fake_api.requests() if r["path"] == f"/v1/files/{STYLES_KEY}"]
    assert [r["query"].get("depth") for r in file_reads] == ["1"], "the style names need only the file's head"
