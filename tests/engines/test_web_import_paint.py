"""The web import engine on what real pages use: styled runs, gradients, transforms, per-side borders, background
icons, blend modes and filters, each checked against where the page draws it."""

from __future__ import annotations

import math
from typing import Any

import pytest
from fakes.page_entries import el, page, style, text

from design_console.engines.web_import.convert import convert_page
from design_console.engines.web_import.gradients import GradientError, gradient_paint


def _at(transform: list[list[float]], u: float, v: float) -> tuple[float, float]:
    """Where a point of the layer's unit square lands in the gradient's space."""
    (a, b, c), (d, e, f) = transform
    return a * u + b * v + c, d * u + e * v + f


def _close(found: tuple[float, float], expected: tuple[float, float]) -> bool:
    return math.isclose(found[0], expected[0], abs_tol=1e-4) and math.isclose(found[1], expected[1], abs_tol=1e-4)


def test_a_linear_gradient_runs_along_the_css_gradient_line() -> None:
    paint = gradient_paint("linear-gradient(90deg, rgb(13, 110, 253) 0%, rgb(102, 16, 242) 100%)", 300, 120)
    assert paint["type"] == "GRADIENT_LINEAR"
    # 90deg runs left to right: the left edge is the start, the right edge the end, on the gradient's axis.
    assert _close(_at(paint["gradientTransform"], 0, 0.5), (0, 0.5))
    assert _close(_at(paint["gradientTransform"], 1, 0.5), (1, 0.5))
    stops = paint["gradientStops"]
    assert [s["position"] for s in stops] == [0, 1]
    assert stops[0]["color"] == {"r": 13 / 255, "g": 110 / 255, "b": 253 / 255, "a": 1.0}
    # The default (to bottom) runs top to bottom; stops without a place are spread evenly.
    down = gradient_paint("linear-gradient(rgb(255, 0, 0), rgb(0, 255, 0), rgb(0, 0, 255))", 100, 50)
    assert _close(_at(down["gradientTransform"], 0.5, 0), (0, 0.5))
    assert _close(_at(down["gradientTransform"], 0.5, 1), (1, 0.5))
    assert [s["position"] for s in down["gradientStops"]] == [0, 0.5, 1]
    # A corner: the far corner is where the gradient ends.
    corner = gradient_paint("linear-gradient(to right bottom, rgb(0, 0, 0), rgb(255, 255, 255))", 200, 100)
    assert math.isclose(_at(corner["gradientTransform"], 1, 1)[0], 1, abs_tol=1e-4)
    assert math.isclose(_at(corner["gradientTransform"], 0, 0)[0], 0, abs_tol=1e-4)


def test_radial_and_conic_gradients_are_centred_where_the_css_puts_them() -> None:
    down = gradient_paint("linear-gradient(rgb(41, 55, 240), rgb(159, 26, 240))", 100, 50)
    radial = gradient_paint("radial-gradient(circle at 25% 50%, rgb(255, 255, 255) 0%, rgb(0, 0, 0) 100%)", 200, 100)
    assert radial["type"] == "GRADIENT_RADIAL"
    assert _close(_at(radial["gradientTransform"], 0.25, 0.5), (0.5, 0.5))
    # farthest-corner: the circle reaches the far corner (150, 50 px away) at the gradient's edge (0.5 from centre).
    edge = _at(radial["gradientTransform"], 1, 1)
    assert math.isclose(math.hypot(edge[0] - 0.5, edge[1] - 0.5), 0.5, abs_tol=1e-4)
    conic = gradient_paint("conic-gradient(from 90deg, rgb(255, 0, 0), rgb(0, 0, 255))", 100, 100)
    assert conic["type"] == "GRADIENT_ANGULAR"
    assert _close(_at(conic["gradientTransform"], 0.5, 0.5), (0.5, 0.5))
    # From 90deg (pointing right on the page) is the angular gradient's start direction (+x in its space).
    start = _at(conic["gradientTransform"], 1, 0.5)
    assert start[0] > 0.5 and math.isclose(start[1], 0.5, abs_tol=1e-4)
    # The -webkit- syntax names where the gradient starts, and turns its angles the other way.
    legacy = gradient_paint("-webkit-linear-gradient(top, rgb(41, 55, 240), rgb(159, 26, 240))", 100, 50)
    assert legacy["gradientTransform"] == down["gradientTransform"]
    east = gradient_paint("-webkit-linear-gradient(0deg, rgb(0, 0, 0), rgb(255, 255, 255))", 100, 50)
    assert _close(_at(east["gradientTransform"], 1, 0.5), (1, 0.5))
    with pytest.raises(GradientError, match="not an sRGB colour"):
        gradient_paint("linear-gradient(color(display-p3 1 0 0), rgb(0, 0, 0))", 10, 10)


def test_a_paragraph_with_inline_runs_is_one_text_with_ranges() -> None:
    walked = page(
        el(-1, "html", 0, 0, 800, 600),
        el(0, "body", 0, 0, 800, 600),
        {
            **text(1, "$0/mo", 24, 40, 90, box=46),
            "style": style(fontSize=40, fontWeight="700", line="48px"),
            "runs": [
                {"start": 0, "end": 2},
                {"start": 2, "end": 5, "style": style(fontSize=16, fontWeight="400", color="rgb(108, 117, 125)")},
            ],
        },
        {
            **text(1, "by Mark", 24, 100, 60),
            "runs": [{"start": 0, "end": 3}, {"start": 3, "end": 7, "href": "https://example.com/mark"}],
        },
    )
    price, byline = convert_page(walked, width=800, name="P").root["children"]
    assert (price["characters"], price["fontSize"], price["fontWeight"]) == ("$0/mo", 40, 700)
    (small,) = price["ranges"]
    assert (small["start"], small["end"], small["fontSize"], small["fontWeight"]) == (2, 5, 16, 400)
    assert small["fills"][0]["color"] == {"r": 108 / 255, "g": 117 / 255, "b": 125 / 255}
    assert "families" not in small  # the same as the text's: not repeated
    assert byline["ranges"] == [{"start": 3, "end": 7, "url": "https://example.com/mark"}]


def test_a_rotated_box_turns_about_its_origin_and_its_content_turns_with_it() -> None:
    turned = el(1, "div", 64, 615, 120, 60, bg="rgb(255, 193, 7)")
    turned["transform"] = {"m": [0.866025, 0.5, -0.5, 0.866025, 0, 0], "origin": [124, 645]}
    walked = page(
        el(-1, "html", 0, 0, 800, 900),
        el(0, "body", 0, 0, 800, 900),
        turned,
        text(2, "Hi", 74, 625, 20),
    )
    out = convert_page(walked, width=800, name="P")
    (box,) = out.root["children"]
    # CSS turns clockwise, the design tool counter-clockwise; the top-left goes where the page draws it.
    assert box["rotation"] == -30
    assert (box["x"], box["y"]) == (87.04, 589.02)
    assert (box["width"], box["height"]) == (120, 60)
    (label,) = box["children"]
    assert (label["x"], label["y"]) == (10, 8)
    squashed = el(1, "div", 0, 0, 100, 100, bg="rgb(0, 0, 0)")
    squashed["transform"] = {"m": [2, 0, 0.5, 1, 0, 0], "origin": [50, 50]}
    walked = page(el(-1, "html", 0, 0, 800, 600), el(0, "body", 0, 0, 800, 600), squashed)
    warned = convert_page(walked, width=800, name="P")
    assert "skew of body > div is not carried: drawn turned only" in warned.warnings
    assert "scale (2.00, 1.00) of body > div is not carried: drawn at its own size" in warned.warnings


def _one_box(**styles: Any) -> tuple[dict[str, Any], list[str]]:
    box = el(1, "div", 10, 20, 240, 38, **styles)
    walked = page(el(-1, "html", 0, 0, 800, 600), el(0, "body", 0, 0, 800, 600), box)
    out = convert_page(walked, width=800, name="P")
    return out.root["children"][0], out.warnings


def test_borders_of_different_colours_stay_on_their_sides() -> None:
    sides = [
        {"w": 0, "c": "rgb(0, 0, 0)", "s": "none"},
        {"w": 0, "c": "rgb(0, 0, 0)", "s": "none"},
        {"w": 1, "c": "rgb(222, 226, 230)", "s": "solid"},
        {"w": 4, "c": "rgb(25, 135, 84)", "s": "solid"},
    ]
    box, warnings = _one_box(border=sides)
    assert "strokes" not in box and warnings == []
    bottom, left = box["children"]
    place = ("name", "x", "y", "width", "height")
    assert tuple(bottom[k] for k in place) == ("border-bottom", 0, 37, 240, 1)
    assert tuple(left[k] for k in place) == ("border-left", 0, 0, 4, 38)
    assert bottom["absolute"] and left["fills"][0]["color"] == {"r": 25 / 255, "g": 135 / 255, "b": 84 / 255}
    one = [{"w": 1, "c": "rgb(0, 0, 0)", "s": "solid"}] * 2 + [{"w": 2, "c": "rgb(0, 0, 0)", "s": "solid"}] * 2
    box, _ = _one_box(border=one)
    assert box["strokeWeights"] == [1, 1, 2, 2]


def test_a_background_icon_is_a_layer_of_its_size_where_the_page_draws_it() -> None:
    icon = {"image": "iVBORw0K", "size": "16px 12px", "position": "calc(100% - 12px) 50%", "repeat": "no-repeat"}
    gradient = {"gradient": "linear-gradient(rgb(255, 255, 255), rgb(0, 0, 0))", "size": "auto", "position": "0% 0%"}
    box, _ = _one_box(bg="rgb(255, 255, 255)", backgrounds=[icon, gradient])
    # The bottom layer (the gradient, listed last in CSS) paints over the colour; the icon is a layer above both.
    assert [f["type"] for f in box["fills"]] == ["SOLID", "GRADIENT_LINEAR"]
    (layer,) = box["children"]
    assert (layer["x"], layer["y"], layer["width"], layer["height"]) == (212, 13, 16, 12)
    assert layer["fills"] == [{"type": "IMAGE", "image": 0, "scaleMode": "FILL"}]


def test_blend_modes_and_blurs_are_carried_and_other_filters_named() -> None:
    box, warnings = _one_box(blend="multiply", filter="blur(2px) grayscale(1)", backdrop="blur(8px)")
    assert box["blendMode"] == "MULTIPLY"
    assert box["effects"] == [{"type": "LAYER_BLUR", "radius": 4}, {"type": "BACKGROUND_BLUR", "radius": 16}]
    assert warnings == ["filter grayscale() of body > div is not carried"]
