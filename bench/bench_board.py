"""Figures for the FigJam tools, through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html in
jsdom, code.js in node on the stand-in editor, as a whiteboard). The stand-in editor is fast, so these figures are our
overhead plus the plugin's own work, not the design tool's.

Run: ``.venv/bin/python bench/bench_board.py [--rounds 5]``. Prints one line per figure (median and worst of the
rounds): design_create_stickies of 200 stickies, and design_get_board_contents of a 1,000-node board with the size
of its first part against the read budget and how many parts the whole board takes; and the bytes of tools/list
without and with ENABLE_MCP_APPS. Starts its own designd and plugin in a throwaway HOME and stops them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import mcp_types as types  # noqa: E402
from fakes.real_plugin import installation_with_plugin  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from procs import BIN  # noqa: E402

from design_console.config import load_config  # noqa: E402
from design_console.engines import shaping  # noqa: E402
from design_console.tools import catalog  # noqa: E402
from design_console.tools.wire.mcp import tool_definitions  # noqa: E402

#: A board of 1,000 nodes: 5 sections of 150 stickies, 150 stickies in none, 100 connectors between them.
BUILD_BOARD = """
const stickies = [];
for (let s = 0; s < 5; s++) {
  const section = figma.createSection();
  section.name = "Theme " + s;
  for (let i = 0; i < 150; i++) {
    const n = figma.createSticky();
    n.text.characters = "Idea " + s + "." + i + ": a sentence or two of what people wrote on the sticky.";
    section.appendChild(n);
    stickies.push(n);
  }
}
for (let i = 0; i < 145; i++) {
  const n = figma.createSticky();
  n.text.characters = "Loose idea " + i;
  stickies.push(n);
}
for (let i = 0; i < 100; i++) {
  const c = figma.createConnector();
  c.connectorStart = { endpointNodeId: stickies[i].id, magnet: "AUTO" };
  c.connectorEnd = { endpointNodeId: stickies[i + 400].id, magnet: "AUTO" };
}
return figma.currentPage.findAll(() => true).length;
"""


async def _call(client: Client, name: str, args: dict[str, Any]) -> tuple[float, str]:
    started = time.perf_counter()
    result = await client.call_tool(name, args)
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text}")
    return elapsed, result.content[0].text


def _line(label: str, times: list[float], extra: str = "") -> None:
    print(f"{label}: median {statistics.median(times):.0f} ms, worst {max(times):.0f} ms{extra}")


async def run(rounds: int) -> None:
    with installation_with_plugin(editor_type="figjam", file_key="benchBoard", file_name="Bench Board") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client:
            create: list[float] = []
            for n in range(rounds):
                stickies = [
                    {"text": f"Round {n}, sticky {i}", "color": "BLUE", "x": i % 20 * 260, "y": i // 20 * 260}
                    for i in range(200)
                ]
                elapsed, _ = await _call(client, "design_create_stickies", {"stickies": stickies})
                create.append(elapsed)
            _line("design_create_stickies, 200 stickies", create)

            await _call(
                client, "design_execute", {"code": "figma.currentPage.children.slice().forEach((n) => n.remove());"}
            )
            _, built = await _call(client, "design_execute", {"code": BUILD_BOARD, "timeout": 30000})
            size = json.loads(built)["result"]
            read: list[float] = []
            first = ""
            for _ in range(rounds):
                elapsed, first = await _call(client, "design_get_board_contents", {"maxNodes": 1000})
                read.append(elapsed)
            budget = shaping.budget_chars(None)
            _line(
                f"design_get_board_contents, {size}-node board, first part",
                read,
                f" ({len(first):,} chars, budget {budget:,})",
            )
            parts, cursor, started = 1, json.loads(first).get("nextCursor"), time.perf_counter()
            while cursor:
                _, text = await _call(client, "design_get_board_contents", {"maxNodes": 1000, "cursor": cursor})
                assert len(text) <= budget, len(text)
                parts, cursor = parts + 1, json.loads(text).get("nextCursor")
            print(f"  whole board: {parts} parts, {(time.perf_counter() - started) * 1000:.0f} ms after the first")


def tool_list_sizes() -> None:
    """The tools/list payload as sent, for the catalog without and with the MCP Apps tools."""
    for label, env in (("without apps", {}), ("with ENABLE_MCP_APPS=true", {"ENABLE_MCP_APPS": "true"})):
        tools = catalog(load_config(env))
        listing = types.ListToolsResult(tools=tool_definitions(tools.values()))
        size = len(listing.model_dump_json(by_alias=True, exclude_none=True))
        print(f"tools/list {label}: {len(tools)} tools, {size:,} bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(run(parser.parse_args().rounds))
    tool_list_sizes()


if __name__ == "__main__":
    main()
