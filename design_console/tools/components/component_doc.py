"""design_generate_component_doc: a component's documentation page in markdown, from the design file and the code.

The plugin is the primary source (the component, its layer tree with the variables it binds, the variant analysis
of a set, annotations); with no plugin in the file, the design API's node stands in for all but the annotations
and the variables' names. The design API adds the published metadata and, on request, the file's version history;
``git log`` of the component's source adds the code's history. The page is written to ``outputPath`` under the
user-file rules (:mod:`design_console.runtime.user_files`) or returned, cut to a model's budget. The markdown itself
is built in :mod:`design_console.engines.component_doc_md`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from design_console.engines.component_doc_md import CodeInfo, DocData, Sections, render
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import Method
from design_console.protocol import ToolOutput
from design_console.runtime.user_files import resolve, write_bytes
from design_console.tools.args import FileUrl, NodeArgs
from design_console.tools.base import CHARS_PER_TOKEN, DEFAULT_RESULT_TOKENS, api_write, ok, text
from design_console.tools.components.component_data import component_from_api, component_metadata, fetch_node
from design_console.tools.components.components import plugin_extra
from design_console.tools.context import ApiContext
from design_console.tools.files import file_key_for
from design_console.tools.history.history import MAX_VERSION_PAGES, compact_version, list_versions

#: A page returned inline is cut here; a whole design system's page belongs in a file (outputPath).
INLINE_CHARS = DEFAULT_RESULT_TOKENS * CHARS_PER_TOKEN
#: Layers deep enough for anatomy, specs and typography of a set's variants.
TREE_DEPTH = 5
GIT_TIMEOUT_S = 20.0
#: A commit body longer than this is cut in the page.
MAX_COMMIT_BODY = 500
MAX_GIT_OUTPUT = 4 * 1024 * 1024
_FIELD = "\x1f"
_RECORD = "\x1e"


class History(msgspec.Struct, forbid_unknown_fields=True):
    """Which history to add to the changelog."""

    figma: bool = False
    git: bool = False
    versions: Annotated[int, Meta(ge=1, le=50)] = 10
    includeAutosaves: bool = False
    mode: Literal["summary", "detailed"] = "summary"
    gitLimit: Annotated[int, Meta(ge=1, le=200)] = 20
    gitPaths: list[str] | None = None
    repoPath: str | None = None


class ComponentDocArgs(NodeArgs):
    fileUrl: FileUrl | None = None
    codeInfo: (
        Annotated[
            dict[str, Any],
            Meta(
                description="props,events,slots,importStatement,usageExamples,changelog,filePath,packageName,"
                "variantDefinition,subComponents,sourceFiles,baseComponent"
            ),
        ]
        | None
    ) = None
    sections: (
        Annotated[
            dict[str, Any],
            Meta(
                description="overview,anatomy,statesAndVariants,visualSpecs,typography,contentGuidelines,"
                "behavior,implementation,accessibility,designAnnotations,relatedComponents,changelog,parity"
            ),
        ]
        | None
    ) = None
    outputPath: str | None = None
    systemName: str | None = None
    enrich: bool = True
    includeFrontmatter: bool = True
    history: (
        Annotated[
            dict[str, Any],
            Meta(description="figma,git,versions,includeAutosaves,mode,gitLimit,gitPaths,repoPath"),
        ]
        | None
    ) = None


def _parsed(value: dict[str, Any] | None, kind: type[Any], argument: str) -> Any:
    """One of the object arguments as its struct; a wrong key or type is refused naming it."""
    try:
        return msgspec.convert(value or {}, kind, strict=False)
    except msgspec.ValidationError as exc:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"Invalid {argument}: {exc}.",
            f"Use only the keys the {argument} parameter's description names, with the right types.",
        ) from None


async def _from_api(ctx: ApiContext, key: str, nid: str) -> DocData:
    """The component from the design API alone, for when no plugin runs in the file."""
    entry = await fetch_node(ctx, key, nid, TREE_DEPTH)
    component, tree, analysis = component_from_api(entry, TREE_DEPTH)
    _refuse_instance(nid, component)
    data = DocData(component=component, file_key=key, tree=tree, analysis=analysis or None)
    data.published = component_metadata(entry)
    data.notes.append(
        "Built from the design API: no plugin runs in this file, so annotations and variable names are not included "
        "(open the Desktop Bridge plugin there for them)."
    )
    return data


def _refuse_instance(nid: str, component: dict[str, Any]) -> None:
    if component.get("type") == "INSTANCE":
        main = component.get("mainComponent") or {}
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"Node {nid} is an instance; documentation is written for its main component"
            + (f" {main.get('id')} ({main.get('name')})." if main else "."),
            "Call again with the main component's (or its component set's) node id.",
        )


async def _gather(ctx: ApiContext, key: str, nid: str, enrich: bool) -> DocData:
    """The component from the plugin, with the design API's metadata when ``enrich``; from the design API alone
    when no plugin is connected."""
    try:
        reply = await ctx.bridge(Method.GET_COMPONENT, {"nodeId": nid}, file_key=key)
    except DesignError as exc:
        if exc.code not in (ErrorCode.NOT_CONNECTED, ErrorCode.UNKNOWN_FILE):
            raise
        return await _from_api(ctx, key, nid)
    component = reply["component"]
    _refuse_instance(nid, component)
    data = DocData(component=component, file_key=key)
    is_set = component.get("type") == "COMPONENT_SET"
    # Independent reads: the plugin's three and the design API's one run together.
    deep, analysis, notes, published = await asyncio.gather(
        plugin_extra(ctx, Method.DEEP_GET_COMPONENT, {"nodeId": nid, "depth": TREE_DEPTH}, key),
        plugin_extra(ctx, Method.ANALYZE_COMPONENT_SET, {"nodeId": nid}, key) if is_set else _nothing(),
        plugin_extra(ctx, Method.GET_ANNOTATIONS, {"nodeId": nid, "includeChildren": True, "depth": 4}, key),
        _published(ctx, key, nid) if enrich else _nothing(),
    )
    if "unavailable" in deep:
        data.notes.append(f"Layer details could not be read: {deep['unavailable']}")
    else:
        data.tree = deep.get("component")
    if analysis and "unavailable" not in analysis:
        data.analysis = analysis
    data.annotations = list(notes.get("nodes") or [])
    if "unavailable" in published:
        data.notes.append(f"Design API metadata not included: {published['unavailable']}")
    elif published:
        data.published = published
    return data


async def _nothing() -> dict[str, Any]:
    return {}


async def _published(ctx: ApiContext, key: str, nid: str) -> dict[str, Any]:
    """The design API's metadata of the component, or why it could not be read."""
    try:
        return component_metadata(await fetch_node(ctx, key, nid, 1))
    except DesignError as exc:
        return {"unavailable": exc.message}


async def _figma_history(ctx: ApiContext, key: str, history: History) -> tuple[list[dict[str, Any]], str | None]:
    try:
        versions, _cursor = await list_versions(
            ctx, key, limit=history.versions, include_autosaves=history.includeAutosaves, max_pages=MAX_VERSION_PAGES
        )
    except DesignError as exc:
        return [], f"Design file versions not included: {exc.message}"
    entries = [compact_version(v) for v in versions]
    if history.mode == "summary":
        entries = [{k: v for k, v in e.items() if k in ("id", "created_at", "label", "autosave")} for e in entries]
    return entries, None


def _git_paths(ctx: ApiContext, history: History, code: CodeInfo) -> tuple[Path, list[str]]:
    """The repository folder and the paths inside it whose history is read, each checked against the file rules."""
    repo = resolve(history.repoPath or ".", ctx.file_scope, argument="history.repoPath")
    if not repo.is_dir():
        raise DesignError(ErrorCode.BAD_ARGUMENT, f"history.repoPath {repo} is not a folder.", "Give the repository.")
    wanted = history.gitPaths or [p for p in [code.filePath, *(code.sourceFiles or [])] if p]
    paths = []
    for raw in wanted:
        path = resolve(raw if os.path.isabs(raw) else str(repo / raw), ctx.file_scope, argument="history.gitPaths")
        if not path.is_relative_to(repo):
            raise DesignError(
                ErrorCode.PATH_NOT_ALLOWED,
                f"history.gitPaths entry {raw!r} resolves to {path}, outside the repository {repo}.",
                "Give paths inside history.repoPath.",
            )
        paths.append(str(path.relative_to(repo)) or ".")
    return repo, paths


async def git_log(repo: Path, paths: list[str], limit: int, *, detailed: bool) -> list[dict[str, str]]:
    """The newest ``limit`` commits touching ``paths`` (all of the repository when empty), newest first.

    Runs ``git log`` as a subprocess bounded by GIT_TIMEOUT_S; it is killed on timeout or when the call is cancelled.
    """
    fmt = _FIELD.join(["%h", "%ad", "%an", "%s", "%b" if detailed else ""]) + _RECORD
    cmd = ["git", "--no-pager", "-C", str(repo), "log", f"--max-count={limit}", "--date=short", f"--format={fmt}"]
    try:
        proc = await asyncio.create_subprocess_exec(
            *cmd,
            "--",
            *paths,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
        )
    except FileNotFoundError:
        raise DesignError(
            ErrorCode.UNAVAILABLE, "git is not installed or not on PATH.", "Install git, or leave history.git off."
        ) from None
    try:
        async with asyncio.timeout(GIT_TIMEOUT_S):
            out, err = await proc.communicate()
    except TimeoutError:
        raise DesignError(
            ErrorCode.TIMEOUT, f"git log took longer than {GIT_TIMEOUT_S:g} s.", "Lower history.gitLimit."
        ) from None
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
    if proc.returncode != 0:
        reason = err.decode(errors="replace").strip().splitlines()[:1]
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"git log failed in {repo}: {reason[0] if reason else 'exit ' + str(proc.returncode)}.",
            "Point history.repoPath at a git repository (or a folder inside one).",
        )
    commits = []
    for record in out[:MAX_GIT_OUTPUT].decode(errors="replace").split(_RECORD):
        parts = record.strip("\n").split(_FIELD)
        if len(parts) < 4:
            continue
        body = parts[4].strip() if len(parts) > 4 else ""
        commit = {"hash": parts[0], "date": parts[1], "author": parts[2], "subject": parts[3]}
        if body:
            commit["body"] = body if len(body) <= MAX_COMMIT_BODY else body[: MAX_COMMIT_BODY - 1] + "…"
        commits.append(commit)
    return commits


@api_write(
    "design_generate_component_doc",
    "Markdown component docs; outputPath writes a file.",
    toolset="audit",
    uses_files=True,
    file_args=("outputPath", "history"),
)
async def design_generate_component_doc(ctx: ApiContext, args: ComponentDocArgs) -> ToolOutput:
    """Gather, render, and write or return the page."""
    code: CodeInfo = _parsed(args.codeInfo, CodeInfo, "codeInfo")
    sections: Sections = _parsed(args.sections, Sections, "sections")
    history: History = _parsed(args.history, History, "history")
    key = file_key_for(ctx, args.fileUrl)
    git_target = _git_paths(ctx, history, code) if history.git else None
    data = await _gather(ctx, key, args.nodeId, args.enrich)
    data.code = code
    data.system = args.systemName or ""
    data.generated = datetime.now(UTC).strftime("%Y-%m-%d")
    if history.figma:
        data.versions, note = await _figma_history(ctx, key, history)
        if note:
            data.notes.append(note)
    if git_target is not None:
        data.commits = await git_log(*git_target, history.gitLimit, detailed=history.mode == "detailed")
    markdown, written = render(data, sections, include_frontmatter=args.includeFrontmatter)
    if not args.outputPath:
        if len(markdown) <= INLINE_CHARS:
            return text(markdown)
        cut = markdown[:INLINE_CHARS].rsplit("\n", 1)[0]
        return text(f"{cut}\n\n> Cut at {INLINE_CHARS:,} of {len(markdown):,} characters: pass outputPath for all.\n")
    try:
        report = write_bytes(args.outputPath, markdown.encode(), ctx.file_scope, argument="outputPath")
    except DesignError as exc:
        if exc.code != ErrorCode.FILE_EXISTS:
            raise
        raise DesignError(
            ErrorCode.FILE_EXISTS,
            exc.message,
            "Move or delete the existing file if it should be replaced, or choose another outputPath.",
        ) from None
    result: dict[str, Any] = {**report.to_dict(), "sections": written}
    if data.notes:
        result["notes"] = data.notes
    return ok(result)
