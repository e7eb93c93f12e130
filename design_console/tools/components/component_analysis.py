"""Component trees and variant analyses: forwards to DEEP_GET_COMPONENT and ANALYZE_COMPONENT_SET whose answers are
paged within the caller's budget."""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from design_console.engines import shaping
from design_console.tools.args import NodePagedArgs
from design_console.tools.base import bridge_tool
from design_console.tools.context import Context
from design_console.tools.plugin_replies import parse_reply


class _DeepComponent(msgspec.Struct):
    component: dict[str, Any]
    nodeCount: int = 0
    truncated: bool = False


class _SetAnalysis(msgspec.Struct):
    componentSet: dict[str, Any]
    axes: dict[str, list[str]] = {}
    defaultVariant: dict[str, Any] | None = None
    states: dict[str, Any] | None = None
    variants: list[dict[str, Any]] = []


class DeepComponentArgs(NodePagedArgs):
    depth: Annotated[int, Meta(ge=0, le=30)] = 10


def _deep_part(ctx: Context, args: DeepComponentArgs, reply: dict[str, Any]) -> dict[str, Any]:
    """DEEP_GET_COMPONENT's tree, walked in budget-sized parts."""
    nid = args.nodeId
    deep = parse_reply(ctx, reply, _DeepComponent, "DEEP_GET_COMPONENT")
    root = msgspec.json.encode(deep.component)
    version = shaping.request_digest(deep.component)
    digest = shaping.request_digest(ctx.active_file_key, nid, args.depth)
    start = shaping.decode_cursor(args.cursor, "component_deep", digest, version) if args.cursor else []
    part = shaping.walk_tree(
        [msgspec.Raw(root)],
        start=start,
        max_depth=args.depth,
        verbosity="full",
        budget=shaping.budget_chars(args.maxTokens),
        annotate=_drop_parent_id,
    )
    result: dict[str, Any] = {"nodeId": nid, "depth": args.depth, "nodeCount": deep.nodeCount, "nodes": part.nodes}
    if deep.truncated:
        result["note"] = (
            f"The plugin stopped at {deep.nodeCount} nodes; ask for a smaller depth or for a child node's id."
        )
    cursor = shaping.encode_cursor("component_deep", digest, part.next_path, version) if part.next_path else None
    return shaping.paged(result, cursor)


bridge_tool(
    "design_get_component_for_development_deep",
    "A node's tree in pre-order: layout, fills, text, bound tokens, reactions, variant/instance props.",
    DeepComponentArgs,
    method="DEEP_GET_COMPONENT",
    runs_in="api",
    toolset="read",
    idempotent=True,
    params=lambda args: {"nodeId": args.nodeId, "depth": args.depth},
    shape=_deep_part,
)


def _drop_parent_id(record: dict[str, Any]) -> None:
    """Below the root, ``parent`` (added by the walk) already says what the plugin's ``parentId`` says."""
    if "parent" in record:
        record.pop("parentId", None)


class AnalyzeSetArgs(NodePagedArgs):
    pass


def _analysis_part(ctx: Context, args: AnalyzeSetArgs, reply: dict[str, Any]) -> dict[str, Any]:
    """ANALYZE_COMPONENT_SET's answer, with the variants paged."""
    nid = args.nodeId
    analysis = parse_reply(ctx, reply, _SetAnalysis, "ANALYZE_COMPONENT_SET")
    varying: Counter[str] = Counter()
    variants = []
    for variant in analysis.variants:
        changes = variant.get("changes") or {}
        varying.update(changes.keys())
        variants.append({k: v for k, v in variant.items() if k != "changes" or v})
    version = shaping.request_digest(reply)
    digest = shaping.request_digest(ctx.active_file_key, nid)
    start = shaping.decode_cursor(args.cursor, "component_set", digest, version) if args.cursor else 0
    budget = shaping.budget_chars(args.maxTokens)
    result: dict[str, Any]
    if start:
        # Later parts carry only the next variants.
        result = {"componentSet": {k: analysis.componentSet.get(k) for k in ("id", "name")}}
    else:
        result = {
            "componentSet": analysis.componentSet,
            "axes": analysis.axes,
            "defaultVariant": analysis.defaultVariant,
            "states": analysis.states,
            "varyingProperties": dict(varying.most_common()),
        }
        if shaping.size_of(result) > budget // 2:
            result["axes"] = {axis: values[: shaping.AXIS_VALUES_SHOWN] for axis, values in analysis.axes.items()}
            result["notes"] = [
                f"axes shows the first {shaping.AXIS_VALUES_SHOWN} values of each axis; raise maxTokens."
            ]
    result["totalVariants"] = len(variants)
    chosen, next_index = shaping.fit_items(variants, start, budget - shaping.size_of(result))
    result["variants"] = chosen
    cursor = shaping.encode_cursor("component_set", digest, next_index, version) if next_index is not None else None
    return shaping.paged(result, cursor)


bridge_tool(
    "design_analyze_component_set",
    "A component set's axes, default, state axis, what varies, each variant's diff from default.",
    AnalyzeSetArgs,
    method="ANALYZE_COMPONENT_SET",
    runs_in="api",
    toolset="read",
    idempotent=True,
    params=lambda args: {"nodeId": args.nodeId},
    shape=_analysis_part,
)
