"""systemd readiness notification (``Type=notify``) without a dependency on libsystemd."""

from __future__ import annotations

import os
import socket

from design_console.config import NOTIFY_SOCKET_VAR


def notify(state: str) -> bool:
    """Send ``state`` (e.g. ``READY=1``) to ``$NOTIFY_SOCKET``; False when it is unset or cannot be reached."""
    address = os.environ.get(NOTIFY_SOCKET_VAR)
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError:
        # As sd_notify(3): a notification that cannot be delivered is not the daemon's failure.
        return False
    return True
