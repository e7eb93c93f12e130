"""design_get_component_details: one component or component set of the open file, from the manifest."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import PagedArgs
from design_console.tools.base import ok, plugin_read
from design_console.tools.context import ApiContext
from design_console.tools.manifest import ComponentEntry, Manifest, VariantEntry, freshness, load_manifest

AMBIGUOUS_SHOWN = 10


class ComponentDetailsArgs(PagedArgs):
    componentKey: Annotated[str, Meta(min_length=1, max_length=200)] | None = None
    componentName: Annotated[str, Meta(min_length=1, max_length=500)] | None = None
    forceRefresh: bool = False


def _find_component(
    manifest: Manifest, key: str | None, name: str | None
) -> tuple[ComponentEntry, VariantEntry | None]:
    entries = manifest.entries()
    if key:
        for entry in entries:
            if entry.key == key:
                return entry, None
            for variant in entry.variants:
                if variant.key == key:
                    return entry, variant
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"No component, component set or variant of this file has key {key!r}.",
            "design_search_components lists the file's components; for a published library component use "
            "design_get_library_component_by_key.",
        )
    wanted = (name or "").strip().lower()
    exact = [e for e in entries if e.name.lower() == wanted]
    found = exact or [e for e in entries if wanted in e.name.lower()]
    if len(found) == 1:
        return found[0], None
    if not found:
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"No component or component set of this file is named like {name!r}.",
            "design_search_components finds components by part of their name.",
        )
    shown = ", ".join(repr(e.name) for e in found[:AMBIGUOUS_SHOWN])
    more = f" and {len(found) - AMBIGUOUS_SHOWN} more" if len(found) > AMBIGUOUS_SHOWN else ""
    raise DesignError(
        ErrorCode.AMBIGUOUS,
        f"{len(found)} components match {name!r}: {shown}{more}.",
        "Call again with the full name or the componentKey of one of them.",
    )


def _variant_axes(entry: ComponentEntry) -> dict[str, list[str]]:
    axes: dict[str, list[str]] = {}
    for variant in entry.variants:
        for axis, value in (variant.variantProperties or {}).items():
            values = axes.setdefault(axis, [])
            if value not in values:
                values.append(value)
    return axes


@plugin_read(
    "design_get_component_details",
    "An open-file component or set: key, description, page, properties, variants with keys.",
)
async def design_get_component_details(ctx: ApiContext, args: ComponentDetailsArgs) -> ToolOutput:
    """Details of one entry of the manifest."""
    if not args.componentKey and not args.componentName:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            "Neither componentKey nor componentName was given.",
            "Pass one of them; design_get_design_system_summary and design_search_components show both.",
        )
    manifest, cached = await load_manifest(ctx, args.forceRefresh)
    entry, variant = _find_component(manifest, args.componentKey, args.componentName)
    digest = shaping.request_digest(manifest.file_key, entry.id)
    start = shaping.decode_cursor(args.cursor, "component_details", digest, manifest.version) if args.cursor else 0
    budget = shaping.budget_chars(args.maxTokens)
    result: dict[str, Any] = freshness(manifest, cached)
    if start:
        # Later parts carry only the next variants.
        result["component"] = {"id": entry.id, "name": entry.name}
    else:
        head, notes = _component_head(entry, variant, budget)
        result.update(head)
        if notes:
            result["notes"] = notes
    if entry.type != "COMPONENT_SET":
        return ok(result)
    variants = [msgspec.to_builtins(v) for v in entry.variants]
    result["totalVariants"] = len(variants)
    chosen, next_index = shaping.fit_items(variants, start, budget - shaping.size_of(result))
    result["variants"] = chosen
    cursor = (
        shaping.encode_cursor("component_details", digest, next_index, manifest.version)
        if next_index is not None
        else None
    )
    return ok(shaping.paged(result, cursor))


def _component_head(
    entry: ComponentEntry, variant: VariantEntry | None, budget: int
) -> tuple[dict[str, Any], list[str]]:
    """The component's own fields, cut down when they alone would take more than half the budget."""
    details = msgspec.to_builtins(entry)
    details.pop("variants", None)
    if entry.page is not None:
        details["page"] = entry.page.name
    head: dict[str, Any] = {"component": details}
    notes: list[str] = []
    if variant is not None:
        head["matchedVariant"] = msgspec.to_builtins(variant)
    if entry.type == "COMPONENT_SET":
        # variantAxes lists every variant property's options; the definitions need not repeat them.
        for definition in (details.get("componentPropertyDefinitions") or {}).values():
            if isinstance(definition, dict) and definition.get("type") == "VARIANT":
                definition.pop("variantOptions", None)
        axes = _variant_axes(entry)
        head["variantAxes"] = axes
        if shaping.size_of(head) > budget // 2:
            head["variantAxes"] = {axis: values[: shaping.AXIS_VALUES_SHOWN] for axis, values in axes.items()}
            notes.append(
                f"variantAxes shows the first {shaping.AXIS_VALUES_SHOWN} values of each axis; raise maxTokens."
            )
    if shaping.size_of(head) > budget // 2:
        details.pop("descriptionMarkdown", None)
        for field_name in ("description",):
            text = details.get(field_name) or ""
            if len(text) > shaping.MAX_TEXT_CHARS:
                details[field_name] = text[: shaping.MAX_TEXT_CHARS] + "…"
        definitions = details.get("componentPropertyDefinitions")
        if definitions and shaping.size_of(head) > budget // 2:
            details["componentPropertyDefinitions"] = sorted(definitions)
            notes.append("componentPropertyDefinitions lists only names here; raise maxTokens for the definitions.")
    return head, notes
