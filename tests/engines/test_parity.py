"""The parity engine on its own: token spellings, the design side read from the fake API's design-system document,
and how scores and fixes follow from the comparison."""

from __future__ import annotations

import pytest
from fakes.design_api import design_system_file

from design_console.engines import parity


def _button_set() -> dict:
    components_page = design_system_file("DS")["document"]["children"][0]
    return next(n for n in components_page["children"] if n["id"] == "1:2")


@pytest.mark.parametrize(
    "spelling",
    [
        "--color-action-primary",
        "{color.action.primary}",
        "$color_action_primary",
        "color/action/primary",
        "Color.Action.Primary",
    ],
)
def test_token_spellings_are_one_name(spelling: str) -> None:
    assert parity.token_key(spelling) == "color/action/primary"


def test_design_side_of_a_component_set_is_its_default_variant() -> None:
    button = _button_set()
    names = {"VariableID:29:29": "spacing/16", "VariableID:35:35": "action/primary", "VariableID:34:34": "text/primary"}
    spec = parity.design_spec(button, {"description": "Buttons"}, names)
    assert spec["visual"] == {"opacity": 1, "backgroundColor": "#3366E6", "textColor": "#1A1A1A", "borderRadius": 4}
    assert spec["spacing"] == {"paddingLeft": 16, "paddingRight": 16, "width": 96, "height": 40}
    assert spec["typography"] == {"fontFamily": "Inter", "fontSize": 14, "fontWeight": 400}
    assert spec["tokens"] == ["spacing/16", "action/primary", "text/primary"]
    assert spec["componentAPI"] == [
        {"name": "State", "type": "variant", "values": ["Default", "Hover", "Disabled"], "default": "Default"}
    ]
    assert spec["accessibility"] == {"focusVisible": False, "disabledState": True, "minTargetSize": 40}
    assert parity.design_spec(button, {}, None)["tokens"] is None


def test_matching_code_scores_100_and_differences_lower_it() -> None:
    design = parity.design_spec(_button_set(), {}, {})
    same = parity.parse_code_spec({"visual": {"backgroundColor": "rgb(51, 102, 230)"}, "spacing": {"height": 40.3}})
    result = parity.compare(design, same, canonical="design", node_id="1:2")
    assert (result["score"], result["compared"], result["fixes"]) == (100, 2, [])
    off = parity.parse_code_spec({"spacing": {"height": 41.5, "width": 120}})
    result = parity.compare(design, off, canonical="code", node_id="1:2")
    assert result["score"] == 0
    assert [d["severity"] for d in result["categories"]["spacing"]["discrepancies"]] == ["major", "minor"]
    assert [f["change"] for f in result["fixes"]] == ["design", "design"]


def test_only_tokens_without_names_leave_nothing_scored() -> None:
    design = parity.design_spec(_button_set(), {}, None)
    result = parity.compare(design, parity.parse_code_spec({"tokens": ["a"]}), canonical="design", node_id="1:2")
    assert result["score"] is None and result["compared"] == 0 and "tokens" in result["notes"][0]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"visual": {"bg": "#fff"}}, "unknown field `bg`"),
        ({"componentAPI": {"props": [{"type": "variant"}]}}, "missing required field `name`"),
        ({"visual": {"textColor": "ink"}}, "codeSpec.visual.textColor"),
        ({"filePath": "x.tsx"}, "nothing to compare"),
    ],
)
def test_bad_code_specs_say_what_to_fix(raw: dict, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parity.parse_code_spec(raw)
    assert message in str(caught.value)
