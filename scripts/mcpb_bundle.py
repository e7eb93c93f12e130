"""Build the MCP bundle (.mcpb) that installs design-console-mcp in Claude Desktop with one click.

The bundle is the package's source with a ``manifest.json`` of server type ``uv``: Claude Desktop provides Python
and installs the dependencies from ``pyproject.toml`` itself, so the bundle carries no binaries and works wherever
the package does. The manifest's facts (name, version, description, links, licence) come from pyproject.toml.
``@anthropic-ai/mcpb`` (an npm devDependency, or ``MCPB`` naming its command) checks the manifest and packs it.

Run: ``bash scripts/build-mcpb [--out FILE] [--stage DIR]``; ``--stage`` keeps the folder that was packed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What the package's build reads (setup.py bundles plugin/ and systemd/ into the package).
SOURCES = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "design_console", "plugin", "systemd"]
#: Plugin sources and build tooling: the package ships the built plugin files only.
NOT_SHIPPED = shutil.ignore_patterns("__pycache__", "*.py[cod]", "src", "*.mjs", "tsconfig*.json")


def manifest(project: dict[str, object]) -> dict[str, object]:
    """The bundle's manifest.json (MCPB manifest 0.4) for the ``[project]`` table of pyproject.toml."""
    urls = project["urls"]
    assert isinstance(urls, dict)
    return {
        "manifest_version": "0.4",
        "name": project["name"],
        "display_name": "Design Console",
        "version": project["version"],
        "description": project["description"],
        "author": {"name": "design-console-mcp contributors", "url": urls["Repository"]},
        "repository": {"type": "git", "url": urls["Repository"]},
        "homepage": urls["Repository"],
        "documentation": urls["Documentation"],
        "support": urls["Issues"],
        "license": project["license"],
        "keywords": ["design", "mcp", "plugin", "design-tokens", "accessibility"],
        "server": {
            "type": "uv",
            "entry_point": "design_console/__main__.py",
            "mcp_config": {
                "command": "uv",
                "args": ["run", "--directory", "${__dirname}", "design-console-mcp"],
                "env": {"DESIGN_ACCESS_TOKEN": "${user_config.design_access_token}"},
            },
        },
        "tools_generated": True,
        "user_config": {
            "design_access_token": {
                "type": "string",
                "title": "Design API token",
                "description": "Personal access token for the design API (file data, comments, version history). "
                "The tools that work through the Desktop Bridge plugin need none.",
                "sensitive": True,
                "required": False,
            }
        },
        "compatibility": {
            "platforms": ["darwin", "linux"],
            "runtimes": {"python": str(project["requires-python"])},
        },
    }


def mcpb_command() -> str:
    """The ``mcpb`` command: ``MCPB``, else the npm devDependency, else one on PATH."""
    for candidate in (os.environ.get("MCPB", ""), str(ROOT / "node_modules" / ".bin" / "mcpb"), "mcpb"):
        if candidate and shutil.which(candidate):
            return candidate
    sys.exit("scripts/build-mcpb needs @anthropic-ai/mcpb: run `npm ci` in the repository (or set MCPB).")


def stage(folder: Path, project: dict[str, object]) -> None:
    """Lay out the bundle's files in ``folder``."""
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=NOT_SHIPPED)
        else:
            shutil.copy2(source, folder / name)
    text = json.dumps(manifest(project), indent=2) + "\n"
    (folder / "manifest.json").write_text(text, encoding="utf-8")


def main() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    parser = argparse.ArgumentParser(prog="scripts/build-mcpb", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist" / f"{project['name']}-{project['version']}.mcpb")
    parser.add_argument("--stage", type=Path, help="lay the bundle out in this (new) folder and keep it")
    opts = parser.parse_args()
    mcpb = mcpb_command()
    with tempfile.TemporaryDirectory(prefix="design-console-mcpb-") as scratch:
        folder = opts.stage or Path(scratch) / "bundle"
        folder.mkdir(parents=True)
        print(f"staging the bundle in {folder}", flush=True)
        stage(folder, project)
        for step in (["validate", str(folder / "manifest.json")], ["pack", str(folder), str(opts.out.resolve())]):
            opts.out.parent.mkdir(parents=True, exist_ok=True)
            done = subprocess.run([mcpb, *step], cwd=folder, stdin=subprocess.DEVNULL, check=False)
            if done.returncode != 0:
                sys.exit(f"`mcpb {step[0]}` failed (exit {done.returncode}); see its output above.")
    digest = hashlib.sha256(opts.out.read_bytes()).hexdigest()
    print(f"built {opts.out} (sha256 {digest})")


if __name__ == "__main__":
    main()
