"""What the variables and styles reads add to tokens: code exports cut to the budget, and how many nodes use each."""

from __future__ import annotations

import json
from typing import Any

from design_console.engines import token_sources
from design_console.errors import DesignError
from design_console.tokens import Format, TokenSet, export, format_named
from design_console.tools.context import ApiContext

#: The code exports a read includes when it names none: a stylesheet of each kind, a Tailwind config, a TypeScript
#: module and DTCG JSON.
DEFAULT_EXPORTS: list[Format] = ["css-vars", "scss", "tailwind-v3", "ts-module", "dtcg"]
#: What ends an export cut to fit the budget.
CUT_MARKER = "/* … cut to fit maxTokens */\n"


async def file_usage(ctx: ApiContext, key: str) -> token_sources.Usage:
    """Which variables and styles the nodes of the file use (one read of the whole file, cached)."""
    await ctx.progress(0, 1, "reading the file to count usage")
    data = await ctx.api.request_bytes("GET", f"/v1/files/{key}")
    usage = token_sources.scan_usage(data)
    await ctx.progress(1, 1, f"scanned {usage.nodes} nodes")
    return usage


def export_block(tokens: TokenSet, formats: list[str] | None, budget: int) -> dict[str, Any]:
    """The code exports of ``tokens`` in ``formats`` (default: :data:`DEFAULT_EXPORTS`), written by the token
    formats of :mod:`design_console.tokens` as one file each and cut to ``budget`` characters, with a note saying
    which were cut and why a format could not be written."""
    texts: dict[str, str] = {}
    failed: dict[str, str] = {}
    for fmt in dict.fromkeys([format_named(f) for f in formats] if formats else DEFAULT_EXPORTS):
        try:
            texts[fmt] = "".join(export(tokens, fmt).values())
        except DesignError as err:
            failed[fmt] = str(err)
    exports, cut = fit_exports(texts, budget)
    block: dict[str, Any] = {"exports": exports}
    if cut:
        block["exportsNote"] = (
            f"{', '.join(cut)} cut to fit maxTokens: narrow with collection/namePattern, raise maxTokens, or write "
            "whole files with design_export_tokens."
        )
    if failed:
        block["exportErrors"] = failed
    return block


def fit_exports(exports: dict[str, str], budget: int) -> tuple[dict[str, str], list[str]]:
    """The exports cut (at a line end) so that together they take at most ``budget`` characters as JSON text; and
    which were cut. Short exports are kept whole; what they leave is shared by the longer ones."""

    def cost(code: str) -> int:
        return len(json.dumps(code))

    # The marker as JSON: its ellipsis and line end are escaped, so it costs more than its length.
    marker = cost(CUT_MARKER) - 2
    out: dict[str, str] = {}
    cut: list[str] = []
    remaining = max(0, budget)
    ordered = sorted(exports, key=lambda fmt: cost(exports[fmt]))
    for index, fmt in enumerate(ordered):
        code = exports[fmt]
        share = remaining // (len(ordered) - index)
        if cost(code) > share:
            end = len(code)
            while end > 0 and cost(code[:end]) + marker > share:
                end = code.rfind("\n", 0, end - 1 - max(0, cost(code[:end]) - share) // 2) + 1
            code = code[:end] + CUT_MARKER
            cut.append(fmt)
        out[fmt] = code
        remaining -= cost(code)
    return {fmt: out[fmt] for fmt in exports}, [fmt for fmt in exports if fmt in cut]
