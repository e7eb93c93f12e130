"""What ``tools/list`` costs a session's context, with every tool listed and with DESIGN_TOOLSETS=auto.

Run: ``.venv/bin/python bench/bench_toolsets.py``. Prints the bytes of the ``tools/list`` result designd sends (the
same bytes the session front answers with), for the full catalog, for an auto session as it opens (the core toolset
and design_toolsets), for an auto session after enabling each toolset, and of design_toolsets' own description of
the toolsets (the one call that keeps every tool in reach).
"""

from __future__ import annotations

import msgspec

from design_console.daemon.mcp_front import CORE, Answers
from design_console.tools import catalog

#: The budget of the whole tools/list (ARCHITECTURE.md "Performance budgets").
LIST_BUDGET = 60_000


def main() -> None:
    tools = catalog()
    answers = Answers(tools, auto=True)
    full = len(answers.tools_result)
    default = len(answers.listing(frozenset({CORE})))
    print(f"tools/list, every tool listed ({len(tools)} tools): {full:,} bytes (budget {LIST_BUDGET:,})")
    core = len(answers.toolsets[CORE])
    print(f"tools/list, DESIGN_TOOLSETS=auto as a session opens ({core} core tools + design_toolsets): {default:,} B")
    print(f"  {default / full:.0%} of the full list, {full - default:,} bytes less in every session's context")
    for toolset, names in answers.toolsets.items():
        if toolset == CORE:
            continue
        size = len(answers.listing(frozenset({CORE, toolset})))
        print(f"  after design_toolsets enable={toolset} ({len(names)} tools): {size:,} bytes")
    described, _ = answers.toolsets_result({CORE}, None)
    size = len(msgspec.json.encode(described))
    print(f"design_toolsets' description of every toolset and tool name: {size:,} bytes")


if __name__ == "__main__":
    main()
