"""The one stand-in for the context a tool handler gets, for tests that call handlers directly.

It offers what designd and the workers hand a handler (``config``, ``api``, ``active_file_key``, ``bridge``,
``progress``, ``state``) with a real config and, usually, the real design API client against the fake design API.
Bridge commands go to ``plugin``:

* ``None``: no plugin is connected (``not_connected``, as designd answers);
* a mapping of method to answer: a result object, a DesignError to raise, or a function of the params;
* a coroutine function with the signature of ``bridge`` itself, such as a real ``Bridge.command``.

Every command and progress report is recorded for the test to check.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from design_console.clients.design_api import DesignApi
from design_console.config import Config
from design_console.errors import PREFIX, DesignError
from design_console.protocol import ToolOutput
from design_console.runtime.user_files import FileScope
from design_console.tools import catalog
from design_console.tools.base import Args, ToolSpec
from design_console.tools.calls import parse_args, run_call

Answer = dict[str, Any] | DesignError | Callable[[dict[str, Any]], dict[str, Any]]
BridgeFn = Callable[..., Awaitable[dict[str, Any]]]
Plugin = Mapping[str, Answer] | BridgeFn | None


class FakeContext:
    """A tool context: the real config and API client, a stand-in plugin, and records of what the handler did."""

    def __init__(
        self,
        config: Config,
        *,
        api: DesignApi | None = None,
        plugin: Plugin = None,
        active_file_key: str | None = None,
        file_scope: FileScope | None = None,
    ) -> None:
        self.config = config
        self.file_scope = file_scope or FileScope()
        self.api = api
        self.plugin = plugin
        self.active_file_key = active_file_key
        #: What designd would answer a worker's state query, by name (``metadata_changes`` and ``change_seq``, the
        #: count of changes that versions the file's data).
        self.pushed: dict[str, Any] = {"metadata_changes": [], "change_seq": 0}
        #: Every bridge command sent: (method, params, file_key).
        self.bridge_calls: list[tuple[str, dict[str, Any], str]] = []
        #: Every progress report: (progress, total, message).
        self.progress_reports: list[tuple[float, float | None, str]] = []

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        """Send one command to the stand-in plugin and return its answer."""
        self.bridge_calls.append((method, params or {}, file_key))
        if self.plugin is None:
            raise DesignError("not_connected", "No Desktop Bridge plugin is connected.", "Open the plugin.")
        if not isinstance(self.plugin, Mapping):
            return await self.plugin(method, params, file_key=file_key, timeout=timeout)
        answer = self.plugin.get(method)
        if answer is None:
            raise DesignError("plugin_error", f"Unknown method: {method}")
        if isinstance(answer, DesignError):
            raise answer
        return answer(params or {}) if callable(answer) else answer

    def sent(self, method: str) -> list[dict[str, Any]]:
        """The params of every command of ``method`` sent so far."""
        return [params for sent, params, _ in self.bridge_calls if sent == method]

    async def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        """Record a progress report."""
        self.progress_reports.append((progress, total, message))

    async def state(self, what: str, file_key: str = "") -> Any:
        """What designd holds for a worker's tool (see :attr:`pushed`)."""
        if what not in self.pushed:
            raise DesignError("bad_request", f"unknown state {what!r}")
        return self.pushed[what]

    async def run(self, name: str, arguments: dict[str, Any] | None = None) -> ToolOutput:
        """Validate the arguments and run the tool's handler; a DesignError is raised, for tests to match its code."""
        spec = catalog()[name]
        return await spec.handler(self, parse_args(spec, arguments))

    async def run_json(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """:meth:`run`, for a tool that must succeed: its result's JSON, decoded."""
        output = await self.run(name, arguments)
        assert not output.is_error, output.content
        return json.loads(output.content[0].text)

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolOutput:
        """Run the tool as its process does (through ``tools.calls.run_call``): every failure, a bad argument's and
        a bug's included, becomes the error result the host would answer."""

        async def run(spec: ToolSpec, args: Args) -> ToolOutput:
            return await spec.handler(self, args)

        return await run_call(catalog(), name, arguments, run)


def data(out: ToolOutput) -> Any:
    """The decoded JSON of a tool result that must be a success."""
    assert not out.is_error, out.content[0].text
    return json.loads(out.content[0].text)


def error_text(out: ToolOutput) -> str:
    """The text of a tool result that must be an error (it starts with our prefix)."""
    assert out.is_error, out.content[0].text
    text = out.content[0].text
    assert text.startswith(PREFIX)
    return text
