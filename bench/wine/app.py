"""An AI app on Windows, run by ``bench/wine_windows.py`` under Windows' CPython: it spawns the stdio server on
Windows pipes, as Claude or Cursor do, and prints one JSON line per finding.

``app.py session N``: one chat; its first answers, N timed calls of each kind, and how fast the shim exits on the end
of its stdin. ``app.py many K``: K chats started at once, each through ``initialize`` and ``tools/list``.
``app.py orphan 0``: one chat, then a wait for the caller to kill this app. ``app.py held-lock 0``: a chat that
starts while a dying designd still holds the instance lock. ``app.py survive 0``: a chat whose designd the caller
kills.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "wine-app", "version": "1"}}


#: One call for each worker kind (api, media, tokens); each may fail in its worker, as long as it gets there.
WORKER_CALLS = (
    ("design_get_file_data", {"fileUrl": "NoSuchFile0000000000001"}),
    ("design_take_screenshot", {}),
    ("design_ds_status", {"outDir": "ds-out"}),
)


def report(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


class Chat:
    """One stdio server and the JSON-RPC lines to and from it."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "design_console"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.next_id = 0
        self.stderr = b""
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the stdio server closed its stdout; its stderr: {self.stderr[-400:]!r}")
            reply: dict[str, Any] = json.loads(line)
            if reply.get("id") == self.next_id:
                return reply

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def open(self) -> int:
        """``initialize``, ``notifications/initialized`` and ``tools/list``; returns the number of tools."""
        self.request("initialize", INIT)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return len(self.request("tools/list")["result"]["tools"])

    def close(self) -> float:
        """Close stdin; returns how long the shim took to exit."""
        assert self.proc.stdin is not None
        began = time.perf_counter()
        self.proc.stdin.close()
        self.proc.wait(10)
        return (time.perf_counter() - began) * 1000


def text_of(reply: dict[str, Any]) -> str:
    result = reply.get("result") or {}
    return "".join(part.get("text", "") for part in result.get("content", [])) or json.dumps(reply)[:300]


def session(n: int) -> None:
    chat = Chat()
    tools = chat.open()
    report(check="tools/list", tools=tools, ms=round((time.perf_counter() - chat.started) * 1000))
    execute = chat.call("design_execute", {"code": "return 1"})
    report(check="design_execute", ok=not execute["result"]["isError"], text=text_of(execute)[:200])
    logs = chat.call("design_get_console_logs", {"count": 3})
    report(check="design_get_console_logs", ok=not logs["result"]["isError"], text=text_of(logs)[:200])
    for name, arguments in WORKER_CALLS:
        reply = chat.call(name, arguments)
        report(check=f"{name} reaches its worker", text=text_of(reply)[:160])
    for name, arguments in (("design_execute", {"code": "return 1"}), ("design_get_console_logs", {"count": 20})):
        times = []
        for _ in range(n):
            began = time.perf_counter()
            chat.call(name, arguments)
            times.append((time.perf_counter() - began) * 1000)
        times.sort()
        report(check=f"{name} x{n}", p50=round(times[n // 2], 2), p99=round(times[int(n * 0.99)], 2))
    report(check="exit on stdin EOF", ms=round(chat.close()), code=chat.proc.returncode)


def many(k: int) -> None:
    chats = [Chat() for _ in range(k)]
    results: list[int | str] = [0] * k

    def open_one(i: int) -> None:
        try:
            results[i] = chats[i].open()
        except Exception as exc:
            results[i] = str(exc)

    threads = [threading.Thread(target=open_one, args=(i,)) for i in range(k)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    report(
        check=f"{k} chats at once",
        answered=sum(isinstance(r, int) and r > 0 for r in results),
        failures=[r for r in results if isinstance(r, str)][:3],
    )
    exits = [chat.close() for chat in chats]
    report(
        check=f"{k} chats closed", slowest_exit_ms=round(max(exits)), codes=sorted({c.proc.returncode for c in chats})
    )


def held_lock(_: int) -> None:
    """With designd stopped, hold its instance lock for half a second while a chat starts, as a dying designd does:
    the chat must get its answer about as soon after the lock's release as a cold start takes (within 1 s more)."""
    from design_console.config import load_config
    from design_console.runtime.dirs import InstanceLock, ensure_private_dir

    chat = Chat()
    chat.request("initialize", INIT)
    cold = (time.perf_counter() - chat.started) * 1000
    chat.close()
    subprocess.run([sys.executable, "designctl.py", "stop"], capture_output=True, check=False)

    config = load_config()
    ensure_private_dir(config.home)
    ensure_private_dir(config.runtime_dir)
    dying = InstanceLock(config.lock_file)
    if not dying.acquire({"pid": os.getpid()}):
        report(check="held instance lock", ok=False, text="the lock was not free: stop designd first")
        return
    chat = Chat()
    chat.next_id += 1
    chat.send({"jsonrpc": "2.0", "id": chat.next_id, "method": "initialize", "params": INIT})
    time.sleep(0.5)
    dying.release()
    freed = time.perf_counter()
    assert chat.proc.stdout is not None
    line = chat.proc.stdout.readline()
    answered = (time.perf_counter() - freed) * 1000
    ok = b'"design-console-mcp"' in line and answered < cold + 1000
    report(check="a chat starts designd once a dying one's lock is free", ok=ok, ms=round(answered), cold=round(cold))
    chat.close()


def survive(_: int) -> None:
    """One chat that outlives its designd: after the caller kills designd (it writes a line to our stdin once it
    has), the next calls must be answered by a new designd in the same session."""
    chat = Chat()
    chat.open()
    report(check="survive", ready=True)
    sys.stdin.readline()
    began = time.perf_counter()
    replies = [chat.call("design_get_status", {}) for _ in range(2)]
    lost = "designd stopped" in text_of(replies[0]) or "error" in replies[0]
    ok = "result" in replies[1] and not replies[1]["result"]["isError"]
    report(check="the session carries on after designd is killed", ok=ok, first_call_lost=lost,
           ms=round((time.perf_counter() - began) * 1000), text=text_of(replies[1])[:120])  # fmt: skip
    chat.close()


def orphan(_: int) -> None:
    """Open one chat and wait to be killed: the shim must notice its app is gone."""
    chat = Chat()
    report(check="orphan", tools=chat.open(), shim=chat.proc.pid)
    time.sleep(600)


if __name__ == "__main__":
    modes = {"session": session, "many": many, "orphan": orphan, "held-lock": held_lock, "survive": survive}
    modes[sys.argv[1]](int(sys.argv[2]))
