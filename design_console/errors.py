"""The one error type of the project, its enumerated codes, and the prefix every user-facing error carries."""

from __future__ import annotations

from enum import StrEnum

PREFIX = "[design-console-mcp] "


class ErrorCode(StrEnum):
    """Every machine-readable error code, in DesignError and in protocol Error frames.

    A member is a ``str`` equal to its value, so ``err.code == "not_found"`` holds and frames carry the plain text.
    """

    # Arguments and settings
    BAD_ARGUMENT = "bad_argument"
    BAD_CONFIG = "bad_config"
    AMBIGUOUS = "ambiguous"
    NO_FILE = "no_file"
    # The plugin and the bridge
    NOT_CONNECTED = "not_connected"
    UNKNOWN_FILE = "unknown_file"
    DISCONNECTED = "disconnected"
    TIMEOUT = "timeout"
    PLUGIN_ERROR = "plugin_error"
    BAD_REPLY = "bad_reply"
    RECONNECT_FAILED = "reconnect_failed"
    PORTS_BUSY = "ports_busy"
    BIND_FAILED = "bind_failed"
    PLUGIN_MISSING = "plugin_missing"
    #: A whiteboard or slides tool called while the target file is of another editor.
    WRONG_EDITOR = "wrong_editor"
    # The design API
    NO_TOKEN = "no_token"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    RATE_LIMITED = "rate_limited"
    UPSTREAM_ERROR = "upstream_error"
    BAD_RESPONSE = "bad_response"
    UNAVAILABLE = "unavailable"
    # Images
    BAD_IMAGE = "bad_image"
    MEDIA_DIR_UNSAFE = "media_dir_unsafe"
    FETCH_FAILED = "fetch_failed"
    # Remote Mode's headless browser
    BROWSER_UNAVAILABLE = "browser_unavailable"
    URL_NOT_ALLOWED = "url_not_allowed"
    PAGE_FAILED = "page_failed"
    # Files on the user's machine
    PATH_NOT_ALLOWED = "path_not_allowed"
    PERMISSION_DENIED = "permission_denied"
    FILE_EXISTS = "file_exists"
    TOO_LARGE = "too_large"
    # Our processes and the control socket
    UNKNOWN_TOOL = "unknown_tool"
    UNKNOWN_COMMAND = "unknown_command"
    BAD_REQUEST = "bad_request"
    NO_HELLO = "no_hello"
    VERSION_MISMATCH = "version_mismatch"
    DAEMON_UNAVAILABLE = "daemon_unavailable"
    WORKER_UNAVAILABLE = "worker_unavailable"
    WORKER_CRASHED = "worker_crashed"
    UNSAFE_RUNTIME_DIR = "unsafe_runtime_dir"
    SERVICE_FILES_MISSING = "service_files_missing"
    INTERNAL = "internal"

    @classmethod
    def of(cls, text: str) -> ErrorCode:
        """The code another process sent in an Error frame; one this version does not know is ``internal``."""
        try:
            return cls(text)
        except ValueError:
            return cls.INTERNAL


class DesignError(Exception):
    """An error a user or a model can act on.

    ``code`` says what kind of failure it is; ``message`` says what went wrong and ``hint`` what to do next.
    """

    def __init__(self, code: ErrorCode, message: str, hint: str = "") -> None:
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
