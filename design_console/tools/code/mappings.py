"""Code mappings: where a component's code lives and how its properties map to props, kept on the component (or its
set) as shared plugin data, so the mapping travels with the file and every teammate's plugin reads it."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from design_console.codebase import analyze as analysis
from design_console.codebase.component import describe
from design_console.codebase.walk import walk
from design_console.engines.codegen.escape import module_source_problem
from design_console.engines.codegen.mapping_match import suggest
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.runtime.user_files import resolve
from design_console.tools.args import NodeId
from design_console.tools.base import NORMALIZE, Args, NoArgs, code_read, ok, plugin_write, tokens_tool
from design_console.tools.code.node_read import MAPPING_KEY, MAPPING_NS, READ_TIMEOUT_MS, SEND_JSON, json_result
from design_console.tools.context import ApiContext, TokensContext
from design_console.tools.plugin_replies import script

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]{0,99}")


def _identifier(text: str) -> str:
    if not _IDENTIFIER.fullmatch(text):
        raise ValueError(f"{text!r} is not a JavaScript identifier")
    return text


def _module_source(text: str) -> str:
    problem = module_source_problem(text)
    if problem is not None:
        raise ValueError(f"{text!r} is not a module to import: {problem}")
    return text


Identifier = Annotated[str, Meta(extra={NORMALIZE: _identifier})]
#: A prop name, checked by a pattern rather than a normaliser: it is a value of a dict, which normalisers do not reach.
PropName = Annotated[str, Meta(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]{0,99}$")]
#: The generated code imports from it: a package, an alias or a path, never a URL whose code a bundler would fetch.
ModuleSource = Annotated[str, Meta(min_length=1, max_length=500, extra={NORMALIZE: _module_source})]


class SetMappingArgs(Args):
    componentId: NodeId
    source: ModuleSource
    exportName: Identifier | None = None
    props: dict[str, PropName] = msgspec.field(default_factory=dict)


# The caller's values come in as one literal, put in last: script() fills placeholders one after another, so a value
# put in earlier that held the text of a later placeholder would have that literal put inside it, out of its string.
_SET = """
const { id, value, props } = __ARGS__;
const n = await figma.getNodeByIdAsync(id);
if (!n) return { error: "missing" };
if (n.type !== "COMPONENT" && n.type !== "COMPONENT_SET") return { error: "type", type: n.type };
const owner = n.type === "COMPONENT" && n.parent && n.parent.type === "COMPONENT_SET" ? n.parent : n;
const names = Object.keys(owner.componentPropertyDefinitions || {}).map((k) => k.split("#")[0]);
const unknown = props.filter((p) => !names.includes(p.split("#")[0]));
if (unknown.length) return { error: "props", unknown, names };
const before = n.getSharedPluginData(__NS__, __KEY__);
n.setSharedPluginData(__NS__, __KEY__, value);
return { id: n.id, name: n.name, type: n.type, replaced: before ? JSON.parse(before) : null };
"""


@plugin_write(
    "design_set_code_mapping",
    "Store a component's code location and prop names on it.",
    toolset="code",
    idempotent=True,
)
async def design_set_code_mapping(ctx: ApiContext, args: SetMappingArgs) -> ToolOutput:
    """Check the component and the property names, then store the mapping in one undo step."""
    mapping: dict[str, Any] = {"source": args.source, "exportName": args.exportName or "default"}
    if args.props:
        mapping["props"] = args.props
    values = {"id": args.componentId, "value": json.dumps(mapping), "props": list(args.props)}
    code = script(_SET, ns=MAPPING_NS, key=MAPPING_KEY, args=values)
    reply = await ctx.bridge(
        "EXECUTE_CODE", {"code": code, "timeout": READ_TIMEOUT_MS}, file_key=ctx.active_file_key or ""
    )
    result = reply.get("result") or {}
    error = result.get("error")
    if error == "missing":
        raise DesignError(ErrorCode.NOT_FOUND, f"No node {args.componentId} in this file.", "Check the component id.")
    if error == "type":
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"Node {args.componentId} is a {result.get('type')}, not a component or component set.",
            "Pass the id of the main component or its set (design_get_code_mappings lists mapped ones).",
        )
    if error == "props":
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"The component has no propert{'y' if len(result['unknown']) == 1 else 'ies'} "
            f"{', '.join(map(str, result['unknown']))}.",
            f"Its properties: {', '.join(map(str, result.get('names') or [])) or 'none'}.",
        )
    return ok(
        {
            "changed": {"componentId": result.get("id"), "name": result.get("name"), "mapping": mapping},
            "replaced": result.get("replaced"),
        }
    )


_LIST = (
    """
await figma.loadAllPagesAsync();
const out = [];
for (const n of figma.root.findAllWithCriteria({ types: ["COMPONENT", "COMPONENT_SET"] })) {
  const raw = n.getSharedPluginData(__NS__, __KEY__);
  if (!raw) continue;
  let mapping;
  try { mapping = JSON.parse(raw); } catch (e) { mapping = { invalid: raw }; }
  out.push(Object.assign({ componentId: n.id, name: n.name, type: n.type }, mapping));
}
"""
    + SEND_JSON
)


@code_read("design_get_code_mappings", "Code mappings stored on the file's components.")
async def design_get_code_mappings(ctx: ApiContext, args: NoArgs) -> ToolOutput:
    """Every mapped component with its source, export and prop names."""
    mappings = await mapped_components(ctx)
    return ok({"count": len(mappings), "mappings": mappings})


async def mapped_components(ctx: ApiContext) -> list[dict[str, Any]]:
    """Every component of the file that has a code mapping: its id, name and type with the mapping's fields (a mapping
    that is not JSON comes as ``{"invalid": <its text>}``)."""
    mappings: list[dict[str, Any]] = await json_result(ctx, script(_LIST, ns=MAPPING_NS, key=MAPPING_KEY))
    return mappings


# design_suggest_code_mappings -----------------------------------------------------------------------------------------

_COMPONENTS = (
    """
await figma.loadAllPagesAsync();
const out = [];
for (const n of figma.root.findAllWithCriteria({ types: ["COMPONENT", "COMPONENT_SET"] })) {
  if (n.type === "COMPONENT" && n.parent && n.parent.type === "COMPONENT_SET") continue;
  const defs = n.componentPropertyDefinitions || {};
  const props = {};
  for (const k of Object.keys(defs)) {
    props[k.split("#")[0]] = { type: defs[k].type, options: defs[k].variantOptions || [] };
  }
  out.push({ componentId: n.id, name: n.name, type: n.type, props, mapped: !!n.getSharedPluginData(__NS__, __KEY__) });
}
"""
    + SEND_JSON
)
MAX_FILES = 5_000
CODE_SUFFIXES = (".tsx", ".jsx", ".ts", ".js", ".vue", ".svelte")


class SuggestArgs(Args):
    targets: Annotated[list[str], Meta(min_length=1, max_length=20, description="App folders to scan.")]


def _code_components(targets: list[Path]) -> list[dict[str, Any]]:
    """The components defined in the code under ``targets``, each with its file, props and variants."""
    scan = walk(targets, max_files=MAX_FILES)
    result = analysis.analyze(scan.files)
    texts = {f.path: f.text for f in scan.files}
    bases = {str(t): (t if t.is_dir() else t.parent) for t in targets}
    found = []
    for component in result["components"]:
        if not component.file or not component.file.endswith(CODE_SUFFIXES):
            continue
        described = describe(texts.get(component.file, ""), component.name)
        found.append(
            {
                "name": component.name,
                "path": str(bases[component.target] / component.file),
                "props": sorted(described["props"]),
                "variants": described["variants"],
            }
        )
    return found


@tokens_tool(
    "design_suggest_code_mappings",
    "Propose code mappings: file components matched to an app's components.",
    needs_bridge=True,
    idempotent=True,
    read_only=True,
)
async def design_suggest_code_mappings(ctx: TokensContext, args: SuggestArgs) -> ToolOutput:
    """Each design component with its best code match, a confidence 0-1 and why; nothing is stored."""
    targets = []
    for text in args.targets:
        path = resolve(text, ctx.file_scope, argument="targets")
        if not path.exists():
            raise DesignError(ErrorCode.NOT_FOUND, f"target {text!r} ({path}) does not exist.", "Check the path.")
        targets.append(path)
    code = await asyncio.to_thread(_code_components, targets)
    design = await json_result(ctx, script(_COMPONENTS, ns=MAPPING_NS, key=MAPPING_KEY))
    suggestions, unmatched = suggest(design, code)
    return ok(
        {
            "suggestions": suggestions,
            "unmatched": unmatched,
            "codeComponents": len(code),
            "hint": "Store one with design_set_code_mapping (componentId, source, exportName, props).",
        }
    )
