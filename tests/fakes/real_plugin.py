"""The shipped Desktop Bridge plugin, run for real against a test designd: ui.html in jsdom, code.js in node:vm.

Tests that must show what a tool did to the document use it: the whole chain (MCP client → shim → designd →
ui.html → code.js → the stand-in editor) runs, and the document is read back through ``design_execute``.
"""

from __future__ import annotations

import json
import select
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from helpers import free_port_range
from procs import DaemonProcess, TestEnv, kill_all, make_env, processes_of

from design_console.daemon.plugin_sync import render_plugin_file

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "plugin" / "harness" / "run-plugin.mjs"
CONNECT_TIMEOUT = 20.0


class RealPlugin:
    """One plugin window in one file; ``stop()`` closes it (its stdin) and waits for the process."""

    def __init__(self, proc: subprocess.Popen[bytes], file_key: str) -> None:
        self.proc = proc
        self.file_key = file_key

    @classmethod
    def start(
        cls, env: TestEnv, *, editor_type: str = "figma", file_key: str = "fileA", file_name: str = "File A"
    ) -> RealPlugin:
        """Open the plugin from the user's synced copy (it carries the bridge token) and wait until it connects."""
        plugin = cls.open(env.config.plugin_dir / "ui.html", env.config.ports, editor_type, file_key, file_name)
        try:
            plugin._wait_connected()
        except BaseException:
            plugin.stop()
            raise
        return plugin

    @classmethod
    def open(cls, html: Path, ports: range, editor_type: str, file_key: str, file_name: str) -> RealPlugin:
        """Open the plugin window of ``html`` (a synced copy's ui.html) scanning ``ports``, without waiting."""
        node = shutil.which("node")
        assert node, "Node.js 20 is needed for the real-plugin tests"
        proc = subprocess.Popen(
            [node, str(RUNNER), str(html), str(ports.start), str(ports.stop - 1), editor_type, file_key, file_name],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        return cls(proc, file_key)

    def pair(self, code: str) -> None:
        """Type ``code`` in the Cloud section and press Pair, as the user does."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"pair": code}).encode() + b"\n")
        self.proc.stdin.flush()

    def _wait_connected(self) -> None:
        self.wait_window(lambda w: w["state"] == "connected", "connect")

    def wait_window(
        self, predicate: Callable[[dict[str, Any]], bool], what: str, timeout: float = CONNECT_TIMEOUT
    ) -> dict[str, Any]:
        """Wait until the window's state line ({"state", "ignored": [ports]}) satisfies ``predicate``; returns it."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        seen: list[dict[str, Any]] = []
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                break
            line = self.proc.stdout.readline()
            if not line:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise AssertionError(f"the plugin runner exited ({self.proc.wait()}): {err[-2000:]}")
            seen.append(json.loads(line))
            if predicate(seen[-1]):
                return seen[-1]
        raise AssertionError(f"the plugin did not {what} within {timeout} s; window states seen: {seen}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def synced_copy(folder: Path, relay_url: str) -> tuple[Path, range]:
    """The plugin as designd syncs it for a user whose DESIGN_RELAY_URL is ``relay_url``; its local ports are free
    ones nothing listens on, so only the Cloud section connects."""
    first = free_port_range(10)
    ports = range(first, first + 10)
    for name in ("ui.html", "manifest.json"):
        text = (ROOT / "plugin" / name).read_text(encoding="utf-8")
        rendered = render_plugin_file(name, text, token="local-token-" + "0" * 32, relay_url=relay_url, ports=ports)
        (folder / name).write_text(rendered, encoding="utf-8")
    return folder / "ui.html", ports


@contextmanager
def installation_with_plugin(*, editor_type: str = "figma", file_key: str, file_name: str) -> Iterator[TestEnv]:
    """A throwaway installation with designd running and the real plugin connected in one file, for benchmarks;
    designd, its workers and the plugin are stopped and the files removed afterwards."""
    env = make_env()
    daemon = DaemonProcess(env).start()
    try:
        plugin = RealPlugin.start(env, editor_type=editor_type, file_key=file_key, file_name=file_name)
        try:
            yield env
        finally:
            plugin.stop()
    finally:
        daemon.stop()
        kill_all(processes_of(env))
        env.cleanup()
