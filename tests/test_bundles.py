"""The ecosystem's one-line installs: server.json for the MCP registry and the MCP bundle (.mcpb) for Claude Desktop.

No package ships the registry's server.json schema, so server.json is checked against the fields and limits the
registry documents (docs/reference/server-json of the registry: server.schema.json and the official registry's
requirements), and against this project's own facts. The bundle is built by scripts/build-mcpb, which validates and
packs it with @anthropic-ai/mcpb (an npm devDependency); the packed bundle must then build as a Python package.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from design_console import __version__
from design_console.daemon.plugin_sync import PLUGIN_FILES

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

#: The registry's documented constraints on what server.json carries for a PyPI package run over stdio.
SERVER_JSON_FIELDS: dict[str, Any] = {
    "type": "object",
    "required": ["$schema", "name", "description", "version", "packages"],
    "properties": {
        "$schema": {"const": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"},
        "name": {"type": "string", "pattern": r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", "minLength": 3, "maxLength": 200},
        "title": {"type": "string", "minLength": 1, "maxLength": 100},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "pattern": r"^\d+\.\d+\.\d+([-+].+)?$"},
        "repository": {
            "type": "object",
            "required": ["url", "source"],
            "properties": {"url": {"type": "string"}, "source": {"type": "string"}},
        },
        "websiteUrl": {"type": "string", "pattern": "^https://"},
        "packages": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["registryType", "identifier", "version", "transport"],
                "properties": {
                    "registryType": {"const": "pypi"},
                    "registryBaseUrl": {"const": "https://pypi.org"},
                    "identifier": {"type": "string"},
                    "version": {"type": "string", "minLength": 1, "not": {"const": "latest"}},
                    "runtimeHint": {"type": "string"},
                    "transport": {
                        "type": "object",
                        "required": ["type"],
                        "properties": {"type": {"const": "stdio"}},
                    },
                    "environmentVariables": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["name"],
                            "properties": {
                                "name": {"type": "string"},
                                "description": {"type": "string"},
                                "isRequired": {"type": "boolean"},
                                "isSecret": {"type": "boolean"},
                                "default": {"type": "string"},
                                "format": {"enum": ["string", "number", "boolean", "filepath"]},
                            },
                            "additionalProperties": False,
                        },
                    },
                },
            },
        },
    },
}


def test_server_json_has_the_registrys_fields_and_this_projects_facts() -> None:
    server = json.loads((ROOT / "server.json").read_text())
    jsonschema.validate(server, SERVER_JSON_FIELDS)
    repository = PROJECT["urls"]["Repository"]
    owner = re.fullmatch(r"https://github\.com/([^/]+)/[^/]+", repository)
    assert owner, repository
    # A GitHub-authenticated publisher publishes under io.github.<owner>/.
    assert server["name"].startswith(f"io.github.{owner.group(1)}/")
    assert server["repository"] == {"url": repository, "source": "github"}
    assert server["version"] == PROJECT["version"] == __version__
    [package] = server["packages"]
    assert package["identifier"] == PROJECT["name"] and package["version"] == PROJECT["version"]
    assert package["runtimeHint"] == "uvx"
    # The registry checks PyPI ownership by this marker in the package's README (its long description).
    readme = (ROOT / "README.md").read_text()
    assert f"mcp-name: {server['name']}" in readme
    for variable in package["environmentVariables"]:
        assert f"| `{variable['name']}` |" in readme, f"{variable['name']} is not a documented setting"
    assert any(v["name"] == "DESIGN_ACCESS_TOKEN" and v["isSecret"] for v in package["environmentVariables"])


@pytest.mark.slow
@pytest.mark.packaging
def test_the_mcp_bundle_is_validated_packed_and_builds_as_the_package(tmp_path: Path) -> None:
    out = tmp_path / "design-console-mcp.mcpb"
    staged = tmp_path / "stage"
    built = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build-mcpb"), "--out", str(out), "--stage", str(staged)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHON": sys.executable},
        check=False,
    )
    assert built.returncode == 0, built.stdout[-5000:] + built.stderr[-5000:]
    with zipfile.ZipFile(out) as bundle:
        names = set(bundle.namelist())
        manifest = json.loads(bundle.read("manifest.json"))
    for needed in [
        "pyproject.toml",
        "setup.py",
        "README.md",
        "design_console/__main__.py",
        "design_console/clients/axe-core/axe.min.js",
        "design_console/clients/axe-core/LICENSE",
        *(f"plugin/{name}" for name in PLUGIN_FILES),
        "systemd/designd.service",
    ]:
        assert needed in names, f"the bundle lacks {needed}"
    assert not any("__pycache__" in n or n.startswith(("plugin/src/", "node_modules/")) for n in names)
    assert manifest["version"] == PROJECT["version"] and manifest["name"] == PROJECT["name"]
    assert manifest["server"]["type"] == "uv"
    assert (staged / manifest["server"]["entry_point"]).is_file()
    assert manifest["server"]["mcp_config"]["env"] == {"DESIGN_ACCESS_TOKEN": "${user_config.design_access_token}"}
    # What the host installs from the bundle is a Python package that builds without Node.
    wheel_dir = tmp_path / "wheel"
    wheel = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheel_dir), str(staged)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert wheel.returncode == 0, wheel.stdout[-3000:] + wheel.stderr[-3000:]
    [built_wheel] = wheel_dir.glob("*.whl")
    with zipfile.ZipFile(built_wheel) as package:
        assert "design_console/clients/axe-core/axe.min.js" in package.namelist()
        assert "design_console/_bundled/plugin/ui.html" in package.namelist()
