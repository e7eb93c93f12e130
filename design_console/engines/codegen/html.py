"""One HTML document (markup and a ``<style>`` block) that renders a subtree in a browser as is."""

from __future__ import annotations

from html import escape

from design_console.engines.codegen.build import Built, Element, container

#: Every element sizes by its border box, as design layers do, and nothing brings margins of its own.
RESET = "*, *::before, *::after { box-sizing: border-box; margin: 0; padding: 0; }"


def declarations(decl: dict[str, str]) -> str:
    return "; ".join(f"{prop}: {value}" for prop, value in decl.items())


def rules(elements: list[Element], svg: str = "> svg") -> list[str]:
    """One CSS rule per element, in document order; ``svg`` selects an element's inline SVG below its class."""
    out: list[str] = []
    for element in elements:
        out.append(f".{element.cls} {{ {declarations(element.css)}; }}")
        if element.svg:
            out.append(f".{element.cls} {svg} {{ display: block; width: 100%; height: 100%; overflow: visible; }}")
        out.extend(rules(element.children, svg))
    return out


def spans_markup(spans: list[tuple[dict[str, str], str]]) -> str:
    """A text's runs as markup: a run with a style of its own in a ``span`` that carries it, the others as text."""
    return "".join(
        f'<span style="{escape(declarations(own))}">{escape(text)}</span>' if own else escape(text)
        for own, text in spans
    )


def markup(element: Element, indent: int = 0) -> str:
    pad = "  " * indent
    attrs = f'class="{element.cls}" data-node-id="{escape(str(element.node.get("id")))}"'
    if element.svg is not None:
        return f"{pad}<div {attrs}>{element.svg}</div>"
    if element.spans:
        return f"{pad}<div {attrs}>{spans_markup(element.spans)}</div>"
    if element.text is not None:
        return f"{pad}<div {attrs}>{escape(element.text)}</div>"
    return container(pad, attrs, [markup(child, indent + 1) for child in element.children])


def document(built: Built, title: str) -> str:
    """The whole page: variables used, the reset, one rule per layer, the layers' markup."""
    root_css = built.vars.root_css()
    style = "\n".join(([root_css] if root_css else []) + [RESET, *rules(built.roots)])
    if len(built.roots) == 1:
        body = markup(built.roots[0], 1)
    else:
        size = f"position: relative; width: {built.width}px; height: {built.height}px"
        body = f'  <div style="{size}">\n' + "\n".join(markup(r, 2) for r in built.roots) + "\n  </div>"
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>\n{style}\n</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
