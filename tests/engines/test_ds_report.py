"""The design-system health report's scoring, over a small hand-built system whose every score is worked out below."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakes.context import FakeContext
from fakes.design_api import ENTERPRISE_KEY, PRO_KEY

from design_console.engines.ds_report import AuditData, build_report, contrast_ratio, top_findings

REPORT = "design_audit_design_system_report"
BLUE = {"r": 0, "g": 0, "b": 1, "a": 1}


def alias(target: str) -> dict[str, str]:
    return {"type": "VARIABLE_ALIAS", "id": target}


def var(vid: str, name: str, kind: str, collection: str, values: dict[str, Any]) -> dict[str, Any]:
    return {"id": vid, "name": name, "resolvedType": kind, "variableCollectionId": collection, "valuesByMode": values}


def system() -> AuditData:
    return AuditData(
        collections=[
            {"id": "c1", "name": "Colour", "modes": [{"modeId": "m1", "name": "L"}, {"modeId": "m2", "name": "D"}]},
            {"id": "c2", "name": "Space", "modes": [{"modeId": "n1", "name": "Base"}]},
        ],
        variables=[
            var("v1", "color/blue/500", "COLOR", "c1", {"m1": BLUE, "m2": BLUE}),
            var("v2", "color/primary", "COLOR", "c1", {"m1": alias("v1"), "m2": alias("v1")}),
            var("v3", "Brand Blue", "COLOR", "c1", {"m1": BLUE, "m2": BLUE}),
            var("v4", "space/4", "FLOAT", "c2", {"n1": 4}),
            var("v5", "space/8", "FLOAT", "c2", {}),
        ],
        components=[
            {"id": "k1", "name": "Button", "type": "COMPONENT_SET", "description": "Main action", "variants": 3,
             "width": 80, "height": 32},
            {"id": "k2", "name": "Icon/Close", "type": "COMPONENT", "description": "", "width": 16, "height": 16},
            {"id": "k3", "name": "Component 1", "type": "COMPONENT", "description": ""},
            {"id": "k4", "name": "Toggle", "type": "COMPONENT_SET", "description": "On/off", "variants": 1,
             "width": 20, "height": 20},
        ],
        styles=[{"id": "s1", "name": "Body/Regular", "type": "TEXT"}, {"id": "s2", "name": "Style 3", "type": "PAINT"}],
        nodes=[
            {"id": "n1", "type": "TEXT", "fill": "#777777", "fillBound": True, "background": "#ffffff", "fontSize": 14,
             "textStyle": True},
            {"id": "n2", "type": "TEXT", "fill": "#000000", "background": "#ffffff", "fontSize": 10,
             "textStyle": False},
            {"id": "n3", "type": "FRAME", "fill": "#ffffff", "fillStyle": True},
            {"id": "n4", "type": "RECTANGLE", "fill": "#ff0000"},
            {"id": "n5", "type": "INSTANCE", "component": "k2"},
        ],
    )  # fmt: skip


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in report["categories"]}


def rules(category: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in category["findings"]}


def test_each_category_scores_the_share_of_checks_that_pass() -> None:
    report = build_report(system())
    cats = by_id(report)
    # naming: 5 grouping + 5 whitespace + 11 default-name checks; v3 fails two, k3 and s2 one each: 17/21.
    assert (cats["naming-semantics"]["checked"], cats["naming-semantics"]["score"]) == (21, 81)
    # tokens: 5 mode checks (v5 fails), 3 duplicate checks (v3 repeats v1), 1 alias-layer check (passes): 7/9.
    assert (cats["token-architecture"]["checked"], cats["token-architecture"]["score"]) == (9, 78)
    # components: k2 and k3 lack descriptions (2 of 4), k4 has one variant (1 of 2): 3/6.
    assert cats["component-metadata"]["score"] == 50
    # accessibility: #777 on white is 4.48:1 (1 of 2), 10 px text (1 of 2), a 20x20 toggle (1 of 2): 3/6.
    assert cats["accessibility"]["score"] == 50
    # consistency: n2 and n4 hard-code their fill (2 of 4), n2 has no text style (1 of 2): 3/6.
    assert cats["consistency"]["score"] == 50
    # coverage: all four foundations there, k3 has no instance (1 of 2 standalone components): 5/6.
    assert cats["coverage"]["score"] == 83
    # (81*20 + 78*20 + 50*20 + 50*15 + 50*15 + 83*10) / 100 = 65.1
    assert report["score"] == 65
    assert report["counts"] == {"variables": 5, "collections": 2, "components": 4, "styles": 2, "nodes": 5}


def test_findings_name_what_fails_and_how_to_fix_it() -> None:
    cats = by_id(build_report(system()))
    naming = rules(cats["naming-semantics"])
    assert naming["naming.default-name"]["ids"] == ["k3", "s2"]
    assert naming["naming.default-name"]["message"] == "2 of 11 variables, components or styles keep a default name."
    assert naming["naming.ungrouped-variable"]["ids"] == ["v3"]
    tokens = rules(cats["token-architecture"])
    assert tokens["tokens.missing-mode-value"]["severity"] == "error"
    assert tokens["tokens.missing-mode-value"]["ids"] == ["v5"]
    assert tokens["tokens.duplicate-color"]["ids"] == ["v3"]
    assert "tokens.no-alias-layer" not in tokens
    a11y = rules(cats["accessibility"])
    assert a11y["a11y.contrast"]["ids"] == ["n1"] and a11y["a11y.target-size"]["ids"] == ["k4"]
    assert rules(cats["consistency"])["consistency.hardcoded-fill"]["ids"] == ["n2", "n4"]
    assert rules(cats["coverage"])["coverage.unused-component"]["ids"] == ["k3"]
    # Errors come first in a category, then the rules with most failures.
    assert [f["severity"] for f in cats["accessibility"]["findings"]] == ["error", "warning", "warning"]
    worst = top_findings(build_report(system()), 2)
    assert [(f["category"], f["id"]) for f in worst] == [
        ("token-architecture", "tokens.missing-mode-value"),
        ("accessibility", "a11y.contrast"),
    ]
    assert all("ids" not in f for f in worst)


def test_an_empty_file_scores_only_what_it_lacks() -> None:
    report = build_report(AuditData())
    cats = by_id(report)
    assert [cats[c]["score"] for c in cats] == [100, 100, 100, 100, 100, 0]
    (missing,) = cats["coverage"]["findings"]
    assert missing["message"].endswith("Missing: color, spacing, typography, components.")
    assert "ids" not in missing
    assert report["score"] == 90


def test_a_palette_without_aliases_has_no_semantic_layer() -> None:
    data = AuditData(
        collections=[{"id": "c", "modes": [{"modeId": "m"}]}],
        variables=[
            var("a", "color/red", "COLOR", "c", {"m": {"r": 1, "g": 0, "b": 0, "a": 1}}),
            var("b", "color/blue", "COLOR", "c", {"m": BLUE}),
        ],
    )
    tokens = by_id(build_report(data))["token-architecture"]
    assert list(rules(tokens)) == ["tokens.no-alias-layer"]
    assert tokens["score"] == 80  # 2 mode checks + 2 duplicate checks pass, the one layer check fails: 4/5


@pytest.mark.parametrize(
    ("fg", "bg", "ratio"),
    [
        ("#000000", "#ffffff", 21.0),
        ("#ffffff", "#ffffff", 1.0),
        ("#777777", "#ffffff", 4.48),
        ("#767676", "#fff", 4.54),
    ],
)
def test_contrast_ratio_follows_wcag(fg: str, bg: str, ratio: float) -> None:
    assert contrast_ratio(fg, bg) == pytest.approx(ratio, abs=0.01)
    assert contrast_ratio("not a colour", bg) is None


async def test_without_a_plugin_the_design_api_answers(ctx: FakeContext) -> None:
    """The fallback route: the fake design API's design-system files, read through the real client."""
    ctx.pushed["change_seq"] = 0
    full = json.loads((await ctx.run(REPORT, {"fileUrl": ENTERPRISE_KEY, "format": "full"})).content[0].text)
    assert full["source"] == "design_api" and full["fromCache"] is False
    assert full["notes"] == ["No Desktop Bridge plugin is connected in this file; read through the design API."]
    variables = (await ctx.api.request("GET", f"/v1/files/{ENTERPRISE_KEY}/variables/local"))["meta"]["variables"]
    assert full["counts"]["variables"] == len(variables) and full["counts"]["components"] == 2
    consistency = {f["id"]: f for f in by_id(full)["consistency"]["findings"]}
    # The file's four text layers carry no text style; its one unbound fill is the frame 1:4.
    assert consistency["consistency.no-text-style"]["ids"] == ["1:30", "1:31", "1:32", "2:2"]
    assert consistency["consistency.hardcoded-fill"]["ids"] == ["1:4"]
    again = json.loads((await ctx.run(REPORT, {"fileUrl": ENTERPRISE_KEY})).content[0].text)
    assert again["fromCache"] is True and again["score"] == full["score"]

    # A Professional plan cannot read variables over the API: the report says so and scores the rest.
    pro = json.loads((await ctx.run(REPORT, {"fileUrl": PRO_KEY})).content[0].text)
    assert pro["counts"]["variables"] == 0 and "Variables unavailable" in pro["notes"][1]
    assert next(c for c in pro["categories"] if c["id"] == "token-architecture")["findings"] == 0
