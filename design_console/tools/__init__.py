"""The tool catalog: every tool declared once, shared by designd, the workers, designctl and Remote Mode.

Importing this package registers every tool module's tools in :data:`design_console.tools.base.REGISTRY`.
"""

from __future__ import annotations

import importlib
import pkgutil

from design_console.config import Config
from design_console.tools.base import REGISTRY, ToolSpec

#: What each toolset is for, as design_toolsets describes it under DESIGN_TOOLSETS=auto.
TOOLSET_SUMMARIES = {
    "core": "status, files, console, selection, changes, running Plugin API code",
    "read": "file data, variables, styles, components, libraries, comments, versions, screenshots",
    "write": "create and edit nodes, text, fills, components, variants, slots, variables and annotations",
    "tokens": "export and import design tokens in code formats",
    "board": "whiteboard files: stickies, shapes, connectors, tables",
    "slides": "slide decks: slides, their content, grid, transitions",
    "audit": "design lint, accessibility (also of HTML code), design-code parity, design-system reports, docs",
    "code": "a design-system package built from an app's code: analyse, extract tokens and components, verify",
    "apps": "interactive MCP App views",
}


def _load_all() -> None:
    """Import every module of the package and its sub-packages; the ones that declare tools register them as they
    load."""
    for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        # wire puts the catalog on the MCP wire with the SDK's types, which the workers never load.
        if not info.name.startswith(f"{__name__}.wire."):
            importlib.import_module(info.name)


def catalog(config: Config | None = None) -> dict[str, ToolSpec]:
    """Every tool, or only those of the toolsets the user chose with DESIGN_TOOLSETS (``core`` is always listed)."""
    _load_all()
    tools = dict(sorted(REGISTRY.items()))
    if config is None:
        return tools
    if not config.enable_mcp_apps:
        tools = {name: spec for name, spec in tools.items() if spec.toolset != "apps"}
    if config.toolsets:
        wanted = {"core", *config.toolsets}
        tools = {name: spec for name, spec in tools.items() if spec.toolset in wanted}
    return tools
