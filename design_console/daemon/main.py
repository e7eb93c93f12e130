"""``designd``: start the per-user daemon (detached by default, ``--foreground`` for service managers and tests)."""

from __future__ import annotations

import gc

if __name__ == "__main__":
    # Started as designd (``python -m``, as the shims start it): the imports and the catalog create some 60,000
    # objects that live as long as designd, and collecting while they are created makes a first AI app wait ~10 ms
    # longer. serve() switches the collector back on once designd answers.
    gc.disable()

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Callable

from design_console import __version__
from design_console.config import Config, load_config
from design_console.daemon.core import Daemon
from design_console.daemon.plugin_sync import load_or_create_token, sync_plugin
from design_console.daemon.reaper import INTERVAL as REAP_INTERVAL
from design_console.daemon.reaper import sweep
from design_console.daemon.sd_notify import notify
from design_console.errors import PREFIX, DesignError, ErrorCode
from design_console.runtime.adverts import Advert, AdvertFile, now_ms, process_start_time, user_folder
from design_console.runtime.dirs import InstanceLock, ensure_private_dir
from design_console.runtime.launch import spawn_detached
from design_console.runtime.logs import setup_logging
from design_console.runtime.platform.system import raise_open_file_limit
from design_console.runtime.signals import stop_on_signals

log = logging.getLogger("design_console.daemon")

EXIT_CONFIG = 2
EXIT_ALREADY_RUNNING = 3
EXIT_PORTS_BUSY = 4
ADVERT_REFRESH = 30.0
PEER_SWEEP = 2.0
#: How long `designd` (not --foreground) waits for a silent lock holder to let go before calling it running.
DYING_GRACE = 5.0


def _fail(message: str, code: int) -> None:
    print(message if message.startswith(PREFIX) else PREFIX + message, file=sys.stderr)
    sys.exit(code)


async def _periodic(interval: float, action: object, name: str) -> None:
    while True:
        await asyncio.sleep(interval)
        try:
            result = action()  # type: ignore[operator]
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            log.exception("periodic task %s failed", name)


async def serve(config: Config, lock: InstanceLock, token: str) -> None:
    """Run the daemon until SIGTERM/SIGINT or ``designctl stop``; then shut down in order."""
    daemon = Daemon(config, token=token)
    stop_on_signals(daemon.stopping)

    try:
        changed = sync_plugin(config, token)
        if changed:
            log.info("plugin copy in %s refreshed: %s", config.plugin_dir, ", ".join(changed))
    except DesignError as err:
        log.error("%s", err)
    try:
        await daemon.bridge.start()
    except DesignError as err:
        log.error("%s", err)
        if err.code != ErrorCode.PORTS_BUSY:
            _fail(str(err), EXIT_PORTS_BUSY)
        # Every port taken: designd still serves its AI apps, so they list every tool at once and each bridge tool
        # answers why there is no plugin, instead of a shim starting designd again and again and listing nothing.
        # The bridge keeps trying (_listen_when_free, below) and listens once a port is free.
    started_ms = now_ms()
    advert_file: AdvertFile | None = None
    pid = os.getpid()
    start_time = process_start_time(pid)

    def refresh_advert() -> None:
        port = daemon.bridge.port
        if advert_file is None or port is None:
            return
        advert_file.write(
            Advert(
                pid=pid,
                process_start_time=start_time,
                port=port,
                host=config.ws_host,
                version=__version__,
                started_at=started_ms,
                last_seen=now_ms(),
                runtime_dir=str(config.runtime_dir),
            ),
        )

    def advertise(port: int | None) -> None:
        """Tell the port to plugins and designctl (the advert) and to the next designd (the lock): at the start,
        and again once a bridge that found every port taken listens."""
        nonlocal advert_file
        if port is not None:
            advert_file = AdvertFile(config, port)
            refresh_advert()
        lock.update({"pid": pid, "port": port, "version": __version__, "startedAt": started_ms})

    advertise(daemon.bridge.port)
    daemon.control.bind()
    await daemon.supervisor.start()
    tasks = [
        asyncio.create_task(daemon.control.serve(), name="control"),
        # After the control socket answers: a first AI app of the day must not wait for it.
        asyncio.create_task(_first_sweep(config), name="first-sweep"),
        asyncio.create_task(_keep_listing(daemon), name="keep-listing"),
        asyncio.create_task(_periodic(ADVERT_REFRESH, refresh_advert, "advert"), name="advert"),
        asyncio.create_task(_periodic(PEER_SWEEP, daemon.control.reap_silent, "peers"), name="peers"),
        asyncio.create_task(
            _periodic(REAP_INTERVAL, lambda: asyncio.to_thread(_sweep_all, config), "reaper"), name="reaper"
        ),
    ]
    if daemon.bridge.port is None:
        tasks.append(asyncio.create_task(_listen_when_free(daemon, advertise), name="bridge-listen"))
    notify("READY=1")
    if not gc.isenabled():
        # The start-up objects stay for designd's life: frozen, no collection walks them again.
        gc.freeze()
        gc.enable()
    if daemon.bridge.port is None:
        ports = config.ports
        bridge = f"not listening yet (ports {ports.start}-{ports.stop - 1} taken; trying again)"
    else:
        bridge = f"on {config.ws_host}:{daemon.bridge.port}"
    log.info("designd %s ready: bridge %s, control %s", __version__, bridge, daemon.control.endpoint)
    await daemon.stopping.wait()

    log.info("designd stopping")
    notify("STOPPING=1")
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for session in list(daemon.sessions.values()):
        await session.close()
    await daemon.supervisor.stop()
    await daemon.bridge.close()
    daemon.control.close()
    if advert_file is not None:
        advert_file.remove()
    log.info("designd stopped")


async def _listen_when_free(daemon: Daemon, advertise: Callable[[int | None], None]) -> None:
    """Every bridge port was taken at the start: listen once one is free, and advertise it."""
    try:
        port = await daemon.bridge.listen_when_free()
    except DesignError as err:
        log.error("%s", err)
        return
    advertise(port)


async def _first_sweep(config: Config) -> None:
    try:
        await asyncio.to_thread(sweep, user_folder(config), config.runtime_dir)
    except Exception:
        log.exception("the start-up sweep of orphans and stale adverts failed")


async def _keep_listing(daemon: Daemon) -> None:
    """A tool list built at this start is kept for the next one, after designd answers (the write fsyncs)."""
    if daemon.answers.built:
        await asyncio.to_thread(daemon.listing_cache.save, daemon.answers.tools_result)


def _sweep_all(config: Config) -> None:
    """Orphans and stale adverts, and expired screenshots: the media worker that also sweeps them may be stopped."""
    from design_console.clients.media import sweep_media

    sweep(user_folder(config), config.runtime_dir)
    sweep_media(config.media_dir)


def _wait_for_control(config: Config, timeout: float) -> bool:
    from design_console.runtime.control_client import probe_daemon

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe_daemon(config, 0.5):
            return True
        time.sleep(0.1)
    return False


def _raise_descriptor_limit() -> None:
    """Lift the soft limit on open files to the hard one (or to 10240 where macOS refuses more): apps started from a
    desktop get 256 on macOS, which a burst of sockets exhausts. What a user set lower on purpose as the hard limit
    is kept."""
    try:
        raised = raise_open_file_limit()
    except (ValueError, OSError) as exc:
        log.warning("could not raise the open-file limit: %s", exc)
        return
    if raised is not None:
        log.info("open-file limit raised from %d to %d", *raised)


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``designd``."""
    parser = argparse.ArgumentParser(prog="designd", description="The design-console-mcp daemon.")
    parser.add_argument("--foreground", action="store_true", help="run in this process (for systemd, launchd, tests)")
    parser.add_argument("--version", action="version", version=f"designd {__version__}")
    opts = parser.parse_args(argv)
    try:
        config = load_config()
        ensure_private_dir(config.home)
        ensure_private_dir(config.runtime_dir)
    except DesignError as err:
        _fail(str(err), EXIT_CONFIG)
    lock = InstanceLock(config.lock_file)
    if not opts.foreground:
        # A designd that is exiting holds the lock a moment longer; one that answers, or keeps it, is running.
        if lock.is_held() and (_wait_for_control(config, 1.0) or not lock.wait_free(DYING_GRACE)):
            holder = lock.holder()
            print(f"designd is already running (pid {holder.get('pid')}, bridge port {holder.get('port')}).")
            return
        ensure_private_dir(config.home)
        ensure_private_dir(config.log_dir)
        pid = spawn_detached(str(config.log_dir / "designd.stderr.log"))
        if not _wait_for_control(config, 20.0):
            _fail(f"designd (pid {pid}) did not come up; see `designctl logs`.", 1)
        print(f"designd started (pid {pid}).")
        return
    if not lock.acquire({"pid": os.getpid(), "version": __version__}):
        holder = lock.holder()
        _fail(
            f"designd is already running (pid {holder.get('pid')}, bridge port {holder.get('port')}). "
            "Use `designctl status` to see it, or `designctl stop` before starting another.",
            EXIT_ALREADY_RUNNING,
        )
    try:
        token = load_or_create_token(config)
    except DesignError as err:
        _fail(str(err), EXIT_CONFIG)
    setup_logging(config, "designd", [token], to_stderr=not config.detached)
    _raise_descriptor_limit()
    try:
        asyncio.run(serve(config, lock, token))
    finally:
        with contextlib.suppress(Exception):
            lock.release()


if __name__ == "__main__":
    main()
