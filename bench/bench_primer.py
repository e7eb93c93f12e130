"""Primer's design tokens (``@primer/primitives``) imported into the design tool and exported back, through the
whole chain: MCP client → shim → designd → tokens worker → the shipped plugin (ui.html in jsdom, code.js in node on
the stand-in editor, its plan allowing 10 modes: Primer has nine themes). The files are placed as
``tests/tokens/primer.py`` says.

Prints the counts (Primer's files, tokens read, distinct tokens, imported, skipped by reason, exported back, matched
by value per mode) and the wall times of the import and the export.

Run: ``.venv/bin/python bench/bench_primer.py`` (after ``npm ci``).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.real_plugin import installation_with_plugin  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from procs import BIN  # noqa: E402
from tokens import primer  # noqa: E402

from design_console import tokens  # noqa: E402
from design_console.tokens.model import Alias  # noqa: E402
from design_console.tokens.values import Color, hex_text  # noqa: E402


async def _call(client: Client, name: str, args: dict[str, Any]) -> Any:
    result = await client.call_tool(name, args)
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text[:2000]}")
    return json.loads(result.content[0].text)


def _matches(raw: Any, value: Any) -> bool:
    """Whether an exported value is Primer's: alias by target name, colour by hex, size by px."""
    if primer.is_alias(raw):
        return isinstance(value, Alias) and value.name == raw[1:-1].replace(".", "/")
    want = raw.get("hex") if isinstance(raw, dict) else raw
    if isinstance(want, str) and want.startswith("#"):
        return isinstance(value, Color) and hex_text(value, alpha=len(want) == 9) == want.lower()
    if isinstance(raw, dict) and raw.get("unit") in ("px", "rem"):
        return value == raw["value"] * (16 if raw["unit"] == "rem" else 1)
    return bool(value == raw)


def _written(folder: Path) -> dict[str, str]:
    """The files the export wrote into ``folder`` (removed afterwards)."""
    files = {p.name: p.read_text() for p in folder.rglob("*") if p.is_file()}
    shutil.rmtree(folder)
    return files


async def run() -> None:
    started = time.perf_counter()
    plan = primer.primer_import()
    prepared = time.perf_counter() - started
    values = sum(len(v) for v in plan.expected.values())
    print(f"Primer {json.loads((primer.PACKAGE / 'package.json').read_text())['version']}: {plan.source_files} files,")
    print(f"  {plan.tokens_read} token definitions read (JSON5 via the json5 package), {plan.distinct} distinct tokens")
    print(f"  to import: {len(plan.expected)} tokens, {values} values over their modes, in {len(plan.files)} files")
    by_import = sum(plan.engine_skipped.values())
    print(f"  skipped: {sum(plan.skipped.values())} ({by_import} sent: the import skips them and says why)")
    for reason, count in plan.skipped.most_common():
        where = f"import {plan.engine_skipped[reason]}" if reason in plan.engine_skipped else "not sent"
        print(f"    {count:>4}  {reason} ({where}): {primer.REASONS[reason]}")
    print(f"  aliases with Primer's alpha, imported as the colour they resolve to: {len(plan.resolved)}")
    print(f"  override values of themes not made modes: {sum(plan.themes_not_carried.values())}")
    print(f"  (reading and placing the files: {prepared:.2f} s)")
    out = Path(tempfile.mkdtemp(prefix="bench-primer-"))
    with installation_with_plugin(file_key="benchPrimer", file_name="Bench Primer") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client:
            await _call(client, "design_execute", {"code": "figma.testControl.setModeLimit(10); return 0;"})
            started = time.perf_counter()
            done = await _call(client, "design_import_tokens", {"files": plan.files, "format": "dtcg"})
            imported = time.perf_counter() - started
            started = time.perf_counter()
            target = {"outputPath": str(out / "back"), "strategy": "replace"}
            await _call(client, "design_export_tokens", {"format": "dtcg", **target})
            exported = time.perf_counter() - started
    back = tokens.parse(_written(out), "dtcg")
    got = {(c.name, t.name): t.values for c, t in back.tokens()}
    matched = sum(
        1
        for key, by_mode in plan.expected.items()
        for mode, raw in by_mode.items()
        if key in got and _matches(raw, got[key].get(mode))
    )
    modes = {c.name: len(c.modes) for c in back.collections}
    print(f"import: {done['done']['variablesCreated']} variables created in {imported:.2f} s (one undo step)")
    print(f"import skipped {done['skipped']['count']} tokens, by its reasons:")
    for reason, count in done["skipped"]["byReason"].items():
        print(f"    {count:>4}  {reason}")
    print(f"export: {len(got)} tokens back in {exported:.2f} s, collections (modes): {modes}")
    print(f"present after export: {sum(1 for k in plan.expected if k in got)} of {len(plan.expected)}")
    print(f"values matching Primer's text: {matched} of {values}")


if __name__ == "__main__":
    asyncio.run(run())
