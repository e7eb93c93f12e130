"""Figures for the design-to-code tools, through the whole chain: MCP client → shim → designd → the shipped plugin
(code.js in node on the stand-in editor). The stand-in editor is fast, so these are our overhead plus the plugin's own
work, not the design tool's.

Run: ``.venv/bin/python bench/bench_design_code.py [--rounds 3]``. Prints, for a 500-layer frame (auto layout rows of
text and shapes in a card without auto layout): the time and answer size of design_get_design_context for each
framework (median and worst of the rounds); and the bytes a layer costs in design_get_metadata's outline against the
plain node tree design_get_file_data returns today (its ``standard`` records of the same layers). Starts its own
designd and plugin in a throwaway HOME and stops them.
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

import msgspec  # noqa: E402
from fakes.real_plugin import installation_with_plugin  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from procs import BIN  # noqa: E402

from design_console.tools import shaping  # noqa: E402

#: 500 layers: a card, 49 rows (auto layout) of a label and 8 shapes, a title, a footer and 7 loose shapes.
BUILD = """
await figma.loadFontAsync({ family: "Inter", style: "Regular" });
const card = figma.createFrame();
card.name = "Dashboard"; card.resize(1200, 49 * 40 + 120);
card.fills = [{ type: "SOLID", color: { r: 1, g: 1, b: 1 } }];
figma.currentPage.appendChild(card);
let count = 1;
const text = (parent, chars) => {
  const t = figma.createText(); t.fontName = { family: "Inter", style: "Regular" }; t.characters = chars;
  t.fontSize = 14; t.lineHeight = { unit: "PIXELS", value: 20 }; parent.appendChild(t); count++; return t;
};
text(card, "Quarterly overview").y = 20;
for (let r = 0; r < 49; r++) {
  const row = figma.createFrame(); row.name = "Row " + r; card.appendChild(row); count++;
  row.x = 20; row.y = 60 + r * 40; row.resize(1160, 36);
  row.layoutMode = "HORIZONTAL"; row.itemSpacing = 12; row.paddingLeft = 8; row.paddingRight = 8;
  row.counterAxisAlignItems = "CENTER";
  text(row, "Metric " + r);
  for (let i = 0; i < 8; i++) {
    const s = i % 2 ? figma.createEllipse() : figma.createRectangle();
    s.resize(24, 24); s.cornerRadius = 4;
    s.fills = [{ type: "SOLID", color: { r: i / 8, g: 0.5, b: 1 - i / 8 } }];
    row.appendChild(s); count++;
  }
}
text(card, "Updated just now").y = 49 * 40 + 70;
for (let i = 0; i < 7; i++) {
  const s = figma.createRectangle(); card.appendChild(s); s.x = 900 + i * 40; s.y = 20; s.resize(30, 30); count++;
}
return { id: card.id, count };
"""

#: One page of the same layers as the design API's node documents (what design_get_file_data shapes).
PLAIN_PAGE = """
const card = await figma.getNodeByIdAsync(%s);
const flat = [];
const visit = (n, parent) => {
  const b = n.absoluteBoundingBox;
  const doc = { id: n.id, name: n.name, type: n.type, parent, visible: n.visible,
    absoluteBoundingBox: { x: b.x, y: b.y, width: b.width, height: b.height } };
  for (const k of ["fills", "strokes", "cornerRadius", "layoutMode", "itemSpacing", "characters", "fontSize"]) {
    if (k in n && n[k] !== undefined && typeof n[k] !== "symbol") doc[k] = n[k];
  }
  flat.push(doc);
  for (const c of n.children || []) visit(c, n.id);
};
visit(card, null);
return flat.slice(%d, %d).map((d) => JSON.stringify(d));
"""


async def _call(client: Client, name: str, args: dict[str, Any]) -> tuple[float, str]:
    started = time.perf_counter()
    result = await client.call_tool(name, args)
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text}")
    return elapsed, result.content[0].text


async def _plain_tree_bytes(client: Client, root: str, count: int) -> int:
    """The bytes of design_get_file_data's ``standard`` records of the frame's layers (all parts together)."""
    docs: list[dict[str, Any]] = []
    for start in range(0, count, 100):
        code = PLAIN_PAGE % (json.dumps(root), start, start + 100)
        _, text = await _call(client, "design_execute", {"code": code, "timeout": 30_000})
        docs += [json.loads(item) for item in json.loads(text)["result"]]
    by_id = {d["id"]: {**d, "children": []} for d in docs}
    for doc in by_id.values():
        parent = doc.pop("parent")
        if parent in by_id:
            by_id[parent]["children"].append(doc)
    tree = msgspec.json.encode(by_id[root])
    part = shaping.walk_tree([msgspec.Raw(tree)], max_depth=50, verbosity="standard", budget=10**9)
    return len(msgspec.json.encode({"nodes": part.nodes}))


async def run(rounds: int) -> None:
    with installation_with_plugin(file_key="benchCode", file_name="Bench Code") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client:
            _, text = await _call(client, "design_execute", {"code": BUILD, "timeout": 30_000})
            made = json.loads(text)["result"]
            root, count = made["id"], made["count"]
            print(f"frame: {count} layers")
            for framework in ("html", "react-tailwind", "vue"):
                times: list[float] = []
                size = 0
                for _ in range(rounds):
                    args: dict[str, Any] = {"nodeId": root, "framework": framework, "maxTokens": 20_000}
                    code_chars = 0
                    started = time.perf_counter()
                    while True:
                        _, text = await _call(client, "design_get_design_context", args)
                        answer = json.loads(text)
                        code_chars += len(answer.get("code", ""))
                        if "nextCursor" not in answer:
                            break
                        args["cursor"] = answer["nextCursor"]
                    times.append((time.perf_counter() - started) * 1000)
                    size = code_chars
                print(
                    f"design_get_design_context {framework}: median {statistics.median(times):.0f} ms, "
                    f"worst {max(times):.0f} ms, code {size:,} chars ({size / count:.0f} a layer)"
                )
            outline = 0
            args = {"nodeId": root, "depth": 50, "maxTokens": 20_000}
            while True:
                _, text = await _call(client, "design_get_metadata", args)
                answer = json.loads(text)
                outline += len(answer["xml"])
                if "nextCursor" not in answer:
                    break
                args["cursor"] = answer["nextCursor"]
            plain = await _plain_tree_bytes(client, root, count)
            print(
                f"design_get_metadata: {outline:,} bytes, {outline / count:.0f} a layer; plain node tree "
                f"(design_get_file_data standard): {plain:,} bytes, {plain / count:.0f} a layer "
                f"({plain / outline:.1f}x the outline)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
