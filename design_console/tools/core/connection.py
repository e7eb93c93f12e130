"""Connection, files, console, code execution and the change feed: the tools answered by designd itself.

Their handlers run inside designd and get a :class:`~design_console.tools.context.DaemonContext`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from design_console import PLUGIN_VERSION, __version__
from design_console.engines.shaping import paged
from design_console.errors import DesignError, ErrorCode
from design_console.plugin_contract import EXECUTE_DEFAULT_MS, EXECUTE_MAX_MS, MAX_CODE_CHARS
from design_console.protocol import ToolOutput
from design_console.tools.args import ConnectedFile, ConsoleLevelFilter, Cursor, FileKey, MaxTokens
from design_console.tools.base import (
    CHARS_PER_TOKEN,
    DEFAULT_RESULT_TOKENS,
    Args,
    NoArgs,
    bridge_tool,
    ok,
    state_read,
    state_write,
    to_json,
    tool,
)
from design_console.tools.context import DaemonContext, FileInfo, Timestamped
from design_console.tools.nodes.selection_pages import selection_page

RECONNECT_WAIT = 5.0
RESULT_CHARS = DEFAULT_RESULT_TOKENS * CHARS_PER_TOKEN
_encode = msgspec.json.Encoder().encode


def _file_key(ctx: DaemonContext, requested: str | None = None) -> str:
    """The file a state read is about: the requested one (checked) or the active one."""
    if requested:
        if ctx.state.get(requested) is None:
            known = ", ".join(f"{f.file_name} ({f.file_key})" for f in ctx.files()) or "none"
            raise DesignError(
                ErrorCode.UNKNOWN_FILE, f"No plugin is connected in file {requested!r}.", f"Connected files: {known}."
            )
        return requested
    key = ctx.active_file_key
    if key is None:
        from design_console.runtime.setup_text import not_connected_error

        raise not_connected_error(ctx.config)
    return key


def fit_encoded(items: Sequence[Any], budget_chars: int = RESULT_CHARS) -> tuple[list[bytes], int]:
    """The JSON of the newest items (oldest first) that fit the budget, and how many fell off; each item is encoded
    once, so a result can embed the pieces as they are."""
    kept: list[bytes] = []
    used = 0
    for item in reversed(items):
        encoded = _encode(item)
        used += len(encoded) + 1
        if used > budget_chars and kept:
            break
        kept.append(encoded)
    kept.reverse()
    return kept, len(items) - len(kept)


def _fit(items: Sequence[Any], budget_chars: int = RESULT_CHARS) -> tuple[list[Any], int]:
    """Keep the newest items (oldest first in the list) whose JSON fits the budget; also returns how many fell off."""
    _, omitted = fit_encoded(items, budget_chars)
    return list(items[omitted:]), omitted


def _file_summary(f: FileInfo, active: str | None) -> dict[str, Any]:
    return {
        "fileKey": f.file_key,
        "fileName": f.file_name,
        "currentPage": f.current_page,
        "editorType": f.editor_type,
        "pluginVersion": f.plugin_version,
        "connected": f.connected,
        "active": f.file_key == active,
    }


#: A tool about one connected file: the active one unless ``fileKey`` names another.
class TargetArgs(Args, kw_only=True):
    fileKey: FileKey | None = None


# --- status --------------------------------------------------------------------------------------------------


class StatusArgs(Args):
    probe: Annotated[bool, Meta(description="Time a live round trip.")] = False


@tool("design_get_status", "Connection status: bridge port, plugin and file, or setup steps.")
async def get_status(ctx: DaemonContext, args: StatusArgs) -> ToolOutput:
    report = ctx.setup_report()
    active = ctx.active_file_key
    report["transport"] = {"mode": "local", "port": ctx.port, "host": ctx.config.ws_host}
    report["files"] = [_file_summary(f, active) for f in ctx.files()]
    report["locked"] = ctx.locked
    report["server"] = {"version": __version__, "bundledPluginVersion": PLUGIN_VERSION}
    report["console"] = {"buffered": ctx.state.console_size(), "capacity": ctx.state.console_ring.capacity}
    if args.probe and ctx.is_connected():
        started = time.perf_counter()
        try:
            info = await ctx.bridge("GET_FILE_INFO")
            report["probe"] = {"ok": True, "latencyMs": round((time.perf_counter() - started) * 1000, 2)}
            if isinstance(info.get("fileName"), str):
                report["probe"]["fileName"] = info["fileName"]
        except DesignError as err:
            report["probe"] = {"ok": False, "error": str(err)}
    return ok(report)


class DiagnoseArgs(Args):
    verbose: bool = False


@tool("design_diagnose", "Health report: version, mode, plugin connection, auth, likely causes of problems.")
async def diagnose(ctx: DaemonContext, args: DiagnoseArgs) -> ToolOutput:
    stats = ctx.bridge_stats()
    files = ctx.files()
    causes: list[str] = []
    if not files:
        causes.append(
            "No plugin connected: run the Desktop Bridge plugin in the design tool "
            f"(import {ctx.config.plugin_dir / 'manifest.json'} once)."
        )
    outdated = [f.file_name for f in files if f.plugin_version and f.plugin_version != PLUGIN_VERSION]
    if outdated:
        causes.append(
            f"Plugin version differs from the bundled {PLUGIN_VERSION} in {', '.join(outdated)}: "
            "re-import the manifest."
        )
    if stats.get("unauthenticatedRejects", 0):
        causes.append(
            "A plugin connected without the bridge-token handshake (an older bridge plugin?): import the plugin "
            f"from {ctx.config.plugin_dir}, not from the repository copy."
        )
    if stats.get("failedProofs", 0):
        causes.append(
            f"{stats['failedProofs']} plugin handshake(s) failed the bridge-token proof (an older plugin, a copy from "
            f"another install, or a relayed connection): re-import the plugin from {ctx.config.plugin_dir}."
        )
    if not ctx.config.access_token:
        causes.append("DESIGN_ACCESS_TOKEN is not set: tools that read through the design API will not work.")
    if len(files) > 1 and not ctx.locked:
        causes.append("Several files are connected; commands go to the active one (see design_list_open_files).")
    report: dict[str, Any] = {
        "server": {
            "version": __version__,
            "mode": "local",
            "pid": os.getpid(),
            "environment": ctx.config.node_env or None,
        },
        "bridge": {
            "port": ctx.port,
            "host": ctx.config.ws_host,
            "auth": ctx.config.bridge_auth,
            "connectedFiles": len([f for f in files if f.connected]),
            "activeFile": ctx.active_file_key,
        },
        "designApi": {"tokenPresent": bool(ctx.config.access_token), "baseUrl": ctx.config.api_url},
        "console": _console_report(ctx),
        "likelyCauses": causes or ["No problem found."],
        "note": "Other MCP servers for the design tool may also listen on ports "
        f"{ctx.config.ports.start}-{ctx.config.ports.stop - 1}; the plugin connects to all of them.",
    }
    if args.verbose:
        report["bridgeStats"] = stats
        report["workers"] = ctx.worker_status()
        report["sessions"] = ctx.session_count()
    return ok(report)


def _console_report(ctx: DaemonContext) -> dict[str, Any]:
    """How full the daemon's console ring is, and whose entries it holds (disconnected files included)."""
    ring = ctx.state.console_ring
    connected = {f.file_key for f in ctx.files() if f.connected}
    files = [
        {"fileKey": key, "fileName": name, "entries": n, "connected": key in connected}
        for key, (name, n) in ring.files().items()
    ]
    return {"buffered": ring.size(), "capacity": ring.capacity, "dropped": ring.dropped, "files": files}


# --- files ---------------------------------------------------------------------------------------------------


@state_read("design_list_open_files", "Files with a connected plugin; which is active and whether locked.")
async def list_open_files(ctx: DaemonContext, args: NoArgs) -> ToolOutput:
    active = ctx.active_file_key
    return ok({"files": [_file_summary(f, active) for f in ctx.files()], "locked": ctx.locked})


class NavigateArgs(Args):
    url: Annotated[ConnectedFile, Meta(description="URL or key of a connected file")]
    lock: Annotated[bool, Meta(description="Keep targeting this file until it disconnects.")] = False


@state_read("design_navigate", "Target later commands at a connected file; never opens files.")
async def navigate(ctx: DaemonContext, args: NavigateArgs) -> ToolOutput:
    key = args.url
    state = ctx.navigate(key, args.lock)
    return ok({"activeFile": {"fileKey": state.file_key, "fileName": state.file_name}, "locked": args.lock})


# --- console -------------------------------------------------------------------------------------------------

#: Console reads take a fileKey of any file with buffered entries, connected or not.
ConsoleFileKey = Annotated[str, Meta(description="This file instead of the active one.")]
AllFiles = Annotated[bool, Meta(description="All files' entries, tagged by file.")]


def _console_key(ctx: DaemonContext, requested: str, all_files: bool) -> str | None:
    """The file a console tool is about: None for every file, else the requested one (connected or with buffered
    entries), the active one or, with no plugin connected, the file whose plugin left last."""
    if all_files:
        if requested:
            raise DesignError(
                ErrorCode.BAD_ARGUMENT, "Pass fileKey or allFiles:true, not both.", "Drop one and call again."
            )
        return None
    state = ctx.state
    if requested:
        if state.get(requested) is None and not state.console_size(requested):
            raise DesignError(
                ErrorCode.UNKNOWN_FILE,
                f"No plugin runs in file {requested!r} and it has no console entries.",
                f"Files with console entries: {_buffered_files(ctx) or 'none'}.",
            )
        return requested
    key = ctx.active_file_key or state.last_departed()
    if key is not None:
        return key
    from design_console.runtime.setup_text import not_connected_error

    raise not_connected_error(ctx.config)


def _buffered_files(ctx: DaemonContext) -> str:
    files = ctx.state.console_ring.files()
    return ", ".join(f"{name or 'untitled'} ({key}, {n} entries)" for key, (name, n) in files.items())


class ConsoleArgs(Args):
    count: Annotated[int, Meta(ge=1, le=1000, description="Newest N entries.")] = 100
    level: ConsoleLevelFilter = "all"
    since: Annotated[int, Meta(ge=0, description="Only entries after this epoch ms.")] = 0
    fileKey: ConsoleFileKey = ""
    allFiles: AllFiles = False


def _console_result(ctx: DaemonContext, key: str | None, entries: Sequence[Timestamped]) -> ToolOutput:
    # Encoded in one go while the whole list fits the budget (the common read): entry by entry only when it does not.
    whole = _encode(entries)
    if len(whole) - 1 <= RESULT_CHARS:
        logs, count, omitted = whole, len(entries), 0
    else:
        kept, omitted = fit_encoded(entries)
        logs, count = b"[" + b",".join(kept) + b"]", len(kept)
    data: dict[str, Any] = {}
    if key is None:
        data["allFiles"] = True
    else:
        file = ctx.state.get(key)
        data["fileKey"] = key
        data["fileName"] = file.info.file_name if file else ctx.state.console_ring.name(key)
        if file is None or not file.info.connected:
            data["connected"] = False
            left = ctx.state.left_at(key)
            if left is not None:
                data["leftAt"] = left
            others = [k for k in ctx.state.console_ring.files() if k != key]
            data["note"] = (
                f"No plugin is connected in this file: these are the entries kept from before it left"
                f"{' at ' + _iso(left) if left is not None else ''}."
                + (f" Other files with entries: {', '.join(others)} (fileKey or allFiles:true)." if others else "")
            )
    data["logs"] = msgspec.Raw(logs)
    data["count"] = count
    data["buffered"] = ctx.state.console_size(key)
    if omitted:
        data["omitted"] = omitted
        data["hint"] = "Older entries were left out to fit the result; pass since or a smaller count to page."
    if count:
        data["newestTimestamp"] = entries[-1].timestamp
    return ok(data)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _read_console(
    ctx: DaemonContext, key: str | None, level: str, since: int, count: int | None
) -> Sequence[Timestamped]:
    if key is None:
        return ctx.state.console_all(level=level, since=since, count=count)
    return ctx.state.console(key, level=level, since=since, count=count)


@tool(
    "design_get_console_logs",
    "Newest plugin console entries of the active file (else the last connected), by level and since.",
)
async def get_console_logs(ctx: DaemonContext, args: ConsoleArgs) -> ToolOutput:
    key = _console_key(ctx, args.fileKey, args.allFiles)
    return _console_result(ctx, key, _read_console(ctx, key, args.level, args.since, args.count))


class WatchArgs(Args):
    duration: Annotated[float, Meta(ge=1, le=300, description="Seconds to watch.")] = 30
    level: ConsoleLevelFilter = "all"
    fileKey: ConsoleFileKey = ""
    allFiles: AllFiles = False


@tool("design_watch_console", "What the console logs in the next `duration` seconds.")
async def watch_console(ctx: DaemonContext, args: WatchArgs) -> ToolOutput:
    key = _console_key(ctx, args.fileKey, args.allFiles)
    started_ms = int(time.time() * 1000) - 1
    deadline = time.monotonic() + args.duration
    while (left := deadline - time.monotonic()) > 0:
        await ctx.progress(args.duration - left, args.duration, "watching the console")
        await asyncio.sleep(min(1.0, left))
    return _console_result(ctx, key, _read_console(ctx, key, args.level, started_ms, None))


class ClearArgs(Args):
    fileKey: ConsoleFileKey = ""
    allFiles: Annotated[bool, Meta(description="Empty the whole buffer.")] = False


@tool("design_clear_console", "Empty the active file's console buffer.", read_only=False, idempotent=True)
async def clear_console(ctx: DaemonContext, args: ClearArgs) -> ToolOutput:
    key = _console_key(ctx, args.fileKey, args.allFiles)
    cleared = ctx.state.clear_console(key)
    return ok({"allFiles": True, "cleared": cleared} if key is None else {"fileKey": key, "cleared": cleared})


async def _wait_reconnected(ctx: DaemonContext, key: str, since_ms: int, timeout: float) -> bool:
    """Wait for file ``key`` to identify again after ``since_ms`` (the plugin UI reloads and reconnects)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = ctx.state.get(key)
        if data is not None and data.info.connected and data.info.connected_at >= since_ms:
            return True
        await asyncio.sleep(0.05)
    return False


class ReloadArgs(TargetArgs):
    clearConsole: Annotated[bool, Meta(description="Empty its console entries first.")] = True


@state_write("design_reload_plugin", "Reload the plugin UI and wait for it to reconnect.")
async def reload_plugin(ctx: DaemonContext, args: ReloadArgs) -> ToolOutput:
    key = _file_key(ctx, args.fileKey)
    cleared = ctx.state.clear_console(key) if args.clearConsole else 0
    since = int(time.time() * 1000)
    await ctx.bridge("RELOAD_UI", file_key=key)
    back = await _wait_reconnected(ctx, key, since, RECONNECT_WAIT)
    data: dict[str, Any] = {"fileKey": key, "reloaded": True, "reconnected": back, "consoleCleared": cleared}
    if not back:
        data["hint"] = "The plugin has not reconnected yet; it retries every few seconds. Check with design_get_status."
    return ok(data)


@state_write("design_reconnect", "Round trip to the bridge; on failure reload the plugin UI and retry.")
async def reconnect(ctx: DaemonContext, args: TargetArgs) -> ToolOutput:
    key = _file_key(ctx, args.fileKey)
    probe = {"code": 'return "ok"', "timeout": 3000}
    started = time.perf_counter()
    try:
        await ctx.bridge("EXECUTE_CODE", probe, file_key=key)
        return ok({"fileKey": key, "healthy": True, "latencyMs": round((time.perf_counter() - started) * 1000, 2)})
    except DesignError as first:
        since = int(time.time() * 1000)
        try:
            await ctx.bridge("RELOAD_UI", file_key=key)
        except DesignError:
            pass
        if not await _wait_reconnected(ctx, key, since, RECONNECT_WAIT):
            raise DesignError(
                ErrorCode.RECONNECT_FAILED,
                f"The plugin did not answer ({first.message}) and did not come back after a reload.",
                "Close and reopen the Desktop Bridge plugin in the design tool, then call design_get_status.",
            ) from None
        await ctx.bridge("EXECUTE_CODE", probe, file_key=key)
        return ok({"fileKey": key, "healthy": True, "reloaded": True, "firstError": str(first)})


# --- code execution ------------------------------------------------------------------------------------------


class ExecuteArgs(TargetArgs):
    code: Annotated[str, Meta(min_length=1, max_length=MAX_CODE_CHARS, description="Async function body.")]
    timeout: Annotated[int, Meta(ge=100, le=EXECUTE_MAX_MS, description="Milliseconds.")] = EXECUTE_DEFAULT_MS


def _shape_execution(reply: dict[str, Any]) -> dict[str, Any]:
    """The value the code returned, cut to the result budget with a note when it is larger."""
    value = reply.get("result")
    text = to_json(value)
    data: dict[str, Any] = {"success": True, "result": value}
    if len(text) > RESULT_CHARS:
        data["result"] = text[:RESULT_CHARS]
        data["truncated"] = {"returnedChars": len(text), "shownChars": RESULT_CHARS}
        data["hint"] = "Return less (pick fields, slice arrays) or page through the data in several calls."
    for extra in ("timing", "duration", "logs"):
        if extra in reply:
            data[extra] = reply[extra]
    return data


bridge_tool(
    "design_execute",
    "Run Plugin API JavaScript (async function body; `return` the result) in the design file.",
    ExecuteArgs,
    method="EXECUTE_CODE",
    read_only=False,
    destructive=True,
    shape=lambda ctx, args, reply: _shape_execution(reply),
)


class ExecuteAcrossArgs(Args):
    code: Annotated[str, Meta(min_length=1, max_length=MAX_CODE_CHARS)]
    fileKeys: Annotated[list[ConnectedFile], Meta(max_length=50)] = msgspec.field(default_factory=list)
    allFiles: bool = False
    timeout: Annotated[int, Meta(ge=100, le=EXECUTE_MAX_MS, description="Per-file milliseconds.")] = 10_000


@state_write("design_execute_across_files", "Run Plugin API JavaScript in several connected files.", destructive=True)
async def execute_across_files(ctx: DaemonContext, args: ExecuteAcrossArgs) -> ToolOutput:
    connected = [f.file_key for f in ctx.files() if f.connected]
    if args.allFiles:
        keys = connected
    elif args.fileKeys:
        keys = list(dict.fromkeys(args.fileKeys))
    else:
        raise DesignError(ErrorCode.BAD_ARGUMENT, "Name the files with fileKeys, or pass allFiles:true.")

    async def run(key: str) -> dict[str, Any]:
        try:
            reply = await ctx.bridge("EXECUTE_CODE", {"code": args.code, "timeout": args.timeout}, file_key=key)
            return {"fileKey": key, **_shape_execution(reply)}
        except DesignError as err:
            return {"fileKey": key, "success": False, "error": str(err), "code": err.code}

    results = await asyncio.gather(*(run(key) for key in keys))
    return ok({"results": results, "succeeded": sum(1 for r in results if r["success"]), "total": len(results)})


# --- selection and changes -----------------------------------------------------------------------------------


class SelectionArgs(TargetArgs):
    verbose: Annotated[bool, Meta(description="Add fills, strokes, text, layout (live round trip).")] = False
    maxTokens: MaxTokens | None = None
    cursor: Cursor | None = None


_VERBOSE_SELECTION = """
const ids = %s;
const out = [];
for (const id of ids) {
  const n = await figma.getNodeByIdAsync(id);
  if (!n) { out.push({ id, missing: true }); continue; }
  const pick = { id: n.id, name: n.name, type: n.type };
  for (const k of ['x','y','width','height','opacity','visible','fills','strokes','strokeWeight','cornerRadius',
                   'characters','fontSize','layoutMode','componentProperties']) {
    if (k in n && typeof n[k] !== 'symbol') pick[k] = n[k];
  }
  out.push(pick);
}
return out;
"""


@state_read("design_get_selection", "The selected layers; a selection of more than 50 pages on with nextCursor.")
async def get_selection(ctx: DaemonContext, args: SelectionArgs) -> ToolOutput:
    key = _file_key(ctx, args.fileKey)
    selection = ctx.state.selection(key)
    if selection is None:
        return ok({"fileKey": key, "count": 0, "nodes": [], "note": "Nothing selected since the plugin connected."})
    data: dict[str, Any] = {"fileKey": key, **msgspec.to_builtins(selection)}
    # The plugin pushes the first 50 selected layers; the rest are read from it a page at a time.
    if args.cursor or selection.count > len(selection.nodes):
        data["nodes"], next_cursor = await selection_page(ctx, key, args.cursor, args.maxTokens)
        data = paged(data, next_cursor)
    if args.verbose and data["nodes"]:
        ids = to_json([n["id"] for n in data["nodes"]])
        reply = await ctx.bridge("EXECUTE_CODE", {"code": _VERBOSE_SELECTION % ids}, file_key=key)
        data["details"], omitted = _fit(reply.get("result") or [])
        if omitted:
            data["detailsOmitted"] = omitted
    return ok(data)


class ChangesArgs(TargetArgs):
    since: Annotated[int, Meta(ge=0, description="Only changes with a greater seq.")] = 0
    count: Annotated[int, Meta(ge=1, le=200)] = 50
    clear: Annotated[bool, Meta(description="Empty the feed after reading.")] = False


@state_read("design_get_design_changes", "Document and metadata changes the plugin reported (last 200 per file).")
async def get_design_changes(ctx: DaemonContext, args: ChangesArgs) -> ToolOutput:
    key = _file_key(ctx, args.fileKey)
    changes = ctx.state.changes(key, since=args.since, count=args.count)
    metadata = ctx.state.metadata_changes(key, since=args.since, count=args.count)
    changes, omitted_changes = _fit(changes, RESULT_CHARS // 2)
    metadata, omitted_meta = _fit(metadata, RESULT_CHARS // 2)
    last = max([c.seq for c in changes] + [m.seq for m in metadata], default=args.since)
    data: dict[str, Any] = {
        "fileKey": key,
        "changes": changes,
        "metadataChanges": metadata,
        "lastSeq": last,
        "hint": f"Pass since={last} next time to get only newer changes.",
    }
    if omitted_changes or omitted_meta:
        data["omitted"] = omitted_changes + omitted_meta
    if args.clear:
        data["cleared"] = ctx.state.clear_changes(key)
    return ok(msgspec.to_builtins(data))
