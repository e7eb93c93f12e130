"""systemd readiness notification (``Type=notify``) without a dependency on libsystemd."""

from __future__ import annotations

import os

from design_console.config import NOTIFY_SOCKET_VAR
from design_console.runtime.platform.system import notify_datagram


def notify(state: str) -> bool:
    """Send ``state`` (e.g. ``READY=1``) to ``$NOTIFY_SOCKET``; False when it is unset or cannot be reached."""
    address = os.environ.get(NOTIFY_SOCKET_VAR)
    if not address:
        return False
    return notify_datagram(address, state.encode())
