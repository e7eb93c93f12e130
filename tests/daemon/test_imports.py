"""designd answers a first AI app's tools/list soon after it is spawned: what it loads before then stays lean.

The HTTP client (httpx, which brings click, rich and pygments along) and Pillow are loaded only by the workers and
tool runs that use them; a module-level import creeping back into designd's start-up path fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys

#: Top-level packages designd must not import before it has a tool to run (start-up time).
NOT_AT_START = ("httpx", "PIL")


def _loaded_after(code: str) -> list[str]:
    probe = (
        "import json, sys\n"
        f"{code}\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({list(NOT_AT_START)!r}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True, text=True)
    return list(json.loads(out.stdout))


def test_importing_designd_loads_neither_the_http_client_nor_pillow() -> None:
    assert _loaded_after("import design_console.daemon.main") == []


def test_loading_the_catalog_and_its_listing_keeps_them_unloaded() -> None:
    code = (
        "import design_console.daemon.main\n"
        "from design_console.tools import catalog\n"
        "from design_console.tools.wire.listing import tool_entries\n"
        "tool_entries(catalog().values())"
    )
    assert _loaded_after(code) == []
