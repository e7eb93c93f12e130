"""design_get_styles: colour, text, effect and grid styles with their values, CSS, usage and code exports."""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from design_console.engines import shaping, token_sources
from design_console.protocol import ToolOutput
from design_console.tools.args import ExportFormats, FilePagedArgs
from design_console.tools.base import api_read, ok
from design_console.tools.context import ApiContext
from design_console.tools.files import file_key_for
from design_console.tools.styles.style_data import file_styles
from design_console.tools.token_tools.token_reads import export_block, file_usage


class StylesArgs(FilePagedArgs):
    verbosity: Literal["summary", "standard", "full"] = "standard"
    enrich: bool = False
    include_usage: bool = False
    include_exports: bool = False
    export_formats: ExportFormats | None = None


def _style_value(node: dict[str, Any], kind: str | None) -> Any:
    if kind == "FILL":
        return shaping.short_paints(node.get("fills", []))
    if kind == "TEXT":
        style = node.get("style", {})
        return {
            k: style[k] for k in ("fontFamily", "fontWeight", "fontSize", "lineHeightPx", "letterSpacing") if k in style
        }
    if kind == "EFFECT":
        return node.get("effects", [])
    if kind == "GRID":
        return node.get("layoutGrids", [])
    return None


async def _style_nodes(ctx: ApiContext, key: str, styles: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The definition node of each style (one request for all of them), by style node id."""
    ids = [i for i in dict.fromkeys(_style_node_id(s) for s in styles) if i]
    if not ids:
        return {}
    body = await ctx.api.request("GET", f"/v1/files/{key}/nodes", params={"ids": ",".join(ids), "depth": 1})
    nodes = body.get("nodes") or {}
    return {i: nodes[i]["document"] for i in ids if isinstance(nodes.get(i), dict) and nodes[i].get("document")}


def _style_node_id(style: dict[str, Any]) -> str:
    return str(style.get("nodeId") or style.get("id") or "")


@api_read(
    "design_get_styles",
    "Colour, text, effect, grid styles; enrich: CSS; include_usage: node counts; include_exports: code.",
)
async def design_get_styles(ctx: ApiContext, args: StylesArgs) -> ToolOutput:
    """Styles with values, CSS, usage and code exports."""
    key = file_key_for(ctx, args.fileUrl)
    styles = await file_styles(ctx, key)
    digest = shaping.request_digest(key, args.verbosity, args.enrich, args.include_usage, args.include_exports)
    start = shaping.decode_cursor(args.cursor, "styles", digest) if args.cursor else 0
    result: dict[str, Any] = {"fileKey": key, "totalStyles": len(styles)}
    budget = shaping.budget_chars(args.maxTokens)
    needs_all = args.include_exports and not args.cursor
    nodes = await _style_nodes(ctx, key, styles) if needs_all else {}
    if needs_all:
        tokens, skipped = token_sources.style_token_set([(s, nodes.get(_style_node_id(s), {})) for s in styles])
        result.update(export_block(tokens, args.export_formats, budget // 2))
        if skipped:
            result["exportsSkipped"] = len(skipped)
            result["exportsSkippedWhy"] = dict(Counter(skipped.values()))
    if args.verbosity == "summary":
        shown = [{"name": s["name"], "type": s["type"]} for s in styles]
    else:
        shown = styles
    budget -= shaping.size_of(result) - shaping.ENVELOPE_ROOM
    chosen, next_index = shaping.fit_items(shown, start, budget, limit=100)
    originals = styles[start : start + len(chosen)]
    wanted_nodes = args.verbosity != "summary" or args.enrich
    missing = [s for s in originals if _style_node_id(s) not in nodes]
    if wanted_nodes and missing:
        nodes.update(await _style_nodes(ctx, key, missing))
    usage = await file_usage(ctx, key) if args.include_usage else None
    for item, style in zip(chosen, originals, strict=True):
        node = nodes.get(_style_node_id(style))
        if node and args.verbosity != "summary":
            item["value"] = _style_value(node, style["type"]) if args.verbosity == "standard" else node
        if args.enrich:
            css = token_sources.style_css(style, node or {})
            if css:
                item["css"] = css
        if usage is not None:
            item["usage"] = {"nodes": usage.styles.get(_style_node_id(style), 0)}
    if usage is not None:
        result["usage"] = {"scannedNodes": usage.nodes}
    result["styles"] = chosen
    cursor = shaping.encode_cursor("styles", digest, next_index) if next_index is not None else None
    return ok(shaping.paged(result, cursor))
