"""Environment variables and paths, read and validated in one place.

Every process calls :func:`load_config` once at start-up; nothing else reads ``os.environ`` for settings. The one
exception is ``NOTIFY_SOCKET``, systemd's readiness address, which only ``daemon/sd_notify.py`` reads.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import msgspec

from design_console.errors import DesignError, ErrorCode

LogLevel = Literal["trace", "debug", "info", "warn", "error", "fatal"]
BridgeAuth = Literal["required", "off"]

#: Every toolset name a user may put in DESIGN_TOOLSETS.
TOOLSETS = ("core", "read", "write", "tokens", "board", "slides", "audit", "code", "apps")

DEFAULT_API_URL = "https://api.figma.com"
PORT_RANGE_SIZE = 10
#: Set by ``runtime/launch.py`` in the environment of a designd it starts detached (its stderr is a log file then).
DETACHED_VAR = "DESIGND_DETACHED"
#: systemd's readiness socket (``Type=notify``); a designd started on demand must not inherit the caller's.
NOTIFY_SOCKET_VAR = "NOTIFY_SOCKET"


class Config(msgspec.Struct, frozen=True, kw_only=True):
    """Validated settings of one process; see README "Configuration" for each variable.

    ``browser_timeout_ms``, ``oauth_client_id``, ``oauth_client_secret`` and ``relay_url`` belong to Remote Mode,
    which is not part of this build: they are validated (and the secret redacted, the relay written into the plugin
    copy) but nothing in local mode acts on them.
    """

    access_token: str = ""
    log_level: LogLevel = "info"
    browser_timeout_ms: int = 120_000
    max_console_logs: int = 1000
    oauth_client_id: str = ""
    oauth_client_secret: str = ""
    ws_port: int = 9223
    ws_host: str = "localhost"
    node_env: str = ""
    bridge_auth: BridgeAuth = "required"
    api_url: str = DEFAULT_API_URL
    toolsets: tuple[str, ...] = ()
    enable_mcp_apps: bool = False
    relay_url: str = ""
    home: Path
    runtime_dir: Path
    temp_dir: Path
    #: DESIGN_PLUGIN_SOURCE: plugin files to copy instead of the build's own (plugin development).
    plugin_source: Path | None = None
    #: HOME: where per-user service files go (launchd agents).
    user_home: Path
    #: XDG_CONFIG_HOME, else ~/.config: where the systemd user unit goes.
    config_home: Path
    #: designd runs detached (started on demand): its stderr is a file, so the log is not echoed there.
    detached: bool = False
    #: DESIGN_WORKER_IDLE_SECONDS: a worker no call needed for this long is stopped (0: never).
    worker_idle_seconds: int = 300

    @property
    def ports(self) -> range:
        """The bridge port range: DESIGN_WS_PORT and the nine after it."""
        return range(self.ws_port, self.ws_port + PORT_RANGE_SIZE)

    @property
    def plugin_dir(self) -> Path:
        """Where the plugin copy the user imports lives."""
        return self.home / "plugin"

    @property
    def token_file(self) -> Path:
        """The per-user bridge token (0600)."""
        return self.home / "bridge-token"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def control_endpoint(self) -> str:
        """ZeroMQ endpoint of designd's control socket."""
        return f"ipc://{self.runtime_dir / 'control.sock'}"

    @property
    def lock_file(self) -> Path:
        return self.runtime_dir / "designd.lock"

    @property
    def media_dir(self) -> Path:
        """Per-user folder of screenshot files, each deleted an hour after it was written. It lies in the private
        home, not at a guessable name in the shared temp dir, where another user could create it first."""
        return self.cache_dir / "media"


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise DesignError(
            ErrorCode.BAD_CONFIG, f"{name}={raw!r} is not a whole number.", f"Set it to {low}..{high}."
        ) from None
    if not low <= value <= high:
        raise DesignError(ErrorCode.BAD_CONFIG, f"{name}={value} is out of range.", f"Set it to {low}..{high}.")
    return value


def _choice(env: Mapping[str, str], name: str, default: str, allowed: tuple[str, ...]) -> str:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw == "warning":
        raw = "warn"
    if raw not in allowed:
        raise DesignError(ErrorCode.BAD_CONFIG, f"{name}={raw!r} is not one of {', '.join(allowed)}.")
    return raw


def _runtime_dir(env: Mapping[str, str], home: Path) -> Path:
    if env.get("DESIGN_RUNTIME_DIR"):
        return Path(env["DESIGN_RUNTIME_DIR"])
    xdg = env.get("XDG_RUNTIME_DIR")
    if xdg and Path(xdg).is_dir():
        return Path(xdg) / "design-console-mcp"
    return home / "run"


def _relay_url(env: Mapping[str, str]) -> str:
    raw = env.get("DESIGN_RELAY_URL", "").strip().rstrip("/")
    if raw and not raw.startswith(("wss://", "ws://")):
        raise DesignError(ErrorCode.BAD_CONFIG, f"DESIGN_RELAY_URL={raw!r} is not a ws(s):// URL.")
    return raw


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Read and validate the settings from ``env`` (default: the process environment).

    Raises :class:`DesignError` with code ``bad_config`` naming the variable and the rule it broke.
    """
    env = os.environ if env is None else env
    user_home = Path(env.get("HOME") or Path.home())
    home = Path(env.get("DESIGN_CONSOLE_HOME") or user_home / ".design-console-mcp")
    toolsets_raw = [t.strip().lower() for t in env.get("DESIGN_TOOLSETS", "").split(",") if t.strip()]
    unknown = [t for t in toolsets_raw if t not in TOOLSETS]
    if unknown:
        raise DesignError(
            ErrorCode.BAD_CONFIG,
            f"DESIGN_TOOLSETS names unknown toolsets: {', '.join(unknown)}.",
            f"Use {', '.join(TOOLSETS)}.",
        )
    api_url = (env.get("DESIGN_API_URL") or DEFAULT_API_URL).rstrip("/")
    if not api_url.startswith(("http://", "https://")):
        raise DesignError(ErrorCode.BAD_CONFIG, f"DESIGN_API_URL={api_url!r} is not an http(s) URL.")
    return Config(
        access_token=env.get("DESIGN_ACCESS_TOKEN", "").strip(),
        log_level=_choice(env, "LOG_LEVEL", "info", ("trace", "debug", "info", "warn", "error", "fatal")),  # type: ignore[arg-type]
        browser_timeout_ms=_int(env, "BROWSER_TIMEOUT", 120_000, 1000, 3_600_000),
        max_console_logs=_int(env, "MAX_CONSOLE_LOGS", 1000, 1, 1_000_000),
        oauth_client_id=env.get("DESIGN_OAUTH_CLIENT_ID", ""),
        oauth_client_secret=env.get("DESIGN_OAUTH_CLIENT_SECRET", ""),
        ws_port=_int(env, "DESIGN_WS_PORT", 9223, 1024, 65535 - PORT_RANGE_SIZE),
        ws_host=env.get("DESIGN_WS_HOST", "").strip() or "localhost",
        node_env=env.get("NODE_ENV", ""),
        bridge_auth=_choice(env, "DESIGN_BRIDGE_AUTH", "required", ("required", "off")),  # type: ignore[arg-type]
        api_url=api_url,
        toolsets=tuple(toolsets_raw),
        enable_mcp_apps=env.get("ENABLE_MCP_APPS", "").strip().lower() in ("1", "true", "yes", "on"),
        relay_url=_relay_url(env),
        home=home,
        runtime_dir=_runtime_dir(env, home),
        temp_dir=Path(env.get("TMPDIR") or tempfile.gettempdir()),
        plugin_source=Path(env["DESIGN_PLUGIN_SOURCE"]) if env.get("DESIGN_PLUGIN_SOURCE") else None,
        user_home=user_home,
        config_home=Path(env.get("XDG_CONFIG_HOME") or user_home / ".config"),
        detached=bool(env.get(DETACHED_VAR)),
        worker_idle_seconds=_int(env, "DESIGN_WORKER_IDLE_SECONDS", 300, 0, 86_400),
    )
