"""A file's variables as the read tools get them: from the Desktop Bridge plugin, and shaped for a listing.

The plugin answers a fresh read page by page (READ_VARIABLES, each page bounded), or, when it is older than that,
its snapshot (GET_VARIABLES_DATA); the listing filters by collection, name and mode, renders values in the verbosity
asked and can resolve aliases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.tokens.values import design_color, hex_text
from design_console.tools.context import Context

VariablesVerbosity = Literal["inventory", "summary", "standard", "full"]

#: Variables one READ_VARIABLES page asks for; the plugin also stops a page at its size bound.
VARIABLES_PAGE = 1_000


async def variables_by_pages(ctx: Context, key: str) -> dict[str, Any] | None:
    """Every local variable and collection, read from the plugin a bounded page at a time (READ_VARIABLES); None on
    an unexpected reply. An older plugin without READ_VARIABLES raises ``plugin_error``."""
    collections: list[Any] = []
    variables: list[Any] = []
    offset: int | None = 0
    while offset is not None:
        data = await ctx.bridge("READ_VARIABLES", {"offset": offset, "maxItems": VARIABLES_PAGE}, file_key=key)
        if not isinstance(data, dict) or not isinstance(data.get("variables"), list):
            return None
        if offset == 0:
            collections = data.get("variableCollections") or []
        variables.extend(data["variables"])
        following = data.get("next")
        offset = following if isinstance(following, int) and following > offset and data["variables"] else None
    return {"variableCollections": collections, "variables": variables}


async def variables_from_plugin(ctx: Context, key: str, refresh: bool) -> tuple[dict[str, Any], str] | None:
    """Variables from the plugin, read fresh a page at a time; from its snapshot (GET_VARIABLES_DATA, one message)
    when the plugin is older than READ_VARIABLES or, without ``refresh``, when the paged read failed. None when no
    plugin is connected or it gave nothing; other plugin failures raise."""
    try:
        try:
            data = await variables_by_pages(ctx, key)
        except DesignError as exc:
            older = "Unknown method" in exc.message
            if exc.code == ErrorCode.NOT_CONNECTED or (refresh and not older):
                raise
            snapshot = await plugin_snapshot(ctx, key)
            if snapshot is None and not older:
                raise
            return (snapshot, "plugin") if snapshot is not None else None
    except DesignError as exc:
        if exc.code != ErrorCode.NOT_CONNECTED:
            raise
        return None
    return (data, "plugin") if data is not None else None


async def plugin_snapshot(ctx: Context, key: str) -> dict[str, Any] | None:
    """The plugin's last VARIABLES_DATA snapshot of the file (GET_VARIABLES_DATA); None when it has none.
    Raises ``not_connected`` when no plugin is connected."""
    try:
        reply = await ctx.bridge("GET_VARIABLES_DATA", {}, file_key=key)
    except DesignError as exc:
        if exc.code == ErrorCode.NOT_CONNECTED:
            raise
        return None
    return reply if isinstance(reply, dict) and reply.get("variables") is not None else None


def as_list(value: Any) -> list[dict[str, Any]]:
    """A list of records from a plugin or design API answer that gives them as a list or as a map by id."""
    return list(value.values()) if isinstance(value, dict) else list(value or [])


@dataclass(frozen=True, slots=True, kw_only=True)
class VariableView:
    """Which variables a listing shows and how: filters, verbosity, links only, aliases resolved."""

    verbosity: VariablesVerbosity = "standard"
    include_published: bool = True
    collection: str | None = None
    name_pattern: str | None = None
    mode: str | None = None
    links_only: bool = False
    resolve_aliases: bool = False


def _render_value(value: Any, names: dict[str, str], resolve: Any) -> Any:
    if isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS":
        target = value.get("id", "")
        if resolve is not None:
            return resolve(target)
        return {"alias": names.get(target, target)}
    if isinstance(value, dict) and {"r", "g", "b"} <= value.keys():
        return hex_text(design_color(value))
    return value


@dataclass(slots=True, kw_only=True)
class Selection:
    """The variables a call is about, before paging: the raw ones, their collections and the collections' summary;
    each is shaped as the view asks when first asked for, so a page shapes its own variables, not the file's."""

    variables: list[dict[str, Any]]
    collections: dict[str, dict[str, Any]]
    summary: list[dict[str, Any]]
    render: Callable[[dict[str, Any]], dict[str, Any]]
    shaped: dict[int, dict[str, Any]] = field(default_factory=dict, init=False)

    def items(self, start: int = 0, end: int | None = None) -> list[dict[str, Any]]:
        """The shaped variables from ``start`` to ``end`` (default: the last), as copies a caller may add to."""
        stop = len(self.variables) if end is None else min(end, len(self.variables))
        out = []
        for index in range(start, stop):
            item = self.shaped.get(index)
            if item is None:
                item = self.shaped[index] = self.render(self.variables[index])
            out.append(dict(item))
        return out


def select_variables(raw: dict[str, Any], view: VariableView) -> Selection:
    """The variables and collections of ``raw`` (a plugin or design API answer) that ``view`` shows."""
    variables = as_list(raw.get("variables"))
    collections = {c["id"]: c for c in as_list(raw.get("variableCollections"))}
    if not view.include_published:
        variables = [v for v in variables if not v.get("remote")]
        collections = {k: c for k, c in collections.items() if not c.get("remote")}
    matcher = shaping.name_matcher(view.name_pattern)
    wanted_collection = (view.collection or "").lower()
    chosen = []
    for var in variables:
        coll = collections.get(var.get("variableCollectionId", ""), {})
        if wanted_collection and wanted_collection not in (coll.get("name", "").lower(), coll.get("id", "").lower()):
            continue
        if matcher and not matcher.search(var.get("name", "")):
            continue
        chosen.append(var)
    summary = [
        {
            "name": c.get("name"),
            "id": c.get("id"),
            "modes": [m.get("name") for m in c.get("modes", [])],
            "variables": c["variableCount"] if "variableCount" in c else len(c.get("variableIds", [])),
        }
        for c in collections.values()
    ]
    render = _renderer(variables, collections, view)
    return Selection(variables=chosen, collections=collections, summary=summary, render=render)


def shape_variables(raw: dict[str, Any], view: VariableView) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Normalised, filtered variables (one dict each, in the verbosity asked) and the collections' summary."""
    selection = select_variables(raw, view)
    return selection.items(), selection.summary


def _renderer(
    variables: list[dict[str, Any]], collections: dict[str, dict[str, Any]], view: VariableView
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """What shapes one variable in the view's verbosity (aliases named, or resolved, among ``variables``)."""
    names = {v["id"]: v.get("name", v["id"]) for v in variables}
    by_id = {v["id"]: v for v in variables}

    def resolve(target: str, seen: frozenset[str] = frozenset()) -> Any:
        found = by_id.get(target)
        if found is None or target in seen:
            return {"alias": names.get(target, target)}
        coll = collections.get(found.get("variableCollectionId", ""), {})
        first = found.get("valuesByMode", {}).get(coll.get("defaultModeId", ""))
        if first is None and found.get("valuesByMode"):
            first = next(iter(found["valuesByMode"].values()))
        return _render_value(first, names, lambda t: resolve(t, seen | {target}))

    def render(var: dict[str, Any]) -> dict[str, Any]:
        if view.links_only:
            return {"id": var["id"], "name": var.get("name")}
        coll = collections.get(var.get("variableCollectionId", ""), {})
        item: dict[str, Any] = {"name": var.get("name"), "collection": coll.get("name", "")}
        if view.verbosity == "inventory":
            return item
        item["type"] = var.get("resolvedType")
        if view.verbosity in ("standard", "full"):
            modes = {m["modeId"]: m["name"] for m in coll.get("modes", [])}
            values = {}
            for mode_id, value in (var.get("valuesByMode") or {}).items():
                mode_name = modes.get(mode_id, mode_id)
                if view.mode and view.mode.lower() not in (mode_name.lower(), mode_id.lower()):
                    continue
                values[mode_name] = _render_value(value, names, resolve if view.resolve_aliases else None)
            item["values"] = values
            if var.get("description"):
                item["description"] = var["description"]
        if view.verbosity == "full":
            for field_name in ("id", "key", "scopes", "codeSyntax", "hiddenFromPublishing", "remote"):
                if field_name in var:
                    item[field_name] = var[field_name]
        return item

    return render
