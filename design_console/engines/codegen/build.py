"""The layers of a subtree as styled elements: the one model every output (HTML, React, Vue) writes out.

Auto layout becomes flex; a layer in a frame without auto layout (or placed absolutely in one) is positioned
absolutely in its parent, from its box relative to the parent, with its constraints deciding which edges it keeps.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any

from design_console.engines.codegen import css, svg
from design_console.engines.codegen.escape import is_js_identifier, is_safe_prop, module_source_problem, pascal
from design_console.tokens.names import slug, split_name
from design_console.tokens.values import shadow_layer_text

VECTOR_TYPES = {"VECTOR", "STAR", "POLYGON", "BOOLEAN_OPERATION", "LINE"}
FLEX = {"HORIZONTAL": "row", "VERTICAL": "column"}
JUSTIFY = {"MIN": "flex-start", "CENTER": "center", "MAX": "flex-end", "SPACE_BETWEEN": "space-between"}
ALIGN = {"MIN": "flex-start", "CENTER": "center", "MAX": "flex-end", "BASELINE": "baseline"}
TEXT_ALIGN = {"LEFT": "left", "CENTER": "center", "RIGHT": "right", "JUSTIFIED": "justify"}
TEXT_CASE = {"UPPER": "uppercase", "LOWER": "lowercase", "TITLE": "capitalize"}
DECORATION = {"UNDERLINE": "underline", "STRIKETHROUGH": "line-through"}
IMAGE_TYPES = ((b"\x89PNG", "png", "image/png"), (b"\xff\xd8", "jpg", "image/jpeg"), (b"GIF8", "gif", "image/gif"))
#: Image data as the plugin sends it (padded base64); anything else would be written into a ``url()`` as it is.
BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


@dataclass
class Mapping:
    """Where a component's code lives and how its properties map to props (a code mapping)."""

    source: str
    export_name: str
    props: dict[str, str]


@dataclass
class Element:
    """One layer as an element: its class, CSS declarations, and what it holds (text, SVG, children)."""

    node: dict[str, Any]
    cls: str
    css: dict[str, str]
    text: str | None = None
    spans: list[tuple[dict[str, str], str]] = field(default_factory=list)
    svg: str | None = None
    image: str | None = None
    children: list[Element] = field(default_factory=list)
    mapping: Mapping | None = None


#: Where the code of React and Vue looks for its images, beside the module: the answer lists each at this path.
ASSET_FOLDER = "./assets/"


@dataclass
class Asset:
    node_id: str
    file_name: str
    mime: str
    data: str

    @property
    def path(self) -> str:
        """The path the code refers to the image by (``./assets/hero.png``), relative to the module."""
        return ASSET_FOLDER + self.file_name

    def url(self, embed: bool) -> str:
        return f"data:{self.mime};base64,{self.data}" if embed else self.path


@dataclass
class Built:
    """What a subtree became: its root elements and everything the answer lists beside the code."""

    roots: list[Element]
    width: float
    height: float
    vars: css.Vars
    assets: list[Asset]
    components: list[dict[str, Any]]
    warnings: list[str]


def class_name(layer_name: str, index: int) -> str:
    """A CSS class for a layer: its name as a slug, led by a letter (``.0-price`` is not a selector, so a name that
    starts with a digit, such as "$0", would leave its layer unstyled)."""
    stem = slug(split_name(layer_name) or ("layer",))[:40]
    return f"{stem if stem[0].isalpha() else 'l-' + stem}-{index}"


class Builder:
    """Turns the flat node records of a read (document order, ``p`` = parent index) into elements."""

    def __init__(
        self,
        nodes: list[dict[str, Any]],
        variables: dict[str, dict[str, Any] | None],
        images: dict[str, str | None],
        *,
        embed: bool,
    ) -> None:
        self.nodes = nodes
        self.embed = embed
        self.vars = css.Vars(variables)
        self.images = images
        self.children: dict[int, list[int]] = {}
        for index, node in enumerate(nodes):
            self.children.setdefault(int(node.get("p", -1)), []).append(index)
        self.assets: dict[str, Asset] = {}
        self.components: dict[str, dict[str, Any]] = {}
        self.warnings: list[str] = []
        self._warned: set[str] = set()

    def warn(self, node: dict[str, Any], message: str) -> None:
        text = f"{node.get('name', '')} ({node.get('id')}): {message}"
        if text not in self._warned:
            self._warned.add(text)
            self.warnings.append(text)

    def build(self, roots: list[int]) -> Built:
        shown = [r for r in roots if not self.nodes[r].get("hidden")]
        elements = [self.element(r, None) for r in shown]
        if len(elements) == 1:
            node = self.nodes[shown[0]]
            width, height = float(node.get("w", 0)), float(node.get("h", 0))
        else:
            xs = [float(self.nodes[r].get("x", 0)) for r in shown] or [0.0]
            ys = [float(self.nodes[r].get("y", 0)) for r in shown] or [0.0]
            for element in elements:
                element.css["left"] = css.px(float(element.node.get("x", 0)) - min(xs))
                element.css["top"] = css.px(float(element.node.get("y", 0)) - min(ys))
                element.css["position"] = "absolute"
            width = max((float(e.node.get("x", 0)) + float(e.node.get("w", 0)) for e in elements), default=0) - min(xs)
            height = max((float(e.node.get("y", 0)) + float(e.node.get("h", 0)) for e in elements), default=0) - min(ys)
        return Built(
            elements,
            width,
            height,
            self.vars,
            list(self.assets.values()),
            list(self.components.values()),
            self.warnings,
        )

    # --- one layer ----------------------------------------------------------------------------------------------

    def element(self, index: int, parent: dict[str, Any] | None) -> Element:
        node = self.nodes[index]
        kind = str(node.get("type", ""))
        decl: dict[str, str] = {}
        self._position(node, parent, decl)
        element = Element(node, class_name(str(node.get("name", "")), index), decl)
        exported = node.get("svg") if kind in VECTOR_TYPES else None
        drawing = svg.clean(str(exported)) if exported else None
        if exported and drawing is None:
            self.warn(node, "its SVG is not one <svg> element of well-formed XML without a DTD: it is drawn as a box")
        if kind == "TEXT":
            self._text(node, element)
        elif drawing is not None:
            element.svg = drawing
            decl.setdefault("overflow", "visible")
        else:
            self._box(node, decl)
            self._layout(node, decl)
            if kind == "ELLIPSE":
                decl["border-radius"] = "50%"
            element.children = [
                self.element(child, node)
                for child in self.children.get(index, [])
                if not self.nodes[child].get("hidden")
            ]
            if node.get("more"):
                self.warn(node, f"{node['more']} children below the read depth are left out")
        self._appearance(node, decl, drawn=element.svg is not None)
        if kind == "INSTANCE":
            self._instance(node, element)
        return element

    def _position(self, node: dict[str, Any], parent: dict[str, Any] | None, decl: dict[str, str]) -> None:
        width, height = float(node.get("w", 0)), float(node.get("h", 0))
        flow = parent is not None and parent.get("layoutMode") in FLEX and node.get("layoutPositioning") != "ABSOLUTE"
        if parent is None:
            decl["position"] = "relative"
            decl["width"] = css.px(width)
            decl["height"] = css.px(height)
            return
        if flow:
            assert parent is not None
            self._flex_child(node, parent, decl)
            return
        decl["position"] = "absolute"
        constraints = node.get("constraints") if parent.get("type") != "GROUP" else None
        constraints = constraints if isinstance(constraints, dict) else {}
        self._edge(decl, constraints.get("horizontal"), float(node.get("x", 0)), width, float(parent.get("w", 0)), "x")
        self._edge(decl, constraints.get("vertical"), float(node.get("y", 0)), height, float(parent.get("h", 0)), "y")

    @staticmethod
    def _edge(decl: dict[str, str], constraint: Any, start: float, size: float, room: float, axis: str) -> None:
        near, far, dim = ("left", "right", "width") if axis == "x" else ("top", "bottom", "height")
        if constraint in ("MAX",):
            decl[far] = css.px(room - start - size)
            decl[dim] = css.px(size)
        elif constraint == "STRETCH":
            decl[near] = css.px(start)
            decl[far] = css.px(room - start - size)
        elif constraint == "CENTER":
            decl[near] = f"calc(50% + {css.px(start - room / 2)})"
            decl[dim] = css.px(size)
        elif constraint == "SCALE" and room:
            decl[near] = f"{css.num(start / room * 100)}%"
            decl[dim] = f"{css.num(size / room * 100)}%"
        else:
            decl[near] = css.px(start)
            decl[dim] = css.px(size)

    def _flex_child(self, node: dict[str, Any], parent: dict[str, Any], decl: dict[str, str]) -> None:
        row = parent.get("layoutMode") == "HORIZONTAL"
        decl["position"] = "relative"
        decl["flex-shrink"] = "0"
        bound = node.get("boundVariables") or {}
        for axis, dim, size in (("Horizontal", "width", node.get("w", 0)), ("Vertical", "height", node.get("h", 0))):
            primary = row == (axis == "Horizontal")
            sizing = node.get(f"layoutSizing{axis}") or self._derived_sizing(node, primary)
            if sizing == "FILL":
                if primary:
                    decl["flex"] = "1 1 0"
                    decl[f"min-{dim}"] = "0"
                else:
                    decl["align-self"] = "stretch"
            elif sizing == "FIXED" or node.get("type") not in ("TEXT", "FRAME", "INSTANCE", "COMPONENT"):
                decl[dim] = self.vars.ref(bound.get(dim)) or css.px(float(size))

    @staticmethod
    def _derived_sizing(node: dict[str, Any], primary: bool) -> str:
        if primary:
            return "FILL" if node.get("layoutGrow") else "FIXED"
        return "FILL" if node.get("layoutAlign") == "STRETCH" else "FIXED"

    def _layout(self, node: dict[str, Any], decl: dict[str, str]) -> None:
        mode = node.get("layoutMode")
        if mode == "GRID":
            self.warn(node, "grid auto layout is written as absolute positions")
        if mode not in FLEX:
            return
        decl["display"] = "flex"
        decl["flex-direction"] = FLEX[str(mode)]
        primary = str(node.get("primaryAxisAlignItems", "MIN"))
        decl["justify-content"] = JUSTIFY.get(primary, "flex-start")
        decl["align-items"] = ALIGN.get(str(node.get("counterAxisAlignItems", "MIN")), "flex-start")
        if node.get("layoutWrap") == "WRAP":
            decl["flex-wrap"] = "wrap"
            if node.get("counterAxisSpacing"):
                decl["row-gap" if mode == "HORIZONTAL" else "column-gap"] = css.bound_px(
                    self.vars, node, "counterAxisSpacing", float(node["counterAxisSpacing"])
                )
        if primary != "SPACE_BETWEEN" and node.get("itemSpacing"):
            gap = css.bound_px(self.vars, node, "itemSpacing", float(node["itemSpacing"]))
            decl["column-gap" if mode == "HORIZONTAL" else "row-gap"] = gap
        sides = ("paddingTop", "paddingRight", "paddingBottom", "paddingLeft")
        if any(node.get(side) for side in sides):
            decl["padding"] = " ".join(css.bound_px(self.vars, node, s, float(node.get(s) or 0)) for s in sides)

    def _box(self, node: dict[str, Any], decl: dict[str, str]) -> None:
        """Background, border (as an outline, which takes no room, like a design stroke), radius, clipping."""
        fills = css.visible_paints(node.get("fills"))
        width, height = float(node.get("w", 0)), float(node.get("h", 0))
        layers: list[str] = []
        sizes: list[str] = []
        for paint in reversed(fills):
            kind = paint.get("type")
            if kind == "SOLID":
                shade = css.paint_color(self.vars, paint)
                layers.append(f"linear-gradient({shade}, {shade})")
                sizes.append("auto")
            elif kind in ("GRADIENT_LINEAR", "GRADIENT_RADIAL", "GRADIENT_ANGULAR", "GRADIENT_DIAMOND"):
                if kind in ("GRADIENT_ANGULAR", "GRADIENT_DIAMOND"):
                    self.warn(node, f"{kind.lower()} fill is written as a radial gradient")
                layers.append(css.gradient(self.vars, paint, width, height))
                sizes.append("auto")
            elif kind == "IMAGE":
                asset = self._image(node, paint)
                if asset is None:
                    continue
                layers.append(f"url({asset})")
                mode = paint.get("scaleMode")
                sizes.append({"FIT": "contain", "TILE": "auto"}.get(str(mode), "cover"))
                if mode == "CROP":
                    self.warn(node, "a cropped image fill is written as cover")
        if len(layers) == 1 and fills[-1].get("type") == "SOLID":
            decl["background-color"] = css.paint_color(self.vars, fills[-1])
        elif layers:
            decl["background"] = ", ".join(
                f"{layer} center / {size} {'repeat' if size == 'auto' and 'url(' in layer else 'no-repeat'}"
                for layer, size in zip(layers, sizes, strict=True)
            )
        self._radius(node, decl)
        if node.get("clipsContent"):
            decl["overflow"] = "hidden"

    def _radius(self, node: dict[str, Any], decl: dict[str, str]) -> None:
        bound = node.get("boundVariables") or {}
        radius = node.get("cornerRadius")
        corners = ("topLeftRadius", "topRightRadius", "bottomRightRadius", "bottomLeftRadius")
        if isinstance(radius, (int, float)) and not any(bound.get(c) for c in corners):
            if radius:
                decl["border-radius"] = css.bound_px(self.vars, node, "topLeftRadius", float(radius))
        elif any(node.get(c) for c in corners):
            decl["border-radius"] = " ".join(css.bound_px(self.vars, node, c, float(node.get(c) or 0)) for c in corners)

    def _strokes(self, node: dict[str, Any], decl: dict[str, str]) -> None:
        strokes = [p for p in css.visible_paints(node.get("strokes")) if p.get("type") == "SOLID"]
        weight = node.get("strokeWeight")
        if strokes and weight == "mixed" and node.get("type") != "TEXT":
            self._side_strokes(node, css.paint_color(self.vars, strokes[-1]), decl)
            return
        if not strokes or not isinstance(weight, (int, float)) or weight <= 0:
            return
        if len(strokes) > 1:
            self.warn(node, "only the top stroke is written")
        shade = css.paint_color(self.vars, strokes[-1])
        width = css.bound_px(self.vars, node, "strokeWeight", float(weight))
        style = "dashed" if node.get("dashPattern") else "solid"
        if node.get("type") == "TEXT":
            decl["-webkit-text-stroke"] = f"{width} {shade}"
            return
        decl["outline"] = f"{width} {style} {shade}"
        align = node.get("strokeAlign", "INSIDE")
        offset = {"INSIDE": -float(weight), "CENTER": -float(weight) / 2}.get(str(align), 0.0)
        if offset:
            decl["outline-offset"] = css.px(offset)

    def _side_strokes(self, node: dict[str, Any], shade: str, decl: dict[str, str]) -> None:
        """Strokes of different weights per side, as inset shadows: like an inside stroke, they take no room."""
        if node.get("strokeAlign", "INSIDE") != "INSIDE":
            self.warn(node, "strokes of different weights per side are drawn inside")
        # Each side's weight and the direction its inset shadow is offset in.
        sides = (
            ("strokeTopWeight", 0, 1),
            ("strokeRightWeight", -1, 0),
            ("strokeBottomWeight", 0, -1),
            ("strokeLeftWeight", 1, 0),
        )
        items = []
        for side, dx, dy in sides:
            width = node.get(side)
            if isinstance(width, (int, float)) and width > 0:
                offsets = [css.px(dx * float(width)), css.px(dy * float(width))]
                items.append(shadow_layer_text([*offsets, "0", "0"], shade, inset=True))
        if items:
            decl["box-shadow"] = ", ".join(items)

    def _appearance(self, node: dict[str, Any], decl: dict[str, str], *, drawn: bool) -> None:
        """Strokes (unless an SVG draws them), effects, opacity, blending."""
        if not drawn:
            self._strokes(node, decl)
        items, filters = css.shadows(self.vars, node.get("effects"), text=node.get("type") == "TEXT")
        if items and node.get("type") == "TEXT":
            decl["text-shadow"] = ", ".join(items)
        elif items:
            decl["box-shadow"] = ", ".join([*items, decl["box-shadow"]] if "box-shadow" in decl else items)
        for declaration in filters:
            prop, value = declaration.split(": ", 1)
            decl[prop] = value
        opacity = node.get("opacity")
        bound = (node.get("boundVariables") or {}).get("opacity")
        if bound or (isinstance(opacity, (int, float)) and opacity < 1):
            decl["opacity"] = self.vars.ref(bound) or css.num(float(opacity or 0))
        blend = node.get("blendMode")
        if blend in css.BLENDS:
            decl["mix-blend-mode"] = str(blend).lower().replace("_", "-")
        if node.get("rotation") and abs(float(node["rotation"])) > 0.01:
            self.warn(node, "rotation is left out: the layer is placed by its bounding box")
        if node.get("isMask"):
            self.warn(node, "masks are not written: the mask layer is drawn as a plain layer")

    # --- text ---------------------------------------------------------------------------------------------------

    def _text(self, node: dict[str, Any], element: Element) -> None:
        decl = element.css
        decl.update(self._font(node, node))
        resize = node.get("textAutoResize", "NONE")
        if resize == "WIDTH_AND_HEIGHT":
            decl["white-space"] = "pre"
            decl.pop("width", None)
            decl.pop("height", None)
        else:
            decl["white-space"] = "pre-wrap"
            if resize == "HEIGHT":
                decl.pop("height", None)
        decl["text-align"] = TEXT_ALIGN.get(str(node.get("textAlignHorizontal", "LEFT")), "left")
        vertical = node.get("textAlignVertical", "TOP")
        if vertical in ("CENTER", "BOTTOM") and "height" in decl:
            decl["display"] = "flex"
            decl["flex-direction"] = "column"
            decl["justify-content"] = "center" if vertical == "CENTER" else "flex-end"
        if node.get("textTruncation") == "ENDING":
            decl["overflow"] = "hidden"
            decl["text-overflow"] = "ellipsis"
            lines = node.get("maxLines")
            if isinstance(lines, int) and lines > 1:
                decl["display"] = "-webkit-box"
                decl["-webkit-box-orient"] = "vertical"
                decl["-webkit-line-clamp"] = str(lines)
            else:
                decl["white-space"] = "nowrap"
        text = str(node.get("characters", ""))
        segments = node.get("segments")
        if isinstance(segments, list) and segments:
            for segment in segments:
                if isinstance(segment, dict):
                    own = self._font(segment, node)
                    element.spans.append(
                        ({k: v for k, v in own.items() if decl.get(k) != v}, str(segment["characters"]))
                    )
        else:
            element.text = text

    def _font(self, source: dict[str, Any], node: dict[str, Any]) -> dict[str, str]:
        """Font, colour and text decoration of a text node or one styled range of it."""
        bound = node.get("boundVariables") or {}
        out: dict[str, str] = {}
        font = source.get("fontName")
        if isinstance(font, dict):
            out["font-family"] = css.font_family(str(font.get("family", "")))
            out["font-weight"] = str(css.font_weight(str(font.get("style", "")), source.get("fontWeight")))
            if "italic" in str(font.get("style", "")).lower():
                out["font-style"] = "italic"
        if isinstance(source.get("fontSize"), (int, float)):
            out["font-size"] = css.bound_px(self.vars, node, "fontSize", float(source["fontSize"]))
        height = css.line_height(source.get("lineHeight"), lambda: self.vars.ref(bound.get("lineHeight")))
        if height:
            out["line-height"] = height
        spacing = css.letter_spacing(source.get("letterSpacing"), lambda: self.vars.ref(bound.get("letterSpacing")))
        if spacing:
            out["letter-spacing"] = spacing
        fills = css.visible_paints(source.get("fills"))
        solid = [p for p in fills if p.get("type") == "SOLID"]
        if solid:
            out["color"] = css.paint_color(self.vars, solid[-1])
        if len(fills) > len(solid):
            self.warn(node, "text with a gradient or image fill is written in its first solid colour")
        if source.get("textDecoration") in DECORATION:
            out["text-decoration"] = DECORATION[str(source["textDecoration"])]
        case = source.get("textCase")
        if case in TEXT_CASE:
            out["text-transform"] = TEXT_CASE[str(case)]
        elif case in ("SMALL_CAPS", "SMALL_CAPS_FORCED"):
            out["font-variant"] = "small-caps"
        return out

    # --- images and instances -----------------------------------------------------------------------------------

    def _image(self, node: dict[str, Any], paint: dict[str, Any]) -> str | None:
        key = f"{node.get('id')}:{paint.get('imageHash')}"
        if key not in self.assets:
            data = self.images.get(str(paint.get("imageHash")))
            if not data or not BASE64.fullmatch(data):
                self.warn(node, "the image of this fill could not be read")
                return None
            head = base64.b64decode(data[:16] + "=" * (-len(data[:16]) % 4))
            ext, mime = next(((e, m) for magic, e, m in IMAGE_TYPES if head.startswith(magic)), ("png", "image/png"))
            stem = slug(split_name(str(node.get("name", "")))) or "image"
            taken = {a.file_name for a in self.assets.values()}
            name = f"{stem}.{ext}"
            counter = 2
            while name in taken:
                name = f"{stem}-{counter}.{ext}"
                counter += 1
            self.assets[key] = Asset(str(node.get("id")), name, mime, data)
        return self.assets[key].url(self.embed)

    def _instance(self, node: dict[str, Any], element: Element) -> None:
        mapping = parse_mapping(node.get("codeMapping"))
        if mapping is not None and (problem := module_source_problem(mapping.source)) is not None:
            self.warn(node, f"its code mapping is not used: the source {mapping.source!r} is not a module: {problem}")
        elif mapping is not None:
            element.mapping = mapping
            for design, prop in _props(element)[1]:
                self.warn(node, f"property {design!r} is not passed: {prop!r} is not a prop a design value may set")
            return
        component = str(node.get("componentSetId") or node.get("componentId") or "")
        if component and component not in self.components:
            self.components[component] = {
                "componentId": component,
                "name": node.get("componentSetName") or node.get("componentName") or node.get("name"),
                "instances": 0,
            }
        if component:
            self.components[component]["instances"] += 1


def parse_mapping(raw: Any) -> Mapping | None:
    """A code mapping stored as JSON text (``{source, exportName, props}``), or None."""
    if not isinstance(raw, str) or not raw:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("source"), str):
        return None
    props = data.get("props")
    props = props if isinstance(props, dict) else {}
    return Mapping(data["source"], str(data.get("exportName") or "default"), {str(k): str(v) for k, v in props.items()})


_IDENT = re.compile(r"[^A-Za-z0-9]+")


def prop_name(design_name: str) -> str:
    """``Has icon#12:3`` → ``hasIcon``: a design property as a camelCase prop."""
    words = [w for w in _IDENT.split(design_name.split("#", 1)[0]) if w]
    if not words:
        return "prop"
    first, rest = words[0], words[1:]
    return first[0].lower() + first[1:] + "".join(w[0].upper() + w[1:] for w in rest)


def container(pad: str, attrs: str, children: list[str], empty: str = "></div>") -> str:
    """A layer's ``div`` at ``pad`` around its children's markup (each already indented); ``empty`` ends one with no
    children."""
    if not children:
        return f"{pad}<div {attrs}{empty}"
    inner = "\n".join(children)
    return f"{pad}<div {attrs}>\n{inner}\n{pad}</div>"


def component_import(element: Element) -> tuple[str, str]:
    """The name a mapped instance's component goes by in the code, and what imports it under that name
    (``Button`` and ``{ Button }``). It starts with a capital: in JSX and Vue templates a lower-case tag is an HTML
    element (``button``, ``script``), never the import."""
    assert element.mapping is not None
    export = element.mapping.export_name
    if export == "default":
        name = pascal(str(element.node.get("name")))
        return name, name
    if not is_js_identifier(export):
        return pascal(export), f"{{ {pascal(export)} }}"
    if not "A" <= export[0] <= "Z":
        return pascal(export), f"{{ {export} as {pascal(export)} }}"
    return export, f"{{ {export} }}"


def instance_props(element: Element) -> list[tuple[str, Any]]:
    """The props of a mapped instance: its variant and property values, named by the mapping or camelCased."""
    return _props(element)[0]


def _props(element: Element) -> tuple[list[tuple[str, Any]], list[tuple[str, str]]]:
    """The props of a mapped instance, and (design property, prop) of those left out: a prop that is no identifier,
    or one the DOM would read as markup, a link or an event handler, is not the design's to set."""
    assert element.mapping is not None
    props: list[tuple[str, Any]] = []
    left_out: list[tuple[str, str]] = []
    for name, prop in (element.node.get("componentProperties") or {}).items():
        if not isinstance(prop, dict) or prop.get("type") == "INSTANCE_SWAP":
            continue
        base = name.split("#", 1)[0]
        target = element.mapping.props.get(base) or element.mapping.props.get(name) or prop_name(name)
        if is_safe_prop(target):
            props.append((target, prop.get("value")))
        else:
            left_out.append((base, target))
    return sorted(props, key=lambda item: item[0]), left_out
