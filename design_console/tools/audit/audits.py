"""Audit tools: the plugin's design lint and component accessibility audit (findings paged within the read budget),
and design–code parity through the design API (the comparison itself is in :mod:`design_console.engines.parity`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from design_console.engines import parity, shaping
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import FileUrl, NodeArgs, NodeId, PagedArgs
from design_console.tools.base import api_read, bridge_tool, ok
from design_console.tools.components.component_data import fetch_node
from design_console.tools.context import ApiContext, Context
from design_console.tools.files import file_key_for
from design_console.tools.variable_data import as_list, variables_from_plugin

#: WCAG 2.2 2.5.8 (Target Size, Minimum), in CSS px.
WCAG_TARGET_SIZE = 24


class LintArgs(PagedArgs):
    nodeId: NodeId | None = None
    rules: list[str] | None = None
    # Bounds are the plugin's to enforce (its refusal names them): the tool list is paid for in every session.
    maxDepth: int = 10
    maxFindings: int = 100


def _lint_part(ctx: Context, args: LintArgs, reply: dict[str, Any]) -> dict[str, Any]:
    head: dict[str, Any] = {
        "root": {"id": reply.get("rootId"), "name": reply.get("rootName")},
        "rules": reply.get("rulesRun"),
        "nodesChecked": reply.get("nodesChecked"),
        "counts": reply.get("counts") or {},
    }
    if reply.get("truncated"):
        head["notes"] = [f"Counts cover every finding; the list stops at maxFindings={args.maxFindings}."]
    return shaping.paged_list(
        head,
        "findings",
        reply.get("findings") or [],
        args,
        scope="lint",
        request=[ctx.active_file_key, args.nodeId, args.rules, args.maxDepth, args.maxFindings],
        source=reply,
    )


bridge_tool(
    "design_lint_design",
    "Lint a node or page; rules: wcag, design-system, layout, best-practice, or rule ids.",
    LintArgs,
    toolset="audit",
    idempotent=True,
    params=lambda a: (
        {k: v for k, v in {"nodeId": a.nodeId, "rules": a.rules}.items() if v is not None}
        | {"maxDepth": a.maxDepth, "maxFindings": a.maxFindings}
    ),
    shape=_lint_part,
)


class A11yArgs(PagedArgs):
    nodeId: NodeId | None = None
    targetSize: Annotated[float, Meta(ge=1)] = WCAG_TARGET_SIZE


def _a11y_part(ctx: Context, args: A11yArgs, reply: dict[str, Any]) -> dict[str, Any]:
    head = {k: reply.get(k) for k in ("targetSize", "componentCount", "errorCount", "averageScore")}
    variants: dict[str, list[Any]] = {}
    for component in reply.get("components") or []:
        variant = dict(component)
        variants.setdefault(variant.pop("owner", ""), []).append(variant)
    items = [{**owner, "variants": variants.get(owner["id"], [])} for owner in reply.get("owners") or []]
    return shaping.paged_list(
        head,
        "components",
        items,
        args,
        scope="a11y",
        request=[ctx.active_file_key, args.nodeId, args.targetSize],
        source=reply,
    )


bridge_tool(
    "design_audit_component_accessibility",
    "A11y audit of a component or set (default: page): target size, contrast, focus, text size, names.",
    A11yArgs,
    toolset="audit",
    idempotent=True,
    params=lambda a: ({"nodeId": a.nodeId} if a.nodeId else {}) | {"targetSize": a.targetSize},
    shape=_a11y_part,
)


class ParityArgs(NodeArgs):
    codeSpec: Annotated[dict[str, Any], Meta(description=parity.SUMMARY)]
    fileUrl: FileUrl | None = None
    canonicalSource: Literal["design", "code"] = "design"
    enrich: bool = True


async def _variable_names(ctx: ApiContext, key: str, notes: list[str]) -> dict[str, str] | None:
    """Variable id → name, from the design API, else from the plugin; None (with a note) when neither has them."""
    try:
        meta = (await ctx.api.request("GET", f"/v1/files/{key}/variables/local")).get("meta", {})
        return {v["id"]: v["name"] for v in as_list(meta.get("variables"))}
    except DesignError as exc:
        if exc.code != ErrorCode.FORBIDDEN:
            raise
        reason = exc.message
    try:
        found = await variables_from_plugin(ctx, key, False)
    except DesignError:
        # A plugin running in another file only, or failing, leaves the names as unknown as none at all.
        found = None
    if found is not None:
        return {v["id"]: v["name"] for v in as_list(found[0].get("variables"))}
    notes.append(f"tokens: variable names unavailable ({reason}); run the Desktop Bridge plugin in the file")
    return None


@api_read(
    "design_check_design_parity",
    "Score design vs codeSpec 0-100: discrepancies by category, fixes for the non-canonical side.",
    toolset="audit",
)
async def design_check_design_parity(ctx: ApiContext, args: ParityArgs) -> ToolOutput:
    """Design–code parity of one component."""
    try:
        code = parity.parse_code_spec(args.codeSpec)
    except ValueError as exc:
        raise DesignError(ErrorCode.BAD_ARGUMENT, str(exc), "Fix codeSpec and call again.") from None
    key = file_key_for(ctx, args.fileUrl)
    entry = await fetch_node(ctx, key, args.nodeId, parity.DESIGN_DEPTH)
    node = entry["document"]
    if node.get("type") not in ("COMPONENT", "COMPONENT_SET", "INSTANCE", "FRAME"):
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"Node {args.nodeId} is a {node.get('type')}, not a component.",
            "Pass the id of a component, component set, instance or frame (design_search_components finds them).",
        )
    meta = (entry.get("components") or {}).get(node["id"]) or (entry.get("componentSets") or {}).get(node["id"]) or {}
    notes: list[str] = []
    names = await _variable_names(ctx, key, notes) if args.enrich and code.tokens is not None else None
    design = parity.design_spec(node, meta, names)
    result = {
        "nodeId": node["id"],
        "name": node.get("name"),
        **parity.compare(design, code, canonical=args.canonicalSource, node_id=node["id"]),
    }
    if notes:
        result["notes"] = notes + result.get("notes", [])
    return ok(result)
