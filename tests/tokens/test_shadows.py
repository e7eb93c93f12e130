"""Shadow tokens: each format writes them in its own shape (CSS ``box-shadow`` text, DTCG ``shadow``, Tokens Studio
``boxShadow``, Tailwind's shadow places); the formats that declare types read them back as shadows; reading files
for variables lists them as skipped with the reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

from design_console import tokens
from design_console.tokens import ExportOptions
from design_console.tokens.model import NO_VARIABLE, Alias, Collection, Token, TokenSet, skip_no_variable
from design_console.tokens.values import Color, Shadow, ShadowLayer, parse_shadow, shadow_text

RAISED = Shadow(
    (
        ShadowLayer(Color(0.0, 0.0, 0.0, 0.25), 0, 2, 8, 0),
        ShadowLayer(Color(1.0, 1.0, 1.0, 0.5), 0, 1, 0, -1, inset=True),
    )
)
CARD = Shadow((ShadowLayer(Color(0.2, 0.4, 0.8), 1, 1, 2, 0),))
RAISED_CSS = "0px 2px 8px 0px #00000040, inset 0px 1px 0px -1px #FFFFFF80"


def shadow_set() -> TokenSet:
    """Two modes; a shadow of two layers (one inset) and one of one layer, an alias to a shadow, and a colour."""
    coll = Collection(
        "effects",
        ["light", "dark"],
        [
            Token("elevation/raised", "shadow", {"light": RAISED, "dark": CARD}, "Cards above the page"),
            Token("elevation/card", "shadow", {"light": CARD, "dark": CARD}),
            Token("elevation/menu", "shadow", {"light": Alias("elevation/raised", "effects"), "dark": CARD}),
            Token("ink", "color", {"light": Color(0.0, 0.0, 0.0), "dark": Color(1.0, 1.0, 1.0)}),
        ],
    )
    return TokenSet([coll])


def one(files: dict[str, str]) -> str:
    (text,) = files.values()
    return text


def test_shadow_text_reads_back() -> None:
    assert shadow_text(RAISED) == RAISED_CSS
    assert parse_shadow(RAISED_CSS) == Shadow(
        (
            ShadowLayer(Color(0, 0, 0, 64 / 255), 0, 2, 8, 0),
            ShadowLayer(Color(1, 1, 1, 128 / 255), 0, 1, 0, -1, inset=True),
        )
    )
    # Two sizes are the offsets (no blur, no spread); a colour may come first; a bare 0 is a size.
    assert parse_shadow("rgba(0, 0, 0, 0.5) 0 3px") == Shadow((ShadowLayer(Color(0, 0, 0, 0.5), 0, 3),))
    for text in ("none", "4px red", "1px 2px 3px 4px 5px red", "1px 2px"):
        assert parse_shadow(text) is None, text


@pytest.mark.parametrize(
    ("fmt", "lines"),
    [
        (
            "css-vars",
            [
                f"  --elevation-raised: {RAISED_CSS}; /* Cards above the page */",
                "  --elevation-menu: var(--elevation-raised);",
            ],
        ),
        (
            "scss",
            [
                f"$elevation-raised: {RAISED_CSS}; // Cards above the page",
                "$elevation-menu--dark: 1px 1px 2px 0px #3366CC;",
            ],
        ),
        ("less", [f"@elevation-raised: {RAISED_CSS}; // Cards above the page", "@elevation-menu: @elevation-raised;"]),
        (
            "tailwind-v4",
            [
                f"  --shadow-elevation-raised: {RAISED_CSS}; /* Cards above the page */",
                "  --shadow-elevation-menu: var(--shadow-elevation-raised);",
                "  --ink: #000000;",
            ],
        ),
    ],
)  # fmt: skip
def test_stylesheets_write_box_shadow_values(fmt: tokens.Format, lines: list[str]) -> None:
    text = one(tokens.export(shadow_set(), fmt))
    for line in lines:
        assert line in text.splitlines(), line


def test_tailwind_v3_writes_box_shadow_of_the_first_mode() -> None:
    text = one(tokens.export(shadow_set(), "tailwind-v3"))
    extend = json.loads(text.split("module.exports = ", 1)[1].rstrip().rstrip(";"))["theme"]["extend"]
    assert extend["boxShadow"] == {"elevation": {"raised": RAISED_CSS, "card": shadow_text(CARD), "menu": RAISED_CSS}}
    assert extend["colors"] == {"ink": "#000000"}


def test_dtcg_legacy_and_style_dictionary_write_shadow_layers() -> None:
    layers = [
        {"color": "#00000040", "offsetX": "0px", "offsetY": "2px", "blur": "8px", "spread": "0px"},
        {"color": "#FFFFFF80", "offsetX": "0px", "offsetY": "1px", "blur": "0px", "spread": "-1px", "inset": True},
    ]
    dtcg = json.loads(one(tokens.export(shadow_set(), "dtcg")))["effects"]["elevation"]
    assert dtcg["raised"]["$type"] == "shadow" and dtcg["raised"]["$value"] == layers
    # One layer is one object; another mode rides in the extension in the same shape.
    card = {"color": "#3366CC", "offsetX": "1px", "offsetY": "1px", "blur": "2px", "spread": "0px"}
    assert dtcg["raised"]["$extensions"]["com.design-console"]["modes"] == {"dark": card}
    assert dtcg["menu"]["$value"] == "{effects.elevation.raised}"
    sd3 = json.loads(one(tokens.export(shadow_set(), "style-dictionary-v3")))["effects"]["elevation"]
    assert sd3["raised"]["type"] == "shadow" and sd3["raised"]["value"] == layers


def test_dtcg_2025_writes_colour_and_dimension_objects() -> None:
    opts = ExportOptions(dtcg_dialect="2025", size_unit="rem")
    raised = json.loads(one(tokens.export(shadow_set(), "dtcg", opts)))["effects"]["elevation"]["raised"]
    assert raised["$type"] == "shadow"
    first, second = raised["$value"]
    assert first == {
        "color": {"colorSpace": "srgb", "components": [0, 0, 0], "alpha": 0.25, "hex": "#000000"},
        "offsetX": {"value": 0, "unit": "rem"},
        "offsetY": {"value": 0.125, "unit": "rem"},
        "blur": {"value": 0.5, "unit": "rem"},
        "spread": {"value": 0, "unit": "rem"},
    }
    assert second["inset"] is True and second["spread"] == {"value": -0.0625, "unit": "rem"}


def test_tokens_studio_writes_box_shadow() -> None:
    data = json.loads(one(tokens.export(shadow_set(), "tokens-studio")))
    raised = data["effects/light"]["elevation"]["raised"]
    assert raised["type"] == "boxShadow" and raised["description"] == "Cards above the page"
    assert raised["value"] == [
        {"x": "0px", "y": "2px", "blur": "8px", "spread": "0px", "color": "#00000040", "type": "dropShadow"},
        {"x": "0px", "y": "1px", "blur": "0px", "spread": "-1px", "color": "#FFFFFF80", "type": "innerShadow"},
    ]
    assert data["effects/dark"]["elevation"]["raised"]["value"]["type"] == "dropShadow"
    assert data["effects/light"]["elevation"]["menu"]["value"] == "{elevation.raised}"


@pytest.mark.parametrize("fmt", ["ts-module", "json-flat", "json-nested"])
def test_value_formats_write_box_shadow_text(fmt: tokens.Format) -> None:
    text = one(tokens.export(shadow_set(), fmt))
    assert f'"{RAISED_CSS}"' in text
    assert '"1px 1px 2px 0px #3366CC"' in text


def facts(ts: TokenSet) -> dict[tuple[str, str], Any]:
    def canon(value: Any) -> Any:
        return shadow_text(value, "hex8") if isinstance(value, Shadow) else value

    return {(c.name, t.name): (t.type, {m: canon(v) for m, v in t.values.items()}) for c, t in ts.tokens()}


ROUND_TRIPS = [
    ("dtcg", ExportOptions()),
    ("dtcg", ExportOptions(dtcg_dialect="2025")),
    ("style-dictionary-v3", ExportOptions()),
    ("tokens-studio", ExportOptions()),
]


@pytest.mark.parametrize(("fmt", "opts"), ROUND_TRIPS, ids=[f"{f}-{o.dtcg_dialect}" for f, o in ROUND_TRIPS])
def test_typed_formats_read_shadows_back(fmt: tokens.Format, opts: ExportOptions) -> None:
    source = shadow_set()
    files = tokens.export(source, fmt, opts)
    back = tokens.parse(files, fmt)
    assert facts(back) == facts(source)
    assert back.collections[0].tokens[0].description == "Cards above the page"
    assert tokens.export(back, fmt, opts) == files


def test_tailwind_v3_reads_box_shadow_back() -> None:
    back = tokens.parse(tokens.export(shadow_set(), "tailwind-v3"), "tailwind-v3")
    shadows = {t.name: t.values["default"] for t in back.collections[0].tokens if t.type == "shadow"}
    assert {n: shadow_text(v, "hex8") for n, v in shadows.items()} == {
        "elevation/raised": "0px 2px 8px 0px #00000040, inset 0px 1px 0px -1px #FFFFFF80",
        "elevation/card": "1px 1px 2px 0px #3366CCFF",
        "elevation/menu": "0px 2px 8px 0px #00000040, inset 0px 1px 0px -1px #FFFFFF80",
    }


def test_stylesheet_loss_a_shadow_reads_back_as_its_text() -> None:
    """CSS text has no shadow type: the value comes back as the string it is (Tailwind v4 adds its namespace)."""
    back = tokens.parse(tokens.export(shadow_set(), "tailwind-v4"), "tailwind-v4")
    (raised,) = [t for t in back.collections[0].tokens if t.name == "shadow/elevation/raised"]
    assert raised.type == "string" and raised.values["light"] == RAISED_CSS


def test_shadows_with_references_inside_are_listed_not_read() -> None:
    text = json.dumps(
        {
            "raised": {"$type": "shadow", "$value": {"color": "{base.black}", "offsetX": "0px", "offsetY": "1px"}},
            "flat": {"$type": "shadow", "$value": {"color": "#000", "offsetY": "1px"}},
        }
    )
    (coll,) = tokens.parse({"t.json": text}, "dtcg").collections
    assert coll.skipped == {"raised": NO_VARIABLE["shadow"]}
    assert [t.values for t in coll.tokens] == [{"default": Shadow((ShadowLayer(Color(0, 0, 0), 0, 1),))}]
    studio = json.dumps({"fx/default": {"glow": {"type": "boxShadow", "value": {"x": 0, "color": "{ink}"}}}})
    assert tokens.parse({"s.json": studio}, "tokens-studio").collections[0].skipped == {"glow": NO_VARIABLE["shadow"]}


def test_reading_for_variables_skips_shadows_with_the_reason() -> None:
    back = tokens.parse(tokens.export(shadow_set(), "dtcg"), "dtcg")
    skip_no_variable(back)
    (coll,) = back.collections
    assert [t.name for t in coll.tokens] == ["ink"]
    reason = "shadow: a shadow is a composite value (an effect style in a design tool)"
    assert coll.skipped == {"elevation/raised": reason, "elevation/card": reason, "elevation/menu": reason}
