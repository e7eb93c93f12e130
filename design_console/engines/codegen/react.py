"""One TSX module (a default-exported React component) styled with Tailwind v4 utilities.

Common declarations become Tailwind's own utilities; the rest become arbitrary values or properties
(``bg-[var(--brand-primary)]``, ``[outline:1px_solid_#000]``), so the module needs nothing but React and Tailwind.
"""

from __future__ import annotations

from design_console.engines.codegen.build import Built, Element, component_import, container, instance_props
from design_console.engines.codegen.escape import js_literal, jsx_attribute, pascal

KEYWORDS = {
    ("position", "absolute"): "absolute",
    ("position", "relative"): "relative",
    ("display", "flex"): "flex",
    ("flex-direction", "row"): "flex-row",
    ("flex-direction", "column"): "flex-col",
    ("flex-wrap", "wrap"): "flex-wrap",
    ("justify-content", "flex-start"): "justify-start",
    ("justify-content", "center"): "justify-center",
    ("justify-content", "flex-end"): "justify-end",
    ("justify-content", "space-between"): "justify-between",
    ("align-items", "flex-start"): "items-start",
    ("align-items", "center"): "items-center",
    ("align-items", "flex-end"): "items-end",
    ("align-items", "baseline"): "items-baseline",
    ("align-self", "stretch"): "self-stretch",
    ("flex-shrink", "0"): "shrink-0",
    ("flex", "1 1 0"): "flex-1",
    ("min-width", "0"): "min-w-0",
    ("min-height", "0"): "min-h-0",
    ("overflow", "hidden"): "overflow-hidden",
    ("overflow", "visible"): "overflow-visible",
    ("white-space", "pre"): "whitespace-pre",
    ("white-space", "pre-wrap"): "whitespace-pre-wrap",
    ("white-space", "nowrap"): "whitespace-nowrap",
    ("text-align", "left"): "text-left",
    ("text-align", "center"): "text-center",
    ("text-align", "right"): "text-right",
    ("text-align", "justify"): "text-justify",
    ("text-decoration", "underline"): "underline",
    ("text-decoration", "line-through"): "line-through",
    ("text-transform", "uppercase"): "uppercase",
    ("text-transform", "lowercase"): "lowercase",
    ("text-transform", "capitalize"): "capitalize",
    ("font-style", "italic"): "italic",
    ("text-overflow", "ellipsis"): "text-ellipsis",
}
#: Utilities that take any length or colour as an arbitrary value; a ``var()`` colour or length carries a type hint
#: where the utility is ambiguous (``text-`` is both colour and size).
PREFIXES = {
    "width": "w",
    "height": "h",
    "left": "left",
    "top": "top",
    "right": "right",
    "bottom": "bottom",
    "column-gap": "gap-x",
    "row-gap": "gap-y",
    "border-radius": "rounded",
    "background-color": "bg",
    "color": "text",
    "font-size": "text",
    "line-height": "leading",
    "letter-spacing": "tracking",
    "opacity": "opacity",
}
HINTS = {"color": "color", "font-size": "length"}


def arbitrary(value: str) -> str:
    """A CSS value in Tailwind's arbitrary-value syntax: spaces become underscores, underscores are escaped, and
    double quotes become single ones (a class attribute holds no ``"``), so a ``'`` inside a string is escaped first
    or it would end the string early."""
    return value.replace("_", "\\_").replace(" ", "_").replace("'", "\\'").replace('"', "'")


def utilities(decl: dict[str, str]) -> list[str]:
    """Tailwind classes for CSS declarations."""
    out: list[str] = []
    for prop, value in decl.items():
        if (prop, value) in KEYWORDS:
            out.append(KEYWORDS[(prop, value)])
        elif prop in PREFIXES and " " not in value.strip():
            hint = f"{HINTS[prop]}:" if prop in HINTS and value.startswith("var(") else ""
            out.append(f"{PREFIXES[prop]}-[{hint}{arbitrary(value)}]")
        elif prop == "padding":
            sides = value.split(" ")
            out.extend(f"{side}-[{arbitrary(v)}]" for side, v in zip(("pt", "pr", "pb", "pl"), sides, strict=True))
        else:
            out.append(f"[{prop}:{arbitrary(value)}]")
    return out


def _class_attr(classes: list[str]) -> str:
    return f"className={jsx_attribute(' '.join(classes))}"


def _node_attr(element: Element) -> str:
    return f"data-node-id={jsx_attribute(str(element.node.get('id')))}"


class _Writer:
    def __init__(self, built: Built) -> None:
        self.built = built
        self.imports: dict[str, str] = {}
        self.asset_names: dict[str, str] = {}

    def element(self, element: Element, indent: int) -> str:
        pad = "  " * indent
        classes = utilities({k: v for k, v in element.css.items() if k != "background" or "url(" not in v})
        style = self._style(element.css.get("background", ""))
        attrs = f"{_class_attr(classes)} {_node_attr(element)}{style}"
        if element.mapping is not None:
            name = self._import(element)
            props = "".join(f" {prop}={{{js_literal(value)}}}" for prop, value in instance_props(element))
            return f"{pad}<div {attrs}>\n{pad}  <{name}{props} />\n{pad}</div>"
        if element.svg is not None:
            svg_classes = [*classes, "[&>svg]:block", "[&>svg]:w-full", "[&>svg]:h-full", "[&>svg]:overflow-visible"]
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
        while (start := rest.find("url(./assets/")) >= 0:
            end = rest.index(")", start)
            file_name = rest[start + len("url(./assets/") : end]
            ident = self.asset_names.setdefault(file_name, f"asset{len(self.asset_names)}")
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
    writer = _Writer(built)
    if len(built.roots) == 1:
        body = writer.element(built.roots[0], 2)
    else:
        size = f"relative w-[{built.width:g}px] h-[{built.height:g}px]"
        body = container("    ", f'className="{size}"', [writer.element(r, 3) for r in built.roots])
    imports = list(writer.imports.values()) + [
        f"import {ident} from {js_literal('./assets/' + file_name)};" for file_name, ident in writer.asset_names.items()
    ]
    head = "\n".join(imports) + ("\n\n" if imports else "")
    function = pascal(name)
    if function in writer.imports:
        function += "Design"
    return f"{head}export default function {function}() {{\n  return (\n{body}\n  );\n}}\n"
