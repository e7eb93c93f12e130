"""design_get_token_values: the open file's variable values per mode, from the manifest."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from msgspec import Meta

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.args import PagedArgs
from design_console.tools.base import ok, plugin_read
from design_console.tools.context import ApiContext
from design_console.tools.manifest import freshness, load_manifest, variable_lists
from design_console.tools.variable_data import VariableView, shape_variables

_SPACING_NAME = re.compile(r"spac|gap|padding|margin|inset|gutter", re.IGNORECASE)


_SPACING_SCOPES = frozenset({"GAP"})


#: Fields of a variable in full verbosity that a token listing leaves out (the id stays: write tools take it).
_FULL_ONLY = frozenset({"key", "scopes", "codeSyntax", "hiddenFromPublishing", "remote"})


class TokenValuesArgs(PagedArgs):
    type: Literal["colors", "spacing", "all"] = "all"
    filter: Annotated[str, Meta(max_length=500)] | None = None
    limit: Annotated[int, Meta(ge=1, le=500)] = 50
    resolveAliases: bool = True
    forceRefresh: bool = False


def _is_spacing(var: dict[str, Any]) -> bool:
    if var.get("resolvedType") != "FLOAT":
        return False
    scoped = bool(_SPACING_SCOPES.intersection(var.get("scopes") or []))
    return scoped or bool(_SPACING_NAME.search(var.get("name", "")))


@plugin_read(
    "design_get_token_values", "Variable values per mode (plugin): colors (hex), spacing or all; filter matches names."
)
async def design_get_token_values(ctx: ApiContext, args: TokenValuesArgs) -> ToolOutput:
    """Token values from the manifest's variables."""
    manifest, cached = await load_manifest(ctx, args.forceRefresh)
    if manifest.variables is None:
        raise DesignError(
            ErrorCode.UNAVAILABLE,
            "The plugin could not read this file's variables. " + " ".join(manifest.notes),
            "Check the plugin's console (design_get_console_logs), then retry with forceRefresh: true.",
        )
    variables, collections = variable_lists(manifest)
    if args.type == "colors":
        wanted = {v.get("id") for v in variables if v.get("resolvedType") == "COLOR"}
    elif args.type == "spacing":
        wanted = {v.get("id") for v in variables if _is_spacing(v)}
    else:
        wanted = {v.get("id") for v in variables}
    # Every variable goes in, so that aliases resolve to variables of any type; the wanted ones come out.
    view = VariableView(verbosity="full", name_pattern=args.filter, resolve_aliases=args.resolveAliases)
    items, _ = shape_variables({"variables": variables, "variableCollections": collections}, view)
    tokens = [{k: v for k, v in item.items() if k not in _FULL_ONLY} for item in items if item.get("id") in wanted]
    digest = shaping.request_digest(manifest.file_key, args.type, args.filter, args.limit, args.resolveAliases)
    start = shaping.decode_cursor(args.cursor, "token_values", digest, manifest.version) if args.cursor else 0
    chosen, next_index = shaping.fit_items(tokens, start, shaping.budget_chars(args.maxTokens), limit=args.limit)
    result: dict[str, Any] = {**freshness(manifest, cached), "type": args.type, "total": len(tokens)}
    result["tokens"] = chosen
    cursor = (
        shaping.encode_cursor("token_values", digest, next_index, manifest.version) if next_index is not None else None
    )
    return ok(shaping.paged(result, cursor))
