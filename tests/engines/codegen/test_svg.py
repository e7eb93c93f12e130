"""The SVG sanitiser (engines/codegen/svg.py): each hostile construct is taken out and the drawing around it kept; an
icon as the design tool exports it comes out byte for byte; real icons from open-source packages come out with the
same elements, attributes and text; and whatever markup is built from SVG's parts and hostile ones, what comes out
holds only what draws.

Real material: the SVG files npm installs beside the project (node_modules), among them the Feather icons of
style-dictionary's examples (Apache-2.0; Feather itself is MIT) and the icons of Salesforce's React webapp template,
exported from Figma (its LICENSE.txt).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pytest
from fakes.real_pages import PACKAGES as PAGE_PACKAGES
from fuzz.strategies import CI_SETTINGS
from hypothesis import given
from hypothesis import strategies as st

from design_console.engines.codegen.svg import ELEMENTS, PROPERTIES, REFERENCING, clean

NODE_MODULES = Path(__file__).resolve().parents[3] / "node_modules"
NS = 'xmlns="http://www.w3.org/2000/svg"'

#: An icon as the design tool exports a vector: a clip, a gradient, a drop shadow filter, an alpha mask, an image
#: fill through a pattern, and text kept as text.
EXPORTED = """<svg width="24" height="24" viewBox="0 0 24 24" fill="none" xmlns="http://www.w3.org/2000/svg" \
xmlns:xlink="http://www.w3.org/1999/xlink">
<g clip-path="url(#clip0_1_2)" filter="url(#filter0_d_1_2)">
<path d="M12 2L15 8H9L12 2Z" fill="url(#paint0_linear_1_2)"/>
<circle cx="12" cy="16" r="4" stroke="#1E1E1E" stroke-width="2" stroke-linecap="round"/>
<g mask="url(#mask0_1_2)">
<rect width="24" height="24" fill="url(#pattern0_1_2)"/>
</g>
</g>
<text fill="black" xml:space="preserve" style="white-space: pre" font-family="Inter" font-size="12" \
letter-spacing="0em"><tspan x="0" y="20">Tom &amp; Jerry &lt;3</tspan></text>
<defs>
<filter id="filter0_d_1_2" x="0" y="0" width="28" height="28" filterUnits="userSpaceOnUse" \
color-interpolation-filters="sRGB">
<feFlood flood-opacity="0" result="BackgroundImageFix"/>
<feColorMatrix in="SourceAlpha" type="matrix" values="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 127 0" result="hardAlpha"/>
<feOffset dy="2"/>
<feGaussianBlur stdDeviation="1"/>
<feComposite in2="hardAlpha" operator="out"/>
<feBlend mode="normal" in2="BackgroundImageFix" result="effect1_dropShadow_1_2"/>
<feBlend mode="normal" in="SourceGraphic" in2="effect1_dropShadow_1_2" result="shape"/>
</filter>
<linearGradient id="paint0_linear_1_2" x1="12" y1="2" x2="12" y2="8" gradientUnits="userSpaceOnUse">
<stop stop-color="#3366FF"/>
<stop offset="1" stop-color="#6699FF" stop-opacity="0.5"/>
</linearGradient>
<mask id="mask0_1_2" style="mask-type:alpha" maskUnits="userSpaceOnUse" x="0" y="0" width="24" height="24">
<rect width="24" height="24" fill="#D9D9D9"/>
</mask>
<pattern id="pattern0_1_2" patternContentUnits="objectBoundingBox" width="1" height="1">
<use xlink:href="#image0_1_2" transform="scale(0.01)"/>
</pattern>
<image id="image0_1_2" width="100" height="100" xlink:href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"/>
<clipPath id="clip0_1_2">
<rect width="24" height="24" fill="white"/>
</clipPath>
</defs>
</svg>"""


def test_an_exported_icon_comes_out_byte_for_byte() -> None:
    assert clean(EXPORTED) == EXPORTED


#: (markup, what comes out): each hostile construct goes, the drawing around it stays.
HOSTILE = [
    (f'<svg {NS} onload="alert(1)"><path d="M0 0" onclick="alert(1)"/></svg>', f'<svg {NS}><path d="M0 0"/></svg>'),
    (f"<svg {NS}><script>alert(1)</script><rect/></svg>", f"<svg {NS}><rect/></svg>"),
    (f'<svg {NS}><script href="https://evil.example/x.js"/></svg>', f"<svg {NS}/>"),
    (
        f'<svg {NS}><foreignObject><div xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(1)"/></div>'
        '</foreignObject><circle r="1"/></svg>',
        f'<svg {NS}><circle r="1"/></svg>',
    ),
    (f"<svg {NS}><style>rect {{ fill: url(https://evil.example/x) }}</style></svg>", f"<svg {NS}/>"),
    (f'<svg {NS}><a href="javascript:alert(1)"><rect/></a></svg>', f"<svg {NS}/>"),
    (f'<svg {NS}><animate attributeName="href" to="javascript:alert(1)"/><set to="x"/></svg>', f"<svg {NS}/>"),
    (
        f'<svg {NS}><use href="https://evil.example/s.svg#i"/><use href="#i"/></svg>',
        f'<svg {NS}><use/><use href="#i"/></svg>',
    ),
    (f'<svg {NS}><use href="javascript:alert(1)"/></svg>', f"<svg {NS}><use/></svg>"),
    (f'<svg {NS}><image href="https://evil.example/x.png"/></svg>', f"<svg {NS}><image/></svg>"),
    (f'<svg {NS}><image href="data:image/svg+xml;base64,PHN2Zz4="/></svg>', f"<svg {NS}><image/></svg>"),
    (f'<svg {NS}><use href="data:image/png;base64,iVBOR"/></svg>', f"<svg {NS}><use/></svg>"),
    (f'<svg {NS}><feImage href="https://evil.example/x.png"/></svg>', f"<svg {NS}><feImage/></svg>"),
    (
        f'<svg {NS}><rect fill="url(https://evil.example/x#p)" stroke="url(#s)"/></svg>',
        f'<svg {NS}><rect stroke="url(#s)"/></svg>',
    ),
    (f'<svg {NS}><rect fill="u\\72l(//evil.example/x)"/></svg>', f"<svg {NS}><rect/></svg>"),
    (f"<svg {NS}><rect filter=\"url('https://evil.example/f')\"/></svg>", f"<svg {NS}><rect/></svg>"),
    (
        f'<svg {NS}><rect mask="image-set(&quot;https://evil.example/m.png&quot; 1x)"/></svg>',
        f"<svg {NS}><rect/></svg>",
    ),
    (
        f'<svg {NS}><rect style="fill: url(https://evil.example/x); stroke: red; behavior: url(x.htc)"/></svg>',
        f'<svg {NS}><rect style="stroke: red"/></svg>',
    ),
    (f'<svg {NS}><rect style="fill:u\\72l(//evil.example/x)"/></svg>', f"<svg {NS}><rect/></svg>"),
    (f'<svg {NS}><rect style="@import url(x.css); fill: red"/></svg>', f'<svg {NS}><rect style="fill: red"/></svg>'),
    (f'<svg {NS} xmlns:xlink="https://evil.example/"><rect/></svg>', f"<svg {NS}><rect/></svg>"),
    (
        f'<svg {NS} xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)</h:script><h:img src="x"/></svg>',
        f"<svg {NS}/>",
    ),
    (f'<svg {NS}><title><img src="x" onerror="alert(1)"/>Logo</title></svg>', f"<svg {NS}><title>Logo</title></svg>"),
    (
        f"<svg {NS}><desc>&lt;img src=x onerror=alert(1)&gt;</desc></svg>",
        f"<svg {NS}><desc>&lt;img src=x onerror=alert(1)&gt;</desc></svg>",
    ),
    (
        f"<svg {NS}><![CDATA[</svg><img src=x onerror=alert(1)>]]></svg>",
        f"<svg {NS}>&lt;/svg&gt;&lt;img src=x onerror=alert(1)&gt;</svg>",
    ),
    (
        f'<svg {NS}><rect id="a&quot; onload=&quot;alert(1)" data-x="1" class="icon"/></svg>',
        f'<svg {NS}><rect class="icon"/></svg>',
    ),
    (
        f'<svg {NS}><text x="0">&lt;/text&gt;&lt;script&gt;</text></svg>',
        f'<svg {NS}><text x="0">&lt;/text&gt;&lt;script&gt;</text></svg>',
    ),
    (f"<svg {NS}><!-- --><?pi x?><rect/></svg>", f"<svg {NS}><rect/></svg>"),
]


@pytest.mark.parametrize(("markup", "kept"), HOSTILE)
def test_each_hostile_construct_is_taken_out(markup: str, kept: str) -> None:
    assert clean(markup) == kept


NOT_SVG = [
    "",
    "not markup",
    "<div><svg/></div>",
    f'<svg {NS}><rect width="1"></svg>',
    "</div><img src=x onerror=alert(1)><div>",
    '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>',
    f'<!DOCTYPE svg [<!ENTITY x "&#60;img src=x onerror=alert(1)&#62;">]><svg {NS}>&x;</svg>',
    '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
    f"<svg {NS}>&c;</svg>",
    f'<!DOCTYPE svg SYSTEM "file:///etc/passwd"><svg {NS}/>',
    f"<svg {NS}>&nbsp;</svg>",
]


@pytest.mark.parametrize("markup", NOT_SVG)
def test_what_is_not_one_svg_element_without_a_dtd_is_refused(markup: str) -> None:
    assert clean(markup) is None


def _tree(markup: str) -> list[tuple[str, list[tuple[str, str]], str, str]]:
    return [
        (e.tag, sorted(e.attrib.items()), (e.text or "").strip(), (e.tail or "").strip())
        for e in ET.fromstring(markup).iter()
    ]


def test_real_icons_keep_every_element_attribute_and_text() -> None:
    # The real pages' own images are not icons: an illustrator's export may carry a <style>, which a page's inline
    # SVG may not (it would style the whole page); the design loop's tests cover them.
    icons = sorted(
        p for p in NODE_MODULES.rglob("*.svg") if "conformance" not in p.parts and not PAGE_PACKAGES & set(p.parts)
    )
    if not icons:
        pytest.skip("no node_modules (npm ci)")
    assert len(icons) >= 50
    for icon in icons:
        markup = icon.read_text(encoding="utf-8")
        kept = clean(markup)
        assert kept is not None, icon
        assert _tree(kept) == _tree(markup), icon


# --- any markup --------------------------------------------------------------------------------------------------

HOSTILE_TAGS = ["script", "foreignObject", "style", "a", "animate", "set", "iframe", "img", "h:img", "svg:script"]
SAFE_ATTRIBUTES = ["fill", "stroke", "d", "x", "width", "style", "href", "xlink:href", "id", "filter", "transform"]
HOSTILE_ATTRIBUTES = ["onload", "onclick", "onerror", "ONLOAD", "src", "action", "formaction", "attributeName", "to"]
VALUES = [
    "red",
    "url(#a)",
    "url(#a) none",
    "#a",
    "M0 0h1",
    "rotate(45)",
    "fill: url(#g); stroke: blue",
    "javascript:alert(1)",
    "url(https://evil.example/x)",
    "url('//evil.example/x')",
    'url("data:image/svg+xml,<svg onload=alert(1)>")',
    "u\\72l(https://evil.example)",
    "fill: url(https://evil.example/x)",
    "expression(alert(1))",
    "image-set('x.png' 1x)",
    "data:image/png;base64,iVBOR",
    "data:text/html,<script>alert(1)</script>",
    "</svg><script>alert(1)</script>",
    '" onload="alert(1)',
]


@st.composite
def markup_trees(draw: st.DrawFn, depth: int = 0) -> str:
    """An element of SVG's elements and hostile ones, with allowed and hostile attributes and text."""
    tag = draw(st.sampled_from(sorted(ELEMENTS) + HOSTILE_TAGS)) if depth else "svg"
    names = draw(st.lists(st.sampled_from(SAFE_ATTRIBUTES + HOSTILE_ATTRIBUTES), unique=True, max_size=4))
    attrs = "".join(f" {name}={quoteattr(draw(st.sampled_from(VALUES)))}" for name in names)
    if depth == 0:
        attrs = f' {NS} xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:h="http://www.w3.org/1999/xhtml"' + attrs
        attrs += ' xmlns:svg="http://www.w3.org/2000/svg"'
    children = draw(st.lists(markup_trees(depth + 1), max_size=3)) if depth < 3 else []
    text = escape(draw(st.sampled_from(["", "x", "<script>alert(1)</script>", "]]>", "&"])))
    return f"<{tag}{attrs}>{text}{''.join(children)}</{tag}>"


def _local_references(value: str) -> bool:
    return all(re.fullmatch(r"url\(#[\w.:-]+\)", ref) for ref in re.findall(r"url\([^)]*\)?", value))


@CI_SETTINGS
@given(markup_trees())
def test_whatever_goes_in_only_drawing_comes_out(markup: str) -> None:
    kept = clean(markup)
    assert kept is not None
    assert clean(kept) == kept
    root = ET.fromstring(kept)
    parents = {child: parent for parent in root.iter() for child in parent}
    for element in root.iter():
        tag = element.tag.rsplit("}", 1)[-1]
        assert tag in ELEMENTS, kept
        assert parents.get(element) is None or parents[element].tag.rsplit("}", 1)[-1] not in ("title", "desc")
        for name, value in element.attrib.items():
            bare = name.rsplit("}", 1)[-1]
            assert not bare.lower().startswith("on") and bare not in HOSTILE_ATTRIBUTES, kept
            if bare == "href":
                raster = tag == "image" and value.startswith("data:image/png;base64,")
                assert re.fullmatch(r"#[\w.:-]+", value) or raster, kept
            if bare in REFERENCING:
                assert _local_references(value) and "\\" not in value, kept
            if bare == "style":
                assert all(d.split(":")[0].strip() in PROPERTIES for d in value.split(";") if d.strip()), kept
