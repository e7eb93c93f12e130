"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension): a token browser and a design-system dashboard.

Listed only with ENABLE_MCP_APPS=true (toolset ``apps``). Each view is one self-contained HTML document served as a
``ui://`` resource; an "open" tool names it in its ``_meta.ui.resourceUri`` and answers the model with a short
summary, and the view fetches its data by calling its refresh tool (visible to the app only) through the host.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from design_console.errors import DesignError
from design_console.protocol import ToolOutput
from design_console.tokens.values import design_color, hex_text
from design_console.tools.args import FileArgs
from design_console.tools.base import ApiHandler, api_read, ok
from design_console.tools.context import ApiContext
from design_console.tools.ds.ds_audit import NO_PLUGIN, load_report, shape_report
from design_console.tools.files import file_key_for
from design_console.tools.variable_data import VariableView, as_list, shape_variables, variables_from_plugin

#: The extension's identifier and the MIME type of its HTML views.
EXTENSION = "io.modelcontextprotocol/ui"
MIME_TYPE = "text/html;profile=mcp-app"
#: Where a view's shared scripts are spliced into its HTML, so both views share one copy of them: the JSON-RPC
#: helper (``bridge.js``), then what every view does around its own rendering (``view.js``).
_BRIDGE_MARK = "/*APP-BRIDGE*/"
_SCRIPTS = ("bridge.js", "view.js")
#: Where a view's style sheet takes the look both views share (``app_ui/theme.css``).
_THEME_MARK = "/*APP-THEME*/"
#: Where a view starts: the document's opening and the head every view has (``app_ui/head.html``), its one CSP
#: among them, which lets nothing load from outside the document.
_HEAD_MARK = "<!--APP-HEAD-->"


@dataclass(frozen=True, slots=True)
class AppView:
    """One ``ui://`` resource: its URI, name, description and the HTML file of the package that holds it."""

    uri: str
    name: str
    description: str
    file: str

    def html(self) -> str:
        """The view's complete HTML document, with the shared style sheet and scripts inlined."""
        return _document(self.file)

    def meta(self) -> dict[str, Any]:
        """The resource's ``_meta``: a CSP that allows no network and no outside resources, and a border."""
        return {"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}}


@functools.cache
def _document(file: str) -> str:
    # Read once: designd serves views from its event loop, which must not wait on the disk at every read.
    folder = resources.files(__package__) / "app_ui"
    text = (folder / file).read_text("utf-8").replace(_HEAD_MARK, (folder / "head.html").read_text("utf-8").rstrip())
    text = text.replace(_THEME_MARK, (folder / "theme.css").read_text("utf-8"))
    return text.replace(_BRIDGE_MARK, "".join((folder / name).read_text("utf-8") for name in _SCRIPTS))


TOKEN_BROWSER = AppView(
    "ui://design/tokens",
    "Token browser",
    "Variable collections, modes and values of a design file, with colour swatches and search.",
    "token-browser.html",
)
DASHBOARD = AppView(
    "ui://design/dashboard",
    "Design-system dashboard",
    "The design-system health report: six scored categories and the findings behind each.",
    "dashboard.html",
)
VIEWS = {view.uri: view for view in (TOKEN_BROWSER, DASHBOARD)}


def _opens(view: AppView) -> dict[str, Any]:
    return {"ui": {"resourceUri": view.uri}}


#: A refresh tool feeds its view: hosts keep it from the model (and tools/list leaves out its description).
APP_ONLY = {"ui": {"visibility": ["app"]}}


class AppArgs(FileArgs):
    pass


def _app_tool(
    name: str, description: str, extra: dict[str, Any]
) -> Callable[[ApiHandler[AppArgs]], ApiHandler[AppArgs]]:
    """Declare a tool of an MCP App: an api worker read of one file in toolset ``apps``, linked to its view by
    ``extra``."""
    return api_read(name, description, toolset="apps", extra=extra)


async def _variables(ctx: ApiContext, key: str) -> tuple[dict[str, Any], str]:
    """The file's variables from the plugin, else (no plugin in that file) the design API."""
    try:
        found = await variables_from_plugin(ctx, key, False)
    except DesignError as exc:
        if exc.code not in NO_PLUGIN:
            raise
        found = None
    if found is not None:
        return found
    try:
        body = await ctx.api.request("GET", f"/v1/files/{key}/variables/local")
    except DesignError as exc:
        raise DesignError(
            exc.code,
            f"No Desktop Bridge plugin is connected in the file and the design API could not read its variables "
            f"({exc.message}).",
            f"Run the Desktop Bridge plugin in the file, or: {exc.hint}",
        ) from None
    return body.get("meta", {}), "design_api"


def _resolved_values(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """Each variable's final value per mode name: an alias is followed in the same mode where its target's
    collection has that mode, else in the target's default mode (as the editor resolves it)."""
    variables = as_list(raw.get("variables"))
    by_id = {v.get("id"): v for v in variables}
    collections = {c.get("id"): c for c in as_list(raw.get("variableCollections"))}

    def final(var: dict[str, Any], mode: str, seen: frozenset[str]) -> Any:
        values = var.get("valuesByMode") or {}
        coll = collections.get(var.get("variableCollectionId"), {})
        value = values.get(mode, values.get(coll.get("defaultModeId", "")))
        if isinstance(value, dict) and value.get("type") == "VARIABLE_ALIAS":
            target = by_id.get(value.get("id"))
            if target is None or target.get("id") in seen:
                return None
            return final(target, mode, seen | {str(target.get("id"))})
        if isinstance(value, dict) and {"r", "g", "b"} <= value.keys():
            return hex_text(design_color(value))
        return value

    out = []
    for var in variables:
        coll = collections.get(var.get("variableCollectionId"), {})
        names = {m.get("modeId"): m.get("name") for m in coll.get("modes") or []}
        out.append({names.get(mode, mode): final(var, mode, frozenset({str(var.get("id"))})) for mode in names})
    return out


async def token_data(ctx: ApiContext, key: str) -> dict[str, Any]:
    """What the token browser shows: collections with their modes, and every variable's value per mode (aliases
    by name) beside its resolved value (for the swatch)."""
    raw, source = await _variables(ctx, key)
    items, collections = shape_variables(raw, VariableView(verbosity="standard"))
    for item, resolved in zip(items, _resolved_values(raw), strict=True):
        item["resolved"] = resolved
    return {"fileKey": key, "source": source, "collections": collections, "variables": items}


@_app_tool("design_browse_tokens", "Open the token browser.", _opens(TOKEN_BROWSER))
async def design_browse_tokens(ctx: ApiContext, args: AppArgs) -> ToolOutput:
    """Open the token browser; the model reads the collections it shows."""
    data = await token_data(ctx, file_key_for(ctx, args.fileUrl))
    return ok({k: data[k] for k in ("fileKey", "source", "collections")} | {"variables": len(data["variables"])})


@_app_tool("design_token_browser_refresh", "The token browser's data.", APP_ONLY)
async def design_token_browser_refresh(ctx: ApiContext, args: AppArgs) -> ToolOutput:
    """Every variable of the file for the token browser."""
    return ok(await token_data(ctx, file_key_for(ctx, args.fileUrl)))


@_app_tool("design_audit_design_system", "Open the DS dashboard.", _opens(DASHBOARD))
async def design_audit_design_system(ctx: ApiContext, args: AppArgs) -> ToolOutput:
    """Open the dashboard; the model reads the report's summary."""
    return await _report(ctx, args, "summary")


@_app_tool("design_ds_dashboard_refresh", "The dashboard's data: the whole health report.", APP_ONLY)
async def design_ds_dashboard_refresh(ctx: ApiContext, args: AppArgs) -> ToolOutput:
    """The whole report, every finding with its ids, for the dashboard."""
    return await _report(ctx, args, "full")


async def _report(ctx: ApiContext, args: AppArgs, detail: str) -> ToolOutput:
    key = file_key_for(ctx, args.fileUrl)
    cached, from_cache = await load_report(ctx, key, False)
    return ok(shape_report(key, cached, from_cache, detail, None))
