"""Per-process facts of the OS: the service manager's readiness socket, the open-file limit, the parent process,
how programs and command lines are written."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

#: The longest Unix-domain socket path in bytes, without its terminating NUL (sun_path is 104 bytes on macOS and the
#: BSDs, 108 on Linux).
MAX_SOCKET_PATH = 103 if sys.platform == "darwin" else 107
#: Whether console scripts are ``.exe`` files and command lines follow the Windows quoting rules.
WINDOWS = sys.platform == "win32"

#: getrlimit(2) on macOS: a soft limit above OPEN_MAX (and kern.maxfilesperproc) is refused with EINVAL.
MACOS_OPEN_MAX = 10240
#: What to ask for when the hard limit is unlimited and the OS takes any number.
UNLIMITED_WANTED = 65536


def parent_pid() -> int:
    """The pid of this process's parent as it started (on Windows a parent that exits keeps its number, so pair it
    with the process's start time before trusting it later)."""
    return os.getppid()


def command_line(words: Sequence[str], windows: bool = WINDOWS) -> str:
    """``words`` as one line for this OS's shell (cmd/PowerShell quoting on Windows, POSIX quoting elsewhere)."""
    # Imported here: the shim loads this module on its way to its first answer, and never quotes a command line.
    import shlex
    import subprocess

    return subprocess.list2cmdline(words) if windows else shlex.join(words)


if sys.platform == "win32":

    def design_app_locations(user_home: Path) -> tuple[Path, ...]:
        """Where the design tool's desktop app, which runs the plugin, installs itself (per user, no admin)."""
        local = os.environ.get("LOCALAPPDATA")
        folder = Path(local) if local else user_home / "AppData" / "Local"
        return (folder / "Figma" / "Figma.exe",)

    def notify_datagram(address: str, data: bytes) -> bool:
        """systemd's readiness socket does not exist on Windows."""
        return False

    def open_file_limits() -> tuple[int, int] | None:
        """Windows has no per-process descriptor limit of this kind."""
        return None

    def raise_open_file_limit() -> tuple[int, int] | None:
        """Nothing to raise on Windows."""
        return None

else:
    import resource

    def design_app_locations(user_home: Path) -> tuple[Path, ...]:
        """Where the design tool's desktop app, which runs the plugin, lives on macOS; none on Linux, where it has
        no desktop app."""
        if sys.platform == "darwin":
            return (Path("/Applications/Figma.app"), user_home / "Applications" / "Figma.app")
        return ()

    def notify_datagram(address: str, data: bytes) -> bool:
        """Send ``data`` to the AF_UNIX datagram socket ``address`` (``@name``: the abstract namespace); False
        when it cannot be reached: as sd_notify(3), an undelivered notification is not the sender's failure."""
        import socket  # here: the shim loads this module on its way to its first answer, and never notifies

        if address.startswith("@"):
            address = "\0" + address[1:]
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(address)
                sock.sendall(data)
        except OSError:
            return False
        return True

    def open_file_limits() -> tuple[int, int] | None:
        """(soft, hard) limit on open files; -1 for unlimited."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        return (-1 if soft == resource.RLIM_INFINITY else soft, -1 if hard == resource.RLIM_INFINITY else hard)

    def raise_open_file_limit() -> tuple[int, int] | None:
        """Lift the soft limit on open files as far as the OS lets: apps started from a desktop get 256 on macOS,
        which a burst of sockets exhausts. Tries the hard limit (65536 when unlimited), then macOS's
        ``min(OPEN_MAX, hard)``. Returns (old, new), None when nothing changed; raises OSError/ValueError when no
        value was taken."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        unlimited = hard == resource.RLIM_INFINITY
        wanted = [max(soft, UNLIMITED_WANTED) if unlimited else hard]
        wanted.append(MACOS_OPEN_MAX if unlimited else min(MACOS_OPEN_MAX, hard))
        if soft == resource.RLIM_INFINITY or soft >= wanted[0]:
            return None
        failure: Exception | None = None
        for value in wanted:
            if value <= soft:
                continue
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (value, hard))
            except (ValueError, OSError) as exc:
                failure = exc
                continue
            return soft, value
        if failure is not None:
            raise failure
        return None
