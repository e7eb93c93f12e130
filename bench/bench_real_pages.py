"""Figures for the design ↔ code loop on real pages that none of us wrote (the corpus of tests/fakes/real_pages.py),
through the whole chain: each page built as layers by design_generate_from_web, written back as HTML and React by
design_get_design_context, and the page and the HTML rendered at the same width in one local headless Chromium.

Run: ``.venv/bin/python bench/bench_real_pages.py [--only NAME ...] [--out DIR]``. Prints one line per page: the
share of the page's text runs drawn by the code with the same characters within 4 px (goal ≥ 98%), the share of
pixels that agree (goal ≥ 95%), whether the React module compiles (esbuild), the share of arbitrary Tailwind classes
(goal ≤ 25%), the share of layers in auto layout, the import's time, layers and layers per second, and the warnings
of the import and of the code. A page that fails whole is printed with its error and the run goes on. Saves
``<name>.png`` (the page | the round trip) and ``<name>.tsx`` (the React module) per page under the output folder
(bench/out/real_pages by default).
Everything is offline: the corpus is served on a loopback port, and designd and the plugin run in a throwaway HOME.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.loop_measures import Figures, measure, side_by_side  # noqa: E402
from fakes.real_pages import PAGES, RealPage, missing, serving  # noqa: E402
from fakes.real_plugin import installation_with_plugin  # noqa: E402
from helpers import CHROMIUM  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402
from procs import BIN  # noqa: E402


def _line(page: RealPage, figures: Figures) -> str:
    texts = figures.texts
    react = "compiles" if figures.react_error is None else "DOES NOT COMPILE"
    return (
        f"{page.name}: texts {texts.share:.1%} ({texts.found}/{texts.total}), pixels {figures.agreement:.2%},"
        f" React {react}, arbitrary classes {figures.arbitrary:.0%}, auto layout {figures.auto_layout_share:.0%};"
        f" {figures.layers} layers in {figures.import_seconds:.2f} s ({figures.layers_per_second:.0f}/s);"
        f" warnings {len(figures.warnings)} import, {len(figures.code_warnings)} code"
    )


async def run(pages: list[RealPage], out: Path, site: str, verbose: bool) -> None:
    with installation_with_plugin(file_key="benchRealPages", file_name="Bench Real Pages") as env:
        params = StdioServerParameters(command=str(BIN / "design-console-mcp"), env=dict(env.env))
        async with Client(params) as client, async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
            )
            try:
                for page in pages:
                    try:
                        figures = await measure(client, browser, page.url(site))
                    # One page's failure is a figure of the run, which goes on.
                    except Exception as error:
                        print(f"{page.name}: FAILED WHOLE: {error}", flush=True)
                        continue
                    side_by_side(*figures.shots).save(out / f"{page.name}.png")
                    (out / f"{page.name}.tsx").write_text(figures.react)
                    print(_line(page, figures), flush=True)
                    if figures.react_error is not None:
                        print(f"    esbuild: {figures.react_error[:500]}")
                    if verbose:
                        for text in figures.texts.missing:
                            print(f"    text not in place: {text[:100]!r}")
                        for warning in [*figures.warnings, *figures.code_warnings]:
                            print(f"    warning: {warning[:200]}")
            finally:
                await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", nargs="*", metavar="NAME", help="measure only these pages (by short name)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "real_pages")
    parser.add_argument("--verbose", action="store_true", help="also list texts not in place and every warning")
    options = parser.parse_args()
    if absent := missing():
        raise SystemExit(f"the corpus is not installed ({', '.join(absent)}): run scripts/setup --test")
    pages = [p for p in PAGES if not options.only or p.name in options.only]
    if unknown := set(options.only or ()) - {p.name for p in PAGES}:
        names = ", ".join(p.name for p in PAGES)
        raise SystemExit(f"no page named {', '.join(sorted(unknown))}; the corpus has {names}")
    options.out.mkdir(parents=True, exist_ok=True)
    with serving() as site:
        asyncio.run(run(pages, options.out, site, options.verbose))


if __name__ == "__main__":
    main()
