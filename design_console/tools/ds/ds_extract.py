"""Design-system extraction from code, with no design tool: analyse app codebases, mine their tokens, scaffold a
package with token files and MDX docs, wire a fresh Storybook to it, write per-component porting manifests, verify
the package, and track porting progress.

The tokens worker runs these (scans read thousands of files; the heavy part runs in a thread so the worker keeps
answering). What the tools learn is kept in ``<outDir>/.extraction/``: ``analysis.json`` (the inventory),
``tokens.json`` (the mined tokens as DTCG, with the file:line and frequency of each value), ``components/*.json``
(manifests), ``status.json`` (porting progress) and ``written.json`` (hashes of the files the tools wrote, so that a
file the user has edited since is never replaced silently). Paths follow :mod:`design_console.runtime.user_files`.
What goes into the files is computed by :mod:`design_console.engines.ds_package`, free of I/O.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Unpack

import msgspec
from msgspec import Meta

from design_console.codebase import analyze as analysis
from design_console.codebase.component import describe
from design_console.codebase.source import TEMPLATE_SUFFIXES
from design_console.codebase.styles import mine
from design_console.codebase.walk import Walk, walk
from design_console.engines.ds_package import (
    LIST_LIMIT,
    OutFormat,
    Provenance,
    broken_references,
    differences,
    docs_pages,
    format_files,
    patched_preview,
    provenance_of,
    story_stub,
    token_files,
    token_summary,
    tokens_of,
    with_provenance,
)
from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.runtime.user_files import WriteReport, read_bytes, resolve, write_bytes
from design_console.tokens import ExportOptions, TokenSet, export, parse
from design_console.tools.base import Args, ToolOptions, ok, tokens_tool
from design_console.tools.context import TokensContext

Framework = Literal["react", "next", "astro", "angular", "web-components", "vue", "svelte"]
Status = Literal["pending", "extracted", "in-progress", "ported", "verified", "skipped"]
DEFAULT_FORMATS: list[OutFormat] = ["dtcg", "css-vars"]

STATE = ".extraction"
#: A component's source beyond this is cut in its manifest.
MAX_SOURCE_BYTES = 64 * 1024
#: Source text shown in a result beyond this is left in the manifest file only.
INLINE_SOURCE_CHARS = 24_000


class AnalyzeArgs(Args):
    targets: list[str]
    outDir: str | None = None
    include: list[str] | None = None
    exclude: list[str] | None = None
    maxFiles: Annotated[int, Meta(ge=100, le=20_000)] = 5000


class ExtractTokensArgs(Args):
    outDir: str | None = None
    targets: list[str] | None = None
    formats: list[OutFormat] = msgspec.field(default_factory=lambda: list(DEFAULT_FORMATS))
    dtcgDialect: Literal["legacy", "2025"] = "legacy"
    minFrequency: Annotated[int, Meta(ge=2, le=100)] = 4
    write: bool = True


class ScaffoldArgs(Args):
    outDir: str
    packageName: str | None = None
    framework: Framework | None = None
    formats: list[OutFormat] = msgspec.field(default_factory=lambda: list(DEFAULT_FORMATS))
    dtcgDialect: Literal["legacy", "2025"] = "legacy"
    force: bool = False


class OutDirArgs(Args):
    outDir: str


class ComponentArgs(Args):
    outDir: str
    component: str


class StatusUpdate(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    component: str
    #: One of :data:`Status`, checked by the tool (an enum in the schema would cost every session its bytes).
    status: str | None = None
    notes: str | None = None
    storyFile: str | None = None


class StatusArgs(Args):
    outDir: str
    update: StatusUpdate | None = None


# Running the engine off the event loop ----------------------------------------------------------------------------

T = TypeVar("T")
A = TypeVar("A", bound=Args)


def _in_thread(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[Callable[[TokensContext, A], Any]], Callable[[TokensContext, A], Any]]:
    """Declare a tool whose work is the decorated blocking function: it runs in a thread, off the tokens worker's
    event loop, and the tool answers with what it returns. The tool takes the arguments the work is annotated with."""

    def declare(work: Callable[[TokensContext, A], Any]) -> Callable[[TokensContext, A], Any]:
        @functools.wraps(work)
        async def handler(ctx: TokensContext, args: A) -> ToolOutput:
            return ok(await asyncio.to_thread(work, ctx, args))

        tokens_tool(name, description, **options)(handler)
        return work

    return declare


async def _off_loop(ctx: TokensContext, work: Callable[[Callable[[int, str], None]], T]) -> T:
    """Run ``work(report)`` in a thread; its progress reports reach the caller from the event loop."""
    loop = asyncio.get_running_loop()

    def report(done: int, message: str) -> None:
        asyncio.run_coroutine_threadsafe(ctx.progress(done, None, message), loop)

    return await asyncio.to_thread(work, report)


def _targets(ctx: TokensContext, raw: list[str]) -> list[Path]:
    if not raw or len(raw) > 20:
        raise DesignError(ErrorCode.BAD_ARGUMENT, "targets needs 1 to 20 paths.", "Pass the app folders to scan.")
    out = []
    for text in raw:
        path = resolve(text, ctx.file_scope, argument="targets")
        if not path.exists():
            raise DesignError(ErrorCode.NOT_FOUND, f"target {text!r} ({path}) does not exist.", "Check the path.")
        out.append(path)
    return out


def _scan(
    targets: list[Path], include: list[str], exclude: list[str], max_files: int, out: Path | None
) -> Callable[..., Walk]:
    """The walk of a scan, for :func:`_off_loop`; the package being written (``out``) is never read as a source."""

    def work(report: Callable[[int, str], None]) -> Walk:
        skip = [out] if out is not None else []
        return walk(targets, include=include, exclude=exclude, max_files=max_files, progress=report, skip=skip)

    return work


# The state folder ----------------------------------------------------------------------------------------------------


def _out(ctx: TokensContext, raw: str) -> Path:
    path = resolve(raw, ctx.file_scope, argument="outDir")
    if path.exists() and not path.is_dir():
        raise DesignError(ErrorCode.BAD_ARGUMENT, f"outDir {path} is a file.", "Give a folder.")
    return path


def _load(out: Path, name: str) -> Any:
    try:
        return json.loads((out / STATE / name).read_text())
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT, f"{out / STATE / name} is not valid JSON ({exc}).", "Delete it and run again."
        ) from None


def _need(out: Path, name: str, tool_name: str) -> Any:
    data = _load(out, name)
    if data is None:
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"{out} has no {STATE}/{name} yet.",
            f"Run {tool_name} with outDir {str(out)!r} first.",
        )
    return data


def _json_bytes(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n").encode()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_state(ctx: TokensContext, out: Path, name: str, data: Any) -> None:
    """The tools' own state files are theirs to replace."""
    write_bytes(str(out / STATE / name), _json_bytes(data), ctx.file_scope, strategy="replace", argument="outDir")


def _edited(out: Path, files: dict[str, bytes], written: dict[str, str]) -> list[str]:
    """The files among ``files`` that exist under ``out`` with content neither new nor what the tools last wrote."""
    conflicts = []
    for rel, data in files.items():
        path = out / rel
        if path.is_file():
            current = path.read_bytes()
            if current != data and written.get(rel) != _sha(current):
                conflicts.append(rel)
    return conflicts


def _refuse(out: Path, conflicts: list[str], hint: str) -> None:
    raise DesignError(
        ErrorCode.FILE_EXISTS,
        f"These files in {out} differ from what the tools wrote there; nothing was written: "
        + ", ".join(conflicts[:20]),
        hint,
    )


def _write_files(
    ctx: TokensContext,
    out: Path,
    files: dict[str, bytes],
    *,
    force: bool,
    keep_edited: bool = False,
    hint: str = "Pass force: true to replace them, or move them away.",
) -> list[dict[str, object]]:
    """Write package files under ``out``. A file whose content differs from what these tools last wrote there (the
    user edited it, or it was never ours) is refused, all files unwritten, unless ``force``; with ``keep_edited``
    such a file is left as it is instead."""
    written = _load(out, "written.json") or {}
    conflicts = [] if force else _edited(out, files, written)
    if conflicts and not keep_edited:
        _refuse(out, conflicts, hint)
    reports: list[dict[str, object]] = []
    for rel, data in files.items():
        if rel in conflicts:
            reports.append({"path": str(out / rel), "action": "kept (edited)"})
            continue
        report: WriteReport = write_bytes(str(out / rel), data, ctx.file_scope, strategy="replace", argument="outDir")
        written[rel] = _sha(data)
        reports.append({"path": report.path, "action": report.action})
    _write_state(ctx, out, "written.json", dict(sorted(written.items())))
    return reports


# design_ds_analyze -----------------------------------------------------------------------------------------------


#: Files named per component in the saved inventory (where a porter looks for examples of its use).
USED_IN_LIMIT = 10


def _inventory(components: list[analysis.Component], bases: dict[str, Path]) -> list[dict[str, Any]]:
    out = []
    for c in components:
        entry = c.to_dict()
        if c.file:
            entry["path"] = str(bases[c.target] / c.file)
        out.append(entry)
    return out


def _used_in(components: list[analysis.Component]) -> list[list[str]]:
    return [sorted(c.used_in)[:USED_IN_LIMIT] for c in components]


@tokens_tool("design_ds_analyze", "Analyse codebases: stack, vendor layers, components by use.")
async def design_ds_analyze(ctx: TokensContext, args: AnalyzeArgs) -> ToolOutput:
    """Walk the targets, analyse, and keep the full inventory in ``<outDir>/.extraction/analysis.json``."""
    targets, out = await asyncio.to_thread(_places, ctx, args.targets, args.outDir)
    scan = await _off_loop(ctx, _scan(targets, args.include or [], args.exclude or [], args.maxFiles, out))
    return ok(await asyncio.to_thread(_analyzed, ctx, args, targets, out, scan))


def _places(ctx: TokensContext, targets: list[str], out_dir: str | None) -> tuple[list[Path], Path | None]:
    return _targets(ctx, targets), (_out(ctx, out_dir) if out_dir else None)


def _analyzed(ctx: TokensContext, args: AnalyzeArgs, targets: list[Path], out: Path | None, scan: Walk) -> Any:
    result = analysis.analyze(scan.files)
    bases = {str(t): (t if t.is_dir() else t.parent) for t in targets}
    components = _inventory(result["components"], bases)
    summary: dict[str, Any] = {
        "files": len(scan.files),
        "frameworks": result["frameworks"],
        "styling": result["styling"],
        "vendorLayers": result["vendorLayers"],
        "architecture": result["architecture"],
        "components": {"total": len(components), "top": components[:LIST_LIMIT]},
    }
    if scan.truncated:
        summary["note"] = f"Stopped at maxFiles ({args.maxFiles}): raise it or narrow targets/include."
    if scan.skipped_large or scan.skipped_minified:
        summary["skipped"] = {"large": scan.skipped_large, "minified": scan.skipped_minified}
    if out is not None:
        saved = [
            {**entry, "usedIn": files} if files else entry
            for entry, files in zip(components, _used_in(result["components"]), strict=True)
        ]
        full = {**summary, "targets": [str(t) for t in targets], "components": saved}
        _write_state(ctx, out, "analysis.json", full)
        summary["saved"] = str(out / STATE / "analysis.json")
    return summary


# design_ds_extract_tokens ----------------------------------------------------------------------------------------


@tokens_tool("design_ds_extract_tokens", "Mine CSS/SCSS/Tailwind tokens with provenance.")
async def design_ds_extract_tokens(ctx: TokensContext, args: ExtractTokensArgs) -> ToolOutput:
    """Mine the targets (or those of the saved analysis), then write ``.extraction/tokens.json`` and the formats."""
    targets, out = await asyncio.to_thread(_token_places, ctx, args)
    scan = await _off_loop(ctx, _scan(targets, [], [], 20_000, out))
    return ok(await asyncio.to_thread(_extracted, ctx, args, targets, out, scan))


def _token_places(ctx: TokensContext, args: ExtractTokensArgs) -> tuple[list[Path], Path | None]:
    out = _out(ctx, args.outDir) if args.outDir else None
    raw_targets = args.targets or (((_load(out, "analysis.json") or {}).get("targets")) if out else None)
    if not raw_targets:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            "No targets: none given and no saved analysis in outDir.",
            "Pass targets, or run design_ds_analyze with outDir first.",
        )
    return _targets(ctx, raw_targets), out


def _name_for_people(scan: Walk, cwd: Path | None) -> None:
    """Give each file the path a person knows it by (relative to the AI app's folder when inside it, else absolute),
    so that the places of tokens mined from several targets cannot be mistaken for one another."""
    base = Path(os.path.realpath(cwd)) if cwd is not None else None
    for f in scan.files:
        target = Path(f.target)
        full = (target if target.is_dir() else target.parent) / f.path
        f.path = str(full.relative_to(base)) if base is not None and full.is_relative_to(base) else str(full)


def _extracted(
    ctx: TokensContext, args: ExtractTokensArgs, targets: list[Path], out: Path | None, scan: Walk
) -> dict[str, Any]:
    _name_for_people(scan, ctx.file_scope.cwd)
    mining = mine(scan.files, args.minFrequency)
    tokens, provenance, unresolved = tokens_of(mining)
    summary = {
        **token_summary(tokens, provenance),
        "skippedComputed": mining.skipped,
        "componentScoped": mining.scoped,
        "fonts": mining.fonts[:20],
    }
    if mining.errors:
        summary["parseErrors"] = mining.errors[:10]
    if unresolved:
        summary["unresolved"] = {"count": len(unresolved), "first": unresolved[:LIST_LIMIT]}
    if not any(True for _ in tokens.tokens()):
        summary["note"] = "No token values found: point targets at the folders that hold the stylesheets."
        return summary
    if out is None or not args.write:
        return summary
    files = format_files(tokens, args.formats, args.dtcgDialect, provenance)
    hint = "Move the edited files away (or call with write: false) and call again."
    if conflicts := _edited(out, files, _load(out, "written.json") or {}):
        _refuse(out, conflicts, hint)  # before the extraction itself changes: it and the files stay in step
    canonical = next(iter(export(tokens, "dtcg", ExportOptions(base_name="tokens")).values()))
    _write_state(ctx, out, "tokens.json", json.loads(with_provenance(canonical, provenance)))
    _write_state(ctx, out, "extraction.json", {"targets": [str(t) for t in targets], "fonts": mining.fonts})
    summary["files"] = _write_files(ctx, out, files, force=False, hint=hint)
    return summary


# design_ds_scaffold ------------------------------------------------------------------------------------------------


def _canonical(out: Path) -> tuple[TokenSet, Provenance]:
    """The extracted tokens and their provenance."""
    data = _need(out, "tokens.json", "design_ds_extract_tokens")
    return parse({"tokens.json": json.dumps(data)}, "dtcg"), provenance_of(data)


_PEERS: dict[str, dict[str, str]] = {
    "react": {"react": ">=18"},
    "next": {"react": ">=18", "next": ">=14"},
    "astro": {"astro": ">=4"},
    "angular": {"@angular/core": ">=17"},
    "web-components": {"lit": ">=3"},
    "vue": {"vue": ">=3"},
    "svelte": {"svelte": ">=4"},
}


def _framework(out: Path, given: str | None) -> str:
    if given:
        return given
    found = ((_load(out, "analysis.json") or {}).get("frameworks")) or []
    return next((f for f in found if f in _PEERS), "react")


#: An npm package name (lower case, optionally scoped), as npm accepts it.
_PACKAGE_NAME = re.compile(r"^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$")


@_in_thread("design_ds_scaffold", "Write a token package with MDX docs.")
def _scaffold(ctx: TokensContext, args: ScaffoldArgs) -> Any:
    """Write the package skeleton from the extracted tokens."""
    if args.packageName is not None and (len(args.packageName) > 214 or not _PACKAGE_NAME.match(args.packageName)):
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"packageName {args.packageName[:100]!r} is not an npm package name.",
            "Use lower-case letters, digits, '-', '.', '_', optionally scoped: @acme/design-system.",
        )
    out = _out(ctx, args.outDir)
    tokens, provenance = _canonical(out)
    framework = _framework(out, args.framework)
    name = args.packageName or re.sub(r"[^a-z0-9.-]+", "-", f"{out.name.lower()}").strip("-") or "design-system"
    title = name.split("/")[-1]
    package = {
        "name": name,
        "version": "0.1.0",
        "private": True,
        "type": "module",
        "files": ["tokens", "docs", "src"],
        "exports": {"./tokens/*": "./tokens/*"},
        "scripts": {"storybook": "storybook dev -p 6006", "build-storybook": "storybook build"},
        "peerDependencies": _PEERS[framework],
    }
    files = {"package.json": _json_bytes(package)}
    files.update(format_files(tokens, args.formats, args.dtcgDialect, provenance))
    readme = (
        f"# {name}\n\nDesign system extracted from code ({framework}).\n\n"
        + "".join(f"- `{p}`\n" for p in sorted(files) if p.startswith("tokens/"))
        + "\nDocs: `docs/*.mdx` (Storybook). Porting progress: `.extraction/status.json`.\n"
    )
    files["README.md"] = readme.encode()
    files.update({p: text.encode() for p, text in docs_pages(tokens, title).items()})
    reports = _write_files(ctx, out, files, force=args.force)
    _write_state(ctx, out, "package.json", {"name": name, "framework": framework, "formats": list(args.formats)})
    return {"package": name, "framework": framework, "files": reports}


# design_ds_setup_storybook -----------------------------------------------------------------------------------------


def _existing_token_files(out: Path) -> dict[str, list[str]]:
    """The token files in ``<out>/tokens``, by format (paths relative to that folder)."""
    folder = out / "tokens"
    if not folder.is_dir():
        return {}
    return token_files([p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()])


def _find_config(folder: Path, stem: str) -> Path | None:
    for ext in (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts"):
        if (folder / f"{stem}{ext}").is_file():
            return folder / f"{stem}{ext}"
    return None


#: Names of the token that holds a codebase's body font.
_SANS = re.compile(r"(font-)?(sans|body|family-sans-serif|font-family-base|family-base)")


@_in_thread("design_ds_setup_storybook", "Wire a fresh Storybook to the tokens.")
def _setup_storybook(ctx: TokensContext, args: OutDirArgs) -> Any:
    """Import the token CSS and fonts in preview, and list the MDX docs in main's stories."""
    out = _out(ctx, args.outDir)
    folder = out / ".storybook"
    main, preview = _find_config(folder, "main"), _find_config(folder, "preview")
    if main is None or preview is None:
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"No Storybook in {out} (.storybook/main and .storybook/preview).",
            f"Create one first: `npm create storybook@latest` in {out}, then call again.",
        )
    tokens, provenance = _canonical(out)
    modes = list(dict.fromkeys(m for c in tokens.collections for m in c.modes))
    files: dict[str, bytes] = {}
    css = _existing_token_files(out).get("css-vars")
    if css is None:
        files.update(format_files(tokens, ["css-vars"], "legacy", provenance))
        css = [path.removeprefix("tokens/") for path in files]
    preview_text, notes = patched_preview(
        preview.read_text(), modes, [f"tokens/{path}" for path in css] + ["tokens/fonts.css"]
    )
    main_text = main.read_text()
    if "../docs/**/*.mdx" not in main_text:
        patched, count = re.subn(
            r"([\"']?stories[\"']?\s*:\s*\[)(\s*)", r'\1\2"../docs/**/*.mdx",\2', main_text, count=1
        )
        if not count:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT,
                f"{main} has no `stories: [` list to add the docs to; nothing was changed.",
                'Add "../docs/**/*.mdx" to its stories yourself, then call again.',
            )
        main_text = patched

    facts = _load(out, "extraction.json") or {}
    fonts = [f for f in facts.get("fonts", []) if f.startswith("http")]
    lines = [f'@import url("{url}");' for url in fonts]
    sans = next((t for _, t in tokens.tokens() if _SANS.fullmatch(t.name) and t.type == "string"), None)
    if sans is not None:
        # The family itself, not var(): the token engine writes a font stack as one quoted CSS string.
        lines.append(f"body {{ font-family: {next(iter(sans.values.values()))}; }}")
    files["tokens/fonts.css"] = ("\n".join(lines) + "\n").encode()
    reports = _write_files(ctx, out, files, force=False, keep_edited=True)
    for path, text in ((preview, preview_text), (main, main_text)):
        report = write_bytes(str(path), text.encode(), ctx.file_scope, strategy="replace", argument="outDir")
        reports.append({"path": report.path, "action": report.action, **({"diff": report.diff} if report.diff else {})})
    result: dict[str, Any] = {"files": reports, "fonts": fonts, "modes": modes}
    if notes:
        result["notes"] = notes
    return result


# design_ds_extract_component ---------------------------------------------------------------------------------------


#: Frameworks whose stories are TSX.
_JSX_FRAMEWORKS = frozenset({"react", "next", "astro"})
#: A component's source file is read only up to this (the manifest keeps at most MAX_SOURCE_BYTES of it).
MAX_FILE_BYTES = 2 * 1024 * 1024
_STORY_IMPORTS = {
    "react": "@storybook/react",
    "next": "@storybook/react",
    "vue": "@storybook/vue3",
    "svelte": "@storybook/svelte",
    "angular": "@storybook/angular",
    "web-components": "@storybook/web-components",
    "astro": "@storybook/react",
}


#: ``framework: "@storybook/react-vite"`` or ``framework: { name: "…" }`` in a Storybook main file.
_SB_FRAMEWORK = re.compile(
    r"[\"']?framework[\"']?\s*:\s*(?:\{\s*[\"']?name[\"']?\s*:\s*)?[\"'](@storybook/[\w-]+)[\"']"
)


def _story_types(out: Path, framework: str) -> str:
    """The package a story imports ``Meta``/``StoryObj`` from: the Storybook framework that outDir's Storybook names
    (``@storybook/react-vite``…), else the renderer of the code's framework."""
    main = _find_config(out / ".storybook", "main")
    if main is not None and (m := _SB_FRAMEWORK.search(main.read_text(errors="replace"))):
        return m.group(1)
    return _STORY_IMPORTS.get(framework, "@storybook/react")


def _pick(components: list[dict[str, Any]], wanted: str) -> list[dict[str, Any]]:
    """The components of that name defined in the code, the most used first."""
    own = [c for c in components if c.get("path")]
    found = [c for c in own if c["name"] == wanted] or [c for c in own if c["name"].lower() == wanted.lower()]
    if not found:
        close = [c["name"] for c in own if wanted.lower() in c["name"].lower()][:10]
        raise DesignError(
            ErrorCode.NOT_FOUND,
            f"No component {wanted!r} defined in the analysed code.",
            (f"Did you mean: {', '.join(close)}?" if close else "List them with design_ds_analyze (components)."),
        )
    return found


@_in_thread("design_ds_extract_component", "Component porting manifest + CSF3 stub.")
def _extract_component(ctx: TokensContext, args: ComponentArgs) -> Any:
    """Write ``.extraction/components/<Name>.json`` and a story stub, and mark the component extracted."""
    out = _out(ctx, args.outDir)
    analysed = _need(out, "analysis.json", "design_ds_analyze")
    comp, *namesakes = _pick(analysed.get("components") or [], args.component)
    source_path = resolve(comp["path"], ctx.file_scope, argument="component")
    data = read_bytes(comp["path"], ctx.file_scope, max_bytes=MAX_FILE_BYTES, argument="component")
    cut = len(data) > MAX_SOURCE_BYTES
    text = data[:MAX_SOURCE_BYTES].decode(errors="replace")
    if cut:
        text = text.rsplit("\n", 1)[0] + "\n"
    facts = describe(data.decode(errors="replace"), comp["name"])
    name = comp["name"]
    framework = _framework(out, None)
    story_rel = f"src/components/{name}/{name}.stories.{'tsx' if framework in _JSX_FRAMEWORKS else 'ts'}"
    # A single-file component is imported with its extension (`Button.vue`), a script module without.
    target = source_path if source_path.suffix in TEMPLATE_SUFFIXES else source_path.with_suffix("")
    module = os.path.relpath(target, out / os.path.dirname(story_rel))
    module = module if module.startswith(".") else f"./{module}"
    default_export = source_path.suffix in TEMPLATE_SUFFIXES or bool(
        re.search(rf"export\s+default\s+(function\s+)?{name}\b", data.decode(errors="replace"))
    )
    stub = story_stub(name, module, default_export, _story_types(out, framework), facts)
    manifest = {
        "component": name,
        "source": {
            "path": str(source_path),
            "defined": comp.get("defined", ""),
            "bytes": len(data),
            "sha256": _sha(data),
            "truncated": cut,
        },
        "usage": {"uses": comp.get("uses", 0), "files": comp.get("files", 0), "in": comp.get("usedIn", [])},
        **({"namesakes": [c.get("defined", "") for c in namesakes]} if namesakes else {}),
        **facts,
        "story": {"file": story_rel, "text": stub},
        "sourceText": text,
    }
    _write_state(ctx, out, f"components/{name}.json", manifest)
    reports = _write_files(ctx, out, {story_rel: stub.encode()}, force=False, keep_edited=True)
    _set_status(ctx, out, StatusUpdate(component=name, storyFile=story_rel), promote="extracted")
    shown = dict(manifest)
    if len(text) > INLINE_SOURCE_CHARS:
        shown["sourceText"] = f"(in {out / STATE / 'components' / (name + '.json')})"
    return {**shown, "files": reports}


# design_ds_verify --------------------------------------------------------------------------------------------------


def _check(name: str, problems: list[str], detail: str = "") -> dict[str, Any]:
    entry: dict[str, Any] = {"check": name, "ok": not problems}
    if problems:
        entry["problems"] = problems[:20]
        if len(problems) > 20:
            entry["more"] = len(problems) - 20
    elif detail:
        entry["detail"] = detail
    return entry


@_in_thread("design_ds_verify", "Check the extracted package.", read_only=True)
def _verify(ctx: TokensContext, args: OutDirArgs) -> Any:
    """Every check, in a fixed order, with what failed."""
    out = _out(ctx, args.outDir)
    tokens, _ = _canonical(out)
    checks = []

    problems = []
    parsed: dict[str, TokenSet] = {}
    for fmt, names in _existing_token_files(out).items():
        texts = {name: (out / "tokens" / name).read_text(errors="replace") for name in names}
        where = f"tokens/{names[0]}" if len(names) == 1 else f"tokens/{fmt}/"
        try:
            got = parse(texts, fmt)  # type: ignore[arg-type]
        except DesignError as exc:
            problems.append(exc.message)
            continue
        parsed[where] = got
        if not any(True for _ in got.tokens()):
            problems.append(f"{where}: no tokens")
    if not parsed and not problems:
        problems.append("no token files in tokens/ (run design_ds_scaffold)")
    checks.append(_check("token-files-parse", problems, f"{len(parsed)} formats"))

    broken = [
        f"{where}: {problem}"
        for where, token_set in [(f"{STATE}/tokens.json", tokens), *parsed.items()]
        for problem in broken_references(token_set)
    ]
    checks.append(_check("references-resolve", broken, f"{len(parsed) + 1} token sets"))
    if "tokens/dtcg.json" in parsed:
        mismatches = differences(tokens, parsed["tokens/dtcg.json"])
        checks.append(_check("dtcg-matches-extraction", mismatches, f"{sum(1 for _ in tokens.tokens())} tokens"))

    expected = sorted(docs_pages(tokens, "x"))
    missing = [p for p in expected if not (out / p).is_file() or not (out / p).read_text().strip()]
    checks.append(_check("docs-present", missing, ", ".join(expected)))

    pkg_problems = []
    try:
        if not json.loads((out / "package.json").read_text()).get("name"):
            pkg_problems.append("package.json has no name")
    except (OSError, ValueError) as exc:
        pkg_problems.append(f"package.json: {exc}")
    checks.append(_check("package-json", pkg_problems))

    manifest_problems = []
    manifests = sorted((out / STATE / "components").glob("*.json")) if (out / STATE / "components").is_dir() else []
    for path in manifests:
        try:
            m = json.loads(path.read_text())
            source = Path(m["source"]["path"])
            if not source.is_file():
                manifest_problems.append(f"{path.name}: source {source} is gone")
            elif _sha(source.read_bytes()) != m["source"]["sha256"]:
                manifest_problems.append(f"{path.name}: source changed since extraction")
            if not (out / m["story"]["file"]).is_file():
                manifest_problems.append(f"{path.name}: story {m['story']['file']} is missing")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            manifest_problems.append(f"{path.name}: unreadable ({exc})")
    status = (_load(out, "status.json") or {}).get("components", {})
    have = {p.stem for p in manifests}
    for name, entry in sorted(status.items()):
        if entry.get("status") not in ("pending", "skipped") and name not in have:
            manifest_problems.append(f"status: {name} is {entry.get('status')} but has no manifest")
    checks.append(_check("manifests-consistent", manifest_problems, f"{len(manifests)} manifests"))
    return {"ok": all(c["ok"] for c in checks), "checks": checks}


# design_ds_status --------------------------------------------------------------------------------------------------

#: Notes of one component beyond this would crowd every status answer.
MAX_NOTE_CHARS = 2_000
_ORDER: list[Status] = ["pending", "extracted", "in-progress", "ported", "verified", "skipped"]


def _set_status(
    ctx: TokensContext, out: Path, update: StatusUpdate, *, promote: Status | None = None
) -> dict[str, Any]:
    state = _load(out, "status.json") or {"components": {}}
    entry = state["components"].setdefault(update.component, {"status": "pending"})
    if promote and _ORDER.index(entry.get("status", "pending")) < _ORDER.index(promote):
        entry["status"] = promote
    for key in ("status", "notes", "storyFile"):
        value = getattr(update, key)
        if value is not None:
            entry[key] = value
    entry["updated"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    state["components"] = dict(sorted(state["components"].items()))
    _write_state(ctx, out, "status.json", state)
    return state


@_in_thread("design_ds_status", "Read/update porting status.")
def _status(ctx: TokensContext, args: StatusArgs) -> Any:
    """The progress of every component (after applying ``update``)."""
    out = _out(ctx, args.outDir)
    if args.update is not None and args.update.status is not None and args.update.status not in _ORDER:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"update.status {args.update.status[:40]!r} is not a porting status.",
            f"Use one of: {', '.join(_ORDER)}.",
        )
    if args.update is not None and len(args.update.notes or "") + len(args.update.storyFile or "") > MAX_NOTE_CHARS:
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"update.notes and storyFile are longer than {MAX_NOTE_CHARS:,} characters.",
            "Keep notes short: the file is read back into the model's context.",
        )
    if args.update is not None:
        known = {c["name"] for c in ((_load(out, "analysis.json") or {}).get("components") or []) if c.get("path")}
        current = (_load(out, "status.json") or {}).get("components", {})
        if args.update.component not in known and args.update.component not in current:
            raise DesignError(
                ErrorCode.NOT_FOUND,
                f"{args.update.component!r} is not a component of the analysed code.",
                "Use a name from design_ds_analyze (components), or run design_ds_analyze with outDir first.",
            )
        state = _set_status(ctx, out, args.update)
    else:
        state = _load(out, "status.json") or {"components": {}}
    components = state["components"]
    counts = Counter(e.get("status", "pending") for e in components.values())
    return {
        "counts": {s: counts[s] for s in _ORDER if counts[s]},
        "components": dict(list(components.items())[:100]),
        "file": str(out / STATE / "status.json"),
    }
