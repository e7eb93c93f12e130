"""Running one tool call, the same way in every host (designd, its workers, Remote Mode).

A host asks :func:`run_call` to run a tool by name with the raw JSON arguments it received, and gives the part that
is its own: a runner that sends the checked arguments to the process the tool runs in, with the context the handler
gets there. This module looks the tool up, checks the arguments, and turns every failure into the error result the
model reads, with one text per situation: an unknown tool, bad arguments (:func:`parse_args`), an internal error (a
handler that raised something other than DesignError: a bug, logged with its traceback where it happened), and a
call that got no answer in time. Nothing else in the package writes these texts.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec
import msgspec.inspect as mi

from design_console.errors import DesignError, ErrorCode
from design_console.protocol import ToolOutput
from design_console.tools.base import Args, ToolSpec, failure

log = logging.getLogger("design_console.calls")

#: msgspec's refusal of a value outside an enum or Literal, and of a field its object does not have; ``path`` is
#: absent for the top level.
_BAD_VALUE = re.compile(r"Invalid enum value .+?(?: - at `(?P<path>[^`]*)`)?")
_UNKNOWN_FIELD = re.compile(r"Object contains unknown field `[^`]*`(?: - at `(?P<path>[^`]*)`)?")
#: One step of such a path: ``.field``, ``[3]`` or ``[...]`` (a dict's value).
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
#: The most values or fields an error spells out; the tool's input schema has every one.
MAX_LISTED = 40

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
    try:
        return msgspec.convert(arguments or {}, spec.args, strict=False)
    except msgspec.ValidationError as exc:
        # A normaliser's error already names its field; the path of the whole struct adds nothing.
        reason = str(exc).removesuffix(" - at `$`").rstrip(".")
        choices = _choices(spec.args, str(exc))
        raise DesignError(
            ErrorCode.BAD_ARGUMENT,
            f"Invalid arguments for {spec.name}: {reason}{'; ' + choices if choices else ''}.",
            "Fix the argument and call again; the tool's input schema lists every field.",
        ) from None


def _choices(kind: type[Any], message: str) -> str:
    """What msgspec's refusal leaves out and the caller needs to fix the call: the values that a refused enum value's
    field allows, or the fields of the object that a refused unknown field was found in. "" when neither applies."""
    if found := _BAD_VALUE.fullmatch(message):
        allowed = [value for t in _types_at(kind, found["path"]) for value in _values(t)]
        return f"allowed: {_listing([json.dumps(value) for value in allowed])}" if allowed else ""
    if found := _UNKNOWN_FIELD.fullmatch(message):
        fields = [f"`{f.encode_name}`" for t in _types_at(kind, found["path"]) for f in getattr(t, "fields", ())]
        return f"known fields: {_listing(fields)}" if fields else ""
    return ""


def _types_at(kind: type[Any], path: str | None) -> list[mi.Type]:
    """The types a value at ``path`` (msgspec's ``$.field[0].other``) of ``kind`` may have: each member of a union."""
    found = _members(mi.type_info(kind))
    for field, index in _STEP.findall((path or "$").removeprefix("$")):
        inner: list[mi.Type] = []
        for t in found:
            if field:
                inner += [m for f in getattr(t, "fields", ()) if f.encode_name == field for m in _members(f.type)]
            elif isinstance(t, (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)):
                inner += _members(t.item_type)
            elif isinstance(t, mi.TupleType) and index.isdigit() and int(index) < len(t.item_types):
                inner += _members(t.item_types[int(index)])
            elif isinstance(t, mi.DictType):
                inner += _members(t.value_type)
        found = inner
    return found


def _members(t: mi.Type) -> list[mi.Type]:
    """``t`` without its constraints, as the list of a union's members."""
    if isinstance(t, mi.Metadata):
        return _members(t.type)
    if isinstance(t, mi.UnionType):
        return [member for each in t.types for member in _members(each)]
    return [t]


def _values(t: mi.Type) -> list[Any]:
    """The values an enum or Literal type allows; [] for any other type."""
    if isinstance(t, mi.LiteralType):
        return list(t.values)
    if isinstance(t, mi.EnumType):
        return [member.value for member in t.cls]
    return []


def _listing(items: list[str]) -> str:
    if len(items) <= MAX_LISTED:
        return ", ".join(items)
    return ", ".join(items[:MAX_LISTED]) + f" and {len(items) - MAX_LISTED} more"


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
