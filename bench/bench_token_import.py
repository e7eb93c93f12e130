"""Figures of design_import_tokens through the whole chain: MCP client → shim → designd → tokens worker → the shipped
plugin (ui.html in jsdom, code.js in node on the stand-in editor), importing the seeded token set of the tests
(5,000 tokens × 4 modes by default, about 40 % aliases in chains) into an empty file, once per format.

For each format: the import's wall time, the tokens worker's peak RSS during it (VmHWM, reset before each import
through /proc/<pid>/clear_refs), and the latency of design_get_console_logs (p50/p99) called in a loop while the
import runs, which shows whether designd stays responsive; then design_export_tokens of the imported variables back
into a file of that format (wall time and the worker's peak RSS). The stand-in editor is fast, so the times are our own
work plus the plugin's, not the design tool's.

Run: ``.venv/bin/python bench/bench_token_import.py [--tokens 5000] [--modes 4] [--formats dtcg,css-vars]``.
Linux only (reads /proc).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
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
from tokens.gen import token_set  # noqa: E402

from design_console import tokens  # noqa: E402


async def _call(client: Client, name: str, args: dict[str, Any]) -> Any:
    result = await client.call_tool(name, args)
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text[:2000]}")
    return json.loads(result.content[0].text)


async def _tokens_worker_pid(client: Client) -> int:
    # Workers start on the first call that needs them: a dry run of an import starts this one.
    await _call(client, "design_import_tokens", {"payload": '{"a": {"$type": "number", "$value": 1}}', "dryRun": True})
    report = await _call(client, "design_diagnose", {"verbose": True})
    return next(int(w["pid"]) for w in report["workers"] if w["kind"] == "tokens")


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak(pid: int) -> None:
    # Writing 5 resets the process's peak RSS (VmHWM) to its current RSS (Linux 4.0+).
    Path(f"/proc/{pid}/clear_refs").write_text("5")


async def _empty(client: Client) -> None:
    await _call(
        client,
        "design_execute",
        {"code": "for (const c of await figma.variables.getLocalVariableCollectionsAsync()) c.remove(); return 0;"},
    )


async def _probe(client: Client, stop: asyncio.Event, out: list[float]) -> None:
    """design_get_console_logs, back to back, until ``stop``."""
    while not stop.is_set():
        started = time.perf_counter()
        await _call(client, "design_get_console_logs", {"count": 5})
        out.append((time.perf_counter() - started) * 1000)


def _percentile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


async def run(count: int, mode_count: int, formats: list[str]) -> None:
    modes = [f"mode{i}" for i in range(mode_count)]
    source = token_set(count, modes)
    print(f"design_import_tokens: {count} tokens × {mode_count} modes into an empty file, through the whole chain")
    print(f"{'format':<22}{'payload KB':>11}{'import s':>10}{'worker MB':>11}", end="")
    print(f"{'logs p50':>10}{'logs p99':>10}{'n':>5}{'export s':>10}{'worker MB':>11}")
    with (
        installation_with_plugin(file_key="benchImport", file_name="Bench Import") as env,
        tempfile.TemporaryDirectory() as out,
    ):
        # The export writes into the temporary folder: the shim works there, so the AI app shares it.
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env), cwd=out)
        async with Client(params) as client, Client(params) as prober:
            pid = await _tokens_worker_pid(client)
            for fmt in formats:
                files = tokens.export(source, fmt if fmt != "dtcg-2025" else "dtcg", _options(fmt))
                ((_, text),) = files.items()
                await _empty(client)
                _reset_peak(pid)
                stop = asyncio.Event()
                latencies: list[float] = []
                probe = asyncio.create_task(_probe(prober, stop, latencies))
                started = time.perf_counter()
                name = "dtcg" if fmt == "dtcg-2025" else fmt
                done = await _call(client, "design_import_tokens", {"payload": text, "format": name})
                elapsed = time.perf_counter() - started
                stop.set()
                await probe
                if not done.get("applied"):
                    raise SystemExit(f"{fmt}: nothing applied: {json.dumps(done)[:500]}")
                import_peak = _peak_rss_mb(pid)
                _reset_peak(pid)
                started = time.perf_counter()
                await _call(
                    client,
                    "design_export_tokens",
                    {
                        "format": "dtcg" if fmt == "dtcg-2025" else fmt,
                        "dtcgDialect": "2025" if fmt == "dtcg-2025" else "legacy",
                        "outputPath": str(Path(out) / fmt / "tokens"),
                        "strategy": "replace",
                    },
                )
                exported = time.perf_counter() - started
                print(
                    f"{fmt:<22}{len(text.encode()) / 1e3:>11.0f}{elapsed:>10.2f}{import_peak:>11.0f}"
                    f"{_percentile(latencies, 50):>9.1f}ms{_percentile(latencies, 99):>8.1f}ms{len(latencies):>5}"
                    f"{exported:>10.2f}{_peak_rss_mb(pid):>11.0f}"
                )


def _options(fmt: str) -> tokens.ExportOptions:
    return tokens.ExportOptions(dtcg_dialect="2025") if fmt == "dtcg-2025" else tokens.ExportOptions()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--modes", type=int, default=4)
    parser.add_argument("--formats", default=",".join([*tokens.FORMATS, "dtcg-2025"]))
    args = parser.parse_args()
    asyncio.run(run(args.tokens, args.modes, args.formats.split(",")))


if __name__ == "__main__":
    main()
