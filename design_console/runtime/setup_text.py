"""The setup instructions a tool returns when no Desktop Bridge plugin is connected."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from design_console.config import Config
from design_console.errors import DesignError, ErrorCode


def setup_steps(config: Config) -> list[str]:
    """Numbered steps that get a plugin connected, naming this user's manifest path."""
    manifest = config.plugin_dir / "manifest.json"
    return [
        "Open the design tool's desktop app and the file you want to work on.",
        f"Import the plugin once: Plugins > Development > Import plugin from manifest… and pick {manifest}.",
        "Run it: Plugins > Development > Design Desktop Bridge. It finds designd by itself within a few seconds.",
        "Check with design_get_status; if it still says disconnected, run `designctl doctor` in a terminal.",
    ]


def not_connected_error(config: Config) -> DesignError:
    """The error every bridge tool raises while no plugin is connected."""
    steps = " ".join(f"{n}. {s}" for n, s in enumerate(setup_steps(config), 1))
    return DesignError(ErrorCode.NOT_CONNECTED, "No Desktop Bridge plugin is connected.", f"To connect: {steps}")


#: A refused plugin retries every few seconds; a refusal older than this was fixed (or the plugin was closed).
REFUSAL_RECENT_S = 60.0


def refused_plugin_notice(config: Config, bridge_stats: Mapping[str, Any], now: float | None = None) -> str | None:
    """What to tell the user when designd recently refused a plugin for its bridge-token handshake, else None.

    designd status, design_get_status and designctl doctor show the same text, from designd's bridge counters.
    """
    last = bridge_stats.get("lastRefusedAt")
    if not isinstance(last, int | float):
        return None
    ago = (time.time() if now is None else now) - last
    if ago > REFUSAL_RECENT_S:
        return None
    count = int(bridge_stats.get("failedProofs", 0)) + int(bridge_stats.get("unauthenticatedRejects", 0))
    return (
        f"designd refused a Desktop Bridge plugin {max(0, round(ago))} s ago for a wrong or missing bridge token "
        f"({count} refusal(s) since it started): that plugin was imported from another folder (the repository, "
        "another install) or is an older copy. Re-import the manifest from designd's folder, "
        f"{config.plugin_dir / 'manifest.json'} (`designctl plugin-path` prints it), and run the plugin again."
    )
