"""What tests of designd's bridge and of the tools over it share: the bridge token, a config kept in a temporary
folder, and the types of the bridge and plugin factories (tests/daemon/conftest.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from design_console.config import Config, load_config
from design_console.daemon.bridge import Bridge
from fakes.fake_plugin import FakePlugin

TOKEN = "test-bridge-token-0123456789abcdef"

BridgeFactory = Callable[..., Awaitable[Bridge]]
PluginFactory = Callable[..., Awaitable[FakePlugin]]


def make_config(tmp_path: Path, port: int, **env: str) -> Config:
    """A config whose home and runtime dir live in ``tmp_path`` and whose port range starts at ``port``."""
    return load_config(
        {
            "HOME": str(tmp_path),
            "DESIGN_CONSOLE_HOME": str(tmp_path / "home"),
            "DESIGN_RUNTIME_DIR": str(tmp_path / "run"),
            "DESIGN_WS_PORT": str(port),
            **env,
        }
    )
