"""Figures for the write tools, through the whole chain: MCP client → shim → designd → the shipped plugin (ui.html in
jsdom, code.js in node on the stand-in editor). The stand-in editor is fast, so these figures are our overhead plus
the plugin's own work, not the design tool's.

Run: ``.venv/bin/python bench/bench_writes.py [--rounds 5]``. Prints one line per figure (median and worst of the
rounds) and the size of tools/list. Starts its own designd and plugin in a throwaway HOME and stops them.
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

from fakes.real_plugin import installation_with_plugin  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from procs import BIN  # noqa: E402


async def _call(client: Client, name: str, args: dict[str, Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await client.call_tool(name, args)
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text}")
    return elapsed, json.loads(result.content[0].text)


def _line(label: str, times: list[float], extra: str = "") -> None:
    print(f"{label}: median {statistics.median(times):.0f} ms, worst {max(times):.0f} ms{extra}")


async def run(rounds: int) -> None:
    with installation_with_plugin(file_key="benchFile", file_name="Bench File") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client:
            listed = await client.list_tools()
            size = len(listed.model_dump_json(by_alias=True, exclude_none=True))
            print(f"tools/list: {len(listed.tools)} tools, {size:,} bytes as sent")

            batch: list[float] = []
            for n in range(rounds):
                _, made = await _call(
                    client, "design_create_variable_collection", {"name": f"Batch {n}", "initialModeName": "Base"}
                )
                collection = made["collection"]
                mode = collection["modes"][0]["modeId"]
                variables = [
                    {"name": f"space/{i}", "resolvedType": "FLOAT", "valuesByMode": {mode: i * 4}} for i in range(100)
                ]
                elapsed, _ = await _call(
                    client, "design_batch_create_variables", {"collectionId": collection["id"], "variables": variables}
                )
                batch.append(elapsed)
            _line("design_batch_create_variables, 100 variables", batch)

            setup: list[float] = []
            modes = ["Light", "Dark", "Dim"]
            tokens = [
                {"name": f"color/{i}", "resolvedType": "COLOR", "values": {m: f"#{i:02x}{i:02x}{i:02x}" for m in modes}}
                for i in range(250)
            ] + [
                {"name": f"alias/{i}", "resolvedType": "COLOR", "values": {m: f"{{color.{i}}}" for m in modes}}
                for i in range(50)
            ]
            for n in range(rounds):
                elapsed, made = await _call(
                    client,
                    "design_setup_design_tokens",
                    {"collectionName": f"Tokens {n}", "modes": modes, "tokens": tokens},
                )
                setup.append(elapsed)
            _line("design_setup_design_tokens, 300 tokens x 3 modes (50 aliases)", setup)

            base = (await _call(client, "design_execute", {"code": "return figma.createComponent().id;"}))[1]["result"]
            axes = [{"name": axis, "values": ["a", "b", "c", "d"]} for axis in ("Size", "Tone", "State")]
            created, made = await _call(
                client, "design_create_component_set", {"baseComponentId": base, "variantProperties": axes}
            )
            set_id = made["componentSet"]["id"]
            arrange: list[float] = []
            for _ in range(rounds):
                elapsed, done = await _call(client, "design_arrange_component_set", {"componentSetId": set_id})
                arrange.append(elapsed)
            _line(
                f"design_arrange_component_set, {done['variantCount']} variants",
                arrange,
                f" (creating the set: {created:.0f} ms)",
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
