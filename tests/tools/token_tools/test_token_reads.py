"""What the variables and styles reads add to tokens: code exports cut to the budget, and the usage count."""

from __future__ import annotations

import json

import pytest
from fakes.context import FakeContext, data
from fakes.design_api import ENTERPRISE_KEY

from design_console.tokens.model import Collection, Token, TokenSet
from design_console.tools.base import CHARS_PER_TOKEN
from design_console.tools.token_tools.token_reads import (
    CUT_MARKER,
    DEFAULT_EXPORTS,
    export_block,
    file_usage,
    fit_exports,
)

FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


def spacing(count: int) -> TokenSet:
    tokens = [Token(name=f"space/{i}", type="dimension", values={"Default": f"{i}px"}) for i in range(count)]
    return TokenSet(collections=[Collection(name="Base", modes=["Default"], tokens=tokens)])


def cost(exports: dict[str, str]) -> int:
    return sum(len(json.dumps(code)) for code in exports.values())


def test_every_default_format_is_written_whole_within_a_wide_budget() -> None:
    block = export_block(spacing(3), None, 100_000)
    assert list(block["exports"]) == DEFAULT_EXPORTS and set(block) == {"exports"}
    assert "  --space-2: 2px;" in block["exports"]["css-vars"] and "$space-2: 2px;" in block["exports"]["scss"]
    assert not any(code.endswith(CUT_MARKER) for code in block["exports"].values())


def test_formats_are_named_once_each_in_the_order_asked() -> None:
    block = export_block(spacing(3), ["less", "scss", "less"], 100_000)
    assert list(block["exports"]) == ["less", "scss"] and "@space-1: 1px;" in block["exports"]["less"]


def test_a_format_that_cannot_write_the_tokens_is_named_with_its_reason() -> None:
    clash = TokenSet(
        collections=[
            Collection(
                name="Base",
                modes=["Default"],
                tokens=[
                    Token(name="space/a-b", type="dimension", values={"Default": "4px"}),
                    Token(name="space/a/b", type="dimension", values={"Default": "8px"}),
                ],
            )
        ]
    )
    block = export_block(clash, ["css-vars", "dtcg"], 100_000)
    assert list(block["exports"]) == ["dtcg"]
    assert list(block["exportErrors"]) == ["css-vars"]
    assert "both become --space-a-b" in block["exportErrors"]["css-vars"]


@pytest.mark.parametrize("budget", [300, 1_500, 4_000])
def test_cut_exports_keep_together_to_the_budget(budget: int) -> None:
    block = export_block(spacing(80), None, budget)
    assert cost(block["exports"]) <= budget
    assert block["exportsNote"].startswith("css-vars, scss, tailwind-v3, ts-module, dtcg cut to fit maxTokens")
    assert all(code.endswith(CUT_MARKER) for code in block["exports"].values())


def test_short_exports_stay_whole_and_leave_their_share_to_the_long_ones() -> None:
    exports = {"short": "a\n", "long": "".join(f"line {i}\n" for i in range(200))}
    fitted, cut = fit_exports(exports, 600)
    assert fitted["short"] == "a\n" and cut == ["long"]
    assert fitted["long"].startswith("line 0\n") and fitted["long"].endswith("\n" + CUT_MARKER)
    assert cost(fitted) <= 600 and cost(fitted) > 500, "the long one takes what the short one left"
    assert fit_exports(exports, 100_000) == (exports, [])


async def test_usage_reads_the_file_once_and_reports_progress(ctx: FakeContext) -> None:
    assert ctx.api is not None
    usage = await file_usage(ctx, ENTERPRISE_KEY)
    assert usage.nodes > 10
    assert [(p, t) for p, t, _ in ctx.progress_reports] == [(0, 1), (1, 1)]
    assert ctx.progress_reports[-1][2] == f"scanned {usage.nodes} nodes"


async def test_variables_exports_stay_within_the_budget(ctx: FakeContext) -> None:
    out = await ctx.call("design_get_variables", {"fileUrl": FILE_URL, "include_exports": True, "maxTokens": 500})
    assert len(out.content[0].text) <= 500 * CHARS_PER_TOKEN
    result = data(out)
    assert "cut to fit maxTokens" in result["exportsNote"] and "nextCursor" in result
