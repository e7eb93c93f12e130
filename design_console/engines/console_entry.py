"""The console log entry of spec 2.1, one shape for designd's plugin console and Remote Mode's headless browser."""

from __future__ import annotations

import msgspec

#: A console message longer than this is cut (a flood of huge messages costs memory only up to the ring's cap).
MAX_MESSAGE_CHARS = 10_000


class ConsoleEntry(msgspec.Struct, kw_only=True):
    """One captured console call (spec 2.1), as a read of one file's (or one browser page's) console shows it.

    ``source`` is ``design`` for the plugin's console and ``browser`` for a Remote Mode page's.
    """

    timestamp: int
    level: str
    message: str
    source: str = "design"


def cap_message(message: str) -> str:
    """Cut a console message to MAX_MESSAGE_CHARS, saying how much was cut."""
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    cut = len(message) - MAX_MESSAGE_CHARS
    return f"{message[:MAX_MESSAGE_CHARS]}… [truncated {cut} characters]"
