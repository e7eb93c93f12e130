"""Environment variables and paths, read and validated in one place.

Every process calls :func:`load_config` once at start-up; nothing else reads ``os.environ`` for settings. The one
exception is ``NOTIFY_SOCKET``, systemd's readiness address, which only ``daemon/sd_notify.py`` reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import msgspec

from design_console.errors import DesignError, ErrorCode

LogLevel = Literal["trace", "debug", "info", "warn", "error", "fatal"]
BridgeAuth = Literal["required", "off"]
#: How shims, designctl and workers reach designd's control socket (DESIGN_IPC): a Unix-domain ``ipc://`` socket in
#: the private runtime dir, or ``tcp://127.0.0.1`` on a port the OS picks, every peer proving the user's CURVE key.
Transport = Literal["ipc", "tcp"]

#: Every toolset name a user may put in DESIGN_TOOLSETS.
TOOLSETS = ("core", "read", "write", "tokens", "board", "slides", "audit", "code", "apps")
#: DESIGN_TOOLSETS's value for toolsets listed on request, per session.
AUTO_TOOLSETS = "auto"

DEFAULT_API_URL = "https://api.figma.com"
PORT_RANGE_SIZE = 10
#: Set by ``runtime/launch.py`` in the environment of a designd it starts detached (its stderr is a log file then).
DETACHED_VAR = "DESIGND_DETACHED"
DEFAULT_BROWSER_PATH = Path("/usr/bin/chromium")
#: The design tool's web domains: where a Remote Mode browser may go unless REMOTE_BROWSER_ALLOWLIST says otherwise.
DEFAULT_BROWSER_ALLOWLIST = ("figma.com", "*.figma.com")
#: systemd's readiness socket (``Type=notify``); a designd started on demand must not inherit the caller's.
NOTIFY_SOCKET_VAR = "NOTIFY_SOCKET"


class Config(msgspec.Struct, frozen=True, kw_only=True):
    """Validated settings of one process; see README "Configuration" for each variable.

    ``browser_timeout_ms``, ``oauth_client_id``, ``oauth_client_secret`` and ``relay_url`` belong to Remote Mode
    (:class:`RemoteConfig` carries the hosted service's own settings): local mode validates them (and redacts the
    secret, writes the relay into the plugin copy) but does not act on them.
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
    #: DESIGN_IPC: the control socket's transport.
    transport: Transport = "ipc"
    #: DESIGN_TOOLSETS=auto: each session lists the core toolset and design_toolsets, which enables the others.
    toolsets_auto: bool = False
    enable_mcp_apps: bool = False
    relay_url: str = ""
    home: Path
    runtime_dir: Path
    #: TMPDIR when it is set; :attr:`temp_dir` is the folder in use either way.
    tmpdir: Path | None = None
    #: DESIGN_PLUGIN_SOURCE: plugin files to copy instead of the build's own (plugin development).
    plugin_source: Path | None = None
    #: DESIGN_BROWSER: the Chromium-family browser design_scan_code_accessibility runs axe-core in (else found on PATH).
    browser_path: Path | None = None
    #: HOME: where per-user service files go (launchd agents).
    user_home: Path
    #: XDG_CONFIG_HOME, else ~/.config: where the systemd user unit goes.
    config_home: Path
    #: designd runs detached (started on demand): its stderr is a file, so the log is not echoed there.
    detached: bool = False
    #: DESIGN_WORKER_IDLE_SECONDS: a worker no call needed for this long is stopped (0: never).
    worker_idle_seconds: int = 300
    #: DESIGN_IMAGE_PRIVATE_HOSTS: image URLs may lead to loopback, link-local and private-network addresses.
    image_private_hosts: bool = False
    #: DESIGN_FILE_ROOTS: folders the file tools may use besides the AI app's working directory, when the AI app
    #: shares no MCP roots.
    file_roots: tuple[Path, ...] = ()
    # Remote Mode's headless browser (``remote/browser.py``); browser_timeout_ms and max_console_logs apply too.
    #: REMOTE_BROWSER_ENABLED: whether design_navigate and friends may start a browser at all.
    remote_browser_enabled: bool = True
    #: REMOTE_BROWSER_PATH: the Chromium executable (Debian's package by default).
    remote_browser_path: Path = DEFAULT_BROWSER_PATH
    #: REMOTE_BROWSER_ALLOWLIST: hosts a page may navigate to ("*.example.com" also matches its subdomains' hosts).
    remote_browser_allowlist: tuple[str, ...] = DEFAULT_BROWSER_ALLOWLIST
    #: REMOTE_BROWSER_MAX: browser operations running at once; further calls wait their turn.
    remote_browser_max: int = 3
    #: REMOTE_BROWSER_PER_USER: one user's browser calls running or waiting at once (browser tools and, in Remote
    #: Mode, accessibility scans, each counted on its own); more are answered "busy".
    remote_browser_per_user: int = 1
    #: REMOTE_BROWSER_QUEUE: browser calls that may wait for a free browser; more are answered "busy".
    remote_browser_queue: int = 8
    #: REMOTE_SCAN_MAX_HTML: the largest html design_scan_code_accessibility takes in Remote Mode, in bytes.
    remote_scan_max_html: int = 200_000

    @property
    def ports(self) -> range:
        """The bridge port range: DESIGN_WS_PORT and the nine after it."""
        return range(self.ws_port, self.ws_port + PORT_RANGE_SIZE)

    @property
    def temp_dir(self) -> Path:
        """The folder for temporary files: TMPDIR, else the system's (where the port adverts' folder lives).

        Asked of the system only here, when first needed: ``tempfile`` loads shutil and the compression modules,
        which the shim never needs, and checks the folder by writing to it.
        """
        if self.tmpdir is not None:
            return self.tmpdir
        import tempfile

        return Path(tempfile.gettempdir())

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
    def control_socket(self) -> Path:
        """designd's ``ipc://`` control socket (DESIGN_IPC=ipc)."""
        return self.runtime_dir / "control.sock"

    @property
    def control_endpoint_file(self) -> Path:
        """Where designd writes its ``tcp://127.0.0.1:<port>`` endpoint (DESIGN_IPC=tcp) for its peers to find."""
        return self.runtime_dir / "control.endpoint"

    @property
    def server_key_file(self) -> Path:
        """designd's CURVE key pair (DESIGN_IPC=tcp): peers check they reach designd and no squatter on its port."""
        return self.home / "control-server.key"

    @property
    def client_key_file(self) -> Path:
        """The user's CURVE client key pair (DESIGN_IPC=tcp): designd admits only peers that prove it."""
        return self.home / "control-client.key"

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


def _transport(env: Mapping[str, str]) -> Transport:
    """DESIGN_IPC, else ``ipc`` where ZeroMQ has it (pyzmq's Windows wheels do not) and ``tcp`` elsewhere."""
    raw = env.get("DESIGN_IPC", "").strip().lower()
    if raw not in ("", "ipc", "tcp"):
        raise DesignError(ErrorCode.BAD_CONFIG, f"DESIGN_IPC={raw!r} is not one of ipc, tcp.")
    if raw == "tcp":
        return "tcp"
    import zmq  # only here: settings that need no control socket (Remote Mode) do not pay for loading it

    # pyzmq's Windows wheels are built without ipc://, so this is where Windows gets tcp.
    if zmq.has("ipc"):
        return "ipc"
    if raw:
        raise DesignError(ErrorCode.BAD_CONFIG, "DESIGN_IPC=ipc: this ZeroMQ has no ipc://.", "Set DESIGN_IPC=tcp.")
    return "tcp"


def _relay_url(env: Mapping[str, str]) -> str:
    raw = env.get("DESIGN_RELAY_URL", "").strip().rstrip("/")
    if raw and not raw.startswith(("wss://", "ws://")):
        raise DesignError(ErrorCode.BAD_CONFIG, f"DESIGN_RELAY_URL={raw!r} is not a ws(s):// URL.")
    return raw


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise DesignError(ErrorCode.BAD_CONFIG, f"{name}={raw!r} is not a yes/no value.", "Set it to 1 or 0.")


def _folders(env: Mapping[str, str], name: str, user_home: Path) -> tuple[Path, ...]:
    """Absolute folders separated by the platform's path separator (``~`` is the user's home)."""
    raw = [part.strip() for part in env.get(name, "").split(os.pathsep) if part.strip()]
    folders = tuple(Path(user_home, part[2:]) if part == "~" or part.startswith("~/") else Path(part) for part in raw)
    relative = [str(f) for f in folders if not f.is_absolute()]
    if relative:
        raise DesignError(
            ErrorCode.BAD_CONFIG,
            f"{name} has folders that are not absolute paths: {', '.join(relative)}.",
            f"List absolute folders separated by {os.pathsep!r}.",
        )
    return folders


_HOST_PATTERN = re.compile(r"(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?")


def _allowlist(env: Mapping[str, str]) -> tuple[str, ...]:
    raw = env.get("REMOTE_BROWSER_ALLOWLIST", "").strip()
    if not raw:
        return DEFAULT_BROWSER_ALLOWLIST
    hosts = tuple(h.strip().lower().rstrip(".") for h in raw.split(",") if h.strip())
    bad = [h for h in hosts if not _HOST_PATTERN.fullmatch(h)]
    if bad or not hosts:
        raise DesignError(
            ErrorCode.BAD_CONFIG,
            f"REMOTE_BROWSER_ALLOWLIST has entries that are not host names: {', '.join(bad) or raw!r}.",
            "List hosts separated by commas, e.g. figma.com,*.figma.com or 127.0.0.1:8080.",
        )
    return hosts


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Read and validate the settings from ``env`` (default: the process environment).

    Raises :class:`DesignError` with code ``bad_config`` naming the variable and the rule it broke.
    """
    env = os.environ if env is None else env
    user_home = Path(env.get("HOME") or Path.home())
    home = Path(env.get("DESIGN_CONSOLE_HOME") or user_home / ".design-console-mcp")
    toolsets_raw = [t.strip().lower() for t in env.get("DESIGN_TOOLSETS", "").split(",") if t.strip()]
    toolsets_auto = toolsets_raw == [AUTO_TOOLSETS]
    if toolsets_auto:
        toolsets_raw = []
    elif AUTO_TOOLSETS in toolsets_raw:
        raise DesignError(
            ErrorCode.BAD_CONFIG,
            "DESIGN_TOOLSETS=auto cannot be combined with toolset names.",
            "Set it to auto alone, or to a list of toolsets.",
        )
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
        transport=_transport(env),
        toolsets_auto=toolsets_auto,
        enable_mcp_apps=env.get("ENABLE_MCP_APPS", "").strip().lower() in ("1", "true", "yes", "on"),
        relay_url=_relay_url(env),
        home=home,
        runtime_dir=_runtime_dir(env, home),
        tmpdir=Path(env["TMPDIR"]) if env.get("TMPDIR") else None,
        plugin_source=Path(env["DESIGN_PLUGIN_SOURCE"]) if env.get("DESIGN_PLUGIN_SOURCE") else None,
        browser_path=Path(env["DESIGN_BROWSER"].strip()).expanduser()
        if env.get("DESIGN_BROWSER", "").strip()
        else None,
        user_home=user_home,
        config_home=Path(env.get("XDG_CONFIG_HOME") or user_home / ".config"),
        detached=bool(env.get(DETACHED_VAR)),
        remote_browser_enabled=_flag(env, "REMOTE_BROWSER_ENABLED", True),
        remote_browser_path=Path(env.get("REMOTE_BROWSER_PATH", "").strip() or DEFAULT_BROWSER_PATH),
        remote_browser_allowlist=_allowlist(env),
        remote_browser_max=_int(env, "REMOTE_BROWSER_MAX", 3, 1, 64),
        remote_browser_per_user=_int(env, "REMOTE_BROWSER_PER_USER", 1, 1, 64),
        remote_browser_queue=_int(env, "REMOTE_BROWSER_QUEUE", 8, 0, 10_000),
        remote_scan_max_html=_int(env, "REMOTE_SCAN_MAX_HTML", 200_000, 1000, 1_000_000),
        worker_idle_seconds=_int(env, "DESIGN_WORKER_IDLE_SECONDS", 300, 0, 86_400),
        image_private_hosts=_flag(env, "DESIGN_IMAGE_PRIVATE_HOSTS", False),
        file_roots=_folders(env, "DESIGN_FILE_ROOTS", user_home),
    )


# Remote Mode --------------------------------------------------------------------------------------------------------

#: The design platform's OAuth endpoints (authorization page and token exchange), unless overridden for tests.
DEFAULT_OAUTH_AUTHORIZE_URL = "https://www.figma.com/oauth"
DEFAULT_OAUTH_TOKEN_URL = "https://api.figma.com/v1/oauth/token"
#: Every platform scope a listed tool needs: files, images and nodes; file metadata; comments read and written;
#: version history; variables; a file's and a library's components and styles; who signed in (``/v1/me``).
DEFAULT_OAUTH_SCOPES = (
    "file_content:read file_metadata:read file_comments:read file_comments:write file_versions:read "
    "file_variables:read library_content:read library_assets:read current_user:read"
)
DEFAULT_REMOTE_PORT = 8787


class RemoteConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Settings of the hosted service (``design-console-remote``); see README "Remote Mode" for each variable."""

    #: The settings every process shares (the design API address, DESIGN_ACCESS_TOKEN, toolsets, home).
    base: Config
    #: DESIGN_REMOTE_BASE_URL: the public address AI clients reach; OAuth issuer and resource URLs derive from it.
    base_url: str
    host: str = "127.0.0.1"
    port: int = DEFAULT_REMOTE_PORT
    #: DESIGN_REMOTE_STORE: ``sqlite:///<path>`` (default, in the home) or ``redis://…`` for several instances.
    store_url: str
    #: DESIGN_REMOTE_API_KEY: when set, every MCP request must carry it in ``X-API-Key``.
    api_key: str = ""
    #: DESIGN_TOKEN_KEYS: base64 AES-256 keys, newest first; upstream tokens are encrypted with the first.
    token_keys: tuple[bytes, ...] = ()
    oauth_authorize_url: str = DEFAULT_OAUTH_AUTHORIZE_URL
    oauth_token_url: str = DEFAULT_OAUTH_TOKEN_URL
    oauth_scopes: str = DEFAULT_OAUTH_SCOPES
    #: DESIGN_REMOTE_MAX_BODY: the largest request body accepted, in bytes.
    max_body: int = 1024 * 1024
    #: DESIGN_RELAY_PAIR_ATTEMPTS: plugin pairing and reconnect attempts allowed per client address a minute.
    pair_attempts: int = 20
    #: DESIGN_RELAY_PAIR_BUDGET: redemptions of pairing codes never issued answered a minute across every address and
    #: instance, so at most this many guesses a minute, however many addresses send them. Addresses that failed in the
    #: last hour share half of it and wait once it is spent, a live code included; the other half is for every other
    #: address, so a flood delays a user's live code only while more than half this many addresses fail for the first
    #: time in a minute (relay.py, ``Relays._budgeted``). At least 2, one for each half.
    pair_budget: int = 20
    #: DESIGN_REMOTE_REGISTER_RATE: client registrations allowed per client address a minute.
    register_rate: int = 30
    #: DESIGN_REMOTE_AUTHORIZE_RATE: authorization requests allowed per client address a minute.
    authorize_rate: int = 60
    #: FORWARDED_ALLOW_IPS: the proxies whose X-Forwarded-For names the client (uvicorn's setting, read here so the
    #: address every per-client limit counts is the real client's).
    forwarded_allow_ips: str = "127.0.0.1"
    #: DESIGN_REMOTE_HEADER_TIMEOUT: seconds a connection has to send a whole request head (from when it opened or
    #: its previous response ended).
    header_timeout: int = 10
    #: DESIGN_REMOTE_BODY_TIMEOUT: seconds a request has to send its whole body once its head arrived.
    body_timeout: int = 30
    #: DESIGN_REMOTE_MAX_CONNECTIONS: connections held at once (0: as many as the descriptor limit leaves room for).
    max_connections: int = 0
    #: DESIGN_REMOTE_LEAN: answer initialize, ping, tools/list and tools/call on /mcp without the MCP SDK's session
    #: machinery (off: the SDK serves every message).
    lean: bool = True
    #: DESIGN_REMOTE_CACHE_SECONDS: how long an instance trusts what it holds in memory of a bearer token or an MCP
    #: session before asking the store again: the longest a revocation or a session ended on another instance takes
    #: to reach this one (a revocation on this instance takes effect at once).
    cache_seconds: int = 5
    #: DESIGN_REMOTE_METRICS_TOKEN: serve ``/metrics`` to requests bearing this token (empty: no ``/metrics``).
    metrics_token: str = ""
    #: DESIGN_REMOTE_METRICS_BIND: serve ``/metrics`` on a listener of its own at this (host, port), and not on the
    #: public port (None: no such listener). With a token too, requests there must bear it.
    metrics_bind: tuple[str, int] | None = None
    #: DESIGN_REMOTE_SHUTDOWN_SECONDS: on SIGTERM, how long calls in flight have to finish before they are cut off.
    shutdown_seconds: int = 20
    #: DESIGN_RELAY_PING_SECONDS: how often each plugin's relay socket is pinged (RFC 6455), so that a plugin lost
    #: without a close (network drop, sleep, killed design tool) is noticed and its pairing announced as ended.
    relay_ping_seconds: int = 10
    #: DESIGN_RELAY_PING_TIMEOUT: seconds a ping's pong may take before the socket is dropped; a lost plugin is noticed
    #: within DESIGN_RELAY_PING_SECONDS plus this.
    relay_ping_timeout: int = 10
    #: DESIGN_RELAY_LEASE_SECONDS: how long an instance's claim on a plugin's socket outlives it (renewed every third
    #: of it): after an instance dies, the others announce its pairings as ended within about 4/3 of this, unless the
    #: plugin came back to one of them.
    relay_lease_seconds: int = 30

    @property
    def missing_oauth(self) -> list[str]:
        """The variables per-user OAuth needs that are not set (empty: OAuth is configured)."""
        missing = []
        if not self.base.oauth_client_id:
            missing.append("DESIGN_OAUTH_CLIENT_ID")
        if not self.base.oauth_client_secret:
            missing.append("DESIGN_OAUTH_CLIENT_SECRET")
        if not self.token_keys:
            missing.append("DESIGN_TOKEN_KEYS")
        return missing


def _http_url(env: Mapping[str, str], name: str, default: str) -> str:
    raw = (env.get(name, "").strip() or default).rstrip("/")
    if not raw.startswith(("http://", "https://")):
        raise DesignError(ErrorCode.BAD_CONFIG, f"{name}={raw!r} is not an http(s) URL.")
    return raw


def _token_keys(env: Mapping[str, str]) -> tuple[bytes, ...]:
    # Remote Mode's settings import what only they use, so the local processes' start-up does not pay for it.
    import base64
    import binascii

    keys = []
    for number, raw in enumerate(t.strip() for t in env.get("DESIGN_TOKEN_KEYS", "").split(",") if t.strip()):
        try:
            key = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != 32:
            raise DesignError(
                ErrorCode.BAD_CONFIG,
                f"DESIGN_TOKEN_KEYS: key {number + 1} is not 32 bytes in base64.",
                'Make one with: python -c "import os,base64;print(base64.b64encode(os.urandom(32)).decode())"',
            )
        keys.append(key)
    return tuple(keys)


def _forwarded_allow_ips(env: Mapping[str, str]) -> str:
    import ipaddress

    raw = env.get("FORWARDED_ALLOW_IPS", "").strip() or "127.0.0.1"
    for entry in (e.strip() for e in raw.split(",")):
        if entry == "*" or entry.startswith("unix:"):
            continue
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise DesignError(
                ErrorCode.BAD_CONFIG,
                f"FORWARDED_ALLOW_IPS has an entry that is not an IP address or network: {entry!r}.",
                "List your reverse proxy's addresses separated by commas, e.g. 10.0.0.5,10.0.1.0/24.",
            ) from None
    return raw


def _bind(env: Mapping[str, str], name: str) -> tuple[str, int] | None:
    """A ``host:port`` setting (``[v6]:port`` for an IPv6 address); None when not set."""
    raw = env.get(name, "").strip()
    if not raw:
        return None
    host, _, port = raw.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not host or not port.isdigit() or not 0 < int(port) <= 65535:
        raise DesignError(
            ErrorCode.BAD_CONFIG,
            f"{name}={raw!r} is not host:port.",
            f"Set it to the address and port to listen on, e.g. {name}=10.0.0.5:9464 or 127.0.0.1:9464.",
        )
    return host, int(port)


def load_remote_config(env: Mapping[str, str] | None = None) -> RemoteConfig:
    """Read and validate the hosted service's settings; raises :class:`DesignError` naming the variable."""
    env = os.environ if env is None else env
    base = load_config(env)
    host = env.get("DESIGN_REMOTE_HOST", "").strip() or "127.0.0.1"
    port = _int(env, "DESIGN_REMOTE_PORT", DEFAULT_REMOTE_PORT, 0, 65535)
    raw_base_url = env.get("DESIGN_REMOTE_BASE_URL", "").strip()
    if not raw_base_url:
        raise DesignError(
            ErrorCode.BAD_CONFIG,
            "DESIGN_REMOTE_BASE_URL is not set.",
            "Set it to the public https:// address AI clients use to reach this server (no path).",
        )
    base_url = _http_url(env, "DESIGN_REMOTE_BASE_URL", "")
    if urlsplit(base_url).path or urlsplit(base_url).query:
        raise DesignError(ErrorCode.BAD_CONFIG, f"DESIGN_REMOTE_BASE_URL={base_url!r} must have no path or query.")
    store_url = env.get("DESIGN_REMOTE_STORE", "").strip() or f"sqlite:///{base.home / 'remote.sqlite3'}"
    if not store_url.startswith(("sqlite:///", "redis://", "rediss://", "unix://")):
        raise DesignError(ErrorCode.BAD_CONFIG, "DESIGN_REMOTE_STORE is neither sqlite:///<path> nor a redis:// URL.")
    return RemoteConfig(
        base=base,
        base_url=base_url,
        host=host,
        port=port,
        store_url=store_url,
        api_key=env.get("DESIGN_REMOTE_API_KEY", ""),
        token_keys=_token_keys(env),
        oauth_authorize_url=_http_url(env, "DESIGN_OAUTH_AUTHORIZE_URL", DEFAULT_OAUTH_AUTHORIZE_URL),
        oauth_token_url=_http_url(env, "DESIGN_OAUTH_TOKEN_URL", DEFAULT_OAUTH_TOKEN_URL),
        oauth_scopes=env.get("DESIGN_OAUTH_SCOPES", "").strip() or DEFAULT_OAUTH_SCOPES,
        max_body=_int(env, "DESIGN_REMOTE_MAX_BODY", 1024 * 1024, 1024, 64 * 1024 * 1024),
        pair_attempts=_int(env, "DESIGN_RELAY_PAIR_ATTEMPTS", 20, 1, 100_000),
        pair_budget=_int(env, "DESIGN_RELAY_PAIR_BUDGET", 20, 2, 100_000),
        register_rate=_int(env, "DESIGN_REMOTE_REGISTER_RATE", 30, 1, 100_000),
        authorize_rate=_int(env, "DESIGN_REMOTE_AUTHORIZE_RATE", 60, 1, 100_000),
        forwarded_allow_ips=_forwarded_allow_ips(env),
        header_timeout=_int(env, "DESIGN_REMOTE_HEADER_TIMEOUT", 10, 1, 300),
        body_timeout=_int(env, "DESIGN_REMOTE_BODY_TIMEOUT", 30, 1, 3600),
        max_connections=_int(env, "DESIGN_REMOTE_MAX_CONNECTIONS", 0, 0, 10_000_000),
        lean=_flag(env, "DESIGN_REMOTE_LEAN", True),
        cache_seconds=_int(env, "DESIGN_REMOTE_CACHE_SECONDS", 5, 0, 300),
        metrics_token=env.get("DESIGN_REMOTE_METRICS_TOKEN", "").strip(),
        metrics_bind=_bind(env, "DESIGN_REMOTE_METRICS_BIND"),
        shutdown_seconds=_int(env, "DESIGN_REMOTE_SHUTDOWN_SECONDS", 20, 1, 3600),
        relay_ping_seconds=_int(env, "DESIGN_RELAY_PING_SECONDS", 10, 1, 300),
        relay_ping_timeout=_int(env, "DESIGN_RELAY_PING_TIMEOUT", 10, 1, 300),
        relay_lease_seconds=_int(env, "DESIGN_RELAY_LEASE_SECONDS", 30, 3, 3600),
    )
