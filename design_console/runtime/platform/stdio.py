"""Watching the stdin a client hands us (a pipe, or a socket pair from libuv-based apps) without a reader thread.

On POSIX ``poll`` takes any descriptor, so the shim polls stdin beside its ZeroMQ sockets and reads it directly.
Windows' ``select`` takes sockets only, so there a thread must read stdin and hand it over through a socket.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":

    def stdin_pollable(fd: int) -> bool:
        """Whether ``fd`` can be polled beside sockets: never here, where select takes sockets only."""
        return False

    def readable(fd: int) -> bool:
        """Whether a read of ``fd`` would not block (unused here: stdin is read by a thread)."""
        return False

    def hung_up(fd: int) -> bool:
        """Whether the writer of ``fd`` is gone (unused here: the reading thread sees the end)."""
        return False

else:
    import os
    import select
    import stat

    def stdin_pollable(fd: int) -> bool:
        """Whether ``fd`` can be polled beside sockets: a pipe or a socket, which is what AI apps hand us.

        Files and devices go to the reader thread: a file is always "readable", and macOS's poll refuses terminals.
        """
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            return False
        return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)

    def readable(fd: int) -> bool:
        """Whether a read of ``fd`` returns at once (data, or the end of the stream)."""
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))

    def hung_up(fd: int) -> bool:
        """Whether every writer of ``fd`` is gone, without reading it (data may still wait to be read).

        POLLHUP is asked for explicitly: Linux reports it unasked, macOS only for a descriptor watched for input
        or hang-up.
        """
        poller = select.poll()
        poller.register(fd, select.POLLHUP)
        return any(events & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, events in poller.poll(0))
