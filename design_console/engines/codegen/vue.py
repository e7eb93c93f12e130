"""One Vue single-file component: a template, a script for mapped components and SVG markup, scoped styles."""

from __future__ import annotations

from html import escape

from design_console.engines.codegen.build import Built, Element, component_import, container, instance_props
from design_console.engines.codegen.escape import js_literal, script_literal
from design_console.engines.codegen.html import RESET, rules, spans_markup


class _Writer:
    def __init__(self) -> None:
        self.imports: dict[str, str] = {}
        self.svgs: list[str] = []

    def element(self, element: Element, indent: int) -> str:
        pad = "  " * indent
        attrs = f'class="{element.cls}" data-node-id="{escape(str(element.node.get("id")))}"'
        if element.mapping is not None:
            name, clause = component_import(element)
            self.imports.setdefault(name, f"import {clause} from {script_literal(element.mapping.source)};")
            props = "".join(
                f' {prop}="{escape(value)}"' if isinstance(value, str) else f' :{prop}="{escape(js_literal(value))}"'
                for prop, value in instance_props(element)
            )
            return f"{pad}<div {attrs}>\n{pad}  <{name}{props} />\n{pad}</div>"
        if element.svg is not None:
            self.svgs.append(element.svg)
            return f'{pad}<div {attrs} v-html="svg{len(self.svgs) - 1}"></div>'
        if element.spans:
            return f"{pad}<div {attrs} v-pre>{spans_markup(element.spans)}</div>"
        if element.text is not None:
            # v-pre: the text is shown as is, even where it holds {{ }}.
            return f"{pad}<div {attrs} v-pre>{escape(element.text)}</div>"
        return container(pad, attrs, [self.element(child, indent + 1) for child in element.children])


def component(built: Built) -> str:
    """The SFC text; the used variables' custom properties go in a global style block."""
    writer = _Writer()
    if len(built.roots) == 1:
        template = writer.element(built.roots[0], 1)
    else:
        size = f"position: relative; width: {built.width:g}px; height: {built.height:g}px"
        template = container("  ", f'style="{size}"', [writer.element(r, 2) for r in built.roots])
    script = list(writer.imports.values()) + [
        f"const svg{i} = {script_literal(svg)};" for i, svg in enumerate(writer.svgs)
    ]
    parts = [f"<template>\n{template}\n</template>\n"]
    if script:
        parts.append('<script setup lang="ts">\n' + "\n".join(script) + "\n</script>\n")
    root_css = built.vars.root_css()
    if root_css:
        parts.append(f"<style>\n{root_css}\n</style>\n")
    parts.append("<style scoped>\n" + "\n".join([RESET, *rules(built.roots, ":deep(svg)")]) + "\n</style>\n")
    return "\n".join(parts)
