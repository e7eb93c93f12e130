"""Audit tools: the plugin's design lint and component accessibility audit (findings paged within the read budget),
and design–code parity through the design API (the comparison itself is in :mod:`design_console.engines.parity`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from msgspec import Meta

from design_console.engines import parity, shaping
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import FileUrl, NodeArgs, NodeId, PagedArgs
from design_console.tools.base import api_read, ok, plugin_read
from design_console.tools.components.component_data import fetch_node
from design_console.tools.context import ApiContext
from design_console.tools.file_cache import ReadCache
from design_console.tools.files import file_key_for
from design_console.tools.plugin_replies import data_version
from design_console.tools.variable_data import as_list, variables_from_plugin

#: WCAG 2.2 2.5.8 (Target Size, Minimum), in CSS px.
WCAG_TARGET_SIZE = 24


class LintArgs(PagedArgs):
    nodeId: NodeId | None = None
    rules: list[str] | None = None
    # Bounds are the plugin's to enforce (its refusal names them): the tool list is paid for in every session.
    maxDepth: int = 10
    maxFindings: int = 100


#: How long a lint walk is kept for the pages after its first (a call without cursor always starts a new one).
LINT_TTL_SECONDS = 60.0


@dataclass(slots=True)
class _LintWalk:
    """One lint of a subtree, as far as its pages asked: findings in tree order (up to maxFindings), counts of every
    finding of the layers checked, and where the plugin's walk goes on (None once it reached the end)."""

    root: dict[str, Any] = field(default_factory=dict)
    rules: Any = None
    counts: Counter[str] = field(default_factory=Counter)
    checked: int = 0
    findings: list[dict[str, Any]] = field(default_factory=list)
    position: list[int] | None = field(default_factory=list)
    #: Two pages of one walk asked at once go on from the walk one after the other, never over the same chunk.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


#: Lint walks by file, request and data version: each page goes on from where the walk stopped, not from the start.
LINT_WALKS: ReadCache[_LintWalk] = ReadCache(LINT_TTL_SECONDS)
#: Characters a lint page takes beside its findings (root, rules, counts, notes, cursor).
_LINT_HEAD_CHARS = 1_000


async def _new_walk() -> _LintWalk:
    """A lint not started yet: its first chunk begins at the subtree's root."""
    return _LintWalk()


async def _lint_chunk(ctx: ApiContext, key: str, args: LintArgs, walk: _LintWalk) -> None:
    """Check the next chunk of layers (one bounded plugin reply) and add what it found to ``walk``."""
    assert walk.position is not None
    params: dict[str, Any] = {
        "maxDepth": args.maxDepth,
        "maxFindings": max(0, args.maxFindings - len(walk.findings)),
        "start": walk.position,
    }
    if args.nodeId:
        params["nodeId"] = args.nodeId
    if args.rules is not None:
        params["rules"] = args.rules
    try:
        reply = await ctx.bridge("LINT_DESIGN", params, file_key=key)
    except DesignError as exc:
        if "stale_cursor" in exc.message:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT,
                "The layers this lint was walking changed since the cursor was handed out.",
                "Call again without cursor to lint from the start.",
            ) from None
        raise
    following = reply.get("next")
    if not isinstance(following, list) and following is not None:
        # A plugin older than paged lints answers the whole subtree at once.
        following = None
    walk.root = {"id": reply.get("rootId"), "name": reply.get("rootName")}
    walk.rules = reply.get("rulesRun")
    walk.counts.update(reply.get("counts") or {})
    walk.checked += int(reply.get("nodesChecked") or 0)
    walk.findings.extend(reply.get("findings") or [])
    walk.position = following


@plugin_read(
    "design_lint_design",
    "Lint a node or page; rules: wcag, design-system, layout, best-practice, or rule ids.",
    toolset="audit",
)
async def design_lint_design(ctx: ApiContext, args: LintArgs) -> ToolOutput:
    """One page of findings; the plugin checks the subtree a bounded chunk at a time, only as far as the page needs,
    and the next page goes on from there (one walk per lint, kept per file, request and data version)."""
    key = ctx.active_file_key or ""
    version = await data_version(ctx, key)
    digest = shaping.request_digest(args.nodeId, args.rules, args.maxDepth, args.maxFindings)
    start = int(shaping.decode_cursor(args.cursor, "lint", digest, version, file=key)) if args.cursor else 0
    walk = await LINT_WALKS.get(key, version, digest, _new_walk, refresh=not args.cursor)
    budget = shaping.budget_chars(args.maxTokens) - _LINT_HEAD_CHARS
    # Chunks until the page is full, the list is (maxFindings), or the walk is at its end; once the list is full,
    # the walk still goes on to the end so that the counts cover every layer.
    async with walk.lock:
        while walk.position is not None and (
            len(walk.findings) >= args.maxFindings or shaping.size_of(walk.findings[start:]) < budget
        ):
            await _lint_chunk(ctx, key, args, walk)
    chosen, next_index = shaping.fit_items(walk.findings, start, budget)
    if next_index is None and walk.position is not None:
        next_index = len(walk.findings)
    head: dict[str, Any] = {
        "root": walk.root,
        "rules": walk.rules,
        "nodesChecked": walk.checked,
        "counts": dict(walk.counts),
        "findings": chosen,
    }
    if walk.position is not None:
        head["notes"] = ["Counts cover the layers checked so far; the last page's cover every layer."]
    elif sum(walk.counts.values()) > len(walk.findings):
        head["notes"] = [f"Counts cover every finding; the list stops at maxFindings={args.maxFindings}."]
    cursor = shaping.encode_cursor("lint", digest, next_index, version, file=key) if next_index is not None else None
    return ok(shaping.paged(head, cursor))


class A11yArgs(PagedArgs):
    nodeId: NodeId | None = None
    targetSize: Annotated[float, Meta(ge=1)] = WCAG_TARGET_SIZE


#: Accessibility audits by file, request and data version: the pages after the first are cut from the audit the first
#: ran, not from a new one each.
A11Y_AUDITS: ReadCache[list[Any]] = ReadCache(LINT_TTL_SECONDS)


async def _a11y_audit(ctx: ApiContext, key: str, args: A11yArgs) -> list[Any]:
    """One audit of the plugin: its head, then each component (set or standalone) with its variants."""
    params: dict[str, Any] = {"targetSize": args.targetSize}
    if args.nodeId:
        params["nodeId"] = args.nodeId
    reply = await ctx.bridge("AUDIT_COMPONENT_ACCESSIBILITY", params, file_key=key)
    head = {k: reply.get(k) for k in ("targetSize", "componentCount", "errorCount", "averageScore")}
    variants: dict[str, list[Any]] = {}
    for component in reply.get("components") or []:
        variant = dict(component)
        variants.setdefault(variant.pop("owner", ""), []).append(variant)
    return [head, *({**owner, "variants": variants.get(owner["id"], [])} for owner in reply.get("owners") or [])]


@plugin_read(
    "design_audit_component_accessibility",
    "A11y audit of a component or set (default: page): target size, contrast, focus, text size, names.",
    toolset="audit",
)
async def design_audit_component_accessibility(ctx: ApiContext, args: A11yArgs) -> ToolOutput:
    """One page of the audited components; the audit runs once per walk (kept per file, request and data
    version) and its later pages are cut from it."""
    key = ctx.active_file_key or ""
    version = await data_version(ctx, key)
    digest = shaping.request_digest(args.nodeId, args.targetSize)
    start = int(shaping.decode_cursor(args.cursor, "a11y", digest, version, file=key)) if args.cursor else 0
    audit = await A11Y_AUDITS.get(key, version, digest, lambda: _a11y_audit(ctx, key, args), refresh=not args.cursor)
    head, items = audit[0], audit[1:]
    chosen, next_index = shaping.fit_items(items, start, shaping.budget_chars(args.maxTokens) - shaping.size_of(head))
    cursor = shaping.encode_cursor("a11y", digest, next_index, version, file=key) if next_index is not None else None
    return ok(shaping.paged({**head, "components": chosen}, cursor))


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
