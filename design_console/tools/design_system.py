"""Design-system reads through the Desktop Bridge plugin.

A *manifest* of the open file (its components and component sets from GET_LOCAL_COMPONENTS, its variables from
GET_VARIABLES_DATA) answers the summary, component-details and token-value tools; it is kept for five minutes per
file in the api worker, because building it makes the plugin load every page. Team-library variables are read and
imported with short scripts run by EXECUTE_CODE; deep component trees and variant analyses come from their own
plugin methods. Every result fits the caller's ``maxTokens`` and hands out a ``cursor`` where a list can be long.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from design_console.errors import DesignError
from design_console.plugin_contract import EXECUTE_MAX_MS
from design_console.protocol import ToolOutput
from design_console.tools import shaping
from design_console.tools.base import Args, ok, to_json, tool
from design_console.tools.design_data import (
    MaxTokens,
    VariablesArgs,
    _paged,
    _variables_from_plugin,
    node_id,
    shape_variables,
)

MANIFEST_TTL_SECONDS = 300.0
#: The plugin serialises at most this many items of one array (its LIMITS.arrayItems): scripts send longer lists
#: as lists of chunks of this size.
PLUGIN_ARRAY_ITEMS = 200
#: Scanning the team libraries takes as long as the plugin lets code run.
LIBRARY_TIMEOUT_MS = EXECUTE_MAX_MS
IMPORT_TIMEOUT_MS = 15_000
SUMMARY_EXAMPLES = 3
AMBIGUOUS_SHOWN = 10
AXIS_VALUES_SHOWN = 20

Cursor = Annotated[str, Meta(max_length=4096, description="`cursor` of the previous answer, to read on")]
VariableType = Literal["COLOR", "FLOAT", "STRING", "BOOLEAN"]
_SPACING_NAME = re.compile(r"spac|gap|padding|margin|inset|gutter", re.IGNORECASE)
_SPACING_SCOPES = frozenset({"GAP"})
#: Fields of a variable in full verbosity that a token listing leaves out (the id stays: write tools take it).
_FULL_ONLY = frozenset({"key", "scopes", "codeSyntax", "hiddenFromPublishing", "remote"})


# Plugin replies ----------------------------------------------------------------------------------------------------


class _Page(msgspec.Struct, omit_defaults=True):
    id: str = ""
    name: str = ""


class _Variant(msgspec.Struct, omit_defaults=True):
    id: str
    name: str = ""
    key: str | None = None
    variantProperties: dict[str, str] | None = None


class _Component(msgspec.Struct, omit_defaults=True):
    """One entry of GET_LOCAL_COMPONENTS' ``components`` or ``componentSets`` (the plugin's describeComponent)."""

    id: str
    name: str = ""
    type: str = "COMPONENT"
    key: str | None = None
    description: str | None = None
    descriptionMarkdown: str | None = None
    page: _Page | None = None
    width: float | None = None
    height: float | None = None
    componentPropertyDefinitions: dict[str, Any] | None = None
    variantProperties: dict[str, str] | None = None
    variants: list[_Variant] = []


class _LocalComponents(msgspec.Struct):
    components: list[_Component] = []
    componentSets: list[_Component] = []


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


class _LibraryCollection(msgspec.Struct):
    name: str
    key: str
    libraryName: str = ""


class _LibraryVariable(msgspec.Struct):
    c: int
    name: str
    key: str
    resolvedType: str = ""


class _LibraryFailure(msgspec.Struct):
    collection: int
    error: str = ""


class _LibraryScan(msgspec.Struct):
    unavailable: str | None = None
    availableCollections: int = 0
    collections: list[list[_LibraryCollection] | str] = []
    variables: list[list[_LibraryVariable] | str] = []
    failed: list[list[_LibraryFailure] | str] = []


class _ImportedVariable(msgspec.Struct, omit_defaults=True):
    id: str
    name: str = ""
    key: str | None = None
    resolvedType: str | None = None
    remote: bool | None = None
    variableCollectionId: str | None = None
    collectionName: str | None = None


class _Import(msgspec.Struct):
    imported: bool
    error: str = ""
    variable: _ImportedVariable | None = None


def _parse(ctx: Any, reply: Any, kind: type[Any], method: str) -> Any:
    """A plugin result checked against the shape the plugin sends; another shape is a clear error."""
    try:
        return msgspec.convert(reply, kind, strict=False)
    except msgspec.ValidationError as exc:
        manifest = ctx.config.plugin_dir / "manifest.json"
        raise DesignError(
            "bad_reply",
            f"The plugin answered {method} in an unexpected shape ({exc}).",
            f"Update the plugin: re-import {manifest} (Plugins > Development > Import plugin from manifest…), "
            "run it again and retry.",
        ) from None


def _unchunk(chunks: list[Any]) -> tuple[list[Any], bool]:
    """Items of a chunked script result, and whether the plugin cut any list short (it leaves a text marker)."""
    items: list[Any] = []
    cut = False
    for chunk in chunks:
        if isinstance(chunk, str):
            cut = True
            continue
        items.extend(chunk)
    return items, cut


# The manifest ------------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Manifest:
    """What the plugin says about one file's design system, as built at ``built_at`` (wall clock, seconds)."""

    file_key: str
    components: list[_Component]
    component_sets: list[_Component]
    variables: dict[str, Any] | None
    version: str
    built_at: float
    notes: list[str]

    def entries(self) -> list[_Component]:
        """Component sets and standalone components, by name."""
        return sorted([*self.component_sets, *self.components], key=lambda c: c.name.lower())


class ManifestCache:
    """Manifests by file key, each kept ``ttl`` seconds; one build at a time per file."""

    def __init__(self, ttl: float = MANIFEST_TTL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self._clock = clock
        self._entries: dict[str, tuple[float, Manifest]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def get(self, key: str) -> Manifest | None:
        """The file's manifest while it is fresh."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if self._clock() - entry[0] >= self.ttl:
            del self._entries[key]
            return None
        return entry[1]

    def put(self, key: str, manifest: Manifest) -> None:
        """Keep ``manifest`` for ``ttl`` seconds from now."""
        self._entries[key] = (self._clock(), manifest)

    def lock(self, key: str) -> asyncio.Lock:
        """The lock that keeps two calls from building the same file's manifest at once."""
        return self._locks.setdefault(key, asyncio.Lock())

    def clear(self) -> None:
        """Forget every manifest."""
        self._entries.clear()
        self._locks.clear()


MANIFESTS = ManifestCache()


async def load_manifest(ctx: Any, force: bool) -> tuple[Manifest, bool]:
    """The active file's manifest and whether it came from the cache; ``force`` rebuilds it."""
    key = ctx.active_file_key or ""
    async with MANIFESTS.lock(key):
        cached = None if force or not key else MANIFESTS.get(key)
        if cached is not None:
            return cached, True
        manifest = await _build_manifest(ctx, key)
        if key:
            MANIFESTS.put(key, manifest)
        return manifest, False


async def _build_manifest(ctx: Any, key: str) -> Manifest:
    await ctx.progress(0, 2, "Reading the file's components (the plugin loads every page)")
    reply = await ctx.bridge("GET_LOCAL_COMPONENTS", {}, file_key=key)
    local = _parse(ctx, reply, _LocalComponents, "GET_LOCAL_COMPONENTS")
    await ctx.progress(1, 2, "Reading the file's variables")
    notes: list[str] = []
    variables: dict[str, Any] | None = None
    try:
        found = await _variables_from_plugin(ctx, key, False)
    except DesignError as exc:
        notes.append(f"Variables could not be read: {exc.message}")
    else:
        if found is None:
            notes.append("Variables could not be read: the plugin did not return them (it may have disconnected).")
        else:
            variables = found[0]
    await ctx.progress(2, 2, "Manifest built")
    version = shaping.request_digest(
        reply.get("components"),
        reply.get("componentSets"),
        (variables or {}).get("variables"),
        (variables or {}).get("variableCollections"),
    )
    return Manifest(key, local.components, local.componentSets, variables, version, time.time(), notes)


def _freshness(manifest: Manifest, cached: bool) -> dict[str, Any]:
    return {
        "fileKey": manifest.file_key,
        "fromCache": cached,
        "ageSeconds": round(time.time() - manifest.built_at, 1),
    }


def _as_list(value: Any) -> list[dict[str, Any]]:
    return list(value.values()) if isinstance(value, dict) else list(value or [])


def _variable_lists(manifest: Manifest) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    raw = manifest.variables or {}
    return _as_list(raw.get("variables")), _as_list(raw.get("variableCollections"))


# design_get_design_system_summary ----------------------------------------------------------------------------------


class SummaryArgs(Args):
    forceRefresh: bool = False
    maxTokens: MaxTokens = None


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
    variables, collections = _variable_lists(manifest)
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
    components = {
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


@tool(
    "design_get_design_system_summary",
    "Compact overview of the open file's design system through the Desktop Bridge plugin: component categories, "
    "sets, variants, pages, variable collections, modes and types. Cached 5 min per file; forceRefresh rebuilds.",
    args=SummaryArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    needs_bridge=True,
)
async def design_get_design_system_summary(ctx: Any, args: SummaryArgs) -> ToolOutput:
    """Counts and categories from the file's manifest."""
    manifest, cached = await load_manifest(ctx, args.forceRefresh)
    body, notes = _summary(manifest, shaping.budget_chars(args.maxTokens))
    result = {**_freshness(manifest, cached), **body}
    notes = [*manifest.notes, *notes]
    if notes:
        result["notes"] = notes
    result["next"] = (
        "design_get_component_details (componentName or componentKey) for one component; "
        "design_get_token_values for variable values."
    )
    return ok(result)


# design_get_component_details --------------------------------------------------------------------------------------


class ComponentDetailsArgs(Args):
    componentKey: Annotated[str, Meta(min_length=1, max_length=200)] | None = None
    componentName: Annotated[str, Meta(min_length=1, max_length=500)] | None = None
    forceRefresh: bool = False
    maxTokens: MaxTokens = None
    cursor: Cursor | None = None


def _find_component(manifest: Manifest, key: str | None, name: str | None) -> tuple[_Component, _Variant | None]:
    entries = manifest.entries()
    if key:
        for entry in entries:
            if entry.key == key:
                return entry, None
            for variant in entry.variants:
                if variant.key == key:
                    return entry, variant
        raise DesignError(
            "not_found",
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
            "not_found",
            f"No component or component set of this file is named like {name!r}.",
            "design_search_components finds components by part of their name.",
        )
    shown = ", ".join(repr(e.name) for e in found[:AMBIGUOUS_SHOWN])
    more = f" and {len(found) - AMBIGUOUS_SHOWN} more" if len(found) > AMBIGUOUS_SHOWN else ""
    raise DesignError(
        "ambiguous",
        f"{len(found)} components match {name!r}: {shown}{more}.",
        "Call again with the full name or the componentKey of one of them.",
    )


def _variant_axes(entry: _Component) -> dict[str, list[str]]:
    axes: dict[str, list[str]] = {}
    for variant in entry.variants:
        for axis, value in (variant.variantProperties or {}).items():
            values = axes.setdefault(axis, [])
            if value not in values:
                values.append(value)
    return axes


@tool(
    "design_get_component_details",
    "One component or component set of the open file (by componentKey or componentName): key, description, page, "
    "property definitions, variant axes and variants with keys, within maxTokens; `cursor` pages the variants.",
    args=ComponentDetailsArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    needs_bridge=True,
)
async def design_get_component_details(ctx: Any, args: ComponentDetailsArgs) -> ToolOutput:
    """Details of one entry of the manifest."""
    if not args.componentKey and not args.componentName:
        raise DesignError(
            "bad_argument",
            "Neither componentKey nor componentName was given.",
            "Pass one of them; design_get_design_system_summary and design_search_components show both.",
        )
    manifest, cached = await load_manifest(ctx, args.forceRefresh)
    entry, variant = _find_component(manifest, args.componentKey, args.componentName)
    digest = shaping.request_digest(manifest.file_key, entry.id)
    start = shaping.decode_cursor(args.cursor, "component_details", digest, manifest.version) if args.cursor else 0
    budget = shaping.budget_chars(args.maxTokens)
    result: dict[str, Any] = _freshness(manifest, cached)
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
    return ok(_paged(result, cursor))


def _component_head(entry: _Component, variant: _Variant | None, budget: int) -> tuple[dict[str, Any], list[str]]:
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
            head["variantAxes"] = {axis: values[:AXIS_VALUES_SHOWN] for axis, values in axes.items()}
            notes.append(f"variantAxes shows the first {AXIS_VALUES_SHOWN} values of each axis; raise maxTokens.")
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


# design_get_token_values -------------------------------------------------------------------------------------------


class TokenValuesArgs(Args):
    type: Literal["colors", "spacing", "all"] = "all"
    filter: Annotated[str, Meta(max_length=500)] | None = None
    limit: Annotated[int, Meta(ge=1, le=500)] = 50
    resolveAliases: bool = True
    forceRefresh: bool = False
    maxTokens: MaxTokens = None
    cursor: Cursor | None = None


def _is_spacing(var: dict[str, Any]) -> bool:
    if var.get("resolvedType") != "FLOAT":
        return False
    scoped = bool(_SPACING_SCOPES.intersection(var.get("scopes") or []))
    return scoped or bool(_SPACING_NAME.search(var.get("name", "")))


@tool(
    "design_get_token_values",
    "Values of the open file's variables per mode, through the Desktop Bridge plugin: type colors (hex), spacing "
    "(numbers scoped to gaps or named spacing/gap/padding/margin) or all; filter matches names; limit, maxTokens, "
    "`cursor` to continue.",
    args=TokenValuesArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    needs_bridge=True,
)
async def design_get_token_values(ctx: Any, args: TokenValuesArgs) -> ToolOutput:
    """Token values from the manifest's variables."""
    manifest, cached = await load_manifest(ctx, args.forceRefresh)
    if manifest.variables is None:
        raise DesignError(
            "unavailable",
            "The plugin could not read this file's variables. " + " ".join(manifest.notes),
            "Check the plugin's console (design_get_console_logs), then retry with forceRefresh: true.",
        )
    variables, collections = _variable_lists(manifest)
    if args.type == "colors":
        wanted = {v.get("id") for v in variables if v.get("resolvedType") == "COLOR"}
    elif args.type == "spacing":
        wanted = {v.get("id") for v in variables if _is_spacing(v)}
    else:
        wanted = {v.get("id") for v in variables}
    # Every variable goes in, so that aliases resolve to variables of any type; the wanted ones come out.
    shape = VariablesArgs(verbosity="full", namePattern=args.filter, resolveAliases=args.resolveAliases)
    items, _ = shape_variables({"variables": variables, "variableCollections": collections}, shape)
    tokens = [{k: v for k, v in item.items() if k not in _FULL_ONLY} for item in items if item.get("id") in wanted]
    digest = shaping.request_digest(manifest.file_key, args.type, args.filter, args.limit, args.resolveAliases)
    start = shaping.decode_cursor(args.cursor, "token_values", digest, manifest.version) if args.cursor else 0
    chosen, next_index = shaping.fit_items(tokens, start, shaping.budget_chars(args.maxTokens), limit=args.limit)
    result: dict[str, Any] = {**_freshness(manifest, cached), "type": args.type, "total": len(tokens)}
    result["tokens"] = chosen
    cursor = (
        shaping.encode_cursor("token_values", digest, next_index, manifest.version) if next_index is not None else None
    )
    return ok(_paged(result, cursor))


# Team libraries ----------------------------------------------------------------------------------------------------

_LIBRARY_SCRIPT = """
const want = __WANT__;
const chunk = (list) => {
  const out = [];
  for (let i = 0; i < list.length; i += __ROWS__) out.push(list.slice(i, i + __ROWS__));
  return out;
};
const has = (text, part) => !part || String(text || "").toLowerCase().indexOf(part.toLowerCase()) >= 0;
const reason = (err) => String(err && err.message ? err.message : err);
let available;
try {
  available = await figma.teamLibrary.getAvailableLibraryVariableCollectionsAsync();
} catch (err) {
  return { unavailable: reason(err) };
}
const collections = available.filter((c) => has(c.libraryName, want.libraryName) && has(c.name, want.collectionName));
const variables = [];
const failed = [];
const lists = await Promise.all(
  collections.map((c, i) =>
    figma.teamLibrary.getVariablesInLibraryCollectionAsync(c.key).catch((err) => {
      failed.push({ collection: i, error: reason(err) });
      return [];
    }),
  ),
);
lists.forEach((list, i) => {
  list.forEach((v) => {
    if (!want.resolvedType || v.resolvedType === want.resolvedType) {
      variables.push({ c: i, name: v.name, key: v.key, resolvedType: v.resolvedType });
    }
  });
});
return {
  availableCollections: available.length,
  collections: chunk(collections.map((c) => ({ name: c.name, key: c.key, libraryName: c.libraryName }))),
  variables: chunk(variables),
  failed: chunk(failed),
};
"""

_IMPORT_SCRIPT = """
const key = __KEY__;
let variable;
try {
  variable = await figma.variables.importVariableByKeyAsync(key);
} catch (err) {
  return { imported: false, error: String(err && err.message ? err.message : err) };
}
const collection = await figma.variables.getVariableCollectionByIdAsync(variable.variableCollectionId);
return {
  imported: true,
  variable: {
    id: variable.id,
    name: variable.name,
    key: variable.key,
    resolvedType: variable.resolvedType,
    remote: variable.remote,
    variableCollectionId: variable.variableCollectionId,
    collectionName: collection ? collection.name : null,
  },
};
"""


def _script(template: str, **values: Any) -> str:
    """A script with values put in as JSON literals (never as code)."""
    code = template
    for name, value in values.items():
        code = code.replace(f"__{name.upper()}__", to_json(value))
    return code


async def _run_script(ctx: Any, code: str, timeout_ms: int) -> Any:
    reply = await ctx.bridge("EXECUTE_CODE", {"code": code, "timeout": timeout_ms}, file_key=ctx.active_file_key or "")
    return reply.get("result")


def _library_hint(ctx: Any) -> str:
    manifest = ctx.config.plugin_dir / "manifest.json"
    return (
        "Enable the libraries for this file (Assets > Libraries) and make sure the plugin was imported from "
        f"{manifest} (it needs the teamlibrary permission), then retry."
    )


class LibraryVariablesArgs(Args):
    libraryName: Annotated[str, Meta(max_length=500)] | None = None
    collectionName: Annotated[str, Meta(max_length=500)] | None = None
    resolvedType: VariableType | None = None
    maxTokens: MaxTokens = None
    cursor: Cursor | None = None


@tool(
    "design_get_library_variables",
    "Variables of the team libraries enabled for the open file (through the Desktop Bridge plugin): name, key, "
    "type, collection, library. libraryName/collectionName match part of a name; resolvedType filters; keys go to "
    "design_import_library_variable. Within maxTokens, `cursor` to continue.",
    args=LibraryVariablesArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    needs_bridge=True,
)
async def design_get_library_variables(ctx: Any, args: LibraryVariablesArgs) -> ToolOutput:
    """Library variables listed by figma.teamLibrary in the plugin."""
    want = {"libraryName": args.libraryName, "collectionName": args.collectionName, "resolvedType": args.resolvedType}
    code = _script(_LIBRARY_SCRIPT, want=want, rows=PLUGIN_ARRAY_ITEMS)
    scan = _parse(ctx, await _run_script(ctx, code, LIBRARY_TIMEOUT_MS), _LibraryScan, "EXECUTE_CODE")
    if scan.unavailable is not None:
        raise DesignError(
            "unavailable", f"The plugin cannot read team libraries: {scan.unavailable}.", _library_hint(ctx)
        )
    collections, cut_collections = _unchunk(scan.collections)
    variables, cut_variables = _unchunk(scan.variables)
    failed, _ = _unchunk(scan.failed)
    items = []
    for var in variables:
        coll = collections[var.c] if 0 <= var.c < len(collections) else None
        item = {"name": var.name, "key": var.key, "resolvedType": var.resolvedType}
        if coll is not None:
            item["collection"] = coll.name
            item["library"] = coll.libraryName
        items.append(item)
    items.sort(key=lambda i: (i.get("library", ""), i.get("collection", ""), i["name"]))
    libraries: dict[str, list[dict[str, Any]]] = {}
    counts = Counter(var.c for var in variables)
    for index, coll in enumerate(collections):
        libraries.setdefault(coll.libraryName, []).append({"name": coll.name, "variables": counts.get(index, 0)})
    digest = shaping.request_digest(args.libraryName, args.collectionName, args.resolvedType)
    version = shaping.request_digest(items)
    start = shaping.decode_cursor(args.cursor, "library_variables", digest, version) if args.cursor else 0
    budget = shaping.budget_chars(args.maxTokens)
    result: dict[str, Any] = {"total": len(items)}
    if not start:
        # The first part also says which libraries and collections there are; later parts carry only variables.
        entries = [{"name": name, "collections": colls} for name, colls in sorted(libraries.items())]
        shown, rest = shaping.fit_items(entries, 0, budget // 2)
        result["libraries"] = shown
        notes = [
            f"Collection {collections[f.collection].name!r} could not be read: {f.error}"
            for f in failed
            if 0 <= f.collection < len(collections)
        ]
        if rest is not None:
            notes.append(f"Showing {len(shown)} of {len(entries)} libraries; pass libraryName to see another.")
        if cut_collections or cut_variables:
            notes.append("The plugin cut a list short; narrow the call with libraryName or collectionName.")
        if not scan.availableCollections:
            notes.append("No library with variables is enabled for this file. " + _library_hint(ctx))
        if notes:
            result["notes"] = notes
    budget -= shaping.size_of(result)
    chosen, next_index = shaping.fit_items(items, start, budget)
    result["variables"] = chosen
    cursor = shaping.encode_cursor("library_variables", digest, next_index, version) if next_index is not None else None
    return ok(_paged(result, cursor))


class ImportLibraryVariableArgs(Args):
    variableKey: Annotated[str, Meta(min_length=1, max_length=200)]


@tool(
    "design_import_library_variable",
    "Import one variable of an enabled team library into the open file by its key (from "
    "design_get_library_variables) and return its local id; importing it again returns the same variable.",
    args=ImportLibraryVariableArgs,
    runs_in="api",
    toolset="read",
    read_only=False,
    idempotent=True,
    needs_bridge=True,
)
async def design_import_library_variable(ctx: Any, args: ImportLibraryVariableArgs) -> ToolOutput:
    """figma.variables.importVariableByKeyAsync in the plugin."""
    code = _script(_IMPORT_SCRIPT, key=args.variableKey)
    answer = _parse(ctx, await _run_script(ctx, code, IMPORT_TIMEOUT_MS), _Import, "EXECUTE_CODE")
    if not answer.imported or answer.variable is None:
        raise DesignError(
            "not_found",
            f"Variable {args.variableKey!r} could not be imported: {answer.error or 'the plugin gave no reason'}.",
            "Check the key with design_get_library_variables; its library must be published and enabled for this "
            "file (Assets > Libraries).",
        )
    variable = msgspec.to_builtins(answer.variable)
    return ok({"variableId": answer.variable.id, "variable": variable})


# Components through dedicated plugin methods -----------------------------------------------------------------------


class DeepComponentArgs(Args):
    nodeId: Annotated[str, Meta(min_length=1, max_length=200)]
    depth: Annotated[int, Meta(ge=0, le=30)] = 10
    maxTokens: MaxTokens = None
    cursor: Cursor | None = None


@tool(
    "design_get_component_for_development_deep",
    "A node's whole tree from the Desktop Bridge plugin (default depth 10): layout, fills, text, bound variables "
    "with their token names, reactions, variant and instance properties; pre-order records within maxTokens, "
    "`cursor` to continue.",
    args=DeepComponentArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    needs_bridge=True,
)
async def design_get_component_for_development_deep(ctx: Any, args: DeepComponentArgs) -> ToolOutput:
    """DEEP_GET_COMPONENT, walked in budget-sized parts."""
    nid = node_id(args.nodeId)
    params = {"nodeId": nid, "depth": args.depth}
    reply = await ctx.bridge("DEEP_GET_COMPONENT", params, file_key=ctx.active_file_key or "")
    deep = _parse(ctx, reply, _DeepComponent, "DEEP_GET_COMPONENT")
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
    return ok(_paged(result, cursor))


def _drop_parent_id(record: dict[str, Any]) -> None:
    """Below the root, ``parent`` (added by the walk) already says what the plugin's ``parentId`` says."""
    if "parent" in record:
        record.pop("parentId", None)


class AnalyzeSetArgs(Args):
    nodeId: Annotated[str, Meta(min_length=1, max_length=200)]
    maxTokens: MaxTokens = None
    cursor: Cursor | None = None


@tool(
    "design_analyze_component_set",
    "Variant analysis of a component set through the Desktop Bridge plugin: axes and values, default variant, the "
    "state axis, which visual properties vary, and each variant's changes against the default; within maxTokens, "
    "`cursor` pages the variants.",
    args=AnalyzeSetArgs,
    runs_in="api",
    toolset="read",
    idempotent=True,
    needs_bridge=True,
)
async def design_analyze_component_set(ctx: Any, args: AnalyzeSetArgs) -> ToolOutput:
    """ANALYZE_COMPONENT_SET, with the variants paged."""
    nid = node_id(args.nodeId)
    reply = await ctx.bridge("ANALYZE_COMPONENT_SET", {"nodeId": nid}, file_key=ctx.active_file_key or "")
    analysis = _parse(ctx, reply, _SetAnalysis, "ANALYZE_COMPONENT_SET")
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
            result["axes"] = {axis: values[:AXIS_VALUES_SHOWN] for axis, values in analysis.axes.items()}
            result["notes"] = [f"axes shows the first {AXIS_VALUES_SHOWN} values of each axis; raise maxTokens."]
    result["totalVariants"] = len(variants)
    chosen, next_index = shaping.fit_items(variants, start, budget - shaping.size_of(result))
    result["variants"] = chosen
    cursor = shaping.encode_cursor("component_set", digest, next_index, version) if next_index is not None else None
    return ok(_paged(result, cursor))
