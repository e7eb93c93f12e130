"""The shipped plugin code on a big generated document (tests/plugin/harness/big-plugin.mjs), as a FakeContext plugin.

Reads of any size are tested and measured against it: the tool's own code runs here, every bridge command goes to
the real plugin code in node, and each reply's time and size are recorded.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from design_console.errors import DesignError, ErrorCode
from fakes.context import FakeContext

RUNNER = Path(__file__).resolve().parents[1] / "plugin" / "harness" / "big-plugin.mjs"
#: A reply line may hold a whole page of layers: well over asyncio's default 64 KiB line limit.
LINE_LIMIT = 64 * 1024 * 1024


@dataclass(slots=True)
class Reply:
    """One command's time in the plugin (ms), its reply's size (characters) and the plugin's heap after it."""

    method: str
    ms: float
    chars: int
    heap: int


@dataclass
class BigPlugin:
    """A node process holding the plugin and its document; ``bridge`` is FakeContext's plugin function."""

    proc: asyncio.subprocess.Process
    counts: dict[str, Any]
    replies: list[Reply] = field(default_factory=list)
    _next: int = 0

    @classmethod
    async def start(cls, **document: Any) -> BigPlugin:
        """Build the document (``layers``, ``variables``, ``modes``, ``select``… as big-document.mjs takes them)."""
        node = shutil.which("node")
        assert node, "Node.js 20 is needed for the big-document tests"
        proc = await asyncio.create_subprocess_exec(
            node,
            "--expose-gc",
            str(RUNNER),
            json.dumps(document),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=LINE_LIMIT,
        )
        assert proc.stdout is not None
        ready = json.loads(await proc.stdout.readline())
        return cls(proc, ready["ready"])

    async def _send(self, line: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._next += 1
        line["id"] = str(self._next)
        self.proc.stdin.write(json.dumps(line).encode() + b"\n")
        await self.proc.stdin.drain()
        answer: dict[str, Any] = json.loads(await self.proc.stdout.readline())
        return answer

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        """Run one command in the plugin; a plugin error is raised as designd raises it."""
        answer = await self._send({"method": method, "params": params or {}})
        self.replies.append(Reply(method, answer["ms"], answer["chars"], answer["heap"]))
        reply: dict[str, Any] = answer["reply"]
        if "error" in reply:
            raise DesignError(ErrorCode.PLUGIN_ERROR, f"{method} failed: {reply['error']} (code {reply.get('code')})")
        result: dict[str, Any] = reply["result"]
        return result

    def serve(self, ctx: FakeContext, file_key: str = "fileA") -> FakeContext:
        """``ctx`` with this plugin connected in ``file_key``, at the data version of a file just opened."""
        ctx.plugin = self.bridge
        ctx.active_file_key = file_key
        ctx.pushed["change_seq"] = 0
        return ctx

    async def select(self, count: int) -> None:
        """Select the first ``count`` screens of the current page."""
        await self._send({"control": "select", "count": count})

    async def stop(self) -> None:
        """End the node process."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        await self.proc.wait()
