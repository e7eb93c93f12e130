"""design_scan_code_accessibility: axe-core on caller-supplied HTML, its findings sized for a model's context.

The scan itself is :mod:`design_console.clients.axe` (a headless browser subprocess); this module bounds the input
and shapes the output: the worst rules first, a few example elements of each, counts of everything cut, and, on
request, the findings as the ``accessibility`` section of a parity codeSpec (design_check_design_parity).
It runs in the api worker, so a scan never holds designd's event loop.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from msgspec import Meta

from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.base import CHARS_PER_TOKEN, DEFAULT_RESULT_TOKENS, Args, api_read, ok, to_json
from design_console.tools.context import ApiContext

#: Larger pages belong to a real test runner; a tool argument of this size already costs the model dearly.
MAX_HTML_BYTES = 1_000_000
#: A whole scan (browser start, load, every rule) of a page within MAX_HTML_BYTES takes a few seconds.
SCAN_TIMEOUT_S = 60.0
#: Example elements shown per rule; the rest are counted.
NODES_PER_RULE = 5
MAX_HTML_SNIPPET = 200
MAX_SUMMARY_CHARS = 300
RESULT_CHARS = DEFAULT_RESULT_TOKENS * CHARS_PER_TOKEN
IMPACT_ORDER = {"critical": 0, "serious": 1, "moderate": 2, "minor": 3}


#: Markup with any of these is a page of its own; anything else is a fragment.
_DOCUMENT = re.compile(r"<(!doctype|html|head|body)[\s>]", re.IGNORECASE)
#: Rules about a whole page that the minimal page around a fragment cannot satisfy on the fragment's behalf.
PAGE_RULES = ["page-has-heading-one"]
#: A fragment (one component's markup) is scanned inside this page, so that rules about whole pages (a title, a
#: language, landmarks) do not bury the component's own findings.
_FRAME_PAGE = '<!doctype html><html lang="en"><head><title>Component</title></head><body><main>{}</main></body></html>'


def as_document(html: str) -> tuple[str, bool]:
    """``html`` as a whole page, and whether it was a fragment that had to be wrapped in one."""
    if _DOCUMENT.search(html):
        return html, False
    return _FRAME_PAGE.format(html), True


class ScanArgs(Args):
    html: str
    tags: Annotated[list[str], Meta(description="e.g. wcag2aa, best-practice")] | None = None
    context: str | None = None
    includePassingRules: bool = False
    mapToCodeSpec: bool = False


def _cut(text: str | None, limit: int) -> str:
    text = (text or "").strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _selector(target: Any) -> str:
    """axe's target: a selector, or a list of them through iframes and shadow roots."""
    if isinstance(target, list):
        return " >>> ".join(_selector(t) for t in target)
    return str(target)


def _rule(raw: dict[str, Any]) -> dict[str, Any]:
    nodes = raw.get("nodes") or []
    out: dict[str, Any] = {
        "id": raw["id"],
        "impact": raw.get("impact"),
        "help": raw.get("help"),
        "helpUrl": raw.get("helpUrl"),
        "tags": [t for t in raw.get("tags", []) if t.startswith(("wcag", "best-practice", "section508"))],
        "nodes": [
            {
                "selector": _selector(n.get("target")),
                "html": _cut(n.get("html"), MAX_HTML_SNIPPET),
                **({"summary": _cut(n["failureSummary"], MAX_SUMMARY_CHARS)} if n.get("failureSummary") else {}),
            }
            for n in nodes[:NODES_PER_RULE]
        ],
    }
    total = max(int(raw.get("nodeCount", 0)), len(nodes))
    if total > NODES_PER_RULE:
        out["moreNodes"] = total - NODES_PER_RULE
    return out


def _worst_first(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rules, key=lambda r: (IMPACT_ORDER.get(r.get("impact") or "", 4), -int(r.get("nodeCount", 0))))


def shape_report(raw: dict[str, Any], *, include_passes: bool, budget: int = RESULT_CHARS) -> dict[str, Any]:
    """axe's results as the tool reports them: violations then rules needing review, worst first, within
    ``budget`` characters; rules that did not fit are named with their element counts."""
    violations = [_rule(r) for r in _worst_first(raw.get("violations", []))]
    review = [_rule(r) for r in _worst_first(raw.get("incomplete", []))]
    report: dict[str, Any] = {
        "engine": raw.get("engine"),
        "summary": {
            "violations": len(violations),
            "violatingElements": sum(int(r.get("nodeCount", 0)) for r in raw.get("violations", [])),
            "needsReview": len(review),
            "inapplicable": raw.get("inapplicable"),
        },
        "violations": [],
        "needsReview": [],
    }
    if include_passes:
        report["summary"]["passed"] = len(raw.get("passes", []))
        report["passedRules"] = [{"id": r["id"], "help": r.get("help")} for r in raw.get("passes", [])]
    used = len(to_json(report))
    cut: list[dict[str, Any]] = []
    for key, rules in (("violations", violations), ("needsReview", review)):
        for rule in rules:
            size = len(to_json(rule)) + 1
            if used + size > budget:
                cut.append(
                    {
                        "id": rule["id"],
                        "impact": rule["impact"],
                        "elements": len(rule["nodes"]) + rule.get("moreNodes", 0),
                    }
                )
                continue
            report[key].append(rule)
            used += size
    if cut:
        report["notShown"] = cut
        report["hint"] = "Scan a smaller part (context) or fewer rules (tags) to see these."
    if not report["needsReview"]:
        del report["needsReview"]
    return report


def code_spec_section(report: dict[str, Any]) -> dict[str, Any]:
    """The findings as a parity codeSpec's ``accessibility`` section: one issue per failing element."""
    issues = [
        {
            "rule": rule["id"],
            "impact": rule["impact"],
            "selector": node["selector"],
            "message": rule["help"],
            "wcag": [t for t in rule["tags"] if t.startswith("wcag")],
            "helpUrl": rule["helpUrl"],
        }
        for rule in report["violations"]
        for node in rule["nodes"]
    ]
    section: dict[str, Any] = {"engine": report["engine"], "issues": issues}
    if report.get("needsReview"):
        section["needsReview"] = [{"rule": r["id"], "message": r["help"]} for r in report["needsReview"]]
    if "passedRules" in report:
        section["passedRules"] = [r["id"] for r in report["passedRules"]]
    return section


@api_read(
    "design_scan_code_accessibility",
    "axe-core scan of HTML in headless Chrome: failures, selectors, help URLs.",
    toolset="audit",
    open_world=False,
)
async def design_scan_code_accessibility(ctx: ApiContext, args: ScanArgs) -> ToolOutput:
    """Scan the HTML, shape the findings, and add the codeSpec section when asked."""
    size = len(args.html.encode())
    if size > MAX_HTML_BYTES:
        raise DesignError(
            ErrorCode.TOO_LARGE,
            f"html is {size:,} bytes; the limit is {MAX_HTML_BYTES:,}.",
            "Pass one component's or one page section's markup, not a whole bundled page.",
        )
    if not args.html.strip():
        raise DesignError(ErrorCode.BAD_ARGUMENT, "html is empty.", "Pass the markup to scan.")
    # Imported here, in the api worker that runs this: the browser client's WebSocket stack would slow designd's start.
    from design_console.clients.axe import run_axe

    page, wrapped = as_document(args.html)
    raw = await run_axe(
        page,
        tags=args.tags or [],
        context=args.context,
        include_passes=args.includePassingRules,
        timeout=SCAN_TIMEOUT_S,
        max_nodes=NODES_PER_RULE,
        skip=PAGE_RULES if wrapped else [],
        browser=ctx.config.browser_path,
    )
    # The codeSpec section repeats what is shown, so the report leaves it room.
    budget = RESULT_CHARS * 2 // 3 if args.mapToCodeSpec else RESULT_CHARS
    report = shape_report(raw, include_passes=args.includePassingRules, budget=budget)
    if wrapped:
        report["note"] = "A fragment: scanned inside a minimal page (lang, title, <main>), as a component is used."
    if args.mapToCodeSpec:
        report["codeSpec"] = {"accessibility": code_spec_section(report)}
    return ok(report)
