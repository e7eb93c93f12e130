"""Pure logic behind the version-history tools: node-tree diffs, changelog text, blame bisection, result paging.

Nothing here talks to the network; :mod:`design_console.tools.history.history` fetches the versions and calls these.
Node trees are the design API's JSON (``id``, ``name``, ``type``, ``children`` and properties).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import msgspec

from design_console.engines import shaping
from design_console.engines.shaping import CHARS_PER_TOKEN, DEFAULT_RESULT_TOKENS, to_json
from design_console.errors import DesignError, ErrorCode
from design_console.tokens.values import design_color, hex_text

Mode = Literal["summary", "standard", "detailed"]
ChangeKind = Literal["added", "removed", "changed", "moved"]

#: Properties whose change only mirrors another one (render bounds follow the bounding box).
_IGNORED = frozenset({"id", "children", "absoluteRenderBounds"})
#: How long a before/after value may be in each mode; summary lists no values.
_VALUE_CHARS = {"summary": 0, "standard": 120, "detailed": 600}
#: Change titles listed in summary mode.
SUMMARY_TITLES = 25
DEFAULT_BUDGET_CHARS = DEFAULT_RESULT_TOKENS * CHARS_PER_TOKEN


class PropertyChange(msgspec.Struct, omit_defaults=True):
    """One property that differs between two versions of a node."""

    property: str
    before: Any = None
    after: Any = None


class Change(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One change to one node; ``scope`` says where it was found (a page, a component, the file's catalog)."""

    scope: str
    kind: ChangeKind
    node_id: str
    name: str
    type: str = ""
    path: str = ""
    descendants: int = 0
    properties: list[PropertyChange] = []

    def title(self) -> str:
        """One line naming the change, e.g. ``changed FRAME "Card" (1:4): fills, name``."""
        what = f'{self.type} "{self.name}"' if self.type else f'"{self.name}"'
        where = f" in {self.path}" if self.path and self.kind in ("added", "removed") else ""
        more = f" with {self.descendants} nested layers" if self.descendants else ""
        props = f": {', '.join(p.property for p in self.properties)}" if self.properties else ""
        return f"{self.kind} {what} ({self.node_id}){where}{more}{props}"


class _Entry(msgspec.Struct):
    node: dict[str, Any]
    path: str
    parent: str


def canonical(value: Any) -> bytes:
    """Key-order independent JSON of ``value``, for equality tests between versions."""
    return msgspec.json.encode(value, order="sorted")


def _index(root: Mapping[str, Any], path: str = "", parent: str = "") -> dict[str, _Entry]:
    found: dict[str, _Entry] = {}
    stack: list[tuple[Mapping[str, Any], str, str]] = [(root, path, parent)]
    while stack:
        node, where, up = stack.pop()
        node_id = node.get("id")
        if not isinstance(node_id, str):
            continue
        found[node_id] = _Entry(dict(node), where, up)
        inner = f"{where} / {node.get('name', node_id)}" if where else str(node.get("name", node_id))
        if node.get("type") == "DOCUMENT":
            inner = ""
        for child in reversed(node.get("children") or []):
            if isinstance(child, Mapping):
                stack.append((child, inner, node_id))
    return found


def _simplify(value: Any) -> Any:
    """Colours as hex, floats rounded, so values read well and compare sensibly in text."""
    if isinstance(value, float):
        rounded = round(value, 2)
        return int(rounded) if rounded.is_integer() else rounded
    if isinstance(value, list):
        return [_simplify(v) for v in value]
    if isinstance(value, dict):
        if set(value) <= {"r", "g", "b", "a"} and {"r", "g", "b"} <= set(value):
            if all(isinstance(c, int | float) for c in value.values()):
                return hex_text(design_color(value))
        return {k: _simplify(v) for k, v in value.items()}
    return value


def describe(value: Any, limit: int) -> Any:
    """A short rendering of a property value: scalars as they are, the rest as JSON cut to ``limit`` characters."""
    value = _simplify(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return value if len(value) <= limit else value[: limit - 1] + "…"
    if isinstance(value, dict) and {"x", "y", "width", "height"} <= set(value):
        return f"{value['width']}×{value['height']} at ({value['x']}, {value['y']})"
    text = to_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count_descendants(node: Mapping[str, Any]) -> int:
    children = node.get("children") or []
    return sum(1 + _count_descendants(c) for c in children if isinstance(c, Mapping))


def diff_trees(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None, *, scope: str, mode: Mode) -> list[Change]:
    """Every node added, removed, moved or changed between two versions of a tree, in document order.

    An added or removed subtree is reported once, at its top, with the number of nested layers. A node whose own
    properties differ is reported with each differing property (values rendered per ``mode``).
    """
    before = _index(old) if old else {}
    after = _index(new) if new else {}
    limit = _VALUE_CHARS[mode]
    changes: list[Change] = []

    def value(v: Any) -> Any:
        return describe(v, limit) if limit else None

    for node_id, entry in after.items():
        node = entry.node
        if node_id not in before:
            if entry.parent in before or not entry.parent:
                changes.append(_whole("added", scope, node_id, entry, node))
            continue
        old_entry = before[node_id]
        props: list[PropertyChange] = []
        for key in sorted((set(node) | set(old_entry.node)) - _IGNORED):
            if canonical(old_entry.node.get(key)) != canonical(node.get(key)):
                props.append(PropertyChange(key, value(old_entry.node.get(key)), value(node.get(key))))
        old_order = [c.get("id") for c in old_entry.node.get("children") or [] if c.get("id") in after]
        new_order = [c.get("id") for c in node.get("children") or [] if c.get("id") in before]
        if old_order != new_order and sorted(map(str, old_order)) == sorted(map(str, new_order)):
            props.append(PropertyChange("children order"))
        kind: ChangeKind = "changed"
        if old_entry.parent != entry.parent:
            kind = "moved"
            old_parent = before.get(old_entry.parent)
            new_parent = after.get(entry.parent)
            props.insert(
                0,
                PropertyChange(
                    "parent",
                    old_parent.node.get("name", old_entry.parent) if old_parent else old_entry.parent,
                    new_parent.node.get("name", entry.parent) if new_parent else entry.parent,
                ),
            )
        if props:
            changes.append(_change(kind, scope, node_id, entry, node, properties=props))
    for node_id, entry in before.items():
        if node_id not in after and (entry.parent in after or not entry.parent):
            changes.append(_whole("removed", scope, node_id, entry, entry.node))
    return changes


def _change(
    kind: ChangeKind, scope: str, node_id: str, entry: _Entry, node: Mapping[str, Any], **detail: Any
) -> Change:
    """The change of one node, named and placed as ``node`` and ``entry`` say, with ``detail`` (what changed)."""
    name, type_ = str(node.get("name", "")), str(node.get("type", ""))
    return Change(scope=scope, kind=kind, node_id=node_id, name=name, type=type_, path=entry.path, **detail)


def _whole(kind: ChangeKind, scope: str, node_id: str, entry: _Entry, node: Mapping[str, Any]) -> Change:
    return _change(kind, scope, node_id, entry, node, descendants=_count_descendants(node))


def diff_catalog(
    old: Mapping[str, Any] | None, new: Mapping[str, Any] | None, *, scope: str, mode: Mode
) -> list[Change]:
    """Entries added, removed or edited in a file's ``components`` / ``componentSets`` / ``styles`` map."""
    old = old or {}
    new = new or {}
    limit = _VALUE_CHARS[mode]
    changes: list[Change] = []
    for node_id in sorted(set(old) | set(new)):
        a, b = old.get(node_id), new.get(node_id)
        name = str((b or a or {}).get("name", ""))
        if a is None or b is None:
            changes.append(Change(scope=scope, kind="added" if a is None else "removed", node_id=node_id, name=name))
            continue
        props = [
            PropertyChange(
                key, describe(a.get(key), limit) if limit else None, describe(b.get(key), limit) if limit else None
            )
            for key in sorted(set(a) | set(b))
            if canonical(a.get(key)) != canonical(b.get(key))
        ]
        if props:
            changes.append(Change(scope=scope, kind="changed", node_id=node_id, name=name, properties=props))
    return changes


def diff_files(old: Mapping[str, Any], new: Mapping[str, Any], *, mode: Mode) -> list[Change]:
    """Page-level diff of two ``GET /v1/files/:key`` responses: pages and their layers, then the catalogs."""
    changes: list[Change] = []
    old_pages = {p.get("id"): p for p in (old.get("document") or {}).get("children") or [] if isinstance(p, dict)}
    new_pages = {p.get("id"): p for p in (new.get("document") or {}).get("children") or [] if isinstance(p, dict)}
    for page_id in list(new_pages) + [p for p in old_pages if p not in new_pages]:
        page = new_pages.get(page_id) or old_pages[page_id]
        scope = f'page "{page.get("name", page_id)}"'
        changes.extend(diff_trees(old_pages.get(page_id), new_pages.get(page_id), scope=scope, mode=mode))
    for key, label in (("components", "components"), ("componentSets", "component sets"), ("styles", "styles")):
        changes.extend(diff_catalog(old.get(key), new.get(key), scope=label, mode=mode))
    return changes


def count_changes(changes: Sequence[Change]) -> dict[str, Any]:
    """Totals by kind and by scope, for the summary every diff result starts with."""
    by_kind: dict[str, int] = {}
    by_scope: dict[str, int] = {}
    for change in changes:
        by_kind[change.kind] = by_kind.get(change.kind, 0) + 1
        by_scope[change.scope] = by_scope.get(change.scope, 0) + 1
    return {"total": len(changes), "byKind": by_kind, "byScope": by_scope}


def page_by_budget(
    items: Sequence[Any],
    *,
    scope: str,
    digest: str,
    cursor: str | None = None,
    budget_chars: int = DEFAULT_BUDGET_CHARS,
) -> tuple[list[Any], str | None, int]:
    """The items from ``cursor`` on that fit in ``budget_chars``, the cursor of the rest (None: nothing left), and
    the index the page starts at. Cursors are bound to the tool (``scope``) and its arguments (``digest``)."""
    start = shaping.decode_cursor(cursor, scope, digest) if cursor else 0
    if not isinstance(start, int) or not 0 <= start <= len(items):
        raise DesignError(ErrorCode.BAD_ARGUMENT, "The cursor is out of range.", "Call again without cursor.")
    page, following = shaping.fit_items(items, start, budget_chars)
    return page, (shaping.encode_cursor(scope, digest, following) if following is not None else None), start


def version_label(version: Mapping[str, Any] | None, fallback: str) -> str:
    """How a version is named in text: its label, else its id, with date and author when known."""
    if not version:
        return fallback
    name = version.get("label") or f"version {version.get('id', fallback)}"
    when = str(version.get("created_at") or "")[:16].replace("T", " ")
    who = (version.get("user") or {}).get("handle")
    extra = ", ".join(x for x in (when, who) if x)
    return f"{name} ({extra})" if extra else str(name)


def _md_value(value: Any) -> str:
    text = value if isinstance(value, str) else to_json(value)
    return "`" + text.replace("`", "'") + "`"


def changelog_markdown(
    *,
    file_name: str,
    from_label: str,
    to_label: str,
    changes: Sequence[Change],
    totals: Mapping[str, Any],
    mode: Mode,
    between: Sequence[Mapping[str, Any]] = (),
) -> str:
    """A changelog a person reads: what changed between two versions, grouped by page, component and catalog."""
    lines = [f"# Changelog: {file_name}", "", f"From **{from_label}** to **{to_label}**.", ""]
    kinds = totals.get("byKind", {})
    if not totals.get("total"):
        lines.append("No changes found between these versions.")
    else:
        parts = [f"{n} {kind}" for kind, n in sorted(kinds.items())]
        lines.append(f"**{totals['total']} changes**: {', '.join(parts)}.")
    if between:
        lines += ["", "## Versions in between", ""]
        for version in between:
            note = f" — {version['description']}" if version.get("description") else ""
            lines.append(f"- {version_label(version, str(version.get('id')))}{note}")
    scope = None
    for change in changes:
        if change.scope != scope:
            scope = change.scope
            lines += ["", f"## {scope[0].upper()}{scope[1:]}", ""]
        lines.append(f"- {_change_sentence(change)}")
        if mode != "summary":
            for prop in change.properties:
                if prop.before is None and prop.after is None:
                    continue
                lines.append(f"  - {prop.property}: {_md_value(prop.before)} → {_md_value(prop.after)}")
    return "\n".join(lines) + "\n"


def _change_sentence(change: Change) -> str:
    what = f"{change.type.lower().replace('_', ' ') or 'entry'} **{change.name or change.node_id}**"
    if change.kind == "added":
        where = f" to {change.path}" if change.path else ""
        return f"Added {what}{where}" + (f" ({change.descendants} nested layers)" if change.descendants else "")
    if change.kind == "removed":
        where = f" from {change.path}" if change.path else ""
        return f"Removed {what}{where}"
    if change.kind == "moved":
        return f"Moved {what}" + (
            f"; also changed {_props(change, skip='parent')}" if len(change.properties) > 1 else ""
        )
    return f"Changed {what}: {_props(change)}"


def _props(change: Change, skip: str = "") -> str:
    return ", ".join(p.property for p in change.properties if p.property != skip)


def find_node(root: Mapping[str, Any] | None, node_id: str) -> Mapping[str, Any] | None:
    """The node with ``node_id`` in the tree under ``root``, or None."""
    stack = [root] if root else []
    while stack:
        node = stack.pop()
        if node.get("id") == node_id:
            return node
        stack.extend(c for c in node.get("children") or [] if isinstance(c, Mapping))
    return None


def component_property(node: Mapping[str, Any], name: str) -> Any:
    """A component property of a node by name (with or without its ``#id`` suffix): its definition on a component
    or component set, its value on an instance; None when the node has no such property."""
    for field in ("componentPropertyDefinitions", "componentProperties"):
        props = node.get(field) or {}
        for key, value in props.items():
            if key == name or key.split("#", 1)[0] == name:
                return value
    return None


def blame_fingerprint(node: Mapping[str, Any] | None, *, prop: str = "", child_id: str = "") -> bytes | None:
    """What blame compares between versions: the node's subtree, one component property, or one child subtree."""
    if node is None:
        return None
    target: Any = node
    if child_id:
        target = find_node(node, child_id)
    if prop and target is not None:
        target = component_property(target, prop)
    return None if target is None else canonical(target)


class BisectResult(msgspec.Struct, kw_only=True):
    """Where a state first appeared in a newest-first list of versions.

    ``introduced`` is the oldest index still in the current state and ``previous`` the next older index, whose
    state differs; ``previous`` is None when every walked version is in the current state.
    """

    introduced: int
    previous: int | None
    probes: int


async def bisect_history(
    count: int,
    same_as_start: Callable[[int], Awaitable[bool]],
    on_probe: Callable[[int, int], Awaitable[None]] | None = None,
) -> BisectResult:
    """Binary search over ``count`` versions (index 0 = the start, newest first) for the change into the start state.

    ``same_as_start(i)`` tells whether version ``i`` is in the start state. Like ``git bisect`` this assumes the
    state, once changed, did not change back; ``on_probe(done, expected_total)`` reports progress.
    """
    if count < 1:
        raise ValueError("bisect_history needs at least one version")
    expected = 1 + max(0, math.ceil(math.log2(max(count - 1, 1))))
    probes = 0

    async def probe(index: int) -> bool:
        nonlocal probes
        probes += 1
        if on_probe is not None:
            await on_probe(probes, max(expected, probes))
        return await same_as_start(index)

    if count == 1:
        return BisectResult(introduced=0, previous=None, probes=0)
    low, high = 0, count - 1
    if await probe(high):
        return BisectResult(introduced=high, previous=None, probes=probes)
    while high - low > 1:
        middle = (low + high) // 2
        if await probe(middle):
            low = middle
        else:
            high = middle
    return BisectResult(introduced=low, previous=high, probes=probes)


def iter_titles(changes: Sequence[Change], limit: int = SUMMARY_TITLES) -> Iterator[str]:
    """The first ``limit`` change titles, for summary mode."""
    for change in changes[:limit]:
        yield f"[{change.scope}] {change.title()}"


#: Properties kept when a node tree must be trimmed to fit a result.
_OUTLINE_KEYS = (
    "id",
    "name",
    "type",
    "visible",
    "characters",
    "absoluteBoundingBox",
    "componentId",
    "componentProperties",
    "componentPropertyDefinitions",
    "description",
)


def _outline(node: Mapping[str, Any], depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {k: node[k] for k in _OUTLINE_KEYS if k in node}
    if isinstance(out.get("characters"), str) and len(out["characters"]) > 200:
        out["characters"] = out["characters"][:199] + "…"
    children = [c for c in node.get("children") or [] if isinstance(c, Mapping)]
    shaping.outline_children(out, children, depth, _outline)
    return out


def _tree_depth(node: Mapping[str, Any]) -> int:
    children = [c for c in node.get("children") or [] if isinstance(c, Mapping)]
    return 1 + max((_tree_depth(c) for c in children), default=0)


def fit_tree(tree: Any, *, budget_chars: int) -> tuple[Any, str]:
    """``tree`` (a node, or a mapping of id → node) as it is when its JSON fits ``budget_chars``; otherwise an
    outline of the main properties, as deep as fits. The note says what was left out (empty when nothing was)."""
    if len(to_json(tree)) <= budget_chars:
        return tree, ""

    def shaped(depth: int) -> Any:
        if isinstance(tree, Mapping) and "id" not in tree:
            return {k: _outline(v, depth) if isinstance(v, Mapping) else v for k, v in tree.items()}
        return _outline(tree, depth)

    nodes = [v for v in tree.values() if isinstance(v, Mapping)] if "id" not in tree else [tree]
    deepest = max((_tree_depth(n) for n in nodes), default=1)
    for depth in range(deepest, -1, -1):
        candidate = shaped(depth)
        if len(to_json(candidate)) <= budget_chars:
            cut = "" if depth >= deepest - 1 else f", {depth + 1} levels deep"
            return candidate, (
                f"Trimmed to fit the result budget: main properties only{cut}. "
                "Pass node_ids (and a smaller depth) to read one part in full."
            )
    return shaped(0), "Too large even as an outline of the top level; pass node_ids to read one part."
