"""Write docs/tools.md, the tools reference, from the tool registry.

Every tool as ``tools/list`` publishes it: its toolset, what it does, what it needs to work, where Remote Mode lists
it, and its arguments with their types, limits and defaults from the published input schema. Nothing in the page is
written by hand, so it says what the code does; ``tests/test_docs.py`` fails when the page is not what this script
writes now.

Run: ``.venv/bin/python scripts/tools_reference.py`` (rewrites the page) or ``... --check`` (exit 1 when it is stale).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from design_console.config import TOOLSETS, load_config
from design_console.daemon.mcp_front import TOOLSETS_TOOL, Answers
from design_console.remote.tools import PAIR_PLUGIN, remote_catalog
from design_console.tools import TOOLSET_SUMMARIES, catalog
from design_console.tools.base import ToolSpec
from design_console.tools.wire.listing import app_only, tool_entries

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "tools.md"

#: What each need of a tool (``ToolSpec.needs``) asks of the user, as the page says it.
NEEDS = {
    "bridge": "the Desktop Bridge plugin in the file",
    "api": "the design API (`DESIGN_ACCESS_TOKEN`)",
    "disk": "files on your machine",
    "daemon": "designd's state (what it keeps of the plugin's events)",
    "browser": "a headless browser",
}
#: The plugin's editor types (``ToolSpec.needs_editor``), as the page names their files.
EDITORS = {"figma": "design files", "figjam": "FigJam files", "slides": "Slides files"}
PROCESSES = {"daemon": "designd", "api": "the api worker", "media": "the media worker", "tokens": "the tokens worker"}
#: The page's line length, as the rest of docs/.
WIDTH = 120


def default_tools() -> dict[str, ToolSpec]:
    """The tools a default install lists: no setting changed."""
    return catalog(load_config({}))


def _cell(text: str) -> str:
    """``text`` fit for one cell of a Markdown table."""
    return " ".join(text.split()).replace("|", "\\|")


def _prose(text: str, indent: str = "") -> str:
    """``text`` as one paragraph wrapped to the page's width (a list item when ``indent`` is its marker)."""
    return textwrap.fill(
        " ".join(text.split()),
        WIDTH,
        initial_indent=indent,
        subsequent_indent=" " * len(indent),
        break_long_words=False,
        break_on_hyphens=False,
    )


def _value(value: Any) -> str:
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _type(schema: Mapping[str, Any]) -> str:
    """A schema's type in words: ``integer, 1–1000``, ``one of `a`, `b```, ``list of string``, ``string or number``."""
    if "anyOf" in schema:
        return " or ".join(dict.fromkeys(_type(branch) for branch in schema["anyOf"]))
    if "enum" in schema:
        return "one of " + ", ".join(_value(v) for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("items", {})
        found = "list of objects" if items.get("type") == "object" else f"list of {_type(items)}"
        low, high = schema.get("minItems"), schema.get("maxItems")
        if low is not None or high is not None:
            found += f" ({low or 0}–{high} items)" if high is not None else f" (at least {low})"
        return found
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not schema.get("properties"):
            return f"map of string to {_type(extra)}"
        return "object"
    low, high = schema.get("minimum"), schema.get("maximum")
    if "exclusiveMinimum" in schema:
        return f"{kind}, > {schema['exclusiveMinimum']}"
    if low is not None and high is not None:
        return f"{kind}, {low}–{high}"
    if low is not None:
        return f"{kind}, ≥ {low}"
    if high is not None:
        return f"{kind}, ≤ {high}"
    return str(kind)


def _fields(schema: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    """One table row per argument, and per field of an argument that is an object or a list of objects."""
    required = set(schema.get("required", []))
    for name, field in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        label = f"`{path}` (required)" if name in required else f"`{path}`"
        default = _value(field["default"]) if "default" in field else ""
        yield f"| {label} | {_cell(_type(field))} | {_cell(default)} | {_cell(field.get('description', ''))} |"
        items = field.get("items", {})
        if field.get("properties"):
            yield from _fields(field, f"{path}.")
        elif isinstance(items, dict) and items.get("properties"):
            yield from _fields(items, f"{path}[].")


def _remote(name: str, remote: Mapping[str, ToolSpec]) -> str:
    spec = remote.get(name)
    if spec is None:
        return "not listed (Local Mode only)"
    if "bridge" in spec.needs:
        return "listed while the user's paired plugin is connected"
    if "browser" in spec.needs:
        return "listed while the server runs its headless browser, where the tool runs"
    return "listed"


def _facts(spec: ToolSpec, entry: Mapping[str, Any], remote: Mapping[str, ToolSpec]) -> str:
    hints = entry["annotations"]
    if hints.get("readOnlyHint"):
        kind = "reads"
    elif hints.get("destructiveHint", True):
        kind = "writes (destructive)"
    else:
        kind = "writes"
    needs = ", ".join(NEEDS[need] for need in sorted(spec.needs, key=list(NEEDS).index)) or "nothing else"
    lines = [f"Toolset `{spec.toolset}`; {kind}; runs in {PROCESSES[spec.runs_in]}.", f"Needs {needs}."]
    if spec.needs_editor:
        lines.append(f"Works on {' and '.join(EDITORS[e] for e in spec.needs_editor)} only.")
    lines.append(f"Remote Mode: {_remote(spec.name, remote)}.")
    return "\n".join(_prose(line, "- ") for line in lines)


def _tool(spec: ToolSpec, entry: Mapping[str, Any], remote: Mapping[str, ToolSpec]) -> str:
    description = spec.description
    if app_only(spec):
        description += " Only the MCP App views call it; it is listed without this description."
    parts = [f"### `{spec.name}`", _prose(description), _facts(spec, entry, remote)]
    rows = list(_fields(entry["inputSchema"]))
    if rows:
        parts.append("\n".join(["| Argument | Type | Default | About |", "|---|---|---|---|", *rows]))
    else:
        parts.append("No arguments.")
    return "\n\n".join(parts)


def _summary(toolset: str) -> str:
    """What a toolset is for, as a sentence."""
    about = TOOLSET_SUMMARIES.get(toolset, "")
    return about[:1].upper() + about[1:] + "." if about else ""


def render() -> str:
    """The page, as this checkout's registry makes it."""
    every = catalog()
    default = default_tools()
    remote = remote_catalog(load_config({}))
    entries = {entry["name"]: entry for entry in tool_entries(every.values())}
    by_toolset: dict[str, list[ToolSpec]] = {toolset: [] for toolset in TOOLSETS}
    for spec in every.values():
        by_toolset.setdefault(spec.toolset, []).append(spec)
    left_out = ", ".join(
        f"`{t}`" for t in sorted({s.toolset for s in every.values()} - {s.toolset for s in default.values()})
    )
    out = [
        "# Tools",
        "<!-- Generated from the tool registry by `.venv/bin/python scripts/tools_reference.py`: change the tool\n"
        "declarations under design_console/tools/ and run it again; tests/test_docs.py fails while this page is\n"
        "stale. -->",
        _prose(
            f"A default install lists {len(default)} tools: every toolset but {left_out}, which "
            f"`ENABLE_MCP_APPS=true` adds ({len(every)} tools in all). `DESIGN_TOOLSETS` lists fewer, or with "
            f"`auto` starts each chat with the {len(by_toolset['core'])} `core` tools and `{TOOLSETS_TOOL}`, "
            "which enables the others on request ([configuration](configuration.md)); every tool can be called "
            "by name, listed or not. Remote Mode lists each user the tools that can work for them now "
            "([remote/README.md](remote/README.md))."
        ),
        "| Toolset | Tools | What for |\n|---|---|---|\n"
        + "\n".join(
            f"| [`{toolset}`](#{toolset}) | {len(specs)} | {_cell(TOOLSET_SUMMARIES.get(toolset, ''))} |"
            for toolset, specs in by_toolset.items()
        ),
        _prose(
            "Each tool below says what it needs to work: "
            + "; ".join(NEEDS.values())
            + ". Most tools also take `fileKey` or `fileUrl` to work on another file than the active one "
            "([using.md](using.md#which-file-a-command-goes-to))."
        ),
    ]
    for toolset, specs in by_toolset.items():
        out.append(f"## `{toolset}`")
        out.append(_prose(_summary(toolset)))
        out.extend(_tool(spec, entries[spec.name], remote) for spec in specs)
    toolsets = Answers(default, auto=True).toolsets_entry()
    out += [
        "## Listed by the server itself",
        "Two tools are not in the registry: the server that lists them answers them itself.",
        f"### `{TOOLSETS_TOOL}`",
        _prose(toolsets["description"]),
        "- Listed with `DESIGN_TOOLSETS=auto` only.",
        "\n".join(["| Argument | Type | Default | About |", "|---|---|---|---|", *_fields(toolsets["inputSchema"])]),
        f"### `{PAIR_PLUGIN.name}`",
        _prose(PAIR_PLUGIN.description),
        "- Remote Mode only ([pairing](remote/README.md#pairing)).",
        "No arguments.",
    ]
    return "\n\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/tools.md from the tool registry.")
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/tools.md is not what it would write")
    opts = parser.parse_args(argv)
    page = render()
    if opts.check:
        if PAGE.read_text() != page:
            print("docs/tools.md is stale: run .venv/bin/python scripts/tools_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
