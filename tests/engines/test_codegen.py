"""The code generator on node records shaped as the plugin read sends them: outline paging, CSS of layout, paints,
text and effects, variables written as the token export names them, and mapped instances as components."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from typing import Any

from design_console.engines.codegen import css, html, react, vue
from design_console.engines.codegen.build import Builder
from design_console.engines.codegen.metadata import outline

VARIABLES: dict[str, dict[str, Any] | None] = {
    "v1": {
        "name": "Color/Brand Primary",
        "resolvedType": "COLOR",
        "valuesByMode": {"m1": {"r": 1, "g": 0, "b": 0, "a": 1}, "m2": {"type": "VARIABLE_ALIAS", "id": "v2"}},
        "collection": "Brand",
        "modes": [{"modeId": "m1", "name": "Light"}, {"modeId": "m2", "name": "Dark"}],
    },
    "v2": {
        "name": "color/black",
        "resolvedType": "COLOR",
        "valuesByMode": {"m1": {"r": 0, "g": 0, "b": 0, "a": 1}},
        "collection": "Brand",
        "modes": [{"modeId": "m1", "name": "Light"}, {"modeId": "m2", "name": "Dark"}],
    },
}


def node(index: int, parent: int, depth: int, kind: str = "FRAME", **fields: Any) -> dict[str, Any]:
    return {
        "id": f"1:{index}",
        "name": f"Layer {index}",
        "type": kind,
        "p": parent,
        "d": depth,
        "x": 0,
        "y": 0,
        "w": 10,
        "h": 10,
        **fields,
    }


def test_outline_pages_reopen_ancestors_and_cover_every_layer_once() -> None:
    nodes = [node(0, -1, 0), node(1, 0, 1), node(2, 1, 2, "TEXT"), node(3, 1, 2, hidden=True), node(4, 0, 1)]
    whole, end = outline(nodes, 0, 10_000)
    assert end is None
    tree = ET.fromstring(whole)
    assert [e.tag for e in tree.iter()] == ["layers", "frame", "frame", "text", "frame", "frame"]
    assert tree.find("./frame/frame/frame").get("hidden") == "true"  # type: ignore[union-attr]
    seen, start, pages = [], 0, 0
    while start is not None:
        text, start_next = outline(nodes, start, 1)
        page = ET.fromstring(text)
        seen += [e.get("id") for e in page.iter() if e.get("id") and not e.get("continued")]
        pages += 1
        start = start_next
    assert pages == 5 and seen == [n["id"] for n in nodes]
    text, _ = outline(nodes, 3, 1)
    assert text.startswith('<layers><frame id="1:0" continued="true"><frame id="1:1" continued="true"><frame id="1:3"')


def test_auto_layout_becomes_flex_and_sizing_follows_the_design() -> None:
    nodes = [
        node(
            0,
            -1,
            0,
            layoutMode="VERTICAL",
            itemSpacing=12,
            paddingTop=4,
            paddingLeft=6,
            primaryAxisAlignItems="SPACE_BETWEEN",
            counterAxisAlignItems="CENTER",
        ),
        node(1, 0, 1, "RECTANGLE", w=20, h=30, layoutSizingHorizontal="FILL", layoutSizingVertical="FIXED"),
        node(2, 0, 1, "FRAME", w=50, h=40, layoutGrow=1),
        node(3, 0, 1, "RECTANGLE", x=5, y=6, w=7, h=8, layoutPositioning="ABSOLUTE"),
    ]
    root = Builder(nodes, {}, {}, embed=True).build([0]).roots[0]
    assert root.css["display"] == "flex" and root.css["flex-direction"] == "column"
    assert root.css["justify-content"] == "space-between" and "row-gap" not in root.css
    assert root.css["align-items"] == "center" and root.css["padding"] == "4px 0 0 6px"
    fill_cross, grow, absolute = root.children
    assert fill_cross.css["align-self"] == "stretch" and fill_cross.css["height"] == "30px"
    assert "width" not in fill_cross.css
    assert grow.css["flex"] == "1 1 0" and grow.css["width"] == "50px"
    assert absolute.css["position"] == "absolute" and (absolute.css["left"], absolute.css["top"]) == ("5px", "6px")


def test_constraints_choose_the_edges_a_layer_keeps() -> None:
    nodes = [
        node(0, -1, 0, w=200, h=100),
        node(1, 0, 1, "RECTANGLE", x=150, y=10, w=40, h=20, constraints={"horizontal": "MAX", "vertical": "STRETCH"}),
        node(2, 0, 1, "RECTANGLE", x=50, y=0, w=100, h=10, constraints={"horizontal": "SCALE", "vertical": "CENTER"}),
    ]
    right, scaled = Builder(nodes, {}, {}, embed=True).build([0]).roots[0].children
    assert (right.css["right"], right.css["width"], right.css["top"], right.css["bottom"]) == (
        "10px",
        "40px",
        "10px",
        "70px",
    )
    assert (scaled.css["left"], scaled.css["width"], scaled.css["top"]) == ("25%", "50%", "calc(50% + -50px)")


def test_bound_values_are_written_as_the_token_exports_css_variables() -> None:
    paint = {
        "type": "SOLID",
        "color": {"r": 1, "g": 0, "b": 0},
        "boundVariables": {"color": {"type": "VARIABLE_ALIAS", "id": "v1"}},
    }
    nodes = [node(0, -1, 0, fills=[paint])]
    built = Builder(nodes, VARIABLES, {}, embed=True).build([0])
    assert built.roots[0].css["background-color"] == "var(--color-brand-primary)"
    assert built.vars.tokens() == [
        {
            "name": "Color/Brand Primary",
            "cssVar": "--color-brand-primary",
            "collection": "Brand",
            "type": "COLOR",
            "values": {"Light": "#FF0000", "Dark": "var(--color-black)"},
        },
        {
            "name": "color/black",
            "cssVar": "--color-black",
            "collection": "Brand",
            "type": "COLOR",
            "values": {"Light": "#000000"},
        },
    ]
    assert built.vars.root_css() == (
        ":root {\n  --color-brand-primary: #FF0000;\n  --color-black: #000000;\n}\n"
        '[data-theme="Dark"] {\n  --color-brand-primary: var(--color-black);\n}'
    )
    # In React, the theme key design_export_tokens' Tailwind v4 @theme gives the variable (--color-brand-primary).
    assert "bg-brand-primary" in react.module(built, "Card")


def test_text_carries_font_spacing_alignment_case_and_truncation() -> None:
    text = node(
        0,
        -1,
        0,
        "TEXT",
        characters="Hi",
        fontName={"family": "Inter", "style": "Semi Bold Italic"},
        fontSize=14,
        lineHeight={"unit": "PERCENT", "value": 150},
        letterSpacing={"unit": "PERCENT", "value": 5},
        textAlignHorizontal="CENTER",
        textCase="UPPER",
        textDecoration="UNDERLINE",
        textAutoResize="NONE",
        textTruncation="ENDING",
        maxLines=2,
        fills=[{"type": "SOLID", "color": {"r": 0, "g": 0, "b": 0}}],
    )
    decl = Builder([text], {}, {}, embed=True).build([0]).roots[0].css
    assert decl["font-family"] == '"Inter", sans-serif' and decl["font-weight"] == "600"
    assert decl["font-style"] == "italic" and decl["font-size"] == "14px" and decl["line-height"] == "150%"
    assert decl["letter-spacing"] == "0.05em" and decl["text-align"] == "center"
    assert decl["text-transform"] == "uppercase" and decl["text-decoration"] == "underline"
    assert decl["-webkit-line-clamp"] == "2" and decl["color"] == "#000000"


def test_strokes_effects_and_gradients() -> None:
    gradient = {
        "type": "GRADIENT_LINEAR",
        "gradientTransform": [[1, 0, 0], [0, 1, 0]],
        "gradientStops": [
            {"position": 0, "color": {"r": 1, "g": 1, "b": 1, "a": 1}},
            {"position": 1, "color": {"r": 0, "g": 0, "b": 0, "a": 1}},
        ],
    }
    layer = node(
        0,
        -1,
        0,
        w=100,
        h=50,
        fills=[gradient],
        strokes=[{"type": "SOLID", "color": {"r": 0, "g": 0, "b": 0}}],
        strokeWeight=2,
        strokeAlign="CENTER",
        cornerRadius=4,
        effects=[
            {
                "type": "INNER_SHADOW",
                "color": {"r": 0, "g": 0, "b": 0, "a": 0.5},
                "offset": {"x": 1, "y": 2},
                "radius": 3,
                "spread": 1,
            },
            {"type": "LAYER_BLUR", "radius": 8},
        ],
        opacity=0.5,
        blendMode="MULTIPLY",
    )
    decl = Builder([layer], {}, {}, embed=True).build([0]).roots[0].css
    assert decl["background"] == "linear-gradient(90deg, #FFFFFF 0%, #000000 100%) center / auto no-repeat"
    assert decl["outline"] == "2px solid #000000" and decl["outline-offset"] == "-1px"
    assert decl["box-shadow"] == "inset 1px 2px 3px 1px rgba(0, 0, 0, 0.5)" and decl["filter"] == "blur(4px)"
    assert decl["opacity"] == "0.5" and decl["mix-blend-mode"] == "multiply" and decl["border-radius"] == "4px"


def test_a_rotated_gradient_points_where_the_design_does() -> None:
    angle = math.radians(90)
    turn = [[math.cos(angle), math.sin(angle), 0], [-math.sin(angle), math.cos(angle), 1]]
    paint = {"type": "GRADIENT_LINEAR", "gradientTransform": turn, "gradientStops": []}
    assert css.gradient(css.Vars({}), paint, 100, 100).startswith("linear-gradient(180deg")


def test_images_are_assets_named_after_the_layer() -> None:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    nodes = [node(0, -1, 0, name="Hero Photo", fills=[{"type": "IMAGE", "imageHash": "h1", "scaleMode": "FIT"}])]
    embedded = Builder(nodes, {}, {"h1": png}, embed=True).build([0])
    assert embedded.roots[0].css["background"].startswith("url(data:image/png;base64,iVBOR")
    linked = Builder(nodes, {}, {"h1": png}, embed=False).build([0])
    assert [(a.node_id, a.file_name) for a in linked.assets] == [("1:0", "hero-photo.png")]
    module = react.module(linked, "Hero")
    assert 'import asset0 from "./assets/hero-photo.png";' in module and '"url(" + asset0 + ")' in module


def test_mapped_instances_become_components_and_others_are_listed() -> None:
    mapping = '{"source": "@/components/Button", "exportName": "Button", "props": {"Size": "size"}}'
    nodes = [
        node(0, -1, 0),
        node(
            1,
            0,
            1,
            "INSTANCE",
            componentId="5:1",
            componentSetId="5:0",
            componentSetName="Button",
            codeMapping=mapping,
            componentProperties={
                "Size": {"type": "VARIANT", "value": "Large"},
                "Has icon#3:1": {"type": "BOOLEAN", "value": True},
            },
        ),
        node(2, 0, 1, "INSTANCE", componentId="6:1", componentName="Avatar"),
    ]
    built = Builder(nodes, {}, {}, embed=False).build([0])
    assert built.components == [{"componentId": "6:1", "name": "Avatar", "instances": 1}]
    module = react.module(built, "Screen")
    assert module.startswith('import { Button } from "@/components/Button";')
    assert '<Button hasIcon={true} size={"Large"} />' in module
    sfc = vue.component(built)
    assert '<Button :hasIcon="true" size="Large" />' in sfc and 'import { Button } from "@/components/Button";' in sfc
    assert "<Button" not in html.document(Builder(nodes, {}, {}, embed=True).build([0]), "Screen")


def test_strokes_of_different_weights_per_side_are_inset_shadows_beside_the_effects() -> None:
    layer = node(0, -1, 0, strokes=[{"type": "SOLID", "color": {"r": 0, "g": 0, "b": 0}}], strokeWeight="mixed",
                 strokeTopWeight=0, strokeRightWeight=0, strokeBottomWeight=2, strokeLeftWeight=1,
                 effects=[{"type": "DROP_SHADOW", "color": {"r": 0, "g": 0, "b": 0, "a": 1}, "offset": {"x": 0, "y": 1},
                           "radius": 2}])  # fmt: skip
    decl = Builder([layer], {}, {}, embed=True).build([0]).roots[0].css
    assert decl["box-shadow"] == "0 1px 2px 0 #000000, inset 0 -2px 0 0 #000000, inset 1px 0 0 0 #000000"
    assert "outline" not in decl


def test_a_bound_colour_with_paint_opacity_is_mixed_with_transparent() -> None:
    paint = {"type": "SOLID", "color": {"r": 1, "g": 0, "b": 0}, "opacity": 0.25,
             "boundVariables": {"color": {"type": "VARIABLE_ALIAS", "id": "v2"}}}  # fmt: skip
    decl = Builder([node(0, -1, 0, fills=[paint])], VARIABLES, {}, embed=True).build([0]).roots[0].css
    assert decl["background-color"] == "color-mix(in srgb, var(--color-black) 25%, transparent)"


def test_class_names_are_selectors_even_when_the_layer_name_starts_with_a_digit() -> None:
    nodes = [node(0, -1, 0), node(1, 0, 1, "TEXT", name="$0", characters="$0"), node(2, 0, 1, name="Card")]
    root = Builder(nodes, {}, {}, embed=True).build([0]).roots[0]
    assert [child.cls for child in root.children] == ["l-0-1", "card-2"]
    assert ".l-0-1 {" in html.document(Builder(nodes, {}, {}, embed=True).build([0]), "Page")


def test_a_vectors_svg_is_written_clean_and_one_that_cannot_be_read_is_a_box() -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><path d="M0 0h4"/></svg>'
    clean = '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h4"/></svg>'
    nodes = [node(0, -1, 0), node(1, 0, 1, "VECTOR", svg=svg), node(2, 0, 1, "VECTOR", svg="<svg><b></svg>")]
    built = Builder(nodes, {}, {}, embed=True).build([0])
    drawn, box = built.roots[0].children
    assert drawn.svg == clean and box.svg is None
    assert built.warnings == ["Layer 2 (1:2): its SVG is not one <svg> element of well-formed XML without a DTD: it is "
                              "drawn as a box"]  # fmt: skip
    assert clean in html.document(built, "Page") and "alert" not in html.document(built, "Page")
    assert f'__html: "{clean.replace(chr(34), chr(92) + chr(34))}"' in react.module(built, "Page")
    assert "alert" not in vue.component(built)


def test_a_mapping_is_used_only_with_a_module_source_and_props_a_design_value_may_set() -> None:
    def instance(index: int, mapping: dict[str, Any]) -> dict[str, Any]:
        return node(index, 0, 1, "INSTANCE", componentId=f"5:{index}", componentName=f"C{index}",
                    codeMapping=json.dumps(mapping),
                    componentProperties={"Label": {"type": "TEXT", "value": "<img src=x onerror=alert(1)>"},
                                         "Size": {"type": "VARIANT", "value": "Large"}})  # fmt: skip

    nodes = [
        node(0, -1, 0, name="Button"),
        instance(1, {"source": "https://evil.example/x.js", "exportName": "X"}),
        instance(2, {"source": "@/ui/button", "exportName": "button", "props": {"Label": "innerHTML"}}),
        instance(3, {"source": "@/ui/Card", "exportName": "Card", "props": {"Label": "onClick"}}),
    ]
    built = Builder(nodes, {}, {}, embed=False).build([0])
    assert built.components == [{"componentId": "5:1", "name": "C1", "instances": 1}]
    assert built.warnings == [
        "Layer 1 (1:1): its code mapping is not used: the source 'https://evil.example/x.js' is not a module: it is a "
        "URL; give a package name, an alias such as @/components/Button, or a path",
        "Layer 2 (1:2): property 'Label' is not passed: 'innerHTML' is not a prop a design value may set",
        "Layer 3 (1:3): property 'Label' is not passed: 'onClick' is not a prop a design value may set",
    ]
    module = react.module(built, "Button")
    # A lower-case export is imported under a capitalised name (a lower-case tag is an HTML element), and the
    # component is named apart from the imports.
    head = 'import { button as Button } from "@/ui/button";\nimport { Card } from "@/ui/Card";\n\n'
    assert module.startswith(head + "export default function ButtonDesign()")
    assert '<Button size={"Large"} />' in module and '<Card size={"Large"} />' in module
    assert "evil" not in module and "onerror" not in module
    sfc = vue.component(built)
    assert '<Button size="Large" />' in sfc and '<Card size="Large" />' in sfc
    assert "evil" not in sfc and "onerror" not in sfc


def test_image_data_that_is_not_base64_is_not_written() -> None:
    fill = {"type": "IMAGE", "imageHash": "h1"}
    data = "AAAA);}</style><script>alert(1)</script>"
    built = Builder([node(0, -1, 0, fills=[fill])], {}, {"h1": data}, embed=True).build([0])
    assert "background" not in built.roots[0].css and built.assets == []
    assert built.warnings == ["Layer 0 (1:0): the image of this fill could not be read"]


def test_font_and_token_text_stays_inside_its_css_string() -> None:
    text = node(0, -1, 0, "TEXT", characters="x", fontName={"family": '</style><script>alert(1)</script>"; x:"'})
    assert Builder([text], {}, {}, embed=True).build([0]).roots[0].css["font-family"] == (
        '"\\3c /style>\\3c script>alert(1)\\3c /script>\\22 ; x:\\22 ", sans-serif'
    )
    variables: dict[str, dict[str, Any] | None] = {
        "s": {"name": "label", "resolvedType": "STRING", "modes": [{"modeId": "m1", "name": '"]{}</style>'},
              {"modeId": "m2", "name": "Dark"}], "valuesByMode": {"m1": "a</style>", "m2": "b"}},
    }  # fmt: skip
    vars = css.Vars(variables)
    vars.ref({"id": "s"})
    assert vars.root_css() == ':root {\n  --label: "a\\3c /style>";\n}\n[data-theme="Dark"] {\n  --label: "b";\n}'
