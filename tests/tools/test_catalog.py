"""The catalog finds every tool module by itself: the root's and those of each topic sub-package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import design_console.tools
from design_console.tools import catalog

TOOLS = Path(design_console.tools.__file__).parent


def _module_names(folder: Path) -> set[str]:
    return {
        "design_console." + ".".join(path.relative_to(TOOLS.parent).with_suffix("").parts)
        for path in folder.glob("*.py")
        if path.stem != "__init__"
    }


def test_every_module_of_every_topic_is_loaded() -> None:
    catalog()
    topics = [path.parent for path in TOOLS.glob("*/__init__.py") if path.parent.name != "wire"]
    assert len(topics) >= 10
    for topic in topics:
        modules = _module_names(topic)
        assert modules, f"{topic.name}/ holds no module"
        assert modules <= set(sys.modules), f"catalog() left modules of {topic.name}/ unloaded"
    assert _module_names(TOOLS) <= set(sys.modules)


def test_the_wire_form_is_not_loaded_with_the_catalog() -> None:
    """designd answers a session's opening from the catalog without loading the MCP SDK (``tools/wire/mcp.py``)."""
    code = "import sys\nfrom design_console.tools import catalog\ncatalog()\nprint('mcp' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "False"
