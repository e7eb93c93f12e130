"""Design tokens from the design tool's variables into files, in the formats code uses.

The tokens worker runs these (see :mod:`design_console.tools.context`): a large design system converts without
stalling designd. Files follow the user-file rules (:mod:`design_console.runtime.user_files`): paths relative to the
AI app's directory and inside its MCP roots, atomic writes, and nothing overwritten silently.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta

from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import Method
from design_console.protocol import ToolOutput
from design_console.runtime.user_files import read_bytes, resolve, write_bytes
from design_console.tokens import ExportOptions, Format, TokenSet, export, format_named, parse
from design_console.tokens.model import from_variables, merge
from design_console.tools.args import TokenFormat
from design_console.tools.base import CHARS_PER_TOKEN, DEFAULT_RESULT_TOKENS, Args, ok, tokens_tool
from design_console.tools.context import TokensContext

#: Inline files beyond this are cut: the whole export belongs in files (outputPath), not in the model's context.
INLINE_CHARS = DEFAULT_RESULT_TOKENS * CHARS_PER_TOKEN
A = TypeVar("A", bound=Args)
#: A token file read for a merge, or a config file, is never larger than this.
MAX_FILE_BYTES = 20 * 1024 * 1024


class ExportTokensArgs(Args):
    format: TokenFormat = "dtcg"
    scope: Literal["file", "collection"] = "file"
    collectionIds: list[str] | None = None
    modes: list[str] | str | None = None
    outputPath: str | None = None
    configPath: str | None = None
    strategy: Literal["merge", "replace", "dry-run"] = "merge"
    prefix: Annotated[str, Meta(max_length=64)] | None = None
    resolveAliases: bool = False
    splitByMode: bool = False
    splitByCollection: bool = False
    dtcgDialect: Literal["legacy", "2025"] = "legacy"
    colorFormat: Literal["hex", "hex8", "rgba", "oklch", "hsl"] = "hex"
    sizeUnit: Literal["px", "rem", "pt", "dp"] = "px"
    remBase: Annotated[float, Meta(gt=0)] = 16


def given_fields(args: Args) -> set[str]:
    """The arguments a call set to other than their defaults."""
    blank = type(args)()
    return {f for f in args.__struct_fields__ if getattr(args, f) != getattr(blank, f)}


def with_config(ctx: TokensContext, args: A, given: set[str]) -> A:
    """Options from ``args.configPath`` (a JSON object with the tool's own option names) fill what the call left
    out."""
    path = getattr(args, "configPath", None)
    if not path:
        return args
    raw = read_bytes(path, ctx.file_scope, max_bytes=MAX_FILE_BYTES, argument="configPath")
    try:
        options = msgspec.json.decode(raw, type=dict[str, Any])
        merged = {**options, **{k: v for k, v in msgspec.structs.asdict(args).items() if k in given}}
        merged.pop("configPath", None)
        return msgspec.convert(merged, type(args))
    except msgspec.DecodeError as exc:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"configPath {path!r} is not a usable config: {exc}.",
            "Give a JSON object with this tool's option names (format, modes, prefix, …).",
        ) from None


def _select(snapshot: dict[str, Any], args: ExportTokensArgs) -> dict[str, Any]:
    """The snapshot narrowed to the collections asked for (all for scope ``file``)."""
    if args.scope == "file" and not args.collectionIds:
        return snapshot
    if not args.collectionIds:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            "scope collection needs collectionIds.",
            "List the collections with design_get_variables (format: summary) and pass their ids.",
        )
    known = {c["id"] for c in snapshot.get("variableCollections") or []}
    missing = [cid for cid in args.collectionIds if cid not in known]
    if missing:
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"No collection {', '.join(missing)} in this file.",
            "Look the ids up with design_get_variables (format: summary).",
        )
    wanted = set(args.collectionIds)
    return {
        "variableCollections": [c for c in snapshot.get("variableCollections") or [] if c["id"] in wanted],
        "variables": [v for v in snapshot.get("variables") or [] if v.get("variableCollectionId") in wanted],
    }


def _targets(files: dict[str, str], output: str) -> dict[str, str]:
    """Where each exported file goes: ``outputPath`` itself for a single file named with an extension, else into
    ``outputPath`` as a folder."""
    if len(files) == 1 and PurePosixPath(output).suffix:
        return {output: next(iter(files.values()))}
    return {str(PurePosixPath(output) / name): text for name, text in files.items()}


def _merged(ctx: TokensContext, path: str, text: str, fmt: Format, opts: ExportOptions) -> str:
    """``text`` merged into the tokens already in ``path``: tokens the file has and the design tool no longer does
    stay; the design tool's values win for the rest."""
    if not resolve(path, ctx.file_scope, argument="outputPath").is_file():
        return text
    old = read_bytes(path, ctx.file_scope, max_bytes=MAX_FILE_BYTES, argument="outputPath").decode(errors="replace")
    name = PurePosixPath(path).name
    united: TokenSet = merge([parse({name: old}, fmt), parse({name: text}, fmt)])
    return next(iter(export(united, fmt, msgspec.structs.replace(opts, base_name=PurePosixPath(name).stem)).values()))


def _inline(files: dict[str, str]) -> dict[str, Any]:
    out: dict[str, str] = {}
    used = 0
    cut: list[str] = []
    for name, text in files.items():
        if used + len(text) > INLINE_CHARS:
            cut.append(name)
            continue
        out[name] = text
        used += len(text)
    result: dict[str, Any] = {"files": out}
    if cut:
        result["notShown"] = cut
        result["hint"] = "These files did not fit in the answer: pass outputPath to write them."
    return result


@tokens_tool(
    "design_export_tokens",
    "Variables as token files in a code format, inline or to outputPath (merge keeps file-only tokens).",
    toolset="tokens",
    needs_bridge=True,
    file_args=("outputPath", "configPath"),
)
async def design_export_tokens(ctx: TokensContext, args: ExportTokensArgs) -> ToolOutput:
    """Read the variables through the plugin, convert, and write or return the files."""
    args = with_config(ctx, args, given_fields(args))
    snapshot = await ctx.bridge(Method.GET_VARIABLES_DATA, file_key=ctx.active_file_key or "")
    tokens = from_variables(_select(snapshot, args))
    if not any(True for _ in tokens.tokens()):
        raise DesignError(
            ErrorCode.NOT_FOUND,
            "This file has no local variables to export.",
            "Create some (design_setup_design_tokens), or open the file that holds the design system.",
        )
    opts = ExportOptions(
        modes=[args.modes] if isinstance(args.modes, str) else args.modes,
        split_by_mode=args.splitByMode,
        split_by_collection=args.splitByCollection,
        resolve_aliases=args.resolveAliases,
        dtcg_dialect=args.dtcgDialect,
        color_format=args.colorFormat,
        size_unit=args.sizeUnit,
        rem_base=args.remBase,
        prefix=args.prefix or "",
    )
    fmt = format_named(args.format)  # already checked when parsed: this gives it its type
    files = export(tokens, fmt, opts)
    summary: dict[str, Any] = {
        "format": fmt,
        "collections": [c.name for c in tokens.collections],
        "tokens": sum(1 for _ in tokens.tokens()),
    }
    if not args.outputPath:
        return ok({**summary, **_inline(files)})
    written = []
    for path, text in _targets(files, args.outputPath).items():
        if args.strategy == "merge":
            text = _merged(ctx, path, text, fmt, opts)
        report = write_bytes(
            path,
            text.encode(),
            ctx.file_scope,
            strategy="dry-run" if args.strategy == "dry-run" else "replace",
            argument="outputPath",
        )
        written.append(report.to_dict())
    return ok({**summary, "strategy": args.strategy, "files": written})
