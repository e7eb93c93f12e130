"""The setup instructions a tool returns when no Desktop Bridge plugin is connected."""

from __future__ import annotations

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
