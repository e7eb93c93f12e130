"""Figures of the token engine: export and parse of 5,000 tokens × 4 modes in every format (time, peak memory
traced by tracemalloc, output size).

Run: ``.venv/bin/python bench/bench_tokens.py [--tokens 5000] [--modes 4]``. The token set is the seeded one of the
tests (about 40 % aliases, in chains); tracing slows Python down, so times are measured in a run of their own.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from tokens.gen import token_set  # noqa: E402

from design_console import tokens  # noqa: E402
from design_console.tokens import ExportOptions  # noqa: E402


def measure(work: Callable[[], Any]) -> tuple[float, float, Any]:
    """Seconds (untraced run), peak MB (traced run) and the result of ``work``."""
    started = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - started
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--modes", type=int, default=4)
    args = parser.parse_args()
    modes = [f"mode{i}" for i in range(args.modes)]
    source = token_set(args.tokens, modes)
    print(f"{args.tokens} tokens × {args.modes} modes")
    print(f"{'format':<22}{'export s':>10}{'export MB':>11}{'size KB':>9}{'parse s':>9}{'parse MB':>10}")
    variants = [(fmt, ExportOptions()) for fmt in tokens.FORMATS] + [("dtcg", ExportOptions(dtcg_dialect="2025"))]
    for fmt, opts in variants:
        ex_s, ex_mb, files = measure(lambda fmt=fmt, opts=opts: tokens.export(source, fmt, opts))
        size = sum(len(text.encode()) for text in files.values()) / 1e3
        pa_s, pa_mb, _ = measure(lambda fmt=fmt, files=files: tokens.parse(files, fmt))
        label = fmt if fmt != "dtcg" else f"dtcg ({opts.dtcg_dialect})"
        print(f"{label:<22}{ex_s:>10.3f}{ex_mb:>11.1f}{size:>9.0f}{pa_s:>9.3f}{pa_mb:>10.1f}")


if __name__ == "__main__":
    main()
