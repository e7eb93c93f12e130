"""``--help`` and ``--version`` for the entry points that take no other options: they print and exit before the
process reads its settings or starts anything (the stdio server would otherwise start designd and wait on stdin),
and the stdio server refuses any other argument the same way, before it starts anything."""

from __future__ import annotations

from design_console import __version__

#: What ``design-console-mcp`` and ``python -m design_console`` are, for their ``--help``.
STDIO_SERVER = (
    "The design-console-mcp stdio server: an AI app starts it and speaks MCP on its stdin and stdout; it starts "
    "designd, the per-user daemon, when none is running. `designctl config <app>` prints the config to paste into "
    "Claude Desktop, Claude Code, Cursor or VS Code."
)
#: What ``design-console-remote`` is, for its ``--help``.
REMOTE_SERVER = (
    "design-console-mcp's Remote Mode: the tool catalog over MCP Streamable HTTP (/mcp) and SSE (/sse) with OAuth. "
    "Settings are environment variables: DESIGN_REMOTE_BASE_URL (required), DESIGN_REMOTE_HOST, DESIGN_REMOTE_PORT, "
    "DESIGN_REMOTE_STORE, DESIGN_OAUTH_CLIENT_ID, DESIGN_OAUTH_CLIENT_SECRET, DESIGN_TOKEN_KEYS; the README's "
    '"Remote Mode" section describes each.'
)


def answer_help_or_version(prog: str, description: str, argv: list[str], *, only: bool = False) -> None:
    """Print the usage (``-h``, ``--help``) or the version (``--version``) and exit when ``argv`` asks for either.

    ``only``: these are the only arguments the program takes, so any other one is refused with the usage on stderr
    and exit code 2 (the stdio server: a mistyped option must not pass unnoticed while it runs as if none was given).
    Without it, other arguments are left alone.
    """
    if not (argv if only else any(arg in ("-h", "--help", "--version") for arg in argv)):
        return
    # Imported only when there are arguments: the stdio server's start-up time is spent on every chat.
    import argparse

    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--version", action="version", version=f"{prog} {__version__}")
    if only:
        parser.parse_args(argv)
    else:
        parser.parse_known_args(argv)
