"""What a tool handler may use, by the process it runs in: the context designd and the workers build for a call
offers every member its protocol names, with coroutines where the protocol has them; so does the test stand-in."""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import Any, Protocol

import pytest
from fakes.context import FakeContext

from design_console.config import Config
from design_console.daemon.core import DaemonCallContext
from design_console.runtime.user_files import FileScope
from design_console.tools.context import ApiContext, Context, DaemonContext, MediaContext, TokensContext
from design_console.workers.main import WorkerCallContext


def members(protocol: type) -> dict[str, bool]:
    """Every member a protocol names, its bases' included, and whether it is a coroutine function."""
    found: dict[str, bool] = {}
    for cls in reversed(protocol.__mro__):
        if cls in (object, Protocol, type) or not getattr(cls, "_is_protocol", False):
            continue
        for name in getattr(cls, "__annotations__", {}):
            found.setdefault(name, False)
        for name, value in vars(cls).items():
            if not name.startswith("_"):
                found[name] = inspect.iscoroutinefunction(value)
    return found


async def _progress(progress: float, total: float | None = None, message: str = "") -> None:
    return None


def daemon_context(config: Config) -> DaemonCallContext:
    daemon = SimpleNamespace(bridge=SimpleNamespace(), config=config, state=SimpleNamespace())
    return DaemonCallContext(daemon, _progress, FileScope(), token="")  # type: ignore[arg-type]


def worker_context(config: Config) -> WorkerCallContext:
    worker = SimpleNamespace(config=config)
    call = SimpleNamespace(access_token="", active_file_key="fileKey", cwd="", roots=None)
    return WorkerCallContext(worker, call)  # type: ignore[arg-type]


def missing(context: Any, protocol: type) -> list[str]:
    """The protocol's members the context lacks, or has as a plain function where the protocol has a coroutine."""
    wrong = []
    for name, is_coroutine in members(protocol).items():
        # Properties are looked up on the class, so that building a context needs no running bridge or worker.
        owner = type(context) if isinstance(getattr(type(context), name, None), property) else context
        if not hasattr(owner, name):
            wrong.append(name)
        elif is_coroutine and not inspect.iscoroutinefunction(getattr(context, name)):
            wrong.append(f"{name} (not a coroutine)")
    return wrong


def test_the_member_list_sees_inherited_properties_and_coroutines() -> None:
    found = members(ApiContext)
    assert {"config", "active_file_key", "file_scope", "bridge", "progress", "api", "state"} == set(found)
    assert found["bridge"] and found["state"] and not found["config"]
    assert "port" in members(DaemonContext) and "api" not in members(DaemonContext)


def test_designd_builds_a_daemon_context(ctx: FakeContext) -> None:
    assert missing(daemon_context(ctx.config), DaemonContext) == []


@pytest.mark.parametrize("protocol", [ApiContext, MediaContext, TokensContext])
def test_a_worker_builds_the_context_of_every_kind(ctx: FakeContext, protocol: type) -> None:
    context = worker_context(ctx.config)
    assert missing(context, protocol) == []
    assert context.active_file_key == "fileKey" and context.config is ctx.config


@pytest.mark.parametrize("protocol", [Context, ApiContext, TokensContext])
def test_the_stand_in_offers_what_a_worker_context_does(ctx: FakeContext, protocol: type) -> None:
    assert missing(ctx, protocol) == []


def test_a_context_without_a_member_is_caught(ctx: FakeContext) -> None:
    class Partial:
        config = ctx.config
        active_file_key = None
        file_scope = FileScope()

        def bridge(self) -> None:
            return None

    assert missing(Partial(), Context) == ["bridge (not a coroutine)", "progress"]
