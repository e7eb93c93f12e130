"""The building blocks of the tool catalog: argument structs, the tool record, its declaration, outputs.

A tool module declares each tool once with :func:`tool`, or with the preset of its kind (:func:`api_read`,
:func:`plugin_read`, :func:`api_write`, :func:`bridge_read`, :func:`bridge_write`, :func:`media_read`,
:func:`tokens_tool`; :func:`bridge_tool` and :func:`write_tool` for plain forwards to one plugin method, which send
the method named like the tool), so that the declaration says only what is particular to the tool. The daemon and
the workers import the same catalog; ``runs_in`` says which process runs the handler, and
:mod:`design_console.tools.context` says how to choose it and what the handler gets there. Handlers never import the
``mcp`` SDK.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import (
    Annotated,
    Any,
    Literal,
    TypedDict,
    TypeVar,
    Union,
    Unpack,
    get_args,
    get_origin,
    get_type_hints,
    overload,
)

import msgspec

# The result budget and JSON text belong to the shaping engine; tool modules take them with the declaration kit.
from design_console.engines.shaping import CHARS_PER_TOKEN as CHARS_PER_TOKEN
from design_console.engines.shaping import DEFAULT_RESULT_TOKENS as DEFAULT_RESULT_TOKENS
from design_console.engines.shaping import MAX_RESULT_TOKENS as MAX_RESULT_TOKENS
from design_console.engines.shaping import to_json as to_json
from design_console.errors import DesignError
from design_console.plugin_contract import Method
from design_console.protocol import ImageBlock, TextBlock, ToolOutput
from design_console.tools.context import ApiContext, Context, DaemonContext, MediaContext, TokensContext

RunsIn = Literal["daemon", "api", "media", "tokens"]
#: What a tool needs to work: the design API (a platform token), the Desktop Bridge plugin, a headless browser, files
#: on the user's machine, or designd's own state (what it keeps of the plugin's events, its table of files).
Need = Literal["api", "bridge", "browser", "disk", "daemon"]
#: ``also_needs`` of a plugin tool that also reads what designd keeps (its files, the plugin's events).
DAEMON_STATE: frozenset[Need] = frozenset({"daemon"})

#: Key of ``msgspec.Meta(extra=...)`` naming the function that checks and normalises a string argument of that type
#: when arguments are parsed (``str -> str``; it raises ValueError saying what is wrong). See tools/args.py.
NORMALIZE = "normalize"

Normalizer = Callable[[str], str]


class Args(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Base of every tool's argument struct: unknown fields are refused so that typos surface, and arguments of a
    normalised type (file URLs, node ids, colours) are checked and normalised as they are parsed."""

    def __post_init__(self) -> None:
        for name, normalize, depth in _normalized_fields(type(self)):
            value = getattr(self, name)
            if not value:
                continue
            try:
                setattr(self, name, _apply(normalize, value, depth))
            except ValueError as exc:
                raise ValueError(f"`{name}`: {exc}") from None


def _apply(normalize: Normalizer, value: Any, depth: int) -> Any:
    """``value`` normalised, or each item of it, ``depth`` lists deep."""
    return [_apply(normalize, item, depth - 1) for item in value] if depth else normalize(value)


_NORMALIZED: dict[type[Args], list[tuple[str, Normalizer, int]]] = {}


def _normalized_fields(cls: type[Args]) -> list[tuple[str, Normalizer, int]]:
    """The fields of ``cls`` whose type names a normaliser: (name, normaliser, how many lists deep the values are)."""
    found = _NORMALIZED.get(cls)
    if found is None:
        found = []
        for name, hint in get_type_hints(cls, include_extras=True).items():
            normalizer = _normalizer_of(hint)
            if normalizer is not None:
                found.append((name, *normalizer))
        _NORMALIZED[cls] = found
    return found


def _normalizer_of(hint: Any) -> tuple[Normalizer, int] | None:
    origin = get_origin(hint)
    if origin is Annotated:
        for meta in hint.__metadata__:
            if isinstance(meta, msgspec.Meta) and meta.extra and NORMALIZE in meta.extra:
                return meta.extra[NORMALIZE], 0
        return _normalizer_of(get_args(hint)[0])
    if origin in (Union, types.UnionType):
        for option in get_args(hint):
            if (found := _normalizer_of(option)) is not None:
                return found
    if origin is list and (found := _normalizer_of(get_args(hint)[0])) is not None:
        return found[0], found[1] + 1
    return None


#: Arguments of a tool that takes none. No docstring: it would be listed as the description of each such schema.
class NoArgs(Args):
    pass


A = TypeVar("A", bound=Args)
DaemonHandler = Callable[[DaemonContext, A], Awaitable[ToolOutput]]
ApiHandler = Callable[[ApiContext, A], Awaitable[ToolOutput]]
MediaHandler = Callable[[MediaContext, A], Awaitable[ToolOutput]]
TokensHandler = Callable[[TokensContext, A], Awaitable[ToolOutput]]
#: A handler as the catalog keeps it: :func:`tool` has already checked it against the context of its ``runs_in``.
Handler = Callable[[Any, Any], Awaitable[ToolOutput]]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool of the catalog."""

    name: str
    description: str
    args: type[Args]
    handler: Handler
    runs_in: RunsIn = "daemon"
    toolset: str = "core"
    read_only: bool = True
    destructive: bool = False
    #: Listed only for a tool that changes something: MCP reads ``idempotentHint`` only where ``readOnlyHint`` is
    #: false, so a read's declaration leaves it to its preset.
    idempotent: bool = False
    open_world: bool = False
    needs_bridge: bool = False
    #: Reads or writes files on the user's machine: the call then carries the AI app's working dir and MCP roots.
    uses_files: bool = False
    #: The arguments through which a ``uses_files`` tool reaches the user's files, when it also works without them
    #: (its data given inline, its result returned): it then needs the disk only for a call that sets one of them.
    file_args: tuple[str, ...] = ()
    #: The editors (the plugin's ``figma.editorType``: ``figma``, ``figjam``, ``slides``) whose files the tool works
    #: on; empty: any. designd refuses the call before sending anything when the target file is of another editor.
    needs_editor: tuple[str, ...] = ()
    title: str = ""
    #: The tool's ``_meta`` as listed (MCP Apps link a tool to its ``ui://`` view there); empty: none.
    extra: dict[str, Any] = field(default_factory=dict)
    #: What the tool needs beyond what ``runs_in``, ``needs_bridge`` and ``uses_files`` say (see :attr:`needs`): set
    #: only where that derivation falls short, e.g. a plugin tool that also reads designd's state.
    also_needs: frozenset[Need] = frozenset()

    @property
    def needs(self) -> frozenset[Need]:
        """Everything the tool needs to work, declared once here: a mode lists the tool only where all of it is
        there. A tool run by designd without the plugin reads designd's state; one run by a worker without the
        plugin calls the design API."""
        found: set[Need] = set(self.also_needs)
        if self.needs_bridge:
            found.add("bridge")
        elif self.runs_in == "daemon":
            found.add("daemon")
        elif self.runs_in in ("api", "media"):
            found.add("api")
        if self.uses_files and not self.file_args:
            found.add("disk")
        return frozenset(found)


REGISTRY: dict[str, ToolSpec] = {}


class ToolOptions(TypedDict, total=False):
    """How a tool is listed and treated, beyond its name, description, arguments and process (see :class:`ToolSpec`)."""

    toolset: str
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool
    needs_bridge: bool
    uses_files: bool
    file_args: tuple[str, ...]
    needs_editor: tuple[str, ...]
    extra: dict[str, Any]
    also_needs: frozenset[Need]


@overload
def tool(
    name: str, description: str, *, runs_in: Literal["daemon"] = "daemon", **options: Unpack[ToolOptions]
) -> Callable[[DaemonHandler[A]], DaemonHandler[A]]: ...


@overload
def tool(
    name: str, description: str, *, runs_in: Literal["api"], **options: Unpack[ToolOptions]
) -> Callable[[ApiHandler[A]], ApiHandler[A]]: ...


@overload
def tool(
    name: str, description: str, *, runs_in: Literal["media"], **options: Unpack[ToolOptions]
) -> Callable[[MediaHandler[A]], MediaHandler[A]]: ...


@overload
def tool(
    name: str, description: str, *, runs_in: Literal["tokens"], **options: Unpack[ToolOptions]
) -> Callable[[TokensHandler[A]], TokensHandler[A]]: ...


def tool(
    name: str, description: str, *, runs_in: RunsIn = "daemon", **options: Unpack[ToolOptions]
) -> Callable[[Handler], Handler]:
    """Declare a tool; the decorated coroutine is its handler ``(ctx, args) -> ToolOutput``, typed with the context
    of the process ``runs_in`` names (see :mod:`design_console.tools.context` for the rule) and with the tool's
    argument struct, which the catalog takes from that annotation."""

    def register(handler: Handler) -> Handler:
        args = args_of(handler)
        _register(ToolSpec(name=name, description=description, args=args, handler=handler, runs_in=runs_in, **options))
        return handler

    return register


def args_of(handler: Callable[..., Any]) -> type[Args]:
    """The argument struct ``handler`` takes: the annotation of its second parameter, ``(ctx, args)``. Only that
    one annotation is resolved, so the context's may name a type imported for the type checker alone. Raises
    TypeError, at declaration, when it is not an :class:`Args` struct."""
    code = handler.__code__
    name = code.co_varnames[1] if code.co_argcount >= 2 else ""
    hint = handler.__annotations__.get(name)
    if isinstance(hint, str):
        # What ``from __future__ import annotations`` leaves: a name, or a dotted one, in the handler's module.
        head, *rest = hint.split(".")
        hint = functools.reduce(lambda found, part: getattr(found, part, None), rest, handler.__globals__.get(head))
    if not (isinstance(hint, type) and issubclass(hint, Args)):
        raise TypeError(f"{handler.__qualname__}: annotate its arguments, `{name or 'args'}`, with an Args struct")
    return hint


def _register(spec: ToolSpec) -> None:
    if spec.name in REGISTRY:
        raise RuntimeError(f"tool {spec.name} declared twice")
    REGISTRY[spec.name] = spec


def _preset(options: ToolOptions, **defaults: Unpack[ToolOptions]) -> ToolOptions:
    """A preset's ``defaults`` with what the declaration says over them."""
    return {**defaults, **options}


def api_read(name: str, description: str, **options: Unpack[ToolOptions]) -> Callable[[ApiHandler[A]], ApiHandler[A]]:
    """Declare a read the api worker answers from the design API: read-only, idempotent, open world, toolset
    ``read``; ``options`` say where a tool differs."""
    preset = _preset(options, toolset="read", read_only=True, idempotent=True, open_world=True)
    return tool(name, description, runs_in="api", **preset)


def plugin_read(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[ApiHandler[A]], ApiHandler[A]]:
    """Declare a read the api worker answers through the plugin (the file's manifest, its variables): read-only,
    idempotent, needs the bridge, toolset ``read``."""
    preset = _preset(options, toolset="read", read_only=True, idempotent=True, needs_bridge=True)
    return tool(name, description, runs_in="api", **preset)


def code_read(name: str, description: str, **options: Unpack[ToolOptions]) -> Callable[[ApiHandler[A]], ApiHandler[A]]:
    """Declare a design-to-code read: a :func:`plugin_read` in toolset ``code``."""
    return plugin_read(name, description, **_preset(options, toolset="code"))


def plugin_write(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[ApiHandler[A]], ApiHandler[A]]:
    """Declare a change the api worker makes through the plugin in one script: not read-only, needs the bridge,
    toolset ``write``."""
    preset = _preset(options, toolset="write", read_only=False, needs_bridge=True)
    return tool(name, description, runs_in="api", **preset)


def api_write(name: str, description: str, **options: Unpack[ToolOptions]) -> Callable[[ApiHandler[A]], ApiHandler[A]]:
    """Declare a change the api worker makes through the design API: open world, toolset ``write``."""
    preset = _preset(options, toolset="write", read_only=False, open_world=True)
    return tool(name, description, runs_in="api", **preset)


def bridge_read(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[DaemonHandler[A]], DaemonHandler[A]]:
    """Declare a designd read of what the connected plugins pushed or answer: read-only, needs the bridge."""
    return tool(name, description, **_preset(options, read_only=True, needs_bridge=True))


def bridge_write(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[DaemonHandler[A]], DaemonHandler[A]]:
    """Declare a designd tool that sends the plugin more than one command, or a command and a wait: not read-only,
    needs the bridge."""
    return tool(name, description, **_preset(options, read_only=False, needs_bridge=True))


def state_read(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[DaemonHandler[A]], DaemonHandler[A]]:
    """Declare a :func:`bridge_read` that also reads what designd keeps (its files, the plugin's events)."""
    return bridge_read(name, description, **_preset(options, also_needs=DAEMON_STATE))


def state_write(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[DaemonHandler[A]], DaemonHandler[A]]:
    """Declare a :func:`bridge_write` that also reads what designd keeps (its files, the plugin's events)."""
    return bridge_write(name, description, **_preset(options, also_needs=DAEMON_STATE))


def media_read(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[MediaHandler[A]], MediaHandler[A]]:
    """Declare an image read the media worker answers (a render, a screenshot): read-only, toolset ``read``."""
    return tool(name, description, runs_in="media", **_preset(options, toolset="read", read_only=True))


def tokens_tool(
    name: str, description: str, **options: Unpack[ToolOptions]
) -> Callable[[TokensHandler[A]], TokensHandler[A]]:
    """Declare a tool the tokens worker runs over the user's files (token files, a codebase): not read-only, uses
    files, toolset ``code``."""
    preset = _preset(options, toolset="code", read_only=False, uses_files=True)
    return tool(name, description, runs_in="tokens", **preset)


#: The argument of a forwarded tool that picks the connected file; it is not sent to the plugin.
TARGET_FILE_FIELD = "fileKey"
#: What every tool's name starts with; the rest, in capitals, names the plugin method a forward sends by default.
TOOL_PREFIX = "design_"


def method_of(name: str) -> Method:
    """The plugin method named like the tool ``name``; raises ValueError, at declaration, when there is none."""
    wanted = name.removeprefix(TOOL_PREFIX).upper()
    try:
        return Method[wanted]
    except KeyError:
        raise ValueError(f"no plugin method {wanted} for tool {name}: pass method=") from None


def bridge_tool(
    name: str,
    description: str,
    args: type[A],
    *,
    method: str | None = None,
    runs_in: RunsIn = "daemon",
    params: Callable[[A], dict[str, Any]] | None = None,
    rename: Mapping[str, str] | None = None,
    shape: Callable[[Context, A, dict[str, Any]], Any] | None = None,
    **options: Unpack[ToolOptions],
) -> ToolSpec:
    """Declare a tool that forwards its arguments to one plugin method and answers with what the method returns.

    The method is the one named like the tool (``design_rename_node`` sends ``RENAME_NODE``) unless ``method``
    names another. The plugin gets every argument that is set (None means not given), with the names ``rename``
    maps, or what ``params(args)`` builds instead; a ``fileKey`` argument picks the connected file and is not sent.
    The reply goes through ``shape(ctx, args, reply)`` when given (to cut, page or check it). The method's timeout
    comes from the plugin methods table. Use :func:`tool` when a tool does more than one command.
    """

    command = method or method_of(name)

    async def forward(ctx: Context, arguments: A) -> ToolOutput:
        if params is not None:
            payload = params(arguments)
        else:
            fields = msgspec.structs.asdict(arguments)
            payload = {
                (rename or {}).get(key, key): value
                for key, value in fields.items()
                if value is not None and key != TARGET_FILE_FIELD
            }
        target = getattr(arguments, TARGET_FILE_FIELD, None) or ctx.active_file_key or ""
        reply = await ctx.bridge(command, msgspec.to_builtins(payload), file_key=target)
        if shape is not None:
            return ok(shape(ctx, arguments, reply))
        # An error never gets here, so the plugin's success flag says nothing the model needs to pay for.
        return ok({key: value for key, value in reply.items() if key != "success"})

    preset = _preset(options, needs_bridge=True)
    spec = ToolSpec(name=name, description=description, args=args, handler=forward, runs_in=runs_in, **preset)
    _register(spec)
    return spec


def write_tool(
    name: str,
    description: str,
    args: type[A],
    *,
    method: str | None = None,
    params: Callable[[A], dict[str, Any]] | None = None,
    rename: Mapping[str, str] | None = None,
    **options: Unpack[ToolOptions],
) -> ToolSpec:
    """:func:`bridge_tool` for a change to the design (toolset ``write``): one line for most of the write tools."""
    preset = _preset(options, toolset="write", read_only=False)
    return bridge_tool(name, description, args, method=method, params=params, rename=rename, **preset)


def ok(data: Any) -> ToolOutput:
    """A successful result: the data as compact JSON text.

    No ``structuredContent`` copy: no tool declares an output schema, and a second copy of every result would
    double what the model's context pays for it.
    """
    return ToolOutput(content=[TextBlock(to_json(data))])


def text(message: str) -> ToolOutput:
    """A successful plain-text result."""
    return ToolOutput(content=[TextBlock(message)])


def image(data: bytes, mime_type: str, meta: dict[str, Any] | None = None) -> ToolOutput:
    """An image result, with its metadata as a JSON text block before it."""
    blocks: list[TextBlock | ImageBlock] = []
    if meta:
        blocks.append(TextBlock(to_json(meta)))
    blocks.append(ImageBlock(data=data, mime_type=mime_type))
    return ToolOutput(content=blocks)


def failure(err: DesignError | str) -> ToolOutput:
    """An error result the model reads (``isError: true``)."""
    return ToolOutput(content=[TextBlock(str(err) if isinstance(err, DesignError) else err)], is_error=True)
