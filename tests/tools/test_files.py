"""Which design file a tool works on: the one its file argument names, else the file the plugin is active in."""

from __future__ import annotations

import pytest
from fakes.context import FakeContext, error_text

from design_console.errors import DesignError
from design_console.tools.files import file_key_for


def test_a_named_file_wins_over_the_active_one(ctx: FakeContext) -> None:
    ctx.active_file_key = "activeFile"
    assert file_key_for(ctx, "namedFile") == "namedFile"
    assert file_key_for(ctx, None) == "activeFile"
    assert file_key_for(ctx, "") == "activeFile"


def test_no_file_names_the_argument_to_pass(ctx: FakeContext) -> None:
    with pytest.raises(DesignError) as raised:
        file_key_for(ctx, None, argument="fileKey")
    assert raised.value.code == "no_file"
    assert "no active file" in str(raised.value) and "Pass fileKey (the file's link" in str(raised.value)


async def test_every_file_tool_names_the_missing_file_the_same_way(ctx: FakeContext) -> None:
    for name, arguments, argument in (
        ("design_get_file_data", {}, "fileUrl"),
        ("design_get_variables", {}, "fileUrl"),
        ("design_get_styles", {}, "fileUrl"),
        ("design_get_component", {"nodeId": "1:2"}, "fileUrl"),
        ("design_get_design_system_kit", {}, "fileKey"),
    ):
        text = error_text(await ctx.call(name, arguments))
        assert "no active file" in text and f"Pass {argument} " in text, name
