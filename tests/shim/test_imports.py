"""The shim stays a pipe: it must not pull in the MCP SDK, asyncio or psutil at start-up (time and memory budgets).

ZeroMQ is the one thing it needs: designd's control socket (``runtime/transport.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys


def test_shim_imports_neither_the_sdk_nor_asyncio_nor_psutil() -> None:
    probe = (
        "import json, sys\n"
        "import design_console.shim.main\n"
        "banned = ('mcp', 'mcp_types', 'asyncio', 'pydantic', 'psutil')\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in banned)\n"
        "print(json.dumps(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True, text=True)
    assert json.loads(out.stdout) == []
