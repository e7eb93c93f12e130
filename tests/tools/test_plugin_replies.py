"""Plugin replies checked against the shape the plugin sends, and the short scripts run through EXECUTE_CODE."""

from __future__ import annotations

import msgspec
import pytest
from fakes.context import FakeContext

from design_console.errors import DesignError
from design_console.tools.plugin_replies import parse_reply, run_script, script, unchunk


class _Reply(msgspec.Struct):
    name: str
    count: int


def test_a_reply_of_the_expected_shape_is_converted(ctx: FakeContext) -> None:
    # Not strict: a number sent as text still converts, as the plugin's JSON may give it.
    assert parse_reply(ctx, {"name": "Card", "count": "3", "extra": True}, _Reply, "GET_THING") == _Reply("Card", 3)


def test_another_shape_names_the_method_and_the_manifest_to_reimport(ctx: FakeContext) -> None:
    with pytest.raises(DesignError) as raised:
        parse_reply(ctx, {"name": "Card", "count": "many"}, _Reply, "GET_THING")
    assert raised.value.code == "bad_reply"
    text = str(raised.value)
    assert "The plugin answered GET_THING in an unexpected shape" in text and "$.count" in text
    assert f"re-import {ctx.config.plugin_dir / 'manifest.json'}" in text


def test_chunks_are_joined_and_a_cut_marker_is_reported() -> None:
    assert unchunk([[1, 2], [3]]) == ([1, 2, 3], False)
    assert unchunk([[1, 2], "[… 3 more items]", [4]]) == ([1, 2, 4], True)
    assert unchunk([]) == ([], False)


def test_values_go_into_a_script_as_json_literals() -> None:
    hostile = 'x"); throw 1; ("'
    code = script("const key = __KEY__; const limit = __LIMIT__;", key=hostile, limit=5)
    assert code == 'const key = "x\\"); throw 1; (\\""; const limit = 5;'


async def test_a_script_runs_in_the_active_file_and_answers_its_result(ctx: FakeContext) -> None:
    ctx.active_file_key = "activeFile"
    ctx.plugin = {"EXECUTE_CODE": lambda params: {"success": True, "result": {"ran": params["code"]}}}
    assert await run_script(ctx, "return 1;", 12_000) == {"ran": "return 1;"}
    assert ctx.bridge_calls == [("EXECUTE_CODE", {"code": "return 1;", "timeout": 12_000}, "activeFile")]


async def test_a_script_without_a_plugin_is_not_connected(ctx: FakeContext) -> None:
    with pytest.raises(DesignError) as raised:
        await run_script(ctx, "return 1;", 1_000)
    assert raised.value.code == "not_connected"


def test_a_value_naming_another_placeholder_stays_data() -> None:
    """Filled one after another, ``__B__`` inside A's string would take B's literal and end A's string early."""
    code = script("const a = __A__; const b = __B__;", a="x__B__y", b="+(globalThis.pwned = 1)+")
    assert code == 'const a = "x__B__y"; const b = "+(globalThis.pwned = 1)+";'
