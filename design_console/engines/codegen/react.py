"""One TSX module (a default-exported React component) styled with Tailwind v4 utilities
(:mod:`design_console.engines.codegen.tailwind`), so the module needs nothing but React and Tailwind.
"""

from __future__ import annotations

from collections import Counter

from design_console.engines.codegen.build import (
    ASSET_FOLDER,
    Built,
    Element,
    component_import,
    container,
    instance_props,
)
from design_console.engines.codegen.escape import js_literal, jsx_attribute, pascal
from design_console.engines.codegen.tailwind import classes as utilities


def _class_attr(classes: list[str]) -> str:
    return f"className={jsx_attribute(' '.join(classes))}"


def _node_attr(element: Element) -> str:
    return f"data-node-id={jsx_attribute(str(element.node.get('id')))}"


#: Text properties that CSS inherits and that a text layer always writes: set once at the top of a tree, for the
#: texts that share the value to inherit.
INHERITED = ("font-family", "color")


def common_text_style(roots: list[Element]) -> dict[str, str]:
    """For each of :data:`INHERITED`, the value most texts under ``roots`` have (left out when no text has one)."""
    counts: dict[str, Counter[str]] = {prop: Counter() for prop in INHERITED}
    stack = list(roots)
    while stack:
        element = stack.pop()
        if element.text is not None or element.spans:
            for prop in INHERITED:
                if prop in element.css:
                    counts[prop][element.css[prop]] += 1
        stack.extend(element.children)
    return {prop: found.most_common(1)[0][0] for prop, found in counts.items() if found}


class _Writer:
    def __init__(self, built: Built, shared: dict[str, str], top: Element | None) -> None:
        """``shared``: text properties set once on ``top`` (the outermost element, None for the module's own wrapper),
        which every text with the same value inherits instead of repeating it."""
        self.built = built
        self.shared = shared
        self.top = top
        self.imports: dict[str, str] = {}
        self.asset_names: dict[str, str] = {}

    def element(self, element: Element, indent: int) -> str:
        pad = "  " * indent
        decl = {k: v for k, v in element.css.items() if k != "background" or "url(" not in v}
        if element is self.top:
            decl |= self.shared
        else:
            decl = {k: v for k, v in decl.items() if self.shared.get(k) != v}
        # A run with a font size of its own would scale a line height written as a multiple of the text's size.
        classes = utilities(decl, relative_leading=not any("font-size" in own for own, _ in element.spans))
        style = self._style(element.css.get("background", ""))
        attrs = f"{_class_attr(classes)} {_node_attr(element)}{style}"
        if element.mapping is not None:
            name = self._import(element)
            props = "".join(f" {prop}={{{js_literal(value)}}}" for prop, value in instance_props(element))
            return f"{pad}<div {attrs}>\n{pad}  <{name}{props} />\n{pad}</div>"
        if element.svg is not None:
            # The element's one child is the SVG: Tailwind's child variant sizes it.
            svg_classes = [*classes, "*:block", "*:size-full", "*:overflow-visible"]
            svg_attrs = f"{_class_attr(svg_classes)} {_node_attr(element)}"
            return f"{pad}<div {svg_attrs} dangerouslySetInnerHTML={{{{ __html: {js_literal(element.svg)} }}}} />"
        if element.spans:
            inner = "".join(
                f"<span {_class_attr(utilities(own))}>{{{js_literal(text)}}}</span>"
                if own
                else f"{{{js_literal(text)}}}"
                for own, text in element.spans
            )
            return f"{pad}<div {attrs}>{inner}</div>"
        if element.text is not None:
            return f"{pad}<div {attrs}>{{{js_literal(element.text)}}}</div>"
        return container(pad, attrs, [self.element(child, indent + 1) for child in element.children], " />")

    def _style(self, background: str) -> str:
        """A background with images as an inline style, each image imported as a module (bundlers resolve it)."""
        if "url(" not in background:
            return ""
        pieces: list[str] = []
        rest = background
        while (start := rest.find(f"url({ASSET_FOLDER}")) >= 0:
            end = rest.index(")", start)
            path = rest[start + len("url(") : end]
            ident = self.asset_names.setdefault(path, f"asset{len(self.asset_names)}")
            pieces.append(js_literal(rest[: start + 4]))
            pieces.append(ident)
            rest = rest[end:]
        pieces.append(js_literal(rest))
        return f" style={{{{ background: {' + '.join(pieces)} }}}}"

    def _import(self, element: Element) -> str:
        assert element.mapping is not None
        name, clause = component_import(element)
        self.imports.setdefault(name, f"import {clause} from {js_literal(element.mapping.source)};")
        return name


def module(built: Built, name: str) -> str:
    """The TSX module: imports of mapped components and images, then the component (named apart from them)."""
    single = built.roots[0] if len(built.roots) == 1 else None
    # A text alone keeps its own style; a tree sets the font and colour most of its texts use once, at its top.
    shared = common_text_style(built.roots) if single is None or single.children else {}
    writer = _Writer(built, shared, single)
    if single is not None:
        body = writer.element(single, 2)
    else:
        wrapper = {"position": "relative", "width": f"{built.width:g}px", "height": f"{built.height:g}px"}
        wrapper |= shared
        body = container("    ", _class_attr(utilities(wrapper)), [writer.element(r, 3) for r in built.roots])
    imports = list(writer.imports.values()) + [
        f"import {ident} from {js_literal(path)};" for path, ident in writer.asset_names.items()
    ]
    head = "\n".join(imports) + ("\n\n" if imports else "")
    function = pascal(name)
    if function in writer.imports:
        function += "Design"
    return f"{head}export default function {function}() {{\n  return (\n{body}\n  );\n}}\n"
