"""The one error type of the project and the prefix every user-facing error carries."""

from __future__ import annotations

PREFIX = "[design-console-mcp] "


class DesignError(Exception):
    """An error a user or a model can act on.

    ``code`` is a short machine-readable name (``not_connected``, ``timeout``, ``bad_argument`` …);
    ``message`` says what went wrong and ``hint`` what to do next.
    """

    def __init__(self, code: str, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return format_error(self.message, self.hint)


def format_error(message: str, hint: str = "") -> str:
    """Render an error text: the prefix, the message, and the next step when there is one."""
    text = message if message.startswith(PREFIX) else PREFIX + message
    if hint:
        text = f"{text.rstrip()} {hint.strip()}"
    return text
