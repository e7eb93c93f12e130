"""Every published input schema is portable: no ``type`` arrays, no bare or empty schemas, no remote ``$ref``.

Clients that map tool schemas onto a single-type dialect (the OpenAPI subset of Gemini-style function declarations)
reject a ``type`` array, so unions are ``anyOf`` branches of one type each. The MCP Inspector's ``--strict`` check
reports these as warnings; the first test runs it on the whole catalog through the real shim and designd, the second
walks the schemas in-process so that a regression names the tool and the path at once.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters
from procs import DaemonProcess

from design_console.tools import catalog
from design_console.tools.schema import input_schema
from design_console.tools.wire.mcp import tool_definitions

ROOT = Path(__file__).resolve().parents[2]
INSPECTOR = ROOT / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build"
INSPECTOR = INSPECTOR / "index.js"

#: Keywords whose value is a schema, a list of schemas or a map of schemas (the ones the catalog can use).
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs")
#: A schema with none of these accepts any value.
_CONSTRAINING = frozenset(
    {"type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "properties", "items", "required"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "pattern", "format"}
    | {"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "additionalProperties", "prefixItems"}
)


def _findings(node: Any, path: str = "") -> list[str]:
    if isinstance(node, bool):
        return [f"{path or '(root)'}: bare {str(node).lower()} where a schema is expected"]
    if not isinstance(node, dict):
        return []
    found = []
    if isinstance(node.get("type"), list):
        found.append(f"{path or '(root)'}: type array {node['type']}")
    if not _CONSTRAINING & set(node) and not path.endswith(".not"):
        found.append(f"{path or '(root)'}: constrains nothing")
    ref = node.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        found.append(f"{path}: remote $ref {ref}")
    for key in _ONE:
        if key in node and not (key == "additionalProperties" and isinstance(node[key], bool)):
            found += _findings(node[key], f"{path}.{key}")
    for key in _MANY:
        for i, sub in enumerate(node.get(key) or []):
            found += _findings(sub, f"{path}.{key}[{i}]")
    for key in _MAP:
        for name, sub in (node.get(key) or {}).items():
            found += _findings(sub, f"{path}.{key}.{name}")
    return found


def test_the_strict_inspector_reports_nothing_for_the_whole_catalog(
    daemon: DaemonProcess, shim_params: StdioServerParameters
) -> None:
    node = shutil.which("node")
    assert node, "Node.js 20 is needed (apt-get install nodejs)"
    assert INSPECTOR.is_file(), "the MCP Inspector is missing: run `npm ci` in the repo root"
    env = [arg for key, value in (shim_params.env or {}).items() for arg in ("-e", f"{key}={value}")]
    proc = subprocess.run(
        [node, str(INSPECTOR), "--cli", *env, "--method", "tools/list", "--strict", shim_params.command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-5000:]
    assert '"name": "design_get_status"' in proc.stdout, "the whole catalog was listed"
    assert "Warning:" not in proc.stderr and "Error:" not in proc.stderr, proc.stderr[-5000:]


def test_no_published_schema_has_a_type_array_or_constrains_nothing() -> None:
    found = {
        tool.name: problems
        for tool in tool_definitions(catalog().values())
        if (problems := _findings(tool.input_schema) + _findings(tool.output_schema or {"type": "object"}))
    }
    assert not found, found


def test_a_union_of_plain_types_is_published_as_single_type_branches() -> None:
    from design_console.tools.variables.variables_write import UpdateVariableArgs

    schema = input_schema(UpdateVariableArgs)
    value = schema["properties"]["value"]
    assert all(set(branch) >= {"type"} and isinstance(branch["type"], str) for branch in value["anyOf"]), value
