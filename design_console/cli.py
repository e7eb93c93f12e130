"""``designctl``: look after designd from a terminal (status, start/stop, logs, doctor, service, tools, call)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import psutil

from design_console import PLUGIN_VERSION, __version__
from design_console.config import Config, load_config
from design_console.daemon.plugin_sync import PLUGIN_FILES, plugin_source_dir, render_plugin_file
from design_console.errors import PREFIX, DesignError, ErrorCode, format_error
from design_console.protocol import (
    PEER_CTL,
    Bye,
    Call,
    Command,
    Error,
    ImageBlock,
    Progress,
    Result,
    TextBlock,
    ToolResult,
)
from design_console.runtime.adverts import advert_folders, folder_problem, is_live, list_adverts, user_folder
from design_console.runtime.bundled import bundled_dir
from design_console.runtime.control_client import connect_or_start
from design_console.runtime.dirs import InstanceLock, ensure_private_dir
from design_console.runtime.platform import login
from design_console.runtime.platform.locks import lock_is_free
from design_console.runtime.platform.private import describe_access, open_to_others, owned_by_me
from design_console.runtime.platform.procs import in_job
from design_console.runtime.platform.system import MAX_SOCKET_PATH, design_app_locations, open_file_limits
from design_console.runtime.ports import port_holders
from design_console.runtime.transport import check_socket_path

STOP_WAIT = 5.0
#: The exit code when the reader of designctl's output closed it early (``designctl tools | head -1``): what a shell
#: reports for a program that SIGPIPE ended (128 + 13), as ``ls | head -1`` gives; ``set -o pipefail`` sees the
#: same as with any other command. Nothing is printed: the reader stopped reading on purpose.
EXIT_OUTPUT_CLOSED = 141
SERVICE_LABEL = login.SERVICE_LABEL
#: How designd's control socket is driven, as `designctl status` says it: by the loop where it watches descriptors,
#: by a thread of its own on Windows' default loop.
DRIVERS = {"loop": "the loop", "thread": "a thread"}


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))


def _request(
    config: Config,
    frame: Call | Command,
    *,
    start: bool,
    on_progress: Callable[[Progress], None] | None = None,
    timeout: float = 600.0,
) -> Any:
    link = connect_or_start(config, PEER_CTL, start=start)
    try:
        link.send(frame)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            reply = link.recv(left)
            if reply is None:
                break
            if reply.id != frame.id:
                continue
            if isinstance(reply, Progress):
                if on_progress is not None:
                    on_progress(reply)
                continue
            if isinstance(reply, Error):
                raise DesignError(ErrorCode.of(reply.code), reply.message)
            if isinstance(reply, Result | ToolResult):
                return reply
        if isinstance(frame, Call):
            # Imported here: the catalog's modules cost every designctl command time, and only this answer needs one.
            from design_console.tools.calls import call_timeout

            raise call_timeout(frame.tool, timeout)
        raise DesignError(ErrorCode.TIMEOUT, f"designd did not answer within {timeout:.0f} s.", "See `designctl logs`.")
    finally:
        if link.sock is not None:
            link.send(Bye(reason="done"))
        link.close()


def _command(config: Config, name: str, *, start: bool = False) -> Any:
    return _request(config, Command(id=uuid.uuid4().hex, name=name), start=start, timeout=30.0).data


def _running_pid(config: Config) -> int | None:
    lock = InstanceLock(config.lock_file)
    if not lock.is_held():
        return None
    pid = lock.holder().get("pid")
    return pid if isinstance(pid, int) else None


# --- commands -----------------------------------------------------------------------------------------------


def cmd_status(config: Config, opts: argparse.Namespace) -> int:
    try:
        status = _command(config, "status")
    except DesignError:
        pid = _running_pid(config)
        if pid is not None:
            print(f"designd (pid {pid}) is running but does not answer on its control socket; it may be hung.")
            print("Restart it with `designctl restart` (asks, then terminates, then kills); `designctl logs` shows")
            print("what it last did.")
            return 2
        print("designd is not running.")
        others = [a for _, a in list_adverts(*advert_folders(config)) if a is not None and is_live(a)]
        for advert in others:
            print(f"  another instance: pid {advert.pid} on port {advert.port} (runtime dir {advert.runtime_dir})")
        print("Start it with `designctl start` (AI apps also start it on demand).")
        return 1
    if opts.json:
        _print_json(status)
        return 0
    print(f"designd {status['version']}  pid {status['pid']}  up {status['uptime']}s")
    if status.get("bridgeError"):
        print(f"bridge   not listening: {status['bridgeError']}")
    else:
        print(f"bridge   ws://{status['host']}:{status['port']}  auth {status['bridgeAuth']}")
    files = status["files"]
    if not files:
        print("files    none connected (run the Desktop Bridge plugin in the design tool)")
    for f in files:
        mark = "*" if f["active"] else " "
        print(f"file   {mark} {f['fileName']} ({f['fileKey']})  page {f['currentPage']!r}  plugin {f['pluginVersion']}")
    if status["locked"]:
        print("         target locked to the active file")
    manifest = Path(status["pluginDir"]) / "manifest.json"
    print(f"plugin   bundled {status['bundledPluginVersion']}, import from {manifest}")
    if status.get("refusedPlugin"):
        print(f"refused  {status['refusedPlugin']}")
    pids = ", ".join(str(s["pid"]) for s in status["shims"])
    print(f"shims    {len(status['shims'])} AI app session(s)" + (f": {pids}" if pids else ""))
    design_api = status["designApi"]
    print(
        f"api      designd's token {'set' if design_api['designdToken'] else 'not set'}; "
        f"{design_api['sessionsWithOwnToken']} session(s) use their own AI app's token"
    )
    control, refused = status["control"], status["controlStats"]["refusedPeers"]
    print(
        f"control  {control['endpoint']}  driven by {DRIVERS.get(control['drivenBy'], 'nothing yet')}  "
        f"refused {refused} peer(s) without this user's key"
    )
    for w in status["workers"]:
        alive = f"pid {w['pid']}  up {w['uptime']}s  " if w["pid"] is not None else ""
        print(f"worker   {w['kind']:<6} {w['state']:<12} {alive}restarts {w['restarts']}")
    adverts = list_adverts(*advert_folders(config))
    others = [a for _, a in adverts if a is not None and a.pid != status["pid"] and is_live(a)]
    for advert in others:
        print(f"other    pid {advert.pid} on port {advert.port} (runtime dir {advert.runtime_dir})")
    return 0


def cmd_start(config: Config, opts: argparse.Namespace) -> int:
    # Whether designd runs is its answer, not the lock alone: one that is exiting holds the lock for a moment more.
    before = _running_pid(config)
    try:
        _request(config, Command(id="start", name="status"), start=True, timeout=30.0)
    except DesignError as err:
        print(err, file=sys.stderr)
        return 1
    pid = _running_pid(config)
    print(f"designd is already running (pid {pid})." if pid == before else f"designd started (pid {pid}).")
    return 0


def _wait_gone(pid: int, timeout: float) -> bool:
    try:
        psutil.Process(pid).wait(timeout)
        return True
    except psutil.NoSuchProcess:
        return True
    except psutil.TimeoutExpired:
        return False


def cmd_stop(config: Config, opts: argparse.Namespace) -> int:
    """The shutdown ladder: ask over the control socket, then terminate, then kill (one rung on Windows)."""
    pid = _running_pid(config)
    if pid is None:
        print("designd is not running.")
        return 0
    try:
        _command(config, "stop")
    except DesignError:
        pass
    if not _wait_gone(pid, STOP_WAIT):
        try:
            proc = psutil.Process(pid)
            proc.terminate()
            if not _wait_gone(pid, STOP_WAIT):
                proc.kill()
                _wait_gone(pid, STOP_WAIT)
        except psutil.NoSuchProcess:
            pass
    print(f"designd (pid {pid}) stopped.")
    return 0


def cmd_restart(config: Config, opts: argparse.Namespace) -> int:
    cmd_stop(config, opts)
    return cmd_start(config, opts)


def cmd_logs(config: Config, opts: argparse.Namespace) -> int:
    path = config.log_dir / "designd.log"
    if not path.exists():
        print(f"No log yet at {path}.")
        return 1
    with path.open("rb") as handle:
        lines = handle.readlines()[-opts.lines :]
        for line in lines:
            sys.stdout.write(line.decode(errors="replace"))
        sys.stdout.flush()
        while opts.follow:
            line = handle.readline()
            if line:
                sys.stdout.write(line.decode(errors="replace"))
                sys.stdout.flush()
            else:
                time.sleep(0.25)
    return 0


def doctor_checks(config: Config, facts: PlatformFacts | None = None) -> list[tuple[str, str, str]]:
    """Every check as (status, what, how to fix); status is ok, warn or fail, and only warn and fail have a fix (what
    an ok line has to add goes in its text). ``facts``: this OS's, unless given."""
    checks: list[tuple[str, str, str]] = []
    for label, path in (("home", config.home), ("runtime dir", config.runtime_dir)):
        try:
            if path.exists():
                ensure_private_dir(path)
                checks.append(("ok", f"{label} {path} is private ({describe_access(path)})", ""))
            else:
                checks.append(("ok", f"{label} {path} will be created on first start", ""))
        except DesignError as err:
            checks.append(("fail", f"{label}: {err.message}", err.hint))
    token = config.token_file
    if token.exists():
        info = token.stat()
        if open_to_others(info):
            mode = stat.S_IMODE(info.st_mode)
            checks.append(("fail", f"bridge token {token} has mode {mode:o}", f"chmod 600 {token}"))
        else:
            checks.append(("ok", f"bridge token present ({token})", ""))
    else:
        checks.append(("warn", "no bridge token yet", "Start designd once: `designctl start`."))
    try:
        source = plugin_source_dir(config)
        secret = token.read_text().strip() if token.exists() else ""
        stale = []
        for name in PLUGIN_FILES:
            copy = config.plugin_dir / name
            wanted = render_plugin_file(
                name,
                (source / name).read_text(encoding="utf-8"),
                token=secret,
                relay_url=config.relay_url,
                ports=config.ports,
            )
            if not copy.exists() or copy.read_text(encoding="utf-8") != wanted:
                stale.append(name)
        if stale:
            checks.append(
                (
                    "warn",
                    f"plugin copy in {config.plugin_dir} is missing or stale: {', '.join(stale)}",
                    "Restart designd (`designctl restart`); it refreshes the copy on start.",
                ),
            )
        else:
            checks.append(("ok", f"plugin copy up to date (import {config.plugin_dir / 'manifest.json'})", ""))
    except (DesignError, OSError) as err:
        checks.append(("fail", f"plugin files: {err}", "Reinstall design-console-mcp."))
    stale_adverts = [p for p, a in list_adverts(*advert_folders(config)) if a is None or not is_live(a)]
    if stale_adverts:
        checks.append(
            (
                "warn",
                f"{len(stale_adverts)} stale port advertisement file(s)",
                "designd removes them on start; or delete: " + " ".join(str(p) for p in stale_adverts),
            ),
        )
    else:
        checks.append(("ok", "no stale port advertisement files", ""))
    squatted = folder_problem(config)
    if squatted is not None:
        checks.append(
            (
                "warn",
                f"advert folder: {squatted} designd advertises in its runtime dir, unseen by other installations",
                f"Have an administrator remove {user_folder(config)}, or set TMPDIR to a folder of your own.",
            )
        )
    pid = _running_pid(config)
    holders = port_holders(config)
    others = {port: [h for h in held if h.pid is None or h.pid != pid] for port, held in holders.items()}
    foreign = {port: ", ".join(h.describe() for h in held) for port, held in others.items() if held}
    free = len(config.ports) - len(holders)
    if pid is None and not free:
        checks.append(
            (
                "fail",
                f"all bridge ports {config.ports.start}-{config.ports.stop - 1} are taken",
                "Stop the programs holding them or set DESIGN_WS_PORT to another range: "
                + "; ".join(f"{p}: {w}" for p, w in sorted(foreign.items())),
            )
        )
    elif foreign:
        checks.append(
            (
                "warn",
                f"{len(foreign)} bridge port(s) held by other programs",
                "; ".join(f"{p}: {w}" for p, w in sorted(foreign.items())),
            )
        )
    else:
        checks.append(("ok", f"bridge ports {config.ports.start}-{config.ports.stop - 1}: {free} free", ""))
    design_api: dict[str, Any] | None = None
    if pid is None:
        checks.append(("warn", "designd is not running", "`designctl start`, or let an AI app start it."))
    else:
        try:
            status = _command(config, "status")
            design_api = status.get("designApi")
            files = len(status["files"])
            checks.append(("ok", f"designd {status['version']} answers (pid {pid}, port {status['port']})", ""))
            if status.get("bridgeError"):
                checks.append(("fail", "designd's bridge does not listen", status["bridgeError"]))
            if status.get("refusedPlugin"):
                checks.append(("warn", "a plugin was refused for its bridge token", status["refusedPlugin"]))
            if not files:
                checks.append(
                    (
                        "warn",
                        "no plugin connected",
                        f"Run the Desktop Bridge plugin; import {config.plugin_dir / 'manifest.json'} once.",
                    )
                )
            for f in status["files"]:
                if f["pluginVersion"] != PLUGIN_VERSION:
                    checks.append(
                        (
                            "warn",
                            f"plugin in {f['fileName']!r} is {f['pluginVersion'] or 'unversioned'}",
                            f"Re-import {config.plugin_dir / 'manifest.json'} (bundled {PLUGIN_VERSION}).",
                        )
                    )
        except DesignError as err:
            checks.append(
                (
                    "fail",
                    f"designd (pid {pid}) holds the lock but does not answer: {err.message}",
                    "`designctl restart`",
                )
            )
    checks += platform_checks(config, facts or platform_facts(config))
    checks.append(_token_check(config, design_api))
    return checks


def _token_check(config: Config, design_api: dict[str, Any] | None) -> tuple[str, str, str]:
    """Which design API token designd uses for whom; designctl's own environment only when designd is not running."""
    fix = (
        "Add DESIGN_ACCESS_TOKEN to your AI app's MCP server config and restart that app (its chats bring the token), "
        "or set it where designd starts and run `designctl restart`."
    )
    if design_api is None:
        if config.access_token:
            return ("ok", "DESIGN_ACCESS_TOKEN is set here; designd is not running, so this is designctl's own", "")
        return ("warn", "DESIGN_ACCESS_TOKEN is not set here (designd is not running)", fix)
    own, sessions = design_api.get("sessionsWithOwnToken", 0), design_api.get("sessions", 0)
    who = f"{own} of {sessions} AI app session(s) bring their own token"
    if design_api.get("designdToken"):
        return ("ok", f"designd has a design API token (value not shown); {who}, the others use designd's", "")
    if sessions and own == sessions:
        return ("ok", f"designd has no design API token of its own; {who}", "")
    return ("warn", f"designd has no design API token of its own; {who}", fix)


#: Below this many open files a burst of AI apps and sockets fails (macOS GUI apps start at 256).
LOW_OPEN_FILES = 1024


#: Runs one service-manager command: True when it succeeded, False when it failed, None when it is not installed.
Runner = Callable[[tuple[str, ...]], bool | None]


@dataclass(frozen=True)
class PlatformFacts:
    """Where doctor asks this OS what it needs to know, so a test can answer as another OS would."""

    plan: login.ServicePlan
    query: Runner
    run_key: login.RunKey | None
    app_locations: tuple[Path, ...]
    socket_limit: int


def platform_facts(config: Config) -> PlatformFacts:
    """This OS's service manager, Run key, design tool app locations and socket path limit."""
    return PlatformFacts(
        plan=service_plan(config),
        query=_ask,
        run_key=login.user_run_key(),
        app_locations=design_app_locations(config.user_home),
        socket_limit=MAX_SOCKET_PATH,
    )


def platform_checks(config: Config, facts: PlatformFacts) -> list[tuple[str, str, str]]:
    """The OS's facts that decide whether designd can start, stay up and be reached by the plugin: its lock, job,
    open-file limit, login item, control socket path or keys, and the design tool's desktop app."""
    checks: list[tuple[str, str, str]] = []
    lock = config.lock_file
    try:
        held = lock.exists() and not lock_is_free(lock)
    except OSError as exc:
        checks.append(("fail", f"instance lock {lock} cannot be opened: {exc}", f"Remove it: {lock}"))
    else:
        state = f"held by pid {InstanceLock(lock).holder().get('pid')}" if held else "free"
        checks.append(("ok", f"instance lock {lock} is {state}", ""))
    if in_job():
        checks.append(
            (
                "warn",
                "this process runs in a job object: a designd started from here may end with this window or app",
                "Start designd at login with `designctl service install`.",
            )
        )
    limits = open_file_limits()
    if limits is not None:
        soft, hard = limits
        if hard != -1 and hard < LOW_OPEN_FILES:
            checks.append(
                (
                    "warn",
                    f"the open-file limit is {soft} (hard {hard}); designd can only lift it to {hard}",
                    "Raise the hard limit (`ulimit -Hn 10240` in the shell or the service's limits).",
                )
            )
        else:
            shown = "unlimited" if hard == -1 else str(hard)
            checks.append(("ok", f"open-file limit {soft}, hard {shown}: designd lifts its own soft limit", ""))
    checks.append(_login_check(facts))
    checks += _control_checks(config, facts.socket_limit)
    if facts.app_locations:
        checks.append(_design_app_check(facts.app_locations))
    return checks


def _login_check(facts: PlatformFacts) -> tuple[str, str, str]:
    """Whether something starts designd at login, and whether a written item is one the service manager has."""
    plan = facts.plan
    state = service_state(plan, facts.query, facts.run_key)
    asked = " ".join(plan.query)
    if state.managed:
        return ("ok", f"the {plan.kind} starts designd at login (`{asked}` finds it)", "")
    if state.run_key is not None:
        return ("ok", f"designd starts at login from the Run key value {state.run_key!r} ({login.RUN_KEY})", "")
    if plan.path.exists():
        seen = "cannot be asked: not found" if state.managed is None else "does not have it"
        return ("warn", f"{plan.path} is written, but the service manager ({plan.query[0]}) {seen}", plan.fix)
    return ("ok", "nothing starts designd at login: AI apps start it on demand (`designctl service install` would)", "")


def _control_checks(config: Config, socket_limit: int) -> list[tuple[str, str, str]]:
    """The control socket's path fits the OS's limit (ipc); the CURVE key files are this user's alone (tcp)."""
    if config.transport == "ipc":
        path = config.control_socket
        try:
            check_socket_path(path, socket_limit)
        except DesignError as err:
            return [("fail", err.message, err.hint)]
        size = len(os.fsencode(path))
        return [("ok", f"control socket path is {size} bytes, within this system's {socket_limit}", "")]
    checks: list[tuple[str, str, str]] = []
    for path in (config.server_key_file, config.client_key_file):
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue
        if not owned_by_me(info) or open_to_others(info):
            checks.append(
                (
                    "fail",
                    f"control key {path} is not yours alone ({describe_access(path)})",
                    f"Delete it and run `designctl restart`: designd makes a new private pair. {path}",
                )
            )
        else:
            checks.append(("ok", f"control key {path} is private ({describe_access(path)})", ""))
    return checks


def _design_app_check(locations: tuple[Path, ...]) -> tuple[str, str, str]:
    """The design tool's desktop app, the only place the plugin runs, is installed."""
    for path in locations:
        if path.exists():
            return ("ok", f"the design tool's desktop app is installed ({path})", "")
    return (
        "warn",
        "the design tool's desktop app is not in " + " or ".join(str(p) for p in locations),
        "The plugin runs only in the desktop app: install it from https://www.figma.com/downloads/ "
        "(ignore this if it lives elsewhere).",
    )


def cmd_doctor(config: Config, opts: argparse.Namespace) -> int:
    checks = doctor_checks(config)
    if opts.json:
        _print_json([{"status": s, "check": w, "fix": f} for s, w, f in checks])
    else:
        for status, what, fix in checks:
            print(f"[{status:>4}] {what}")
            if fix:
                print(f"       fix: {fix}")
    return 1 if any(s == "fail" for s, _, _ in checks) else 0


def _unit_source(name: str) -> Path:
    folder = bundled_dir("systemd")
    if folder is None or not (folder / name).is_file():
        raise DesignError(
            ErrorCode.SERVICE_FILES_MISSING,
            f"The service file {name} is not part of this installation.",
            "Reinstall design-console-mcp.",
        )
    return folder / name


def _designd_path() -> str:
    """This installation's designd: beside the running interpreter's scripts, else the first one on PATH."""
    own = Path(sysconfig.get_path("scripts")) / "designd"
    if own.is_file():
        return str(own)
    return shutil.which("designd") or str(own)


def unit_file_word(text: str) -> str:
    """``text`` as one word of a systemd unit line: specifiers and variables escaped, quoted when it has spaces."""
    word = text.replace("%", "%%").replace("$", "$$")
    if any(c.isspace() or c in "\"'\\" for c in word):
        word = '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return word


def _systemd_unit(designd: str) -> str:
    """The bundled systemd user unit with this installation's designd in ExecStart."""
    return _unit_source("designd.service").read_text().replace("%h/.local/bin/designd", unit_file_word(designd))


def service_plan(config: Config) -> login.ServicePlan:
    """This OS's start-at-login item for this installation: its file, contents and commands."""
    return login.service_plan(
        designd=_designd_path(),
        unit_text=_systemd_unit,
        user_home=config.user_home,
        config_home=config.config_home,
        home=config.home,
        log_dir=config.log_dir,
    )


#: How long a service-manager query may take before doctor and status give up on it.
QUERY_TIMEOUT = 10.0


def _run(cmd: tuple[str, ...]) -> bool | None:
    """Run one service-manager command and show it; False when it ran and failed, None when it is not installed."""
    if shutil.which(cmd[0]) is None:
        print(f"  (skipped: {cmd[0]} not found) {' '.join(cmd)}")
        return None
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    print(f"  $ {' '.join(cmd)}" + (f"\n  {done.stderr.strip()}" if done.returncode else ""))
    return done.returncode == 0


def _ask(cmd: tuple[str, ...]) -> bool | None:
    """Run one service-manager query without output; None when it is not installed or does not answer."""
    if shutil.which(cmd[0]) is None:
        return None
    try:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, check=False, timeout=QUERY_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.returncode == 0


@dataclass(frozen=True)
class ServiceState:
    """What starts designd at login now."""

    #: The service manager has the plan's item; None when it cannot be asked.
    managed: bool | None
    #: The Run key value's name, when the plan's fallback is written.
    run_key: str | None


def service_state(plan: login.ServicePlan, query: Runner, run_key: login.RunKey | None) -> ServiceState:
    """Ask the service manager and the Run key which of the plan's login items is installed."""
    managed = query(plan.query) if plan.query else None
    entry = plan.fallback
    if entry is None or run_key is None or run_key.get(entry.name) is None:
        return ServiceState(managed, None)
    return ServiceState(managed, entry.name)


def _install_fallback(plan: login.ServicePlan, run_key: login.RunKey | None) -> int:
    """Write the plan's Run key value after the service manager refused its item; 0 when it is written."""
    refused = f"{plan.path} was written, but the service manager refused it (see above)."
    if plan.fallback is None or run_key is None:
        print(format_error(refused, plan.fix), file=sys.stderr)
        return 1
    try:
        run_key.set(plan.fallback.name, plan.fallback.command)
    except OSError as exc:
        print(
            format_error(f"{refused} The Run key {login.RUN_KEY} refused designd too: {exc}.", plan.fix),
            file=sys.stderr,
        )
        return 1
    print(
        f"the {plan.kind} was refused; designd starts at login from the Run key value {plan.fallback.name!r} "
        f"({login.RUN_KEY}) instead, without restarts after a failure"
    )
    return 0


def manage_service(action: str, plan: login.ServicePlan, run: Runner, run_key: login.RunKey | None) -> int:
    """``designctl service install|uninstall|status`` for ``plan``; the exit code."""
    if action == "status":
        state = service_state(plan, run, run_key)
        managed = {True: "installed", False: "not installed", None: f"unknown ({plan.query[0]} cannot be asked)"}
        print(f"{plan.kind}: {managed[state.managed]} ({plan.path} {'written' if plan.path.exists() else 'absent'})")
        if plan.fallback is not None:
            print(f"Run key value {plan.fallback.name!r}: {'present' if state.run_key else 'absent'}")
        return 0 if state.managed or state.run_key else 1
    if action == "install":
        plan.path.parent.mkdir(parents=True, exist_ok=True)
        plan.path.write_bytes(plan.content)
        print(f"wrote {plan.path}")
        for cmd in plan.prepare:
            run(cmd)
        if any([run(cmd) is False for cmd in plan.enable]):
            return _install_fallback(plan, run_key)
        # A value left by an earlier fallback would start a second designd at each login.
        if plan.fallback is not None and run_key is not None and run_key.delete(plan.fallback.name):
            print(f"removed the Run key value {plan.fallback.name!r} the {plan.kind} replaces")
        return 0
    for cmd in plan.disable:
        run(cmd)
    plan.path.unlink(missing_ok=True)
    print(f"removed {plan.path}")
    for cmd in plan.after_removal:
        run(cmd)
    if plan.fallback is not None and run_key is not None and run_key.delete(plan.fallback.name):
        print(f"removed the Run key value {plan.fallback.name!r} ({login.RUN_KEY})")
    return 0


def cmd_service(config: Config, opts: argparse.Namespace) -> int:
    plan = service_plan(config)
    if opts.action == "install" and plan.path.parent == config.home:
        ensure_private_dir(config.home)
    return manage_service(opts.action, plan, _run, login.user_run_key())


def cmd_tools(config: Config, opts: argparse.Namespace) -> int:
    from design_console.tools import catalog

    tools = catalog(config)
    if opts.json:
        _print_json([{"name": s.name, "toolset": s.toolset, "description": s.description} for s in tools.values()])
    else:
        for spec in tools.values():
            print(f"{spec.name:<48} {spec.toolset:<7} {spec.description}")
        print(f"{len(tools)} tools")
    return 0


def _parse_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def cmd_call(config: Config, opts: argparse.Namespace) -> int:
    arguments: dict[str, Any] = {}
    for pair in opts.args:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            print(f"{PREFIX}arguments are key=value (JSON values allowed), got {pair!r}", file=sys.stderr)
            return 2
        arguments[key] = _parse_value(value)

    def show_progress(p: Progress) -> None:
        total = f"/{p.total:g}" if p.total else ""
        print(f"… {p.progress:g}{total} {p.message}", file=sys.stderr)

    try:
        reply = _request(
            config,
            Call(id=uuid.uuid4().hex, tool=opts.tool, arguments=arguments),
            start=True,
            on_progress=show_progress,
        )
    except DesignError as err:
        print(err, file=sys.stderr)
        return 1
    output = reply.output
    if opts.json:
        sys.stdout.write(msgspec.json.encode(output).decode() + "\n")
        return 1 if output.is_error else 0
    for n, block in enumerate(output.content):
        if isinstance(block, TextBlock):
            try:
                print(json.dumps(json.loads(block.text), indent=2))
            except ValueError:
                print(block.text)
        elif isinstance(block, ImageBlock):
            ext = block.mime_type.rsplit("/", 1)[-1]
            target = Path(opts.save or ".") / f"{opts.tool}-{n}.{ext}"
            target.write_bytes(block.data)
            print(f"[image {block.mime_type}, {len(block.data)} bytes, saved to {target}]")
    return 1 if output.is_error else 0


def cmd_plugin_path(config: Config, opts: argparse.Namespace) -> int:
    print(config.plugin_dir / "manifest.json")
    return 0


def cmd_config(config: Config, opts: argparse.Namespace) -> int:
    from design_console.runtime.client_configs import STDIO_COMMAND, app_config, config_notes, entry_point_path

    print(app_config(opts.app, entry_point_path(STDIO_COMMAND)))
    print(config_notes(opts.app), file=sys.stderr)
    return 0


def cmd_guide(config: Config, opts: argparse.Namespace) -> int:
    from design_console.runtime.client_configs import first_steps

    print(first_steps(config.plugin_dir / "manifest.json"))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="designctl", description="Look after designd, the design-console-mcp daemon.")
    parser.add_argument("--version", action="version", version=f"designctl {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("status", help="daemon, port, files, plugin version, shims, workers, other instances")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)
    sub.add_parser("start", help="start designd in the background").set_defaults(func=cmd_start)
    sub.add_parser("stop", help="stop designd (ask, then terminate, then kill)").set_defaults(func=cmd_stop)
    sub.add_parser("restart", help="stop, then start").set_defaults(func=cmd_restart)
    p = sub.add_parser("logs", help="show designd's log")
    p.add_argument("-f", "--follow", action="store_true")
    p.add_argument("-n", "--lines", type=int, default=50)
    p.set_defaults(func=cmd_logs)
    p = sub.add_parser("doctor", help="check permissions, stale files, ports, plugin copy, tokens; say how to fix")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_doctor)
    p = sub.add_parser("service", help="start designd at login (systemd unit, launchd agent, scheduled task)")
    p.add_argument("action", choices=["install", "uninstall", "status"])
    p.set_defaults(func=cmd_service)
    p = sub.add_parser("tools", help="list the tools")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_tools)
    p = sub.add_parser("call", help="call a tool: designctl call design_get_status probe=true")
    p.add_argument("tool")
    p.add_argument("args", nargs="*", help="key=value; values are parsed as JSON when they can be")
    p.add_argument("--json", action="store_true", help="print the raw result as JSON")
    p.add_argument("--save", help="folder for image results (default: current folder)")
    p.set_defaults(func=cmd_call)
    sub.add_parser("plugin-path", help="print the manifest.json to import").set_defaults(func=cmd_plugin_path)
    p = sub.add_parser("config", help="print the config that starts this installation in an AI app")
    p.add_argument("app", choices=["claude-desktop", "claude-code", "cursor", "vscode"])
    p.set_defaults(func=cmd_config)
    sub.add_parser("guide", help="what to do after installing: plugin, AI app config, token").set_defaults(
        func=cmd_guide
    )
    return parser


def _dispatch(argv: list[str] | None) -> int:
    opts = build_parser().parse_args(argv)
    try:
        config = load_config()
    except DesignError as err:
        print(err, file=sys.stderr)
        return 2
    code: int = opts.func(config, opts)
    return code


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``designctl``; a reader that closes the output early ends it quietly (exit 141)."""
    try:
        try:
            code: int | str | None = _dispatch(argv)
        except SystemExit as done:  # argparse's --help, usage errors: their output is flushed here too
            code = done.code
        sys.stdout.flush()
    except BrokenPipeError:
        # Whatever is still buffered goes nowhere: the flush at exit would otherwise fail again and say so.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        code = EXIT_OUTPUT_CLOSED
    sys.exit(code)
