"""Running one tool call, the same way in every host (designd, its workers, Remote Mode).

A host asks :func:`run_call` to run a tool by name with the raw JSON arguments it received, and gives the part that
is its own: a runner that sends the checked arguments to the process the tool runs in, with the context the handler
gets there. This module looks the tool up, checks the arguments, and turns every failure into the error result the
model reads, with one text per situation: an unknown tool, bad arguments (:func:`parse_args`), an internal error (a
handler that raised something other than DesignError: a bug, logged with its traceback where it happened), and a
call that got no answer in time. Nothing else in the package writes these texts.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec

from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.base import A, Args, ToolSpec, failure

log = logging.getLogger("design_console.calls")

#: The host's part of a call: run ``spec`` with its checked arguments where it lives, and return its output. It may
#: raise DesignError (an answer for the model) or anything else (a bug); :func:`run_call` turns both into results.
Runner = Callable[[ToolSpec, Args], Awaitable[ToolOutput]]


def unknown_tool(name: str) -> DesignError:
    """The error of a call to a tool this host does not have."""
    return DesignError(ErrorCode.UNKNOWN_TOOL, f"There is no tool named {name!r}.", "tools/list names every tool.")


def internal_error(name: str) -> DesignError:
    """The error of a tool that failed in a way it does not expect (a bug): the caller is told, the host lives on."""
    return DesignError(
        ErrorCode.INTERNAL,
        f"Internal error in {name}: the tool failed unexpectedly.",
        "Call it again; if it fails again, the server's log has the details to report.",
    )


def call_timeout(name: str, seconds: float) -> DesignError:
    """The error of a call that got no answer within ``seconds``."""
    return DesignError(
        ErrorCode.TIMEOUT,
        f"{name} got no answer within {seconds:.0f} s.",
        "The server's log says what it was doing (`designctl logs` on this machine).",
    )


def parse_args(spec: ToolSpec, arguments: dict[str, Any] | None) -> Args:
    """Validate raw JSON arguments against the tool's struct; a bad one raises DesignError naming field and rule."""
    return convert_args(spec.name, spec.args, arguments)


def convert_args(name: str, kind: type[A], arguments: dict[str, Any] | None) -> A:
    """:func:`parse_args` for arguments of the struct ``kind`` of the tool ``name`` (a tool with no ToolSpec)."""
    try:
        return msgspec.convert(arguments or {}, kind, strict=False)
    except msgspec.ValidationError as exc:
        # A normaliser's error already names its field; the path of the whole struct adds nothing.
        reason = str(exc).removesuffix(" - at `$`").rstrip(".")
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"Invalid arguments for {name}: {reason}.",
            "Fix the argument and call again; the tool's input schema lists every field.",
        ) from None


async def run_call(
    tools: Mapping[str, ToolSpec], name: str, arguments: dict[str, Any] | None, runner: Runner
) -> ToolOutput:
    """Look ``name`` up in ``tools``, check ``arguments`` and run it with ``runner``; every failure becomes an error
    result, never an exception (a cancelled call still raises CancelledError, which is not a failure)."""
    spec = tools.get(name)
    if spec is None:
        return failure(unknown_tool(name))
    try:
        return await runner(spec, parse_args(spec, arguments))
    except DesignError as err:
        return failure(err)
    except Exception:
        log.exception("tool %s failed", name)
        return failure(internal_error(name))
