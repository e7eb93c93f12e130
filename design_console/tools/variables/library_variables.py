"""Team-library variables through the Desktop Bridge plugin: list those of the enabled libraries, import one by key.

Both run short scripts through EXECUTE_CODE (figma.teamLibrary, figma.variables.importVariableByKeyAsync).
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import EXECUTE_MAX_MS
from design_console.protocol import ToolOutput
from design_console.tools.args import PagedArgs
from design_console.tools.base import Args, ok, plugin_read, plugin_write
from design_console.tools.context import ApiContext, Context
from design_console.tools.plugin_replies import PLUGIN_ARRAY_ITEMS, parse_reply, run_script, script, unchunk

#: Scanning the team libraries takes as long as the plugin lets code run.
LIBRARY_TIMEOUT_MS = EXECUTE_MAX_MS


IMPORT_TIMEOUT_MS = 15_000


VariableType = Literal["COLOR", "FLOAT", "STRING", "BOOLEAN"]


class _LibraryCollection(msgspec.Struct):
    name: str
    key: str
    libraryName: str = ""


class _LibraryVariable(msgspec.Struct):
    c: int
    name: str
    key: str
    resolvedType: str = ""


class _LibraryFailure(msgspec.Struct):
    collection: int
    error: str = ""


class _LibraryScan(msgspec.Struct):
    unavailable: str | None = None
    availableCollections: int = 0
    collections: list[list[_LibraryCollection] | str] = []
    variables: list[list[_LibraryVariable] | str] = []
    failed: list[list[_LibraryFailure] | str] = []


class _ImportedVariable(msgspec.Struct, omit_defaults=True):
    id: str
    name: str = ""
    key: str | None = None
    resolvedType: str | None = None
    remote: bool | None = None
    variableCollectionId: str | None = None
    collectionName: str | None = None


class _Import(msgspec.Struct):
    imported: bool
    error: str = ""
    variable: _ImportedVariable | None = None


_LIBRARY_SCRIPT = """
const want = __WANT__;
const chunk = (list) => {
  const out = [];
  for (let i = 0; i < list.length; i += __ROWS__) out.push(list.slice(i, i + __ROWS__));
  return out;
};
const has = (text, part) => !part || String(text || "").toLowerCase().indexOf(part.toLowerCase()) >= 0;
const reason = (err) => String(err && err.message ? err.message : err);
let available;
try {
  available = await figma.teamLibrary.getAvailableLibraryVariableCollectionsAsync();
} catch (err) {
  return { unavailable: reason(err) };
}
const collections = available.filter((c) => has(c.libraryName, want.libraryName) && has(c.name, want.collectionName));
const variables = [];
const failed = [];
const lists = await Promise.all(
  collections.map((c, i) =>
    figma.teamLibrary.getVariablesInLibraryCollectionAsync(c.key).catch((err) => {
      failed.push({ collection: i, error: reason(err) });
      return [];
    }),
  ),
);
lists.forEach((list, i) => {
  list.forEach((v) => {
    if (!want.resolvedType || v.resolvedType === want.resolvedType) {
      variables.push({ c: i, name: v.name, key: v.key, resolvedType: v.resolvedType });
    }
  });
});
return {
  availableCollections: available.length,
  collections: chunk(collections.map((c) => ({ name: c.name, key: c.key, libraryName: c.libraryName }))),
  variables: chunk(variables),
  failed: chunk(failed),
};
"""


_IMPORT_SCRIPT = """
const key = __KEY__;
let variable;
try {
  variable = await figma.variables.importVariableByKeyAsync(key);
} catch (err) {
  return { imported: false, error: String(err && err.message ? err.message : err) };
}
const collection = await figma.variables.getVariableCollectionByIdAsync(variable.variableCollectionId);
return {
  imported: true,
  variable: {
    id: variable.id,
    name: variable.name,
    key: variable.key,
    resolvedType: variable.resolvedType,
    remote: variable.remote,
    variableCollectionId: variable.variableCollectionId,
    collectionName: collection ? collection.name : null,
  },
};
"""


def _library_hint(ctx: Context) -> str:
    manifest = ctx.config.plugin_dir / "manifest.json"
    return (
        "Enable the libraries for this file (Assets > Libraries) and make sure the plugin was imported from "
        f"{manifest} (it needs the teamlibrary permission), then retry."
    )


class LibraryVariablesArgs(PagedArgs):
    libraryName: Annotated[str, Meta(max_length=500)] | None = None
    collectionName: Annotated[str, Meta(max_length=500)] | None = None
    resolvedType: VariableType | None = None


@plugin_read(
    "design_get_library_variables", "Variables of the file's enabled libraries: name, key, type, collection, library."
)
async def design_get_library_variables(ctx: ApiContext, args: LibraryVariablesArgs) -> ToolOutput:
    """Library variables listed by figma.teamLibrary in the plugin."""
    want = {"libraryName": args.libraryName, "collectionName": args.collectionName, "resolvedType": args.resolvedType}
    code = script(_LIBRARY_SCRIPT, want=want, rows=PLUGIN_ARRAY_ITEMS)
    scan = parse_reply(ctx, await run_script(ctx, code, LIBRARY_TIMEOUT_MS), _LibraryScan, "EXECUTE_CODE")
    if scan.unavailable is not None:
        raise DesignError(
            ErrorCode.UNAVAILABLE, f"The plugin cannot read team libraries: {scan.unavailable}.", _library_hint(ctx)
        )
    collections, cut_collections = unchunk(scan.collections)
    variables, cut_variables = unchunk(scan.variables)
    failed, _ = unchunk(scan.failed)
    items = []
    for var in variables:
        coll = collections[var.c] if 0 <= var.c < len(collections) else None
        item = {"name": var.name, "key": var.key, "resolvedType": var.resolvedType}
        if coll is not None:
            item["collection"] = coll.name
            item["library"] = coll.libraryName
        items.append(item)
    items.sort(key=lambda i: (i.get("library", ""), i.get("collection", ""), i["name"]))
    libraries: dict[str, list[dict[str, Any]]] = {}
    counts = Counter(var.c for var in variables)
    for index, coll in enumerate(collections):
        libraries.setdefault(coll.libraryName, []).append({"name": coll.name, "variables": counts.get(index, 0)})
    digest = shaping.request_digest(args.libraryName, args.collectionName, args.resolvedType)
    version = shaping.request_digest(items)
    start = shaping.decode_cursor(args.cursor, "library_variables", digest, version) if args.cursor else 0
    budget = shaping.budget_chars(args.maxTokens)
    result: dict[str, Any] = {"total": len(items)}
    if not start:
        # The first part also says which libraries and collections there are; later parts carry only variables.
        entries = [{"name": name, "collections": colls} for name, colls in sorted(libraries.items())]
        shown, rest = shaping.fit_items(entries, 0, budget // 2)
        result["libraries"] = shown
        notes = [
            f"Collection {collections[f.collection].name!r} could not be read: {f.error}"
            for f in failed
            if 0 <= f.collection < len(collections)
        ]
        if rest is not None:
            notes.append(f"Showing {len(shown)} of {len(entries)} libraries; pass libraryName to see another.")
        if cut_collections or cut_variables:
            notes.append("The plugin cut a list short; narrow the call with libraryName or collectionName.")
        if not scan.availableCollections:
            notes.append("No library with variables is enabled for this file. " + _library_hint(ctx))
        if notes:
            result["notes"] = notes
    budget -= shaping.size_of(result)
    chosen, next_index = shaping.fit_items(items, start, budget)
    result["variables"] = chosen
    cursor = shaping.encode_cursor("library_variables", digest, next_index, version) if next_index is not None else None
    return ok(shaping.paged(result, cursor))


class ImportLibraryVariableArgs(Args):
    variableKey: Annotated[str, Meta(min_length=1, max_length=200)]


@plugin_write(
    "design_import_library_variable",
    "Import a library variable by key (design_get_library_variables); returns its local id.",
    idempotent=True,
)
async def design_import_library_variable(ctx: ApiContext, args: ImportLibraryVariableArgs) -> ToolOutput:
    """figma.variables.importVariableByKeyAsync in the plugin."""
    code = script(_IMPORT_SCRIPT, key=args.variableKey)
    answer = parse_reply(ctx, await run_script(ctx, code, IMPORT_TIMEOUT_MS), _Import, "EXECUTE_CODE")
    if not answer.imported or answer.variable is None:
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"Variable {args.variableKey!r} could not be imported: {answer.error or 'the plugin gave no reason'}.",
            "Check the key with design_get_library_variables; its library must be published and enabled for this "
            "file (Assets > Libraries).",
        )
    variable = msgspec.to_builtins(answer.variable)
    return ok({"variableId": answer.variable.id, "variable": variable})
