"""Figures of big writes and of designd's memory through big jobs.

Writes: for 100, 500 and 2,000 variable updates, ours (one design_batch_update_variables, the plugin working in
slices) beside the reference's plugin (its batch script through EXECUTE_CODE, 100 updates a call), both on the same
stand-in editor and big document (``bench/big_writes.mjs``): total time, calls, chunks, the longest stretch the
plugin held the thread (CPU time without a timer turn), undo steps, the plugin's heap. ``--write-ms`` makes each
variable write of the stand-in hold the thread that long, as in a file whose layers use the variables.

Memory: the whole chain (MCP client → shim → designd → the shipped plugin in node) on an empty file; the resident
set (RSS) of designd and of each worker when idle, its peak during each job (sampled every 20 ms) and after them:
2,000 variables created, updated, read back page by page and deleted in batches; 5,000 tokens × 4 modes imported
from DTCG and exported back. A job's peak shows what it holds at once; "after" against "idle" shows what stays.

Run: ``.venv/bin/python bench/bench_big_files.py [--writes 100,500,2000] [--write-ms 0.2] [--tokens 5000]
[--no-reference] [--no-memory]``. Linux (reads /proc through psutil). The reference is installed as
``bench/bench_reference.py`` installs it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_reference import install_reference  # noqa: E402
from fakes.real_plugin import installation_with_plugin  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from procs import BIN, TestEnv, processes_of  # noqa: E402
from tokens.gen import token_set  # noqa: E402

from design_console import tokens  # noqa: E402

WRITES = ROOT / "bench" / "big_writes.mjs"
#: How often the memory sampler reads every process's RSS.
SAMPLE_SECONDS = 0.02
MIB = 2**20


def _writes(side: str, count: int, write_ms: float) -> dict[str, Any]:
    spec = json.dumps({"side": side, "writes": count, "writeMs": write_ms})
    done = subprocess.run(["node", str(WRITES), spec], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{side} {count} writes failed: {done.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def writes_table(counts: list[int], write_ms: float, reference: bool) -> None:
    """The writes figures, ours and the reference's side by side."""
    sides = ["ours", "reference"] if reference else ["ours"]
    if reference:
        install_reference()
    print(f"variable updates in the plugin ({write_ms:g} ms a write in the stand-in editor)")
    header = f"{'writes':>7} {'side':<10}{'total s':>8}{'calls':>7}{'chunks':>8}{'longest ms':>11}"
    print(header + f"{'undo':>6}{'heap MiB':>9}")
    for count in counts:
        for side in sides:
            f = _writes(side, count, write_ms)
            print(
                f"{count:>7} {side:<10}{f['ms'] / 1000:>8.2f}{f['calls']:>7}{f['chunks']:>8}{f['longest']:>11.1f}"
                f"{f['undoSteps']:>6}{f['heapMiB']:>9.1f}"
            )
    if reference:
        print("(the reference commits no undo step: everything it did since the plugin opened is one step)")


def _kind(proc: psutil.Process) -> str:
    """designd, a worker by its kind, or a shim, from the command line."""
    line = " ".join(proc.cmdline())
    if "design_console.workers" in line or "--worker" in line or "worker" in line.rsplit("/", 1)[-1]:
        for kind in ("api", "media", "tokens", "browser"):
            if kind in line:
                return f"worker:{kind}"
        return "worker"
    if "designd" in line:
        return "designd"
    return "shim"


class Sampler:
    """Samples the RSS of every process of an installation (shims left out) until stopped; keeps the peak of
    each, by kind."""

    def __init__(self, env: TestEnv) -> None:
        self.env = env
        self.peak: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for proc in processes_of(self.env):
            try:
                kind = _kind(proc)
                if kind != "shim":
                    out[kind] = out.get(kind, 0) + proc.memory_info().rss
            except psutil.Error:
                continue
        return out

    def _run(self) -> None:
        while not self._stop.is_set():
            for kind, rss in self.now().items():
                self.peak[kind] = max(self.peak.get(kind, 0), rss)
            self._stop.wait(SAMPLE_SECONDS)

    @contextmanager
    def running(self) -> Iterator[dict[str, int]]:
        self.peak = {}
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        try:
            yield self.peak
        finally:
            self._stop.set()
            self._thread.join()


async def _call(client: Client, name: str, args: dict[str, Any]) -> Any:
    result = await client.call_tool(name, args)
    if result.is_error:
        raise SystemExit(f"{name} failed: {result.content[0].text[:2000]}")
    return json.loads(result.content[0].text)


def _line(label: str, figures: dict[str, int], kinds: list[str]) -> None:
    cells = "".join(f"{figures.get(k, 0) / MIB:>14.0f}" for k in kinds)
    total = sum(figures.values()) / MIB
    print(f"{label:<34}{cells}{total:>10.0f}")


async def memory(count: int, token_count: int) -> None:
    """designd's and its workers' RSS idle, at the peak of each big job, and after them."""
    modes = [f"mode{i}" for i in range(4)]
    text = next(iter(tokens.export(token_set(token_count, modes), "dtcg", tokens.ExportOptions()).values()))
    with (
        installation_with_plugin(file_key="bigFiles", file_name="Big Files") as env,
        tempfile.TemporaryDirectory() as out,
    ):
        # The export writes into the temporary folder: the shim works there, so the AI app shares it.
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env), cwd=out)
        sampler = Sampler(env)
        async with Client(params) as client:
            # Every worker the jobs use starts on a small call first, so idle counts them too.
            await _call(client, "design_get_status", {})
            tiny = '{"a": {"$type": "number", "$value": 1}}'
            await _call(client, "design_import_tokens", {"payload": tiny, "dryRun": True})
            await _call(client, "design_get_variables", {"returnAsLinks": True})
            await asyncio.sleep(1)
            idle = sampler.now()
            kinds = sorted(idle)
            jobs = f"{count} variables in batches, {token_count} tokens × 4 modes"
            print(f"\nRSS MiB of designd and its workers ({jobs})")
            print(f"{'':<34}" + "".join(f"{k:>14}" for k in kinds) + f"{'total':>10}")
            _line("idle", idle, kinds)

            made = await _call(
                client, "design_create_variable_collection", {"name": "Big", "additionalModes": ["Dark"]}
            )
            collection_id = made["collection"]["id"]
            mode_id = made["collection"]["modes"][0]["modeId"]
            new = [{"name": f"size/{i}", "resolvedType": "FLOAT", "valuesByMode": {mode_id: i}} for i in range(count)]
            with sampler.running() as peak:
                await _call(client, "design_batch_create_variables", {"collectionId": collection_id, "variables": new})
            _line(f"peak: {count} create", peak, kinds)
            ids: list[str] = []
            with sampler.running() as peak:
                cursor = None
                while True:
                    paging = {"returnAsLinks": True, "maxTokens": 20000, **({"cursor": cursor} if cursor else {})}
                    page = await _call(client, "design_get_variables", paging)
                    ids += [v["id"] for v in page.get("variables", []) if v.get("name", "").startswith("size/")]
                    cursor = page.get("nextCursor")
                    if not cursor:
                        break
            _line(f"peak: read {len(ids)} back in pages", peak, kinds)
            updates = [{"variableId": v, "modeId": mode_id, "value": i * 2} for i, v in enumerate(ids)]
            with sampler.running() as peak:
                await _call(client, "design_batch_update_variables", {"updates": updates})
            _line(f"peak: {len(updates)} update", peak, kinds)
            with sampler.running() as peak:
                await _call(client, "design_batch_delete_variables", {"variableIds": ids})
            _line(f"peak: {len(ids)} delete", peak, kinds)
            with sampler.running() as peak:
                started = time.perf_counter()
                await _call(client, "design_import_tokens", {"payload": text, "format": "dtcg"})
                took = time.perf_counter() - started
            _line(f"peak: import {token_count} tokens ({took:.1f} s)", peak, kinds)
            with sampler.running() as peak:
                started = time.perf_counter()
                target = str(Path(out) / "tokens")
                export = {"format": "dtcg", "outputPath": target, "strategy": "replace"}
                await _call(client, "design_export_tokens", export)
                took = time.perf_counter() - started
            _line(f"peak: export {token_count} tokens ({took:.1f} s)", peak, kinds)
            await asyncio.sleep(2)
            after = sampler.now()
            _line("after, 2 s later", after, kinds)
            change = (sum(after.values()) - sum(idle.values())) / max(1, sum(idle.values())) * 100
            print(f"after against idle: {change:+.0f} %")


def _counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", default="100,500,2000")
    parser.add_argument("--write-ms", type=float, default=0.2)
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--no-memory", action="store_true")
    args = parser.parse_args()
    counts = _counts(args.writes)
    writes_table(counts, args.write_ms, not args.no_reference)
    if not args.no_memory:
        asyncio.run(memory(max(counts), args.tokens))


if __name__ == "__main__":
    main()
