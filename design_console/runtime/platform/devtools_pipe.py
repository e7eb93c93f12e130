"""A Chromium-family browser started with its DevTools protocol on two pipes instead of a TCP port.

A DevTools port on loopback answers every local process, another user's included, and through it any page can be
opened, ``file:`` URLs too. Over pipes only the process that started the browser holds the other ends. Chromium reads
commands from its descriptor 3 and writes replies and events to its descriptor 4 on POSIX; on Windows it is told the
values of two inherited handles (``--remote-debugging-io-pipes``). Each message is one JSON text ended by a NUL byte.

The pipes are read and written with blocking calls (the caller runs them in threads), the same on every OS and on any
event loop: Windows' default loop cannot watch an anonymous pipe.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from design_console.runtime.platform.procs import kill_tree

#: Chromium's own switch; with it and no --remote-debugging-port there is no TCP endpoint at all.
PIPE_SWITCH = "--remote-debugging-pipe"
#: Where the child finds the pipes on POSIX (fixed by Chromium).
CHILD_READ_FD = 3
CHILD_WRITE_FD = 4
#: Parent-side copies of the child's ends are moved above the standard and the two fixed descriptors first, so that
#: placing them at 3 and 4 never overwrites one with the other.
_SPARE_FD_FLOOR = 10


@dataclass(slots=True)
class PipedBrowser:
    """A started browser: its pid, the stream its commands go to and the one its replies come from."""

    pid: int
    to_browser: BinaryIO
    from_browser: BinaryIO
    _popen: object | None = field(default=None, repr=False)

    def kill(self) -> None:
        """End the browser and every process it started."""
        kill_tree(self.pid)

    def wait(self) -> int | None:
        """Block until the browser has ended and been reaped; its exit status (None when it was not ours to reap)."""
        return _wait(self)

    def close(self) -> None:
        """Close this side's ends of both pipes."""
        for stream in (self.to_browser, self.from_browser):
            try:
                stream.close()
            except OSError:
                continue


if sys.platform == "win32":
    import msvcrt
    import subprocess

    _NO_WINDOW = subprocess.CREATE_NO_WINDOW | subprocess.CREATE_NEW_PROCESS_GROUP

    def start_piped(argv: Sequence[str], stderr_path: str) -> PipedBrowser:
        """Start ``argv`` (a browser and its flags) with its DevTools protocol on two new pipes; its stderr goes to
        ``stderr_path``. Only the two pipe handles and the standard ones are inherited."""
        child_read, parent_write = os.pipe()
        parent_read, child_write = os.pipe()
        handles = [msvcrt.get_osfhandle(child_read), msvcrt.get_osfhandle(child_write)]
        for handle in handles:
            os.set_handle_inheritable(handle, True)
        info = subprocess.STARTUPINFO(lpAttributeList={"handle_list": handles})
        try:
            with open(stderr_path, "ab") as log:
                proc = subprocess.Popen(
                    [*argv, PIPE_SWITCH, f"--remote-debugging-io-pipes={handles[0]},{handles[1]}"],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, creationflags=_NO_WINDOW,
                    close_fds=True, startupinfo=info,
                )  # fmt: skip
        except BaseException:
            for fd in (parent_read, parent_write):
                os.close(fd)
            raise
        finally:
            os.close(child_read)
            os.close(child_write)
        return PipedBrowser(proc.pid, open(parent_write, "wb", buffering=0), open(parent_read, "rb", buffering=0), proc)

    def _wait(browser: PipedBrowser) -> int | None:
        proc = browser._popen
        assert isinstance(proc, subprocess.Popen)
        return proc.wait()

    def browser_env(base: Mapping[str, str]) -> dict[str, str]:
        """``base`` as a browser's environment (Chromium's singleton lock is no socket file on Windows)."""
        return dict(base)

else:
    import fcntl

    def start_piped(argv: Sequence[str], stderr_path: str) -> PipedBrowser:
        """Start ``argv`` (a browser and its flags) in a process group of its own with its DevTools protocol on two
        new pipes at descriptors 3 and 4; its stderr goes to ``stderr_path``. Every other descriptor of ours is
        close-on-exec, as Python opens them, so the browser inherits nothing else."""
        child_read, parent_write = os.pipe()
        parent_read, child_write = os.pipe()
        spare_read = fcntl.fcntl(child_read, fcntl.F_DUPFD_CLOEXEC, _SPARE_FD_FLOOR)
        spare_write = fcntl.fcntl(child_write, fcntl.F_DUPFD_CLOEXEC, _SPARE_FD_FLOOR)
        stderr_fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            pid = os.posix_spawn(
                argv[0],
                [*argv, PIPE_SWITCH],
                browser_env(os.environ),
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_DUP2, stderr_fd, 2),
                    (os.POSIX_SPAWN_DUP2, spare_read, CHILD_READ_FD),
                    (os.POSIX_SPAWN_DUP2, spare_write, CHILD_WRITE_FD),
                ],
                setpgroup=0,
            )
        except BaseException:
            for fd in (parent_read, parent_write):
                os.close(fd)
            raise
        finally:
            for fd in (child_read, child_write, spare_read, spare_write, stderr_fd):
                os.close(fd)
        return PipedBrowser(pid, open(parent_write, "wb", buffering=0), open(parent_read, "rb", buffering=0))

    def _wait(browser: PipedBrowser) -> int | None:
        try:
            _, status = os.waitpid(browser.pid, 0)
        except ChildProcessError:
            return None
        return os.waitstatus_to_exitcode(status)

    #: Chromium keeps its singleton socket at $TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket, and a socket's
    #: path holds at most 103 bytes on macOS (107 on Linux): under a longer TMPDIR it refuses to start at all.
    _TMPDIR_ROOM = 103 - len("/org.chromium.Chromium.XXXXXX/SingletonSocket")

    def browser_env(base: Mapping[str, str]) -> dict[str, str]:
        """``base`` as a browser's environment, with a TMPDIR short enough for Chromium's singleton socket."""
        env = dict(base)
        if len(env.get("TMPDIR") or tempfile.gettempdir()) > _TMPDIR_ROOM:
            env["TMPDIR"] = "/tmp"
        return env
