"""The design system in one answer: a summary of the open file's (from the manifest), and a kit of a file's tokens,
components and styles (through the design API, with variables from the plugin)."""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

import msgspec

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import FileUrl, MaxTokens, NodeId
from design_console.tools.base import Args, api_read, ok, plugin_read
from design_console.tools.components.component_data import library_components
from design_console.tools.context import ApiContext
from design_console.tools.files import file_key_for
from design_console.tools.manifest import Manifest, freshness, load_manifest, variable_lists
from design_console.tools.styles.style_data import file_styles
from design_console.tools.variable_data import VariablesVerbosity, VariableView, shape_variables, variables_from_plugin

SUMMARY_EXAMPLES = 3


class SummaryArgs(Args):
    forceRefresh: bool = False
    maxTokens: MaxTokens | None = None


def _category(name: str) -> str:
    return name.split("/", 1)[0].strip() or name


def _summary(manifest: Manifest, budget: int) -> tuple[dict[str, Any], list[str]]:
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
    }
    tokens: dict[str, Any] = {
        "variables": len(variables),
        "byType": dict(Counter(v.get("resolvedType", "") for v in variables)),
    }
    notes: list[str] = []
    if manifest.variables is None:
        tokens["unavailable"] = True
    share = max(budget // 3, shaping.ENVELOPE_CHARS + 1)
    shown_collections, rest = shaping.fit_items(collection_list, 0, share)
    tokens["collections"] = shown_collections
    if rest is not None:
        notes.append(f"Showing {len(shown_collections)} of {len(collection_list)} collections; raise maxTokens.")
    shown_categories, rest = shaping.fit_items(categories, 0, share)
    components["categories"] = shown_categories
    if rest is not None:
        notes.append(
            f"Showing {len(shown_categories)} of {len(categories)} component categories; "
            "design_search_components lists them all."
        )
    shown_pages, rest = shaping.fit_items(page_list, 0, share)
    components["pages"] = shown_pages
    if rest is not None:
        notes.append(f"Showing {len(shown_pages)} of {len(page_list)} pages with components.")
    return {"components": components, "tokens": tokens}, notes


@plugin_read(
    "design_get_design_system_summary",
    "The open file's components by category, sets, variants, pages, collections, modes. Cached 5 min.",
)
async def design_get_design_system_summary(ctx: ApiContext, args: SummaryArgs) -> ToolOutput:
    """Counts and categories from the file's manifest."""
    manifest, cached = await load_manifest(ctx, args.forceRefresh)
    body, notes = _summary(manifest, shaping.budget_chars(args.maxTokens))
    result = {**freshness(manifest, cached), **body}
    notes = [*manifest.notes, *notes]
    if notes:
        result["notes"] = notes
    result["next"] = (
        "design_get_component_details (componentName or componentKey) for one component; "
        "design_get_token_values for variable values."
    )
    return ok(result)


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


@api_read(
    "design_get_design_system_kit",
    "Tokens, components and styles; format=full adds default variant specs and per-variant diffs.",
)
async def design_get_design_system_kit(ctx: ApiContext, args: KitArgs) -> ToolOutput:
    """Design system in one payload; each section gets a share of the budget."""
    key = file_key_for(ctx, args.fileKey, argument="fileKey")
    share = shaping.budget_chars(args.maxTokens) // max(1, len(args.include))
    result: dict[str, Any] = {"fileKey": key}
    notes: list[str] = []
    verbosity = _KIT_VERBOSITY[args.format]
    if "tokens" in args.include:
        found = await variables_from_plugin(ctx, key, False)
        if found is None:
            try:
                found = ((await ctx.api.request("GET", f"/v1/files/{key}/variables/local")).get("meta", {}), "api")
            except DesignError as exc:
                if exc.code != ErrorCode.FORBIDDEN:
                    raise
                notes.append(f"tokens: {exc.message} {exc.hint}")
        if found is not None:
            items, collections = shape_variables(found[0], VariableView(verbosity=verbosity))
            chosen, rest = shaping.fit_items(items, 0, share - shaping.size_of(collections))
            result["tokens"] = {"collections": collections, "variables": chosen, "total": len(items)}
            if rest is not None:
                notes.append("tokens: cut to fit maxTokens; use design_get_variables to page through all")
    if "components" in args.include:
        items = await library_components(ctx, key, None, args.format == "full")
        if args.componentIds:
            wanted = set(args.componentIds)
            items = [i for i in items if i["nodeId"] in wanted]
        chosen, rest = shaping.fit_items(items, 0, share)
        if args.format == "full":
            await _add_variant_specs(ctx, key, chosen)
        if args.includeImages:
            await _add_images(ctx, key, chosen)
        if args.format == "full" or args.includeImages:
            chosen, cut = shaping.fit_items(chosen, 0, share)
            rest = rest if cut is None else cut
        result["components"] = {"items": chosen, "total": len(items)}
        if rest is not None:
            notes.append("components: cut to fit maxTokens; use design_get_library_components to page")
    if "styles" in args.include:
        styles = await file_styles(ctx, key)
        chosen, rest = shaping.fit_items(styles, 0, share)
        result["styles"] = {"items": chosen, "total": len(styles)}
        if rest is not None:
            notes.append("styles: cut to fit maxTokens; use design_get_styles to page")
    if notes:
        result["notes"] = notes
    return ok(result)
