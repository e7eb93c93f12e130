"""design_audit_design_system_report: the six-category health report of a file's design system.

The data comes from the Desktop Bridge plugin (local components, variables, styles and a bounded crawl of every
page), or from the design API when no plugin is connected in the file. The scoring lives in :mod:`ds_report`; this
module gathers, caches (five minutes per file and data version) and sizes the answer for a model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from design_console.engines.ds_report import AuditData, Category, build_report, top_findings
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tokens.values import design_color, hex_text
from design_console.tools.args import FileArgs
from design_console.tools.base import api_read, ok
from design_console.tools.context import ApiContext
from design_console.tools.file_cache import FileCache
from design_console.tools.files import file_key_for
from design_console.tools.manifest import LocalComponents
from design_console.tools.plugin_replies import data_version, local_components, parse_reply
from design_console.tools.variable_data import as_list, variables_from_plugin

if TYPE_CHECKING:
    # Only named in an annotation: importing the API client would load the HTTP stack into designd at start.
    from design_console.clients.design_api import CacheMode

REPORT_TTL_SECONDS = 300.0
#: Without the plugin, the crawl of the design API's document stops after this many relevant nodes (text, instances,
#: filled layers): enough to judge a system's habits. The plugin's crawl reads every one.
MAX_CRAWL_NODES = 1_200
TOP_FINDINGS = 5
#: Bridge failures that mean "no plugin in this file": the design API answers instead.
NO_PLUGIN = {ErrorCode.NOT_CONNECTED, ErrorCode.UNKNOWN_FILE, ErrorCode.DISCONNECTED}


@dataclass(slots=True)
class Gathered:
    """The audit's input for one file, where it came from, and the data version it was read at."""

    data: AuditData
    source: Literal["plugin", "design_api"]
    version: str | None
    notes: list[str]


def _component_records(local: LocalComponents) -> list[dict[str, Any]]:
    return [
        {
            "id": c.id,
            "name": c.name,
            "type": c.type,
            "description": c.description or "",
            "variants": len(c.variants),
            "width": c.width,
            "height": c.height,
        }
        for c in [*local.componentSets, *local.components]
    ]


def _with_hex(record: dict[str, Any]) -> dict[str, Any]:
    """A crawl record with its fill and background colours (``{r, g, b}`` as the plugin reads them) as hex, as
    :func:`_rest_records` writes them."""
    for key in ("fill", "background"):
        if isinstance(colour := record.get(key), dict):
            record[key] = hex_text(design_color(colour), alpha=False)
    return record


async def _crawl(ctx: ApiContext, key: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every page's audit records (READ_AUDIT_NODES) and the local styles: the plugin walks the file a bounded chunk
    at a time, each from where the last stopped, so the whole file is read once and no reply grows with it."""
    nodes: list[dict[str, Any]] = []
    styles: list[dict[str, Any]] = []
    start: list[int] | None = []
    while start is not None:
        reply = await ctx.bridge("READ_AUDIT_NODES", {"start": start} if start else {}, file_key=key)
        records, following = reply.get("records"), reply.get("next")
        if not isinstance(records, list) or not (following is None or (isinstance(following, list) and following)):
            raise DesignError(
                ErrorCode.BAD_REPLY,
                "The plugin's page crawl answered in an unexpected shape.",
                "Update and rerun the Desktop Bridge plugin, then retry.",
            )
        if not start:
            styles = [s for s in reply.get("styles") or [] if isinstance(s, dict)]
        nodes.extend(_with_hex(n) for n in records if isinstance(n, dict))
        start = following
    return nodes, styles


async def _from_plugin(ctx: ApiContext, key: str, force: bool) -> Gathered:
    await ctx.progress(0, 3, "Reading local components (the plugin loads every page)")
    version = await data_version(ctx, key)
    local = parse_reply(ctx, await local_components(ctx, key), LocalComponents, "GET_LOCAL_COMPONENTS")
    await ctx.progress(1, 3, "Reading variables")
    notes: list[str] = []
    found = await variables_from_plugin(ctx, key, force)
    raw = found[0] if found is not None else {}
    if found is None:
        notes.append("Variables could not be read from the plugin; token categories saw none.")
    await ctx.progress(2, 3, "Crawling pages")
    nodes, styles = await _crawl(ctx, key)
    data = AuditData(
        variables=as_list(raw.get("variables")),
        collections=as_list(raw.get("variableCollections")),
        components=_component_records(local),
        styles=styles,
        nodes=nodes,
    )
    return Gathered(data, "plugin", version, notes)


def _rest_records(document: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], bool]:
    """Crawl records from a design API document tree (the same shape the plugin's crawl gives), the sizes of its
    components and sets by id, and whether the crawl was cut."""
    nodes: list[dict[str, Any]] = []
    sizes: dict[str, dict[str, Any]] = {}
    stack: list[tuple[dict[str, Any], str | None]] = []
    for page in reversed(document.get("children") or []):
        background = page.get("backgroundColor")
        stack.append((page, hex_text(design_color(background), alpha=False) if isinstance(background, dict) else None))
    while stack and len(nodes) < MAX_CRAWL_NODES:
        node, background = stack.pop()
        kind = node.get("type")
        if kind in ("COMPONENT", "COMPONENT_SET"):
            box = node.get("absoluteBoundingBox") or {}
            sizes[node.get("id", "")] = {"width": box.get("width"), "height": box.get("height")}
        fills = [f for f in node.get("fills") or [] if f.get("type") == "SOLID" and f.get("visible", True)]
        paint = fills[-1] if fills else None
        record: dict[str, Any] = {"id": node.get("id", ""), "type": kind}
        if paint is not None:
            record["fill"] = hex_text(design_color(paint.get("color") or {}), alpha=False)
            record["fillBound"] = "color" in (paint.get("boundVariables") or {})
            record["fillStyle"] = "fill" in (node.get("styles") or {})
        if kind == "TEXT":
            size = (node.get("style") or {}).get("fontSize")
            if isinstance(size, int | float):
                record["fontSize"] = size
            record["textStyle"] = "text" in (node.get("styles") or {})
            if background:
                record["background"] = background
        if kind == "INSTANCE" and node.get("componentId"):
            record["component"] = node["componentId"]
        if paint is not None or kind in ("TEXT", "INSTANCE"):
            nodes.append(record)
        if kind not in ("TEXT", "INSTANCE"):
            inner = record.get("fill", background)
            stack.extend((child, inner) for child in reversed(node.get("children") or []))
    return nodes, sizes, bool(stack)


async def _from_api(ctx: ApiContext, key: str, force: bool) -> Gathered:
    await ctx.progress(0, 2, "Reading the file through the design API")
    cache: CacheMode = "none" if force else "short"
    body = await ctx.api.request("GET", f"/v1/files/{key}", cache=cache)
    version = f"api:{body.get('version') or await ctx.api.file_version(key) or ''}"
    notes = ["No Desktop Bridge plugin is connected in this file; read through the design API."]
    await ctx.progress(1, 2, "Reading variables")
    raw: dict[str, Any] = {}
    try:
        raw = (await ctx.api.request("GET", f"/v1/files/{key}/variables/local", cache=cache)).get("meta", {})
    except DesignError as exc:
        if exc.code not in (ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND):
            raise
        notes.append(f"Variables unavailable ({exc.message}); token categories saw none.")
    sets: dict[str, Any] = body.get("componentSets") or {}
    nodes, sizes, truncated = _rest_records(body.get("document") or {})
    if truncated:
        notes.append(f"The page crawl stopped after {MAX_CRAWL_NODES} layers; node-based scores cover those.")
    comps: dict[str, Any] = body.get("components") or {}
    variants: dict[str, int] = {}
    for meta in comps.values():
        if meta.get("componentSetId"):
            variants[meta["componentSetId"]] = variants.get(meta["componentSetId"], 0) + 1
    records = [
        {
            "id": i,
            "name": s.get("name", ""),
            "type": "COMPONENT_SET",
            "description": s.get("description", ""),
            "variants": variants.get(i, 0),
            **sizes.get(i, {}),
        }
        for i, s in sets.items()
    ] + [
        {
            "id": i,
            "name": c.get("name", ""),
            "type": "COMPONENT",
            "description": c.get("description", ""),
            **sizes.get(i, {}),
        }
        for i, c in comps.items()
        if not c.get("componentSetId")
    ]
    styles = [
        {"id": i, "name": s.get("name", ""), "type": s.get("styleType", ""), "description": s.get("description", "")}
        for i, s in (body.get("styles") or {}).items()
    ]
    data = AuditData(
        variables=as_list(raw.get("variables")),
        collections=as_list(raw.get("variableCollections")),
        components=records,
        styles=styles,
        nodes=nodes,
    )
    return Gathered(data, "design_api", version, notes)


async def gather(ctx: ApiContext, key: str, force: bool) -> Gathered:
    """The audit input of file ``key``: from the plugin, else (no plugin in that file) from the design API."""
    try:
        return await _from_plugin(ctx, key, force)
    except DesignError as exc:
        if exc.code not in NO_PLUGIN:
            raise
        plugin_failure = exc
    try:
        return await _from_api(ctx, key, force)
    except DesignError as exc:
        raise DesignError(
            exc.code,
            f"Neither the Desktop Bridge plugin ({plugin_failure.message}) nor the design API ({exc.message}) "
            "could read the file.",
            f"Run the Desktop Bridge plugin in the file, or: {exc.hint}",
        ) from None


@dataclass(slots=True)
class CachedReport:
    report: dict[str, Any]
    gathered: Gathered
    built_at: float


#: The reports of the files this process audited lately.
REPORTS: FileCache[CachedReport] = FileCache(REPORT_TTL_SECONDS)


async def _current_version(ctx: ApiContext, key: str, cached: CachedReport) -> str | None:
    """The file's data version now, read the way the cached report was; None when it cannot be told."""
    try:
        if cached.gathered.source == "plugin":
            return await data_version(ctx, key)
        version = await ctx.api.file_version(key)
    except DesignError:
        return None
    return f"api:{version}" if version else None


async def load_report(ctx: ApiContext, key: str, force: bool) -> tuple[CachedReport, bool]:
    """The file's report and whether it came from the cache; ``force`` rebuilds it."""
    async with REPORTS.lock(key):
        fresh = None if force else REPORTS.get(key)
        # A fresh report still describes the file only while the file's data version is the one it was built at.
        if (
            fresh is not None
            and fresh.gathered.version is not None
            and fresh.gathered.version == await _current_version(ctx, key, fresh)
        ):
            return fresh, True
        gathered = await gather(ctx, key, force)
        cached = CachedReport(build_report(gathered.data), gathered, time.time())
        REPORTS.put(key, cached)
        return cached, False


class ReportArgs(FileArgs):
    format: Literal["summary", "full"] = "summary"
    category: Category | None = None
    forceRefresh: bool = False


def _head(key: str, cached: CachedReport, from_cache: bool) -> dict[str, Any]:
    head: dict[str, Any] = {
        "fileKey": key,
        "source": cached.gathered.source,
        "fromCache": from_cache,
        "ageSeconds": round(time.time() - cached.built_at, 1),
        "score": cached.report["score"],
    }
    if cached.gathered.notes:
        head["notes"] = cached.gathered.notes
    return head


def shape_report(key: str, cached: CachedReport, from_cache: bool, fmt: str, category: str | None) -> dict[str, Any]:
    """The answer for a model: scores and the worst findings (summary), or every finding of the categories asked
    for with the ids behind it. Findings are one per failed rule with at most ``MAX_IDS`` ids, so even format=full
    stays a few thousand tokens and needs no paging."""
    report = cached.report
    result = _head(key, cached, from_cache)
    if fmt == "summary" and category is None:
        result["counts"] = report["counts"]
        result["categories"] = [
            {"id": c["id"], "score": c["score"], "weight": c["weight"], "findings": len(c["findings"])}
            for c in report["categories"]
        ]
        result["topFindings"] = top_findings(report, TOP_FINDINGS)
        result["next"] = "category=<id> or format=full lists the findings with the ids behind them."
        return result
    result["counts"] = report["counts"]
    result["categories"] = [c for c in report["categories"] if category is None or c["id"] == category]
    return result


@api_read("design_audit_design_system_report", "Six scores 0-100 with findings.", toolset="audit")
async def design_audit_design_system_report(ctx: ApiContext, args: ReportArgs) -> ToolOutput:
    """Score the file's design system; summary or findings by category."""
    key = file_key_for(ctx, args.fileUrl)
    cached, from_cache = await load_report(ctx, key, args.forceRefresh)
    return ok(shape_report(key, cached, from_cache, args.format, args.category))
