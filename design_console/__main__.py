"""``python -m design_console``: the stdio server, as ``design-console-mcp`` runs it."""

from __future__ import annotations

import sys

from design_console.runtime.usage import STDIO_SERVER, answer_help_or_version
from design_console.shim.main import main

if __name__ == "__main__":
    answer_help_or_version("python -m design_console", STDIO_SERVER, sys.argv[1:], only=True)
    main()
