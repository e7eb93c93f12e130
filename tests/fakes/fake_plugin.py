"""A fake Desktop Bridge plugin: a real WebSocket client that speaks the bridge protocol like the plugin's UI.

It answers commands from a small in-memory document through a handler table a test may change
(``plugin.handlers["EXECUTE_CODE"] = fn``), records every command and every push it receives, and pushes events on
request. Use it on the test's own loop (``await FakePlugin.connect(...)``) or on a loop in a background thread for
synchronous tests (``FakePlugin.start_in_thread(...)``, then ``plugin.run(plugin.console("log", "hi"))``).
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import inspect
import io
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, Literal

from PIL import Image
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State as ConnectionState

from design_console import PLUGIN_VERSION
from design_console.plugin_contract import BRIDGE_PROTOCOL, bridge_proof
from design_console.remote.relay import RELAY_PORT

from .relay_client import ws_url

Handler = Callable[["FakePlugin", dict[str, Any]], Any]

#: How the fake plugin says HELLO: "proof" as the plugin does (protocol 3, then it waits for SERVER_PROOF);
#: "wrong-proof" with a proof that does not verify; "token" as a protocol-2 plugin, with the token itself.
HelloMode = Literal["proof", "wrong-proof", "token"]

#: A handler that returns this sends no reply at all (a plugin that never answers).
NO_REPLY: Any = object()

WAIT_SECONDS = 10.0
MAX_SCREENSHOT_SIDE = 4096

_after_reply: contextvars.ContextVar[list[Callable[[], Coroutine[Any, Any, Any]]]] = contextvars.ContextVar(
    "after_reply"
)


class FakePluginError(Exception):
    """Raise in a handler to answer ``{"id", "error": message, "code": code}``."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def default_document() -> dict[str, Any]:
    """Two pages and three nodes on the first, each with id/name/type/width/height/fills."""

    def solid(r: float, g: float, b: float) -> list[dict[str, Any]]:
        return [{"type": "SOLID", "color": {"r": r, "g": g, "b": b}, "opacity": 1, "visible": True}]

    return {
        "currentPageId": "0:1",
        "pages": [
            {"id": "0:1", "name": "Page 1", "children": ["1:2", "1:3", "1:4"]},
            {"id": "0:2", "name": "Page 2", "children": []},
        ],
        "nodes": {
            "1:2": {"id": "1:2", "name": "Card", "type": "FRAME", "width": 120, "height": 80, "fills": solid(0, 0, 1)},
            "1:3": {"id": "1:3", "name": "Title", "type": "TEXT", "width": 100, "height": 20, "fills": solid(0, 0, 0)},
            "1:4": {
                "id": "1:4",
                "name": "Background",
                "type": "RECTANGLE",
                "width": 120,
                "height": 80,
                "fills": solid(1, 1, 1),
            },
        },
    }


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class FakePlugin:
    """One plugin instance running in one file, connected to designd's bridge port."""

    def __init__(
        self,
        port: int,
        token: str = "",
        *,
        file_key: str = "fake-file-key",
        file_name: str = "Fake file",
        origin: str | None = "null",
        send_hello: bool = True,
        hello: HelloMode = "proof",
        proof_port: int | None = None,
        plugin_version: str | None = PLUGIN_VERSION,
        editor_type: str = "figma",
        host: str = "127.0.0.1",
        url: str | None = None,
    ) -> None:
        self.port = port
        #: Where the socket goes when it is not designd's bridge port on ``host`` (a relay's ``/ws/pair?code=…``).
        self.url = url
        #: The relay this plugin was paired to, from the PAIRED frame; None on designd's bridge port.
        self.relay: str | None = None
        self.token = token
        self.hello = hello
        #: The port bound into the proof; another than ``port`` plays a proof relayed from a server on that port.
        self.proof_port = port if proof_port is None else proof_port
        #: Whether designd proved it holds the token (a SERVER_PROOF that verifies) on the current socket.
        self.server_proven = False
        self.file_key = file_key
        self.file_name = file_name
        self.origin = origin
        self.send_hello = send_hello
        self.plugin_version = plugin_version
        self.editor_type = editor_type
        self.host = host
        self.document = default_document()
        self.handlers: dict[str, Handler] = {
            "EXECUTE_CODE": _execute_code,
            "GET_FILE_INFO": _get_file_info,
            "RELOAD_UI": _reload_ui,
            "CAPTURE_SCREENSHOT": _capture_screenshot,
            "CANCEL": _cancel,
        }
        self.commands: list[dict[str, Any]] = []
        self.pushes: list[dict[str, Any]] = []
        self.server_hello: dict[str, Any] = {}
        self.connections = 0
        self.close_code: int | None = None
        self.close_reason: str | None = None
        self.ws: ClientConnection | None = None
        self._running: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._changed: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    # --- connecting ---------------------------------------------------------------------------------------------

    @classmethod
    async def connect(cls, port: int, token: str = "", **options: Any) -> FakePlugin:
        """Connect, wait for SERVER_HELLO, say HELLO (unless ``send_hello=False``) and send FILE_INFO.

        With a token and ``hello="proof"``, FILE_INFO goes only after designd proved itself, as the plugin does; a
        socket designd closes instead gets no FILE_INFO (see :attr:`close_code`).
        """
        plugin = cls(port, token, **options)
        await plugin.open()
        return plugin

    @classmethod
    def start_in_thread(cls, port: int, token: str = "", **options: Any) -> FakePlugin:
        """Like :meth:`connect`, but on an event loop of its own in a daemon thread; stop it with :meth:`stop`."""
        plugin = cls(port, token, **options)
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name=f"fake-plugin-{plugin.file_key}", daemon=True)
        thread.start()
        plugin._loop, plugin._thread = loop, thread
        try:
            plugin.run(plugin.open())
        except BaseException:
            plugin.stop()
            raise
        return plugin

    @classmethod
    def paired_in_thread(cls, http_url: str, code: str, **options: Any) -> FakePlugin:
        """Like :meth:`start_in_thread`, but redeeming a pairing code at the relay of the Remote Mode server at
        ``http_url``: the pairing's credential is then the secret of the proofs."""
        return cls.start_in_thread(RELAY_PORT, url=f"{ws_url(http_url)}?code={code}", **options)

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = WAIT_SECONDS) -> Any:
        """Run a coroutine of this plugin on its thread's loop and return its result (thread mode only)."""
        if self._loop is None:
            raise RuntimeError("run() is for a plugin started with start_in_thread()")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def stop(self) -> None:
        """Close the socket and end the thread of a plugin started with :meth:`start_in_thread`."""
        if self._loop is None or self._thread is None:
            return
        if self._loop.is_running():
            try:
                self.run(self.close())
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(WAIT_SECONDS)
        self._loop.close()
        self._loop = self._thread = None

    async def open(self) -> None:
        """Open a new socket and identify, as the plugin UI does on load."""
        if self._changed is None:
            self._changed = asyncio.Condition()
        ws = await ws_connect(
            self.url or f"ws://{self.host}:{self.port}/",
            origin=self.origin,  # type: ignore[arg-type]
            max_size=None,
            compression=None,
            open_timeout=WAIT_SECONDS,
        )
        self.ws = ws
        self.connections += 1
        self.close_code = self.close_reason = None
        first = json.loads(await asyncio.wait_for(ws.recv(), WAIT_SECONDS))
        if first.get("type") == "PAIRED":
            # A redeemed pairing code: the relay hands over the credential, then speaks designd's protocol.
            self.token, self.relay = first["data"]["credential"], first["data"]["relay"]
            first = json.loads(await asyncio.wait_for(ws.recv(), WAIT_SECONDS))
        if first.get("type") != "SERVER_HELLO":
            raise AssertionError(f"expected SERVER_HELLO first, got {first!r}")
        self.server_hello = first["data"]
        self.server_proven = False
        self._spawn(self._read(ws))
        if self.send_hello and not await self._say_hello(ws, len(self.pushes)):
            return
        await self.send_json({"type": "FILE_INFO", "data": self.file_info()})

    async def _say_hello(self, ws: ClientConnection, seen: int) -> bool:
        """Send HELLO in this plugin's mode; False when the socket closed before designd proved itself."""
        if self.hello == "token":
            data: dict[str, Any] = {"token": self.token, "pluginVersion": self.plugin_version, "protocol": 2}
            return await self.send_json({"type": "HELLO", "data": data})
        data = {"pluginVersion": self.plugin_version, "protocol": BRIDGE_PROTOCOL}
        if not self.token:
            # A copy without a token cannot prove anything; it says HELLO so designd can tell it apart.
            return await self.send_json({"type": "HELLO", "data": data})
        nonce = secrets.token_hex(16)
        server_nonce = str(self.server_hello.get("nonce", ""))
        proof = bridge_proof(self.token, "plugin", self.proof_port, server_nonce, nonce)
        if self.hello == "wrong-proof":
            proof = bridge_proof(self.token + "-wrong", "plugin", self.proof_port, server_nonce, nonce)
        await self.send_json({"type": "HELLO", "data": {**data, "nonce": nonce, "proof": proof}})
        if self.hello == "wrong-proof":
            return True
        await self.wait_for(lambda: ws.state is ConnectionState.CLOSED or self._server_proof(seen) is not None)
        answer = self._server_proof(seen)
        if answer is None:
            return False
        if answer != bridge_proof(self.token, "server", self.port, nonce, server_nonce):
            raise AssertionError("designd's SERVER_PROOF does not verify")
        self.server_proven = True
        return True

    def _server_proof(self, seen: int) -> str | None:
        """The proof of the first SERVER_PROOF among the pushes after the first ``seen`` (this socket's)."""
        for push in self.pushes[seen:]:
            if push.get("type") == "SERVER_PROOF":
                return str((push.get("data") or {}).get("proof"))
        return None

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the socket (the plugin window was closed) and stop running commands."""
        for task in list(self._running.values()):
            task.cancel()
        if self.ws is not None and self.ws.state is not ConnectionState.CLOSED:
            await self.ws.close(code, reason)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def reconnect(self) -> None:
        """Drop the socket and open a new one, as the UI iframe does when it reloads."""
        if self.ws is not None:
            await self.ws.close(1001, "UI reload")
        await self.open()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- waiting ------------------------------------------------------------------------------------------------

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = WAIT_SECONDS) -> None:
        """Wait until ``predicate()`` holds, re-checked whenever the plugin receives something."""
        assert self._changed is not None
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(predicate)

    async def wait_command(self, method: str, timeout: float = WAIT_SECONDS) -> dict[str, Any]:
        """The first received command of ``method`` (waiting for it)."""
        await self.wait_for(lambda: any(c["method"] == method for c in self.commands), timeout)
        return next(c for c in self.commands if c["method"] == method)

    async def wait_push(self, kind: str, timeout: float = WAIT_SECONDS) -> dict[str, Any]:
        """The first received daemon push of ``kind`` (waiting for it)."""
        await self.wait_for(lambda: any(p.get("type") == kind for p in self.pushes), timeout)
        return next(p for p in self.pushes if p.get("type") == kind)

    async def wait_closed(self, timeout: float = WAIT_SECONDS) -> tuple[int | None, str | None]:
        """Wait for the daemon to close the current socket; returns (code, reason) it sent."""
        assert self.ws is not None
        ws = self.ws
        await asyncio.wait_for(ws.wait_closed(), timeout)
        return ws.close_code, ws.close_reason

    # --- the socket -----------------------------------------------------------------------------------------

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                message = json.loads(raw)
                if isinstance(message, dict) and "method" in message and "id" in message:
                    self.commands.append(message)
                    self._running[message["id"]] = self._spawn(self._answer(message))
                else:
                    self.pushes.append(message)
                await self._notify()
        except ConnectionClosed:
            pass
        finally:
            if ws is self.ws:
                self.close_code, self.close_reason = ws.close_code, ws.close_reason
            if self._changed is not None:
                await self._notify()

    async def _answer(self, command: dict[str, Any]) -> None:
        cid, method = command["id"], command["method"]
        after: list[Callable[[], Coroutine[Any, Any, Any]]] = []
        _after_reply.set(after)
        handler = self.handlers.get(method)
        reply: dict[str, Any]
        try:
            if handler is None:
                reply = {"id": cid, "error": f"Unknown method: {method}"}
            else:
                result = handler(self, command.get("params") or {})
                if inspect.isawaitable(result):
                    result = await result
                if result is NO_REPLY:
                    return
                reply = {"id": cid, "result": result}
        except FakePluginError as exc:
            reply = {"id": cid, "error": exc.message}
            if exc.code:
                reply["code"] = exc.code
        except asyncio.CancelledError:
            return
        finally:
            self._running.pop(cid, None)
        await self.send_json(reply)
        for step in after:
            await step()

    def after_reply(self, step: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        """From inside a handler: run ``step`` once the handler's reply has been sent."""
        _after_reply.get().append(step)

    async def send_json(self, message: Any) -> bool:
        """Send one JSON frame on the current socket; False when the socket is closed."""
        return await self.send_raw(json.dumps(message))

    async def send_raw(self, frame: str | bytes) -> bool:
        """Send one raw frame (text or binary) on the current socket; False when the socket is closed."""
        if self.ws is None:
            return False
        try:
            await self.ws.send(frame)
        except ConnectionClosed:
            return False
        return True

    # --- events -------------------------------------------------------------------------------------------

    def current_page(self) -> dict[str, Any]:
        """The page the user looks at."""
        return next(p for p in self.document["pages"] if p["id"] == self.document["currentPageId"])

    def file_info(self) -> dict[str, Any]:
        """The FILE_INFO payload of this plugin."""
        page = self.current_page()
        info: dict[str, Any] = {
            "fileName": self.file_name,
            "fileKey": self.file_key,
            "currentPage": page["name"],
            "currentPageId": page["id"],
            "selectionCount": 0,
            "editorType": self.editor_type,
        }
        if self.plugin_version is not None:
            info["pluginVersion"] = self.plugin_version
        return info

    async def event(self, kind: str, data: Any) -> bool:
        """Push one event ``{"type": kind, "data": data}``."""
        return await self.send_json({"type": kind, "data": data})

    async def console(self, level: str, message: str, *args: Any) -> bool:
        """Push a CONSOLE_CAPTURE of ``console.<level>(message, *args)``."""
        return await self.event(
            "CONSOLE_CAPTURE", {"level": level, "message": message, "args": list(args), "timestamp": _now_ms()}
        )

    async def selection(self, node_ids: list[str] | None = None) -> bool:
        """Select nodes of the document (default: none) and push SELECTION_CHANGE."""
        nodes = [self.document["nodes"][i] for i in node_ids or []]
        summary = [{k: n[k] for k in ("id", "name", "type", "width", "height")} for n in nodes]
        return await self.event(
            "SELECTION_CHANGE",
            {"nodes": summary[:50], "count": len(nodes), "page": self.current_page()["name"], "timestamp": _now_ms()},
        )

    async def page(self, page_id: str) -> bool:
        """Switch to another page of the document and push PAGE_CHANGE."""
        self.document["currentPageId"] = page_id
        page = self.current_page()
        return await self.event("PAGE_CHANGE", {"pageId": page["id"], "pageName": page["name"], "timestamp": _now_ms()})

    async def document_change(self, node_ids: list[str], *, style: bool = False) -> bool:
        """Push DOCUMENT_CHANGE for the given nodes."""
        return await self.event(
            "DOCUMENT_CHANGE",
            {
                "hasStyleChanges": style,
                "hasNodeChanges": bool(node_ids),
                "changedNodeIds": node_ids[:50],
                "changeCount": len(node_ids),
                "timestamp": _now_ms(),
            },
        )

    async def metadata_change(self, node_id: str, field: str, new_value: Any) -> bool:
        """Push METADATA_CHANGE for one field of one node."""
        node = self.document["nodes"].get(node_id, {})
        change = {
            "node_id": node_id,
            "node_name": node.get("name", ""),
            "node_type": node.get("type", ""),
            "field": field,
            "new_value": new_value,
            "timestamp": _now_ms(),
        }
        return await self.event("METADATA_CHANGE", {"changes": [change]})

    async def variables(self, variables: list[dict[str, Any]], collections: list[dict[str, Any]]) -> bool:
        """Push a VARIABLES_DATA snapshot."""
        return await self.event(
            "VARIABLES_DATA",
            {
                "success": True,
                "timestamp": _now_ms(),
                "fileKey": self.file_key,
                "variables": variables,
                "variableCollections": collections,
            },
        )


# --- default handlers --------------------------------------------------------------------------------------------

_CONSOLE_CALL = re.compile(r'console\.(log|info|warn|error|debug)\(\s*"((?:[^"\\]|\\.)*)"\s*\)')
_SLEEP = re.compile(r"await\s+sleep\(\s*(\d+(?:\.\d+)?)\s*\)")
_THROW = re.compile(r'throw\s+new\s+Error\(\s*"((?:[^"\\]|\\.)*)"\s*\)')
_RETURN = re.compile(r"return\s+(.+?);?\s*$", re.S)


async def _execute_code(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
    """Understands ``console.<level>("...")``, ``await sleep(ms)``, ``throw new Error("...")`` and
    ``return <JSON literal>``; anything else is refused the way the plugin reports a failed script."""
    code = params.get("code")
    if not isinstance(code, str):
        return {"success": False, "error": "code must be a string"}
    for level, text in _CONSOLE_CALL.findall(code):
        await plugin.console(level, json.loads(f'"{text}"'))
    for delay in _SLEEP.findall(code):
        await asyncio.sleep(float(delay) / 1000)
    thrown = _THROW.search(code)
    if thrown:
        return {"success": False, "error": json.loads(f'"{thrown.group(1)}"')}
    returned = _RETURN.search(code)
    if returned is None:
        return {"success": True, "result": None}
    try:
        value = json.loads(returned.group(1))
    except json.JSONDecodeError:
        return {"success": False, "error": f"the fake plugin only returns JSON literals, not {returned.group(1)!r}"}
    return {"success": True, "result": value}


def _get_file_info(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
    return {"success": True, "fileInfo": plugin.file_info()}


def _reload_ui(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
    plugin.after_reply(plugin.reconnect)
    return {"success": True}


def _cancel(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
    task = plugin._running.get(str(params.get("target")))
    if task is not None:
        task.cancel()
    return {"success": True, "cancelled": task is not None}


def _capture_screenshot(plugin: FakePlugin, params: dict[str, Any]) -> dict[str, Any]:
    node_id = params.get("nodeId") or plugin.current_page()["children"][0]
    node = plugin.document["nodes"].get(node_id)
    if node is None:
        raise FakePluginError(f"Node not found: {node_id}", "node_not_found")
    scale = float(params.get("scale") or 1)
    fmt = str(params.get("format") or "PNG").upper()
    width = max(1, min(MAX_SCREENSHOT_SIDE, round(node["width"] * scale)))
    height = max(1, min(MAX_SCREENSHOT_SIDE, round(node["height"] * scale)))
    if fmt == "SVG":
        data = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"/>'.encode()
    else:
        fill = next((f["color"] for f in node.get("fills", []) if f.get("type") == "SOLID"), {"r": 1, "g": 1, "b": 1})
        color = tuple(round(fill[c] * 255) for c in "rgb")
        buffer = io.BytesIO()
        Image.new("RGB", (width, height), color).save(buffer, format="JPEG" if fmt in ("JPG", "JPEG") else "PNG")
        data = buffer.getvalue()
    return {
        "success": True,
        "image": {
            "base64": base64.b64encode(data).decode(),
            "format": fmt,
            "width": width,
            "height": height,
            "scale": scale,
            "byteLength": len(data),
            "node": {"id": node["id"], "name": node["name"], "type": node["type"]},
        },
    }
