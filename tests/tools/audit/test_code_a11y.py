"""design_scan_code_accessibility through the whole chain: real axe-core in the machine's headless Chromium, started
by the api worker, on pages with known faults and on a clean one."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio
from fakes.chain import call, chain_session, refused
from mcp import Client
from procs import BIN, DaemonProcess, TestEnv, wait_for

from design_console.clients import axe, devtools
from design_console.errors import DesignError, ErrorCode
from design_console.tools.audit.code_a11y import MAX_HTML_BYTES, shape_report

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]


FAULTY = """<!doctype html>
<html lang="en"><head><title>Checkout</title></head>
<body><main><h1>Checkout</h1>
<img src="hero.png">
<p style="color:#b0b0b0;background:#ffffff">Delivery in 3 days</p>
<input type="email" id="mail">
<button></button>
<div id="card"><button style="color:#c8c8c8;background:#ffffff">Pay</button></div>
<script>document.querySelector("img").alt = "set by a script that must not run";</script>
</main></body></html>"""

CLEAN = """<!doctype html>
<html lang="en"><head><title>Sign in</title></head>
<body><main><h1>Sign in</h1>
<img src="logo.png" alt="Acme">
<p style="color:#1a1a1a;background:#ffffff">Welcome back.</p>
<label for="mail">Email</label><input type="email" id="mail">
<button>Continue</button>
</main></body></html>"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(chain_env: TestEnv, chain_daemon: DaemonProcess) -> AsyncIterator[Client]:
    async with chain_session(chain_env) as session:
        yield session


def _ids(rules: list[dict[str, object]]) -> set[object]:
    return {r["id"] for r in rules}


async def test_known_faults_are_found_with_selectors_and_help(client: Client) -> None:
    report = await call(client, "design_scan_code_accessibility", {"html": FAULTY})
    assert report["engine"].startswith("axe-core 4.")
    found = {r["id"]: r for r in report["violations"]}
    assert {"image-alt", "color-contrast", "label", "button-name"} <= set(found)
    # The page's own script never ran: the image still has no alt text.
    assert found["image-alt"]["nodes"][0]["selector"] == "img"
    assert found["image-alt"]["impact"] == "critical"
    assert found["image-alt"]["helpUrl"].startswith("https://dequeuniversity.com/rules/axe/")
    assert "wcag2a" in found["image-alt"]["tags"]
    contrast = found["color-contrast"]
    assert len(contrast["nodes"]) == 2 and "contrast" in contrast["nodes"][0]["summary"]
    assert found["label"]["nodes"][0]["selector"] == "#mail"
    assert report["summary"]["violations"] == len(report["violations"])
    # Worst first.
    impacts = [axe_rank(r["impact"]) for r in report["violations"]]
    assert impacts == sorted(impacts)


def axe_rank(impact: str) -> int:
    return ["critical", "serious", "moderate", "minor"].index(impact)


async def test_a_clean_page_has_no_violations_and_lists_what_passed(client: Client) -> None:
    report = await call(client, "design_scan_code_accessibility", {"html": CLEAN, "includePassingRules": True})
    assert report["violations"] == []
    assert {"image-alt", "label", "button-name", "color-contrast"} <= _ids(report["passedRules"])
    assert report["summary"]["passed"] == len(report["passedRules"])


async def test_tags_and_context_narrow_the_scan_and_code_spec_mapping(client: Client) -> None:
    scoped = await call(
        client,
        "design_scan_code_accessibility",
        {"html": FAULTY, "context": "#card", "tags": ["wcag2aa"], "mapToCodeSpec": True},
    )
    assert _ids(scoped["violations"]) == {"color-contrast"}
    assert [n["selector"] for n in scoped["violations"][0]["nodes"]] == ["#card > button"]
    section = scoped["codeSpec"]["accessibility"]
    assert section["issues"] == [
        {
            "rule": "color-contrast",
            "impact": "serious",
            "selector": "#card > button",
            "message": scoped["violations"][0]["help"],
            "wcag": ["wcag2aa", "wcag143"],
            "helpUrl": scoped["violations"][0]["helpUrl"],
        }
    ]
    only_a = await call(client, "design_scan_code_accessibility", {"html": FAULTY, "tags": ["wcag2a"]})
    assert "color-contrast" not in _ids(only_a["violations"]) and "image-alt" in _ids(only_a["violations"])


async def test_many_failing_elements_show_a_few_and_count_the_rest(client: Client) -> None:
    page = '<!doctype html><html lang="en"><title>t</title><main><h1>Gallery</h1>' + '<img src="a.png">' * 8
    report = await call(client, "design_scan_code_accessibility", {"html": page, "tags": ["wcag2a"]})
    (alt,) = [r for r in report["violations"] if r["id"] == "image-alt"]
    assert len(alt["nodes"]) == 5 and alt["moreNodes"] == 3
    assert report["summary"]["violatingElements"] == 8


async def test_a_fragment_is_scanned_as_a_component_inside_a_page(client: Client) -> None:
    report = await call(client, "design_scan_code_accessibility", {"html": '<button class="icon"></button>'})
    assert _ids(report["violations"]) == {"button-name"} and "fragment" in report["note"]
    assert report["violations"][0]["nodes"][0]["html"] == '<button class="icon"></button>'
    whole = await call(
        client, "design_scan_code_accessibility", {"html": "<html><body><button></button></body></html>"}
    )
    assert {"button-name", "html-has-lang", "document-title"} <= _ids(whole["violations"]) and "note" not in whole


async def test_bad_input_is_refused_with_the_next_step(client: Client) -> None:
    big = "<p>x</p>" * (MAX_HTML_BYTES // 8 + 1)
    assert "the limit is 1,000,000" in await refused(client, "design_scan_code_accessibility", {"html": big})
    missing = await refused(client, "design_scan_code_accessibility", {"html": FAULTY, "context": "#nowhere"})
    assert "matches no element" in missing
    invalid = await refused(client, "design_scan_code_accessibility", {"html": FAULTY, "context": "[["})
    assert "not a valid CSS selector" in invalid
    unknown = await refused(client, "design_scan_code_accessibility", {"html": FAULTY, "tags": ["wcag9zz"]})
    assert "tags" in unknown


def _browsers(parent: psutil.Process | None = None) -> set[int]:
    """Browser processes below ``parent`` (default: this test process)."""
    found = set()
    for proc in (parent or psutil.Process()).children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            if "chrom" in proc.name().lower() and proc.status() != psutil.STATUS_ZOMBIE:
                found.add(proc.pid)
    return found


async def test_an_ai_app_gone_mid_scan_stops_the_browser(chain_env: TestEnv, chain_daemon: DaemonProcess) -> None:
    """The scan runs in the api worker; when its caller leaves, designd cancels it and the browser is killed."""
    slow = '<!doctype html><html lang="en"><title>t</title><main>' + '<p style="color:#aaa">x</p>' * 30000
    shim = subprocess.Popen(
        [str(BIN / "design-console-mcp")], env=chain_env.env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    assert shim.stdin is not None
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    call = {"name": "design_scan_code_accessibility", "arguments": {"html": slow}}
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ):
        shim.stdin.write(json.dumps(message).encode() + b"\n")
    shim.stdin.flush()
    daemon = psutil.Process(chain_daemon.pid)
    wait_for(lambda: _browsers(daemon), 30, "the scan's browser to start")
    shim.stdin.close()
    shim.wait(10)
    # The whole scan takes about 15 s on this page; the browser must go well before that.
    wait_for(lambda: not _browsers(daemon), 5, "the browser of the abandoned scan to be killed")


async def test_a_scan_past_its_time_is_stopped_and_leaves_no_browser() -> None:
    before = _browsers()
    with pytest.raises(DesignError) as caught:
        await axe.run_axe(FAULTY * 200, tags=[], context=None, include_passes=True, timeout=0.3)
    assert caught.value.code == ErrorCode.TIMEOUT
    assert _browsers() == before


async def test_a_cancelled_scan_leaves_no_browser() -> None:
    before = _browsers()
    task = asyncio.create_task(axe.run_axe(FAULTY, tags=[], context=None, include_passes=False, timeout=30))
    deadline = asyncio.get_running_loop().time() + 10
    while not _browsers() - before:
        assert asyncio.get_running_loop().time() < deadline, "the browser never started"
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _browsers() == before


async def test_a_missing_browser_names_the_next_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DesignError) as caught:
        devtools.find_browser(tmp_path / "chrome")
    assert caught.value.code == ErrorCode.BAD_CONFIG and "DESIGN_BROWSER" in caught.value.message
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(DesignError) as caught:
        devtools.find_browser(None)
    assert caught.value.code == ErrorCode.UNAVAILABLE and "Install Chromium" in str(caught.value)


async def test_large_reports_are_cut_to_the_budget_and_say_what_was_left_out() -> None:
    rule = {
        "id": "r",
        "impact": "minor",
        "help": "h",
        "helpUrl": "u",
        "tags": ["wcag2a"],
        "nodeCount": 40,
        "nodes": [{"target": [f"#n{i}"], "html": "<b>" * 100, "failureSummary": "s"} for i in range(40)],
    }
    raw = {"engine": "axe-core 4", "violations": [{**rule, "id": f"r{i}"} for i in range(60)], "incomplete": []}
    report = shape_report(raw, include_passes=False, budget=6000)
    assert len(report["violations"]) < 60 and all(
        len(r["nodes"]) == 5 and r["moreNodes"] == 35 for r in report["violations"]
    )
    assert len(report["violations"]) + len(report["notShown"]) == 60
    assert report["notShown"][0]["elements"] == 40
