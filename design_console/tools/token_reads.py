"""What the variables and styles reads add to tokens: code exports cut to the budget, and how many nodes use each."""

from __future__ import annotations

from typing import Any, get_args

from design_console.tools import token_code, token_sources
from design_console.tools.context import ApiContext

ALL_EXPORTS: list[token_code.ExportFormat] = list(get_args(token_code.ExportFormat))


async def file_usage(ctx: ApiContext, key: str) -> token_sources.Usage:
    """Which variables and styles the nodes of the file use (one read of the whole file, cached)."""
    await ctx.progress(0, 1, "reading the file to count usage")
    data = await ctx.api.request_bytes("GET", f"/v1/files/{key}")
    usage = token_sources.scan_usage(data)
    await ctx.progress(1, 1, f"scanned {usage.nodes} nodes")
    return usage


def export_block(
    tokens: list[token_code.Token], formats: list[token_code.ExportFormat] | None, budget: int
) -> dict[str, Any]:
    """The code exports of ``tokens`` in ``formats`` (default: all), cut to ``budget`` characters, with a note
    saying which were cut."""
    exports, cut = token_code.fit_exports(token_code.export(tokens, formats or ALL_EXPORTS), budget)
    block: dict[str, Any] = {"exports": exports}
    if cut:
        block["exportsNote"] = (
            f"{', '.join(cut)} cut to fit maxTokens: narrow with collection/namePattern, raise maxTokens, or write "
            "whole files with design_export_tokens."
        )
    return block
