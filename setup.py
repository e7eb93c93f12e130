"""Build hook: a wheel carries the Desktop Bridge plugin and the service units as package data.

``plugin/`` and ``systemd/`` at the top of the repository stay their only copies; the build copies them into
``design_console/_bundled/`` of the wheel (runtime/bundled.py finds them there), so an install by pipx, uv tool or
uvx has everything designd and designctl need. An editable install reads the checkout instead. Everything else about
the project is declared in pyproject.toml.
"""

from __future__ import annotations

import ast
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLE = Path("design_console") / "_bundled"


def _plugin_files() -> list[str]:
    """``PLUGIN_FILES`` of plugin_sync.py, read from its source: the build cannot import the package's dependencies."""
    source = ROOT / "design_console" / "daemon" / "plugin_sync.py"
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PLUGIN_FILES" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise RuntimeError(f"{source} no longer defines PLUGIN_FILES")


class BuildPyWithBundle(build_py):
    """``build_py`` that also copies the bundled folders into the build tree."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        # source folder, its files, and the folder of the bundle they go to (runtime/bundled.py reads the same)
        wanted = [
            ("plugin", _plugin_files(), "plugin"),
            ("systemd", sorted(p.name for p in (ROOT / "systemd").iterdir() if p.is_file()), "systemd"),
        ]
        for folder, names, bundled in wanted:
            target = Path(self.build_lib) / BUNDLE / bundled
            self.mkpath(str(target))
            for name in names:
                if not (ROOT / folder / name).is_file():
                    raise RuntimeError(f"{folder}/{name} is missing from {ROOT}: build from a complete checkout")
                self.copy_file(str(ROOT / folder / name), str(target / name))


setup(cmdclass={"build_py": BuildPyWithBundle})
