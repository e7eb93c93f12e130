"""The design system in one answer: a summary of the open file's (from the manifest), and a kit of a file's tokens,
components and styles (through the design API, with variables from the plugin)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import Cursor, FileUrl, MaxTokens, NodeId
from design_console.tools.base import Args, api_read, ok, plugin_read
from design_console.tools.components.component_data import library_components
from design_console.tools.context import ApiContext
from design_console.tools.ds.sections import page_sections, position_of
from design_console.tools.file_cache import ReadCache
from design_console.tools.files import file_key_for
from design_console.tools.manifest import Manifest, freshness, load_manifest, variable_lists
from design_console.tools.plugin_replies import data_version
from design_console.tools.styles.style_data import file_styles
from design_console.tools.variable_data import VariablesVerbosity, VariableView, shape_variables, variables_from_plugin

SUMMARY_EXAMPLES = 3


class SummaryArgs(Args):
    forceRefresh: bool = False
    maxTokens: MaxTokens | None = None
    cursor: Cursor | None = None


def _category(name: str) -> str:
    return name.split("/", 1)[0].strip() or name


#: The summary's lists in the order a walk reads them, and where each goes in the answer.
_SUMMARY_LISTS = (("collections", "tokens"), ("categories", "components"), ("pages", "components"))


def _summary(manifest: Manifest) -> tuple[dict[str, Any], list[tuple[str, list[dict[str, Any]]]]]:
    """The manifest's counts, and its lists (variable collections, component categories, pages with components) in
    walk order."""
    entries = manifest.entries()
    by_category: dict[str, list[str]] = {}
    for entry in entries:
        by_category.setdefault(_category(entry.name), []).append(entry.name)
    categories = [
        {"name": name, "count": len(names), "examples": names[:SUMMARY_EXAMPLES]}
        for name, names in sorted(by_category.items(), key=lambda item: (-len(item[1]), item[0].lower()))
    ]
    pages = Counter(entry.page.name if entry.page else "" for entry in entries)
    page_list = [{"page": name, "components": count} for name, count in pages.most_common()]
    variables, collections = variable_lists(manifest)
    types_by_collection: dict[str, Counter[str]] = {}
    for var in variables:
        types_by_collection.setdefault(var.get("variableCollectionId", ""), Counter())[var.get("resolvedType", "")] += 1
    collection_list = [
        {
            "name": c.get("name"),
            "modes": [m.get("name") for m in c.get("modes", [])],
            "variables": sum(types_by_collection.get(c.get("id", ""), Counter()).values()),
            "types": dict(types_by_collection.get(c.get("id", ""), Counter())),
        }
        for c in collections
    ]
    components: dict[str, Any] = {
        "componentSets": len(manifest.component_sets),
        "standaloneComponents": len(manifest.components),
        "variants": sum(len(s.variants) for s in manifest.component_sets),
        "withDescription": sum(1 for e in entries if e.description),
        "totalCategories": len(categories),
        "totalPages": len(page_list),
    }
    tokens: dict[str, Any] = {
        "variables": len(variables),
        "byType": dict(Counter(v.get("resolvedType", "") for v in variables)),
        "totalCollections": len(collection_list),
    }
    if manifest.variables is None:
        tokens["unavailable"] = True
    lists = [("collections", collection_list), ("categories", categories), ("pages", page_list)]
    return {"components": components, "tokens": tokens}, lists


@plugin_read(
    "design_get_design_system_summary",
    "The open file's components by category, sets, variants, pages, collections, modes; pages on. Cached 5 min.",
)
async def design_get_design_system_summary(ctx: ApiContext, args: SummaryArgs) -> ToolOutput:
    """Counts from the file's manifest, then its collections, component categories and pages as far as the budget
    holds; ``nextCursor`` continues the lists from the same manifest."""
    key = ctx.active_file_key or ""
    version = await data_version(ctx, key)
    digest = shaping.request_digest(key)
    found = shaping.decode_cursor(args.cursor, "ds_summary", digest, version, file=key) if args.cursor else None
    start = position_of(found, len(_SUMMARY_LISTS)) if args.cursor else (0, 0)
    manifest, cached = await load_manifest(ctx, args.forceRefresh and not args.cursor)
    counts, lists = _summary(manifest)
    result: dict[str, Any] = {"fileKey": manifest.file_key}
    if not args.cursor:
        result.update(freshness(manifest, cached), **counts)
        if manifest.notes:
            result["notes"] = list(manifest.notes)
        result["next"] = (
            "design_get_component_details (componentName or componentKey) for one component; "
            "design_get_token_values for variable values."
        )
    chosen, following = page_sections(lists, start, shaping.budget_chars(args.maxTokens) - shaping.size_of(result))
    for name, part in _SUMMARY_LISTS:
        if name in chosen or not args.cursor:
            result.setdefault(part, {})[name] = chosen.get(name, [])
    cursor = shaping.encode_cursor("ds_summary", digest, list(following), version, file=key) if following else None
    return ok(shaping.paged(result, cursor))


# design_get_design_system_kit -------------------------------------------------------------------------------------


#: The variables' verbosity in each kit format.
_KIT_VERBOSITY: dict[str, VariablesVerbosity] = {"full": "standard", "summary": "summary", "compact": "inventory"}


class KitArgs(Args):
    fileKey: FileUrl | None = None
    include: list[Literal["tokens", "components", "styles"]] = msgspec.field(
        default_factory=lambda: ["tokens", "components", "styles"]
    )
    componentIds: list[NodeId] | None = None
    includeImages: bool = False
    format: Literal["full", "summary", "compact"] = "full"
    maxTokens: MaxTokens | None = None
    cursor: Cursor | None = None


_SPEC_KEYS = ("opacity", *shaping.LAYOUT_KEYS, "characters")


def _visual_spec(node: dict[str, Any]) -> dict[str, Any]:
    """What a variant looks like, part by part: ``""`` for the variant itself, then its layers by name path."""
    parts: dict[str, Any] = {}

    def visit(current: dict[str, Any], path: str, depth: int) -> None:
        spec: dict[str, Any] = {}
        box = current.get("absoluteBoundingBox") or {}
        if box:
            spec["size"] = [round(box.get("width", 0), 1), round(box.get("height", 0), 1)]
        for key in _SPEC_KEYS:
            if key in current:
                spec[key] = current[key]
        for key in ("fills", "strokes"):
            paints = shaping.short_paints(current.get(key) or [])
            if paints:
                spec[key] = paints
        style = current.get("style") or {}
        for key in ("fontFamily", "fontWeight", "fontSize", "lineHeightPx"):
            if key in style:
                spec[key] = style[key]
        if current.get("effects"):
            spec["effects"] = [e.get("type") for e in current["effects"] if e.get("visible", True)]
        if current.get("boundVariables"):
            spec["boundVariables"] = sorted(current["boundVariables"])
        parts[path] = spec
        if depth < 3:
            for child in current.get("children", []):
                name = str(child.get("name", child.get("id", "")))
                visit(child, f"{path}/{name}" if path else name, depth + 1)

    visit(node, "", 0)
    return parts


def _delta(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """What ``other`` changes of ``base``, part by part (a removed property or part is null)."""
    out: dict[str, Any] = {}
    for part in dict.fromkeys([*base, *other]):
        if part not in other:
            out[part] = None
            continue
        if part not in base:
            out[part] = other[part]
            continue
        changed = {k: v for k, v in other[part].items() if base[part].get(k) != v}
        changed.update({k: None for k in base[part] if k not in other[part]})
        if changed:
            out[part] = changed
    return out


def _default_variant(component_set: dict[str, Any]) -> dict[str, Any] | None:
    """The set's default variant: the one whose name carries every variant property's default value."""
    variants: list[dict[str, Any]] = [c for c in component_set.get("children", []) if c.get("type") == "COMPONENT"]
    defaults = {
        name.split("#", 1)[0]: str(spec.get("defaultValue"))
        for name, spec in (component_set.get("componentPropertyDefinitions") or {}).items()
        if spec.get("type") == "VARIANT"
    }
    for variant in variants:
        values = dict(p.split("=", 1) for p in str(variant.get("name", "")).split(", ") if "=" in p)
        if defaults and all(values.get(k) == v for k, v in defaults.items()):
            return variant
    return variants[0] if variants else None


async def _add_variant_specs(ctx: ApiContext, key: str, items: list[dict[str, Any]]) -> None:
    """Give each component set its default variant's visual spec and, per other variant, only what differs."""
    sets = [i for i in items if i.get("type") == "COMPONENT_SET"]
    if not sets:
        return
    ids = ",".join(i["nodeId"] for i in sets)
    body = await ctx.api.request("GET", f"/v1/files/{key}/nodes", params={"ids": ids, "depth": 4})
    for item in sets:
        entry = (body.get("nodes") or {}).get(item["nodeId"])
        node = entry.get("document") if isinstance(entry, dict) else None
        default = _default_variant(node) if isinstance(node, dict) else None
        if default is None or not isinstance(node, dict):
            continue
        base = _visual_spec(default)
        item["variantSpecs"] = {
            "default": default.get("name"),
            "base": base,
            "variants": {
                v.get("name"): _delta(base, _visual_spec(v))
                for v in node.get("children", [])
                if v.get("type") == "COMPONENT" and v is not default
            },
        }


async def _add_images(ctx: ApiContext, key: str, items: list[dict[str, Any]]) -> None:
    """A rendered PNG URL (valid 30 days) for each component, from one render request."""
    ids = [i["nodeId"] for i in items if i.get("nodeId")]
    if not ids:
        return
    version = await ctx.api.file_version(key)
    params = {"ids": ",".join(ids), "scale": 1, "format": "png", "version": version}
    body = await ctx.api.request("GET", f"/v1/images/{key}", params=params, cache="pinned")
    images = body.get("images") or {}
    for item in items:
        url = images.get(item.get("nodeId"))
        if url:
            item["imageUrl"] = url


#: How long a kit's lists are kept for the pages after its first (a call without cursor always reads afresh).
KIT_TTL_SECONDS = 60.0
#: The kit's lists in the order a walk reads them.
_KIT_SECTIONS = ("tokens", "components", "styles")


@dataclass(slots=True)
class _Kit:
    """What a kit walk reads once: its lists in walk order, their collections (tokens) and notes."""

    sections: list[tuple[str, list[dict[str, Any]]]]
    collections: Any = None
    notes: list[str] = field(default_factory=list)


#: A file's kit by request and data version: the pages after the first are cut from it, not read again each.
KITS: ReadCache[_Kit] = ReadCache(KIT_TTL_SECONDS)


async def _build_kit(ctx: ApiContext, key: str, args: KitArgs) -> _Kit:
    """Every token, component and style the arguments ask for, shaped, in walk order."""
    kit = _Kit(sections=[])
    if "tokens" in args.include:
        found = await variables_from_plugin(ctx, key, False)
        if found is None:
            try:
                found = ((await ctx.api.request("GET", f"/v1/files/{key}/variables/local")).get("meta", {}), "api")
            except DesignError as exc:
                if exc.code != ErrorCode.FORBIDDEN:
                    raise
                kit.notes.append(f"tokens: {exc.message} {exc.hint}")
        if found is not None:
            items, kit.collections = shape_variables(found[0], VariableView(verbosity=_KIT_VERBOSITY[args.format]))
            kit.sections.append(("tokens", items))
    if "components" in args.include:
        components = await library_components(ctx, key, None, args.format == "full")
        if args.componentIds:
            wanted = set(args.componentIds)
            components = [i for i in components if i["nodeId"] in wanted]
        kit.sections.append(("components", components))
    if "styles" in args.include:
        kit.sections.append(("styles", await file_styles(ctx, key)))
    return kit


@api_read(
    "design_get_design_system_kit",
    "Tokens, components and styles; format=full adds default variant specs and per-variant diffs; pages on.",
)
async def design_get_design_system_kit(ctx: ApiContext, args: KitArgs) -> ToolOutput:
    """One page of the design system: its tokens, then components, then styles, read once per walk (kept per file,
    request and data version); ``nextCursor`` continues where the budget stopped."""
    key = file_key_for(ctx, args.fileKey, argument="fileKey")
    version = await data_version(ctx, key)
    include = [name for name in _KIT_SECTIONS if name in args.include]
    digest = shaping.request_digest(key, include, args.componentIds, args.includeImages, args.format)
    kit = await KITS.get(key, version, digest, lambda: _build_kit(ctx, key, args), refresh=not args.cursor)
    start = (
        position_of(shaping.decode_cursor(args.cursor, "kit", digest, version, file=key), len(kit.sections))
        if args.cursor
        else (0, 0)
    )
    result: dict[str, Any] = {"fileKey": key}
    if kit.notes and not args.cursor:
        result["notes"] = kit.notes
    names = [name for name, _ in kit.sections]
    collections = kit.collections if start == (0, 0) and names[:1] == ["tokens"] else None
    budget = shaping.budget_chars(args.maxTokens) - shaping.size_of(result) - shaping.size_of(collections)
    chosen, following = page_sections(kit.sections, start, budget)
    components = chosen.get("components")
    if components and (args.format == "full" or args.includeImages):
        if args.format == "full":
            await _add_variant_specs(ctx, key, components)
        if args.includeImages:
            await _add_images(ctx, key, components)
        # The specs and images made the page bigger: what no longer fits starts the next page.
        refit, cut = page_sections(list(chosen.items()), (0, 0), budget)
        if cut is not None:
            section = names.index(list(chosen)[cut[0]])
            following = (section, (start[1] if section == start[0] else 0) + cut[1])
            chosen = refit
    totals = {name: len(items) for name, items in kit.sections}
    # The first page names every list and its total, even one that starts on a later page.
    shown = {name: chosen.get(name, []) for name in names} if start == (0, 0) else chosen
    for name, items in shown.items():
        if name == "tokens":
            result["tokens"] = {"variables": items, "total": totals[name]}
            if collections is not None:
                result["tokens"]["collections"] = collections
        else:
            result[name] = {"items": items, "total": totals[name]}
    cursor = shaping.encode_cursor("kit", digest, list(following), version, file=key) if following else None
    return ok(shaping.paged(result, cursor))
