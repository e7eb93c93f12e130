"""Logging for designd and its workers: stderr plus a rotated file, with secrets redacted from every record."""

from __future__ import annotations

import asyncio
import errno
import logging
import logging.handlers
import sys
import time
from pathlib import Path
from typing import Any

from design_console.config import Config

TRACE = 5
logging.addLevelName(TRACE, "TRACE")

LEVELS = {
    "trace": TRACE,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "fatal": logging.CRITICAL,
}
LOG_FILE_BYTES = 5 * 1024 * 1024
LOG_FILE_COUNT = 3
#: Errors that mean the process ran out of descriptors or memory: they repeat until the pressure eases.
RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


class RedactingFormatter(logging.Formatter):
    """Replaces every known secret with ``***`` in the final text of a record, tracebacks included."""

    def __init__(self, fmt: str, secrets: list[str]) -> None:
        super().__init__(fmt)
        self.secrets = [s for s in secrets if len(s) >= 8]

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text


def setup_logging(
    config: Config, name: str, secrets: list[str], *, to_file: bool = True, to_stderr: bool = True
) -> Path | None:
    """Configure the root logger for process ``name``; returns the log file path when one is written."""
    root = logging.getLogger()
    root.handlers.clear()
    root.setLevel(LEVELS[config.log_level])
    fmt = RedactingFormatter(
        f"%(asctime)s {name}[%(process)d] %(levelname)s %(name)s: %(message)s",
        [config.access_token, config.oauth_client_secret, *secrets],
    )
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)] if to_stderr else []
    path = None
    if to_file:
        config.log_dir.mkdir(mode=0o700, exist_ok=True)
        path = config.log_dir / "designd.log"
        handlers.append(logging.handlers.RotatingFileHandler(path, maxBytes=LOG_FILE_BYTES, backupCount=LOG_FILE_COUNT))
    for handler in handlers:
        handler.setFormatter(fmt)
        root.addHandler(handler)
    for noisy in ("websockets", "httpx", "httpcore", "mcp"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, LEVELS[config.log_level]))
    return path


class LogThrottle:
    """Logs at most one line a second for one kind of problem, with how many were suppressed in between.

    A hostile or broken peer can send a million bad frames; logging each would cost more than handling them.
    """

    def __init__(self, logger: logging.Logger, interval: float = 1.0) -> None:
        self._logger = logger
        self._interval = interval
        self._last: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}

    def warning(self, kind: str, message: str, *args: object) -> None:
        """Log ``message`` for ``kind`` unless one was logged within the interval."""
        now = time.monotonic()
        if now - self._last.get(kind, -self._interval) < self._interval:
            self._suppressed[kind] = self._suppressed.get(kind, 0) + 1
            return
        self._last[kind] = now
        skipped = self._suppressed.pop(kind, 0)
        if skipped:
            message += " (%d similar suppressed)"
            args = (*args, skipped)
        self._logger.warning(message, *args)


def throttle_loop_errors(loop: asyncio.AbstractEventLoop, throttle: LogThrottle) -> None:
    """Log the event loop's repeated resource errors at most once a second, with how many were suppressed.

    Out of descriptors (EMFILE), asyncio's accept loop reports the same error for every connection waiting in the
    backlog and again at each retry: thousands of identical lines a second while slow clients hold their sockets.
    Every other error goes to the handler that was there before (asyncio's default one when none was set).
    """
    previous = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in RESOURCE_ERRNOS:
            throttle.warning(f"loop:{exc.errno}", "%s: %s", context.get("message", "event loop error"), exc)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handle)
