"""The bridge token and the plugin copy the user imports from ``~/.design-console-mcp/plugin/``.

The repository's plugin files carry placeholders; the copy gets this user's bridge token (so only a plugin imported
from that folder can authenticate) and the configured Remote Mode relay. The copy is refreshed on every start so it
always matches the running build, and files are only rewritten when their content changed.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from design_console.config import Config
from design_console.errors import DesignError, ErrorCode
from design_console.runtime.bundled import bundled_dir
from design_console.runtime.dirs import ensure_private_dir
from design_console.runtime.files import write_private
from design_console.runtime.platform.private import open_to_others

log = logging.getLogger("design_console.plugin_sync")

TOKEN_PLACEHOLDER = "__DESIGN_BRIDGE_TOKEN__"
RELAY_URL_PLACEHOLDER = "__DESIGN_RELAY_URL__"
RELAY_HOST_PLACEHOLDER = "__DESIGN_RELAY_HOST__"
#: The plugin as the design tool imports it; setup.py reads this list to put these files into the wheel.
PLUGIN_FILES = ("manifest.json", "code.js", "ui.html")


def plugin_source_dir(config: Config) -> Path:
    """The plugin files of the running build.

    ``DESIGN_PLUGIN_SOURCE`` when set, else the files the installed package carries, else (editable install) the
    ``plugin/`` folder of the checkout it was installed from.
    """
    if config.plugin_source is not None:
        return config.plugin_source
    found = bundled_dir("plugin")
    if found is not None and (found / "manifest.json").is_file():
        return found
    raise DesignError(
        ErrorCode.PLUGIN_MISSING,
        "The Desktop Bridge plugin files are not part of this installation.",
        "Reinstall design-console-mcp or set DESIGN_PLUGIN_SOURCE to a folder with manifest.json, code.js, ui.html.",
    )


def load_or_create_token(config: Config) -> str:
    """Read the per-user bridge token, creating it (0600) on first start and tightening a loose POSIX mode (on
    Windows the private folder's ACL guards it)."""
    ensure_private_dir(config.home)
    path = config.token_file
    try:
        token = path.read_text().strip()
        if open_to_others(path.stat()):
            log.warning("bridge token %s was readable by others; mode reset to 0600", path)
            path.chmod(0o600)
        if len(token) >= 32:
            return token
    except FileNotFoundError:
        pass
    token = secrets.token_urlsafe(32)
    write_private(path, token.encode())
    return token


_LOCAL_ORIGIN = re.compile(r"^(?:http|ws)://localhost:\d+$")
_PORT_RANGE = re.compile(r'"firstPort":\s*\d+,\s*"lastPort":\s*\d+')


def _manifest(text: str, relay_url: str, ports: range) -> str:
    """The manifest allowing exactly the configured bridge ports and, when one is configured, the relay."""
    manifest = json.loads(text)
    domains: list[str] = manifest.get("networkAccess", {}).get("allowedDomains", [])
    host = urlsplit(relay_url).netloc if relay_url else ""
    kept = [f"{scheme}://localhost:{port}" for scheme in ("http", "ws") for port in ports]
    for domain in domains:
        if RELAY_HOST_PLACEHOLDER in domain:
            if host:
                kept.append(domain.replace(RELAY_HOST_PLACEHOLDER, host))
        elif not _LOCAL_ORIGIN.match(domain):
            kept.append(domain)
    if "networkAccess" in manifest:
        manifest["networkAccess"]["allowedDomains"] = kept
    return json.dumps(manifest, indent=2) + "\n"


def render_plugin_file(name: str, text: str, *, token: str, relay_url: str, ports: range) -> str:
    """One plugin file as the user's copy holds it: token, relay and the DESIGN_WS_PORT range filled in."""
    if name == "manifest.json":
        return _manifest(text, relay_url, ports)
    if name == "ui.html":
        text = text.replace(TOKEN_PLACEHOLDER, token).replace(RELAY_URL_PLACEHOLDER, relay_url)
        return _PORT_RANGE.sub(f'"firstPort": {ports.start}, "lastPort": {ports.stop - 1}', text, count=1)
    return text


def sync_plugin(config: Config, token: str, source: Path | None = None) -> list[str]:
    """Bring ``config.plugin_dir`` in line with the running build; returns the names of files rewritten."""
    source = source or plugin_source_dir(config)
    ensure_private_dir(config.plugin_dir)
    changed = []
    for name in PLUGIN_FILES:
        src = source / name
        if not src.is_file():
            raise DesignError(ErrorCode.PLUGIN_MISSING, f"{src} is missing from the plugin files of this build.")
        wanted = render_plugin_file(
            name, src.read_text(encoding="utf-8"), token=token, relay_url=config.relay_url, ports=config.ports
        )
        dest = config.plugin_dir / name
        try:
            if dest.read_text(encoding="utf-8") == wanted:
                continue
        except (FileNotFoundError, UnicodeDecodeError):
            pass
        write_private(dest, wanted.encode("utf-8"))
        changed.append(name)
    return changed
