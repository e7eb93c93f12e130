"""The manifest of the open file's design system, from the Desktop Bridge plugin.

Its components and component sets come from GET_LOCAL_COMPONENTS, its variables from GET_VARIABLES_DATA. It answers
the summary, component-details and token-value tools and is kept for five minutes per file in the api worker,
because building it makes the plugin load every page.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import msgspec

from design_console.engines import shaping
from design_console.errors import DesignError
from design_console.tools.context import Context
from design_console.tools.file_cache import FileCache
from design_console.tools.plugin_replies import local_components, parse_reply
from design_console.tools.variable_data import as_list, variables_from_plugin

MANIFEST_TTL_SECONDS = 300.0


class PageRef(msgspec.Struct, omit_defaults=True):
    id: str = ""
    name: str = ""


class VariantEntry(msgspec.Struct, omit_defaults=True):
    id: str
    name: str = ""
    key: str | None = None
    variantProperties: dict[str, str] | None = None


class ComponentEntry(msgspec.Struct, omit_defaults=True):
    """One entry of GET_LOCAL_COMPONENTS' ``components`` or ``componentSets`` (the plugin's describeComponent)."""

    id: str
    name: str = ""
    type: str = "COMPONENT"
    key: str | None = None
    description: str | None = None
    descriptionMarkdown: str | None = None
    page: PageRef | None = None
    width: float | None = None
    height: float | None = None
    componentPropertyDefinitions: dict[str, Any] | None = None
    variantProperties: dict[str, str] | None = None
    variants: list[VariantEntry] = []


class LocalComponents(msgspec.Struct):
    components: list[ComponentEntry] = []
    componentSets: list[ComponentEntry] = []


@dataclass(slots=True)
class Manifest:
    """What the plugin says about one file's design system, as built at ``built_at`` (wall clock, seconds)."""

    file_key: str
    components: list[ComponentEntry]
    component_sets: list[ComponentEntry]
    variables: dict[str, Any] | None
    version: str
    built_at: float
    notes: list[str]

    def entries(self) -> list[ComponentEntry]:
        """Component sets and standalone components, by name."""
        return sorted([*self.component_sets, *self.components], key=lambda c: c.name.lower())


#: The manifests of the files this process served lately.
MANIFESTS: FileCache[Manifest] = FileCache(MANIFEST_TTL_SECONDS)


async def load_manifest(ctx: Context, force: bool) -> tuple[Manifest, bool]:
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


async def _build_manifest(ctx: Context, key: str) -> Manifest:
    await ctx.progress(0, 2, "Reading the file's components (the plugin loads every page)")
    reply = await local_components(ctx, key)
    local = parse_reply(ctx, reply, LocalComponents, "GET_LOCAL_COMPONENTS")
    await ctx.progress(1, 2, "Reading the file's variables")
    notes: list[str] = []
    variables: dict[str, Any] | None = None
    try:
        found = await variables_from_plugin(ctx, key, False)
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


def freshness(manifest: Manifest, cached: bool) -> dict[str, Any]:
    """Which file a manifest answer is about, and how old the manifest is."""
    return {
        "fileKey": manifest.file_key,
        "fromCache": cached,
        "ageSeconds": round(time.time() - manifest.built_at, 1),
    }


def variable_lists(manifest: Manifest) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The manifest's variables and variable collections (empty when the plugin could not read them)."""
    raw = manifest.variables or {}
    return as_list(raw.get("variables")), as_list(raw.get("variableCollections"))
