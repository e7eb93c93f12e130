"""The React output's Tailwind reads like Tailwind: values on the default scale are its utilities, variables in a
theme namespace are their theme keys, arbitrary values remain only for what the scale cannot express, and each
class means, once Tailwind builds it and Chromium applies it, exactly the declaration it was written for."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from fakes.pixels import pixel_agreement
from helpers import CHROMIUM, CHROMIUM_ARGS
from playwright.sync_api import sync_playwright

from design_console.engines.codegen import react
from design_console.engines.codegen.build import Builder
from design_console.engines.codegen.tailwind import classes, step

TAILWIND_CSS = Path(__file__).with_name("tailwind_css.mjs")
NODE_MODULES = Path(__file__).resolve().parents[3] / "node_modules"


@pytest.mark.parametrize(
    ("declaration", "utility"),
    [
        (("height", "48px"), "h-12"),
        (("width", "100%"), "w-full"),
        (("width", "10px"), "w-2.5"),
        (("top", "1px"), "top-px"),
        (("left", "-8px"), "-left-2"),
        (("left", "0"), "left-0"),
        (("padding", "16px 16px 16px 16px"), "p-4"),
        (("border-radius", "8px"), "rounded-lg"),
        (("border-radius", "50%"), "rounded-[50%]"),
        (("font-weight", "600"), "font-semibold"),
        (("line-height", "24px"), "leading-6"),
        (("letter-spacing", "0.05em"), "tracking-wider"),
        (("opacity", "0.5"), "opacity-50"),
        (("background-color", "#FFFFFF"), "bg-white"),
        (("color", "#000000"), "text-black"),
        (("background-color", "rgba(0, 0, 0, 0.5)"), "bg-black/50"),
    ],
)
def test_a_value_on_the_default_scale_is_its_utility(declaration: tuple[str, str], utility: str) -> None:
    assert classes(dict([declaration])) == [utility]


def test_a_named_font_size_is_used_beside_a_line_height_of_the_elements_own() -> None:
    assert classes({"font-size": "14px", "line-height": "20px"}) == ["text-sm", "leading-5"]
    # Alone, text-sm would bring Tailwind's line height for it: only the arbitrary size is exact.
    assert classes({"font-size": "14px"}) == ["text-[14px]"]


@pytest.mark.parametrize(
    ("decl", "utilities"),
    [
        ({"padding": "8px 12px 8px 12px"}, ["px-3", "py-2"]),
        ({"padding": "8px 0 4px 0"}, ["pt-2", "pb-1"]),
        ({"border-radius": "8px 8px 0 0"}, ["rounded-tl-lg", "rounded-tr-lg"]),
        ({"display": "flex", "column-gap": "24px"}, ["flex", "gap-6"]),
        ({"display": "flex", "flex-wrap": "wrap", "column-gap": "24px"}, ["flex", "flex-wrap", "gap-x-6"]),
        (
            {"display": "flex", "flex-wrap": "wrap", "column-gap": "8px", "row-gap": "8px"},
            ["flex", "flex-wrap", "gap-2"],
        ),
        (
            {"outline": "1px solid #DEE2E6", "outline-offset": "-1px"},
            ["outline-1", "outline-solid", "outline-[#DEE2E6]", "-outline-offset-1"],
        ),
        ({"outline": "2px dashed rgba(0, 0, 0, 0.13)"}, ["outline-2", "outline-dashed", "outline-black/13"]),
    ],
)
def test_sides_corners_gaps_and_outlines_take_as_few_utilities_as_they_need(
    decl: dict[str, str], utilities: list[str]
) -> None:
    assert classes(decl) == utilities


def test_a_line_height_that_is_a_named_multiple_of_the_font_size_is_that_multiple() -> None:
    assert classes({"font-size": "18px", "line-height": "27px"}) == ["text-lg", "leading-normal"]
    assert classes({"font-size": "20px", "line-height": "20px"}) == ["text-xl", "leading-5"]
    assert classes({"font-size": "24px", "line-height": "28.8px"})[-1] == "leading-[28.8px]"
    # Where a run of the text has a size of its own, only the length keeps its line.
    assert classes({"font-size": "18px", "line-height": "27px"}, relative_leading=False)[-1] == "leading-[27px]"


def test_a_text_with_a_run_of_another_size_keeps_its_line_height_as_a_length() -> None:
    text = {
        **_text("1:1", "Inter", 0),
        "p": -1,
        "fontSize": 18,
        "lineHeight": {"unit": "PIXELS", "value": 27},
        "segments": [
            {"characters": "$0", "fontName": {"family": "Inter", "style": "Regular"}, "fontSize": 18},
            {"characters": "/mo", "fontName": {"family": "Inter", "style": "Regular"}, "fontSize": 12},
        ],
    }
    module = react.module(Builder([text], {}, {}, embed=False).build([0]), "Price")
    assert "leading-[27px]" in module and "leading-normal" not in module
    assert 'className="text-[12px]"' in module


def test_corners_that_meet_across_the_shorter_side_are_rounded_full() -> None:
    assert classes({"width": "80px", "height": "40px", "border-radius": "20px"})[-1] == "rounded-full"
    assert classes({"width": "80px", "height": "40px", "border-radius": "800px"})[-1] == "rounded-full"
    assert classes({"width": "80px", "height": "40px", "border-radius": "19px"})[-1] == "rounded-[19px]"
    # Without both sides in px the radius cannot be compared: it stays as it is.
    assert classes({"width": "100%", "height": "40px", "border-radius": "20px"})[-1] == "rounded-[20px]"


def test_only_what_the_scale_cannot_express_is_arbitrary() -> None:
    assert step("17.5px") is None and step("3px") is None and step("50%") is None
    assert classes({"height": "17.5px", "left": "calc(50% + 4px)", "background-color": "#0D6EFD"}) == [
        "h-[17.5px]",
        "[left:calc(50%_+_4px)]",
        "bg-[#0D6EFD]",
    ]
    assert classes({"color": "rgba(13, 110, 253, 0.5)"}) == ["text-[rgba(13,110,253,0.5)]"]


def test_a_variable_in_a_theme_namespace_is_its_theme_key_and_any_other_the_variable_shorthand() -> None:
    # The names design_export_tokens' Tailwind v4 @theme gives: color/brand → --color-brand → bg-brand.
    assert classes(
        {
            "background-color": "var(--color-brand)",
            "padding": "var(--spacing-md) var(--spacing-md) var(--spacing-md) var(--spacing-md)",
            "border-radius": "var(--radius-card)",
            "font-size": "var(--text-body)",
        }
    ) == ["bg-brand", "p-md", "rounded-card", "text-body"]
    assert classes({"color": "var(--ink)", "font-size": "var(--body-size)", "width": "var(--w)"}) == [
        "text-(color:--ink)",
        "text-(length:--body-size)",
        "w-(--w)",
    ]


#: Declarations as the builder writes them, and what each must compute to once Tailwind's classes apply.
EQUIVALENT = [
    {"position": "relative", "width": "48px", "height": "17.5px", "left": "-8px", "top": "82px"},
    {"display": "flex", "flex-direction": "row", "column-gap": "24px", "padding": "8px 12px 8px 12px"},
    {"border-radius": "8px 8px 0 0", "background-color": "#000000", "opacity": "0.37"},
    {"border-radius": "8px", "background-color": "#FFFFFF", "outline": "1px solid #123456"},
    {"font-size": "14px", "line-height": "20px", "font-weight": "600", "letter-spacing": "0.1em"},
    {"font-size": "18px", "line-height": "27px", "font-weight": "300"},
    {"font-family": '"Georgia", serif', "color": "rgba(0, 0, 0, 0.5)", "font-size": "15px"},
    {"font-size": "16px", "color": "var(--color-ink)"},
    {"font-family": "sans-serif", "line-height": "normal", "font-style": "italic", "text-transform": "uppercase"},
    {"outline": "2px dashed #DEE2E6", "outline-offset": "-1px", "border-radius": "50%"},
    {"width": "80px", "height": "40px", "border-radius": "20px", "background-color": "#000000"},
    {"width": "80px", "height": "40px", "border-radius": "800px", "background-color": "#000000"},
    {"background-color": "rgba(255, 255, 255, 0.25)", "text-decoration": "underline", "white-space": "pre-wrap"},
    {"outline": "1px solid rgba(0, 0, 0, 0.13)", "outline-offset": "-1px", "width": "40px", "height": "20px"},
]


def _tailwind_css(names: list[str], theme: str) -> str:
    node = shutil.which("node")
    if node is None or not (NODE_MODULES / "@tailwindcss" / "node").is_dir():
        pytest.skip("Node.js and node_modules (npm ci) are needed to build Tailwind")
    done = subprocess.run(
        [node, str(TAILWIND_CSS)],
        input=json.dumps({"classes": names, "theme": theme}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


#: Each property of an element in both versions, as computed; colours as the RGBA a canvas paints them in (Tailwind
#: writes an opacity modifier in oklab, the same colour as our rgba()).
COMPUTED = """
([i, props]) => {
  const paint = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
  const read = (element, prop) => {
    const value = getComputedStyle(element).getPropertyValue(prop);
    if (!prop.endsWith("color")) return value;
    paint.clearRect(0, 0, 1, 1);
    paint.fillStyle = value;
    paint.fillRect(0, 0, 1, 1);
    return [...paint.getImageData(0, 0, 1, 1).data].join(",");
  };
  const [a, b] = ["a", "b"].map((side) => document.getElementById(side + i));
  return props.map((p) => [p, read(a, p), read(b, p)]);
}
"""
#: The longhands a shorthand declaration sets, to compare one by one.
LONGHANDS = {
    "outline": ["outline-width", "outline-style", "outline-color"],
    "padding": ["padding-top", "padding-right", "padding-bottom", "padding-left"],
    # A radius is compared as drawn: rounded-full's is as large as CSS allows, which draws as any radius of at least
    # half the shorter side does.
    "border-radius": [],
}


def _style(decl: dict[str, str]) -> str:
    return "; ".join(f"{k}: {v}" for k, v in decl.items()).replace('"', "&quot;")


@pytest.mark.browser
def test_each_class_means_the_declaration_it_was_written_for_once_tailwind_builds_it() -> None:
    written = [classes(decl) for decl in EQUIVALENT]
    # The theme as the Tailwind v4 token export writes a colour variable named color/ink.
    theme = "@theme {\n  --color-ink: #123456;\n}"
    stylesheet = _tailwind_css(sorted({name for names in written for name in names}), theme)
    # Each element alone in a box of its own, where it is drawn the same way for either version.
    box = '<section id="{}" style="position: relative; width: 240px; height: 160px; padding: 16px">{}</section>'
    pairs = "".join(
        box.format(f"a{i}box", f'<div id="a{i}" class="{" ".join(names).replace(chr(34), "&quot;")}">Text</div>')
        + box.format(f"b{i}box", f'<div id="b{i}" style="{_style(decl)}">Text</div>')
        for i, (names, decl) in enumerate(zip(written, EQUIVALENT, strict=True))
    )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            # Every box in view: a box scrolled to for its screenshot may be drawn at another subpixel offset.
            page = browser.new_page(viewport={"width": 600, "height": 400 * len(EQUIVALENT) + 100})
            page.set_content(f"<style>:root {{ --color-ink: #123456; }}\n{stylesheet}</style>{pairs}")
            for i, decl in enumerate(EQUIVALENT):
                props = [longhand for prop in decl for longhand in LONGHANDS.get(prop, [prop])]
                # A named font size must not bring a line height of its own.
                props += ["line-height"] if "font-size" in decl and "line-height" not in decl else []
                for prop, from_classes, from_style in page.evaluate(COMPUTED, [i, props]):
                    assert from_classes == from_style, f"{written[i]}: {prop} is {from_classes!r}, not {from_style!r}"
                shots = [page.locator(f"#{side}{i}box").screenshot(animations="disabled") for side in "ab"]
                # A dashed curve may differ in a pixel or two of anti-aliasing, no more.
                assert pixel_agreement(*shots) >= 0.999, f"{written[i]} draws unlike {decl}"
        finally:
            browser.close()


def test_the_react_module_imports_each_image_at_the_path_its_asset_is_listed_under() -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    nodes = [
        {"id": "1:1", "name": "Hero", "type": "FRAME", "p": -1, "x": 0, "y": 0, "w": 40, "h": 40},
        {
            "id": "1:2",
            "name": "img mb-4",
            "type": "RECTANGLE",
            "p": 0,
            "x": 0,
            "y": 0,
            "w": 40,
            "h": 40,
            "fills": [{"type": "IMAGE", "imageHash": "h1", "scaleMode": "FILL"}],
        },
    ]
    built = Builder(nodes, {}, {"h1": png}, embed=False).build([0])
    module = react.module(built, "Hero")
    assert [a.path for a in built.assets] == ["./assets/img-mb-4.png"]
    assert 'import asset0 from "./assets/img-mb-4.png";' in module


def _text(node_id: str, family: str, y: int) -> dict[str, object]:
    return {
        "id": node_id,
        "name": "Label",
        "type": "TEXT",
        "p": 0,
        "x": 0,
        "y": y,
        "w": 100,
        "h": 20,
        "characters": "Hello",
        "fontName": {"family": family, "style": "Regular"},
        "fontSize": 16,
        "lineHeight": {"unit": "PIXELS", "value": 20},
    }


def test_the_font_most_texts_use_is_set_once_at_the_top_and_inherited() -> None:
    frame = {"id": "1:1", "name": "Card", "type": "FRAME", "p": -1, "x": 0, "y": 0, "w": 100, "h": 60}
    nodes = [frame, _text("1:2", "Inter", 0), _text("1:3", "Inter", 20), _text("1:4", "Georgia", 40)]
    module = react.module(Builder(nodes, {}, {}, embed=False).build([0]), "Card")
    lines = {
        line.split('data-node-id="')[1].split('"')[0]: line for line in module.splitlines() if "data-node-id" in line
    }
    assert "font-['Inter',_sans-serif]" in lines["1:1"]
    assert "font-[" not in lines["1:2"] and "font-[" not in lines["1:3"]
    assert "font-['Georgia',_sans-serif]" in lines["1:4"]
    # A text alone keeps its own.
    alone = react.module(Builder([{**_text("2:1", "Inter", 0), "p": -1}], {}, {}, embed=False).build([0]), "Label")
    assert "font-['Inter',_sans-serif]" in alone
