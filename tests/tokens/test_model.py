"""The neutral model against the design tool's variables snapshot, and colour and size conversions."""

from __future__ import annotations

import random

import pytest

from design_console.tokens.model import Alias, from_variables, index, infer_float_type, resolve, to_variables
from design_console.tokens.values import (
    Color,
    ColorFormat,
    color_text,
    design_color,
    hex_text,
    parse_color,
    parse_size,
    size_text,
)
from tokens.gen import token_set

SNAPSHOT = {
    "variableCollections": [
        {
            "id": "VariableCollectionId:1",
            "name": "Theme",
            "modes": [{"modeId": "1:1", "name": "Dark"}, {"modeId": "1:0", "name": "Light"}],
            "defaultModeId": "1:0",
        }
    ],
    "variables": [
        {
            "id": "VariableID:1",
            "name": "color/bg",
            "resolvedType": "COLOR",
            "description": "Page",
            "valuesByMode": {"1:0": {"r": 1, "g": 1, "b": 1, "a": 1}, "1:1": {"r": 0, "g": 0, "b": 0, "a": 0.5}},
            "variableCollectionId": "VariableCollectionId:1",
        },
        {
            "id": "VariableID:2",
            "name": "surface",
            "resolvedType": "COLOR",
            "valuesByMode": {
                "1:0": {"type": "VARIABLE_ALIAS", "id": "VariableID:1"},
                "1:1": {"type": "VARIABLE_ALIAS", "id": "VariableID:1"},
            },
            "variableCollectionId": "VariableCollectionId:1",
        },
        {
            "id": "VariableID:3",
            "name": "radius/m",
            "resolvedType": "FLOAT",
            "valuesByMode": {"1:0": 8, "1:1": 8},
            "variableCollectionId": "VariableCollectionId:1",
        },
        {
            "id": "VariableID:4",
            "name": "opacity/muted",
            "resolvedType": "FLOAT",
            "valuesByMode": {"1:0": 0.5, "1:1": 0.4},
            "variableCollectionId": "VariableCollectionId:1",
        },
    ],
}


def test_from_variables_names_modes_and_aliases() -> None:
    ts = from_variables(SNAPSHOT)
    (coll,) = ts.collections
    assert coll.modes == ["Light", "Dark"]
    bg, surface, radius, opacity = coll.tokens
    assert bg.values == {"Light": Color(1, 1, 1, 1), "Dark": Color(0, 0, 0, 0.5)} and bg.description == "Page"
    assert surface.values["Light"] == Alias("color/bg", "Theme")
    assert (radius.type, opacity.type) == ("dimension", "number")
    assert resolve(index(ts), surface.values["Dark"], "Dark") == Color(0, 0, 0, 0.5)
    assert bg.id == SNAPSHOT["variables"][0]["id"]


def test_variables_round_trip() -> None:
    """Everything survives the design tool's shape except number vs dimension (both FLOAT there): a FLOAT whose
    name says unitless (opacity…) reads back as a number, any other as a dimension."""
    ts = token_set(200)
    again = from_variables(to_variables(ts))
    for _, token in again.tokens():
        # The design tool's ids come along; the generated tokens have none.
        assert token.id.startswith("VariableID:")
        token.id = ""
    for _, token in ts.tokens():
        if token.type in ("number", "dimension"):
            token.type = infer_float_type(token.name)
    assert again == ts
    assert from_variables(to_variables(from_variables(SNAPSHOT))) == from_variables(SNAPSHOT)


@pytest.mark.parametrize(("fmt", "tolerance"), [("hex", 0), ("hex8", 0), ("rgba", 0), ("hsl", 1), ("oklch", 1)])
def test_colour_text_round_trips(fmt: ColorFormat, tolerance: int) -> None:
    """Channels written and read back land on the same 1/255 step (hex, hex8, rgba) or within one step (hsl and
    oklch round their text); alpha keeps three decimals."""
    rng = random.Random(3)
    for _ in range(2000):
        c = Color(
            rng.randrange(256) / 255, rng.randrange(256) / 255, rng.randrange(256) / 255, rng.randrange(256) / 255
        )
        back = parse_color(color_text(c, fmt))
        assert back is not None
        steps = [abs(round(x * 255) - round(y * 255)) for x, y in ((c.r, back.r), (c.g, back.g), (c.b, back.b))]
        assert max(steps) <= tolerance, (c, color_text(c, fmt))
        assert abs(back.a - c.a) <= (0.5 / 255 if fmt in ("hex", "hex8") else 0.0005)


def test_known_colour_texts() -> None:
    assert color_text(Color(1, 0, 0), "oklch") == "oklch(62.796% 0.25768 29.234 / 1)"
    assert color_text(Color(1, 0, 0, 0.5), "hsl") == "hsl(0 100% 50% / 0.5)"
    assert parse_color("#f00") == Color(1, 0, 0, 1)
    assert parse_color("rgb(255 0 0 / 50%)") == Color(1, 0, 0, 0.5)
    white = parse_color("oklch(100% 0 0)")
    assert white is not None and min(white.r, white.g, white.b) > 0.999
    assert parse_color("tomato") is None


def test_hex_is_upper_case_with_halves_rounded_up() -> None:
    """As the plugin writes it: an alpha of 0.3 is 76.5/255, written 4D (``round()`` would give 4C)."""
    assert hex_text(Color(1, 0, 0.5)) == "#FF0080"
    assert hex_text(Color(0.2, 0.4, 0.9, 0.3)) == "#3366E64D"
    assert hex_text(Color(0.2, 0.4, 0.9, 0.3), alpha=False) == "#3366E6"
    assert hex_text(Color(0, 0, 0), alpha=True) == "#000000FF"
    assert hex_text(Color(1.2, -0.1, 0.5, 0.7)) == "#FF0080B3"
    assert color_text(Color(0.2, 0.4, 0.9, 0.3), "rgba") == "rgba(51, 102, 230, 0.3)"
    assert hex_text(design_color({"r": 0.2, "g": 0.4, "b": 0.9}, opacity=0.3)) == "#3366E64D"
    assert design_color({}) == Color(0, 0, 0, 1)


@pytest.mark.parametrize(
    ("px", "unit", "base", "text"),
    [
        (16, "rem", 16, "1rem"),
        (12, "pt", 16, "9pt"),
        (24, "rem", 10, "2.4rem"),
        (0, "px", 16, "0px"),
        (13, "dp", 16, "13dp"),
    ],
)
def test_sizes(px: float, unit: str, base: float, text: str) -> None:
    assert size_text(px, unit, base) == text  # type: ignore[arg-type]
    assert parse_size(text, base) == pytest.approx(px)
