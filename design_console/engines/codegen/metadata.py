"""A compact XML outline of layers: one element per layer, named by its type, paged on layer boundaries so that every
page is well-formed XML on its own."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import quoteattr

_TAG = re.compile(r"[a-z][a-z-]*")


def tag_of(node_type: str) -> str:
    """``frame``, ``text``, ``boolean-operation``: the element name of a layer type; ``layer`` for a type that is no
    such name (the type comes from the plugin's reply, and the page must stay well-formed XML)."""
    tag = node_type.lower().replace("_", "-")
    return tag if _TAG.fullmatch(tag) else "layer"


def open_tag(node: dict[str, Any], *, empty: bool) -> str:
    """The element of one layer: id, name, rounded box relative to its parent, hidden when it is."""
    attrs = [f"id={quoteattr(str(node['id']))}", f"name={quoteattr(str(node.get('name', '')))}"]
    for key, attr in (("x", "x"), ("y", "y"), ("w", "width"), ("h", "height")):
        attrs.append(f'{attr}="{round(float(node.get(key) or 0))}"')
    if node.get("hidden"):
        attrs.append('hidden="true"')
    if node.get("more"):
        attrs.append(f'children="{int(node["more"])}"')
    return f"<{tag_of(str(node['type']))} {' '.join(attrs)}{'/' if empty else ''}>"


def outline(nodes: Sequence[dict[str, Any]], start: int, budget: int) -> tuple[str, int | None]:
    """The XML of the layers from index ``start`` (document order; ``p`` is a layer's parent index, ``d`` its
    depth) that fit in ``budget`` characters (at least one), and the index the next page starts at (None at the
    end). A page that starts inside a layer re-opens its ancestors with ``continued="true"``."""
    parts = ["<layers>"]
    open_stack: list[int] = []
    ancestors: list[int] = []
    parent = nodes[start]["p"] if start < len(nodes) else -1
    while parent >= 0:
        ancestors.append(parent)
        parent = nodes[parent]["p"]
    for index in reversed(ancestors):
        node = nodes[index]
        parts.append(f'<{tag_of(str(node["type"]))} id={quoteattr(str(node["id"]))} continued="true">')
        open_stack.append(index)
    size = sum(len(p) for p in parts)
    index = start
    while index < len(nodes):
        node = nodes[index]
        keep = _kept(open_stack, node["p"])
        closing = _closing(nodes, open_stack[keep:])
        has_children = index + 1 < len(nodes) and nodes[index + 1]["p"] == index
        element = open_tag(node, empty=not has_children)
        if index > start and size + len(closing) + len(element) > budget:
            break
        del open_stack[keep:]
        parts.append(closing)
        parts.append(element)
        size += len(closing) + len(element)
        if has_children:
            open_stack.append(index)
        index += 1
    parts.append(_closing(nodes, open_stack))
    parts.append("</layers>")
    return "".join(parts), index if index < len(nodes) else None


def _kept(open_stack: list[int], parent: int) -> int:
    """How many open layers stay open before a layer whose parent is ``parent``: those up to that parent."""
    return open_stack.index(parent) + 1 if parent in open_stack else 0


def _closing(nodes: Sequence[dict[str, Any]], closed: list[int]) -> str:
    """Closing tags of the open layers ``closed``, innermost first."""
    return "".join(f"</{tag_of(str(nodes[i]['type']))}>" for i in reversed(closed))
