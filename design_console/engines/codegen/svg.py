"""A vector layer's SVG made safe to put into a page: only drawing survives.

Every generator writes the SVG the plugin exports for a vector into the user's page: inline in HTML, through
``dangerouslySetInnerHTML`` in React, through ``v-html`` in Vue. A design file, or a hostile plugin reply, can shape
that markup, so :func:`clean` parses it as XML (expat, from the standard library) and writes it out again keeping
an allowlist of SVG elements and attributes:

* no scripts, event handlers, ``foreignObject`` (HTML inside SVG), ``style`` elements (their rules reach the whole
  page), animations (they can set any attribute, ``href`` included) or links; an element not on the list goes with
  everything inside it, and ``title``/``desc`` keep only their text;
* references only to the SVG's own parts: an ``href`` is ``#id``, but for an ``image`` that holds a raster image as
  a base64 ``data:`` URL (the export writes image fills that way, and a raster image runs nothing); a ``url()`` in a
  paint, clip, mask, filter, marker or ``style`` is ``url(#id)``; CSS in ``style`` and in those attributes is read
  with tinycss2, so escapes cannot hide a ``url``;
* no DTD, so no entity expands and nothing outside is read.

What is allowed comes out as it went in: the same elements, attributes in the same order, the same text (in its
XML escaped form).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from xml.parsers import expat

import tinycss2  # type: ignore[import-untyped]
from tinycss2.ast import (  # type: ignore[import-untyped]
    CurlyBracketsBlock,
    Declaration,
    FunctionBlock,
    Node,
    ParenthesesBlock,
    ParseError,
    SquareBracketsBlock,
    StringToken,
    URLToken,
)

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"

#: The drawing elements of SVG 1.1 and 2, their paint servers, clips, masks, markers and filter primitives.
ELEMENTS = frozenset(
    """svg g defs symbol use title desc path rect circle ellipse line polyline polygon text tspan textPath
    linearGradient radialGradient stop pattern clipPath mask marker image filter feBlend feColorMatrix
    feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting feDisplacementMap feDistantLight
    feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR feGaussianBlur feImage feMerge feMergeNode
    feMorphology feOffset fePointLight feSpecularLighting feSpotLight feTile feTurbulence""".split()
)
#: Elements whose content HTML parses as HTML (integration points): they keep their text, never elements.
TEXT_ONLY = frozenset({"title", "desc"})

#: Presentation properties, allowed as attributes and as declarations of ``style``.
PROPERTIES = frozenset(
    """fill fill-opacity fill-rule stroke stroke-width stroke-linecap stroke-linejoin stroke-miterlimit
    stroke-dasharray stroke-dashoffset stroke-opacity opacity clip-path clip-rule mask mask-type filter color
    color-interpolation color-interpolation-filters stop-color stop-opacity flood-color flood-opacity
    lighting-color display visibility overflow shape-rendering text-rendering image-rendering vector-effect
    paint-order marker-start marker-mid marker-end isolation mix-blend-mode transform transform-origin
    transform-box font font-family font-size font-size-adjust font-stretch font-style font-variant font-weight
    letter-spacing word-spacing text-anchor text-decoration dominant-baseline alignment-baseline baseline-shift
    writing-mode direction unicode-bidi white-space""".split()
)
#: Geometry, coordinate systems, text layout and filter primitive attributes, whose values the browser never
#: fetches; and ``class``, which icons carry and which lets only the page's own rules reach the drawing. (``id``,
#: ``style``, the links and the namespace declarations are checked one by one.)
GEOMETRY = frozenset(
    """id width height x y x1 y1 x2 y2 cx cy r rx ry fx fy fr d points pathLength viewBox preserveAspectRatio
    version gradientTransform patternTransform gradientUnits patternUnits patternContentUnits spreadMethod offset
    clipPathUnits maskUnits maskContentUnits filterUnits primitiveUnits markerWidth markerHeight markerUnits refX
    refY orient dx dy rotate textLength lengthAdjust startOffset method spacing side lang xml:lang xml:space in in2
    result type values mode operator k1 k2 k3 k4 stdDeviation edgeMode radius scale xChannelSelector
    yChannelSelector baseFrequency numOctaves seed stitchTiles kernelMatrix order divisor bias targetX targetY
    preserveAlpha kernelUnitLength surfaceScale diffuseConstant specularConstant specularExponent azimuth
    elevation pointsAtX pointsAtY pointsAtZ z limitingConeAngle tableValues slope intercept amplitude exponent
    class""".split()
)
#: The attributes whose value may hold ``url()``: each is read as CSS and kept only when every reference is local.
REFERENCING = frozenset(
    {"fill", "stroke", "clip-path", "mask", "filter", "marker-start", "marker-mid", "marker-end", "style"}
)
#: Namespace declarations are kept only for the namespaces SVG markup uses.
NAMESPACES = {"xmlns": SVG_NS, "xmlns:xlink": XLINK_NS}
#: CSS functions a kept value may call: colours, arithmetic, transforms and filter effects, none of which loads
#: anything (``image-set()``, ``image()``, ``cross-fade()``, ``element()``, ``src()`` do, and are dropped).
FUNCTIONS = frozenset(
    """rgb rgba hsl hsla hwb lab lch oklab oklch color color-mix light-dark var calc min max clamp round abs sign
    matrix matrix3d translate translatex translatey translate3d scale scalex scaley scale3d rotate rotate3d skew
    skewx skewy perspective blur brightness contrast drop-shadow grayscale hue-rotate invert opacity saturate
    sepia""".split()
)
_FRAGMENT = re.compile(r"#[A-Za-z0-9_.:-]+")
_ID = re.compile(r"[A-Za-z0-9_.:-]+")
_RASTER = re.compile(r"data:image/(?:png|jpeg|jpg|gif|webp);base64,[A-Za-z0-9+/\s]*=*\s*")


class _Refused(Exception):
    """The markup's root is not ``svg``, or it has a DTD, whose entities could expand without bound or name files
    and hosts."""


def _refuse(*_: object) -> None:
    raise _Refused


def clean(markup: str) -> str | None:
    """``markup`` with only what draws kept, or None when it is not one well-formed ``<svg>`` element."""
    writer = _Writer()
    parser = expat.ParserCreate()
    parser.ordered_attributes = True
    parser.buffer_text = True
    parser.StartDoctypeDeclHandler = _refuse
    parser.EntityDeclHandler = _refuse
    parser.StartElementHandler = writer.start
    parser.EndElementHandler = writer.end
    parser.CharacterDataHandler = writer.text
    try:
        parser.Parse(markup, True)
    except (expat.ExpatError, _Refused):
        return None
    return writer.result()


def _attr(value: str) -> str:
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
        .replace("\t", "&#9;")
    )


def _text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Writer:
    """Writes the kept elements as expat reports them; an element with nothing inside is written self-closed."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.open: list[str] = []
        #: How deep inside a dropped element the parser is (0: not inside one).
        self.dropped = 0
        #: A start tag is written up to its attributes; ``>`` or ``/>`` follows once its content (or end) is known.
        self.unclosed = False
        self.root = True

    def start(self, name: str, attributes: list[str]) -> None:
        if self.dropped:
            self.dropped += 1
            return
        if self.root and name != "svg":
            raise _Refused
        self.root = False
        if name not in ELEMENTS or (self.open and self.open[-1] in TEXT_ONLY):
            self.dropped = 1
            return
        self._close_start()
        pairs = zip(attributes[::2], attributes[1::2], strict=True)
        kept = "".join(f' {key}="{_attr(value)}"' for key, value in _attributes(name, pairs))
        self.out.append(f"<{name}{kept}")
        self.unclosed = True
        self.open.append(name)

    def end(self, name: str) -> None:
        if self.dropped:
            self.dropped -= 1
            return
        self.open.pop()
        if self.unclosed:
            self.out.append("/>")
            self.unclosed = False
        else:
            self.out.append(f"</{name}>")

    def text(self, data: str) -> None:
        if self.dropped or not self.open:
            return
        self._close_start()
        self.out.append(_text(data))

    def _close_start(self) -> None:
        if self.unclosed:
            self.out.append(">")
            self.unclosed = False

    def result(self) -> str | None:
        return "".join(self.out) or None


def _attributes(element: str, pairs: Iterable[tuple[str, str]]) -> Iterable[tuple[str, str]]:
    """The attributes of ``element`` that are kept, with their values (a ``style`` keeps its safe declarations)."""
    for name, value in pairs:
        if name in NAMESPACES:
            if value == NAMESPACES[name]:
                yield name, value
        elif name in ("href", "xlink:href"):
            target = value.strip()
            if _FRAGMENT.fullmatch(target) or (element == "image" and _RASTER.fullmatch(target)):
                yield name, value
        elif name == "id":
            if _ID.fullmatch(value):
                yield name, value
        elif name == "style":
            style = _style(value)
            if style:
                yield name, style
        elif name in PROPERTIES or name in GEOMETRY:
            if name not in REFERENCING or _local(tinycss2.parse_component_value_list(value)):
                yield name, value


def _style(value: str) -> str:
    """The declarations of a ``style`` attribute that set a presentation property to a local value: all of them as
    written, or those kept, written again."""
    nodes = [n for n in tinycss2.parse_blocks_contents(value, skip_comments=True) if n.type != "whitespace"]
    kept = [n for n in nodes if isinstance(n, Declaration) and n.lower_name in PROPERTIES and _local(n.value)]
    if len(kept) == len(nodes):
        return value
    return "; ".join(
        f"{d.name}: {tinycss2.serialize(d.value).strip()}{' !important' if d.important else ''}" for d in kept
    )


def _local(values: Iterable[Node]) -> bool:
    """Whether CSS component values refer to nothing outside the SVG and call only functions that load nothing."""
    for node in values:
        if isinstance(node, ParseError):
            return False
        if isinstance(node, URLToken):
            if not _FRAGMENT.fullmatch(node.value):
                return False
        elif isinstance(node, FunctionBlock):
            if node.lower_name == "url":
                args = [a for a in node.arguments if a.type != "whitespace"]
                if len(args) != 1 or not isinstance(args[0], StringToken) or not _FRAGMENT.fullmatch(args[0].value):
                    return False
            elif node.lower_name not in FUNCTIONS or not _local(node.arguments):
                return False
        elif isinstance(node, (ParenthesesBlock, SquareBracketsBlock, CurlyBracketsBlock)) and not _local(node.content):
            return False
    return True
