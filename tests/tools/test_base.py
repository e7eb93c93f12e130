"""Declaring tools: a forward to one plugin method in one line, the presets of the common kinds, and the catalog
record each makes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from design_console.protocol import ToolOutput
from design_console.tools.args import FileKey, NodeId
from design_console.tools.base import (
    REGISTRY,
    Args,
    NoArgs,
    ToolSpec,
    api_read,
    api_write,
    bridge_read,
    bridge_tool,
    bridge_write,
    code_read,
    media_read,
    plugin_read,
    plugin_write,
    state_read,
    state_write,
    tokens_tool,
    write_tool,
)
from design_console.tools.calls import parse_args


class _MoveArgs(Args, kw_only=True):
    nodeId: NodeId
    x: float
    y: float | None = None
    fileKey: FileKey | None = None


class _Plugin:
    """A context whose bridge records each command and answers from ``reply``."""

    def __init__(self, active: str | None = "activeFile") -> None:
        self.config = None
        self.active_file_key = active
        self.sent: list[tuple[str, dict[str, Any], str]] = []

    async def bridge(
        self, method: str, params: dict[str, Any] | None = None, *, file_key: str = "", timeout: float = 0.0
    ) -> dict[str, Any]:
        self.sent.append((method, params or {}, file_key))
        return {"success": True, "moved": params}

    async def progress(self, progress: float, total: float | None = None, message: str = "") -> None:
        return None


@pytest.fixture
def declared() -> Iterator[list[str]]:
    """Names of the tools a test declares; they leave the catalog afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        REGISTRY.pop(name, None)


async def _run(spec: ToolSpec, ctx: _Plugin, arguments: dict[str, Any]) -> Any:
    output = await spec.handler(ctx, parse_args(spec, arguments))
    assert not output.is_error
    return msgspec.json.decode(output.content[0].text)


async def test_a_forward_sends_the_set_arguments_to_its_method(declared: list[str]) -> None:
    spec = bridge_tool("test_move", "Move a node.", _MoveArgs, method="MOVE_NODE", read_only=False)
    declared.append(spec.name)
    assert REGISTRY["test_move"] is spec
    assert (spec.needs_bridge, spec.read_only, spec.runs_in) == (True, False, "daemon")
    ctx = _Plugin()
    # The plugin's success flag is dropped: an answer that arrives is a success.
    assert await _run(spec, ctx, {"nodeId": "1-2", "x": 5}) == {"moved": {"nodeId": "1:2", "x": 5}}
    # fileKey picks the file and is not sent; unset arguments are not sent either.
    await _run(spec, ctx, {"nodeId": "1:2", "x": 1, "y": 2, "fileKey": "otherFile"})
    assert ctx.sent == [
        ("MOVE_NODE", {"nodeId": "1:2", "x": 5}, "activeFile"),
        ("MOVE_NODE", {"nodeId": "1:2", "x": 1, "y": 2}, "otherFile"),
    ]


async def test_a_forward_can_rename_map_and_shape(declared: list[str]) -> None:
    renamed = bridge_tool("test_rename", "", _MoveArgs, method="MOVE_NODE", rename={"nodeId": "id"})
    mapped = bridge_tool(
        "test_map",
        "",
        _MoveArgs,
        method="SET_POSITION",
        params=lambda args: {"id": args.nodeId, "position": [args.x, args.y or 0]},
        shape=lambda ctx, args, reply: {"node": args.nodeId, "plugin": reply["moved"]},
    )
    declared.extend([renamed.name, mapped.name])
    ctx = _Plugin(active=None)
    await _run(renamed, ctx, {"nodeId": "3:4", "x": 0})
    assert await _run(mapped, ctx, {"nodeId": "3:4", "x": 7}) == {
        "node": "3:4",
        "plugin": {"id": "3:4", "position": [7, 0]},
    }
    assert ctx.sent == [
        ("MOVE_NODE", {"id": "3:4", "x": 0}, ""),
        ("SET_POSITION", {"id": "3:4", "position": [7, 0]}, ""),
    ]


def test_a_name_is_declared_once(declared: list[str]) -> None:
    declared.append(bridge_tool("test_once", "", _MoveArgs, method="MOVE_NODE").name)
    with pytest.raises(RuntimeError, match="declared twice"):
        bridge_tool("test_once", "", _MoveArgs, method="MOVE_NODE")


async def _answer(ctx: Any, args: NoArgs) -> ToolOutput:
    return ToolOutput(content=[])


def _flags(spec: ToolSpec) -> tuple[Any, ...]:
    return (
        spec.runs_in,
        spec.toolset,
        spec.read_only,
        spec.destructive,
        spec.idempotent,
        spec.open_world,
        spec.needs_bridge,
        spec.uses_files,
    )


@pytest.mark.parametrize(
    ("preset", "flags"),
    [
        (api_read, ("api", "read", True, False, True, True, False, False)),
        (plugin_read, ("api", "read", True, False, True, False, True, False)),
        (code_read, ("api", "code", True, False, True, False, True, False)),
        (plugin_write, ("api", "write", False, False, False, False, True, False)),
        (api_write, ("api", "write", False, False, False, True, False, False)),
        (bridge_read, ("daemon", "core", True, False, False, False, True, False)),
        (bridge_write, ("daemon", "core", False, False, False, False, True, False)),
        (state_read, ("daemon", "core", True, False, False, False, True, False)),
        (state_write, ("daemon", "core", False, False, False, False, True, False)),
        (media_read, ("media", "read", True, False, False, False, False, False)),
        (tokens_tool, ("tokens", "code", False, False, False, False, False, True)),
    ],
)
def test_a_preset_fixes_the_flags_of_its_kind(declared: list[str], preset: Any, flags: tuple[Any, ...]) -> None:
    preset("test_preset", "A tool.")(_answer)
    declared.append("test_preset")
    assert _flags(REGISTRY["test_preset"]) == flags
    assert REGISTRY["test_preset"].handler is _answer


@pytest.mark.parametrize("preset", [state_read, state_write])
def test_a_state_preset_also_needs_designd_state(declared: list[str], preset: Any) -> None:
    preset("test_state", "A tool.")(_answer)
    declared.append("test_state")
    assert REGISTRY["test_state"].needs >= {"bridge", "daemon"}


def test_a_declaration_says_where_it_differs_from_its_preset(declared: list[str]) -> None:
    api_read("test_versions", "", idempotent=False, toolset="audit", extra={"ui": {}})(_answer)
    declared.append("test_versions")
    spec = REGISTRY["test_versions"]
    assert (spec.idempotent, spec.toolset, spec.extra, spec.open_world) == (False, "audit", {"ui": {}}, True)


def test_a_write_forward_is_a_bridge_change_in_the_write_toolset(declared: list[str]) -> None:
    spec = write_tool("test_delete", "", _MoveArgs, method="DELETE_NODE", destructive=True)
    declared.append(spec.name)
    assert _flags(spec) == ("daemon", "write", False, True, False, False, True, False)
    board = bridge_tool("test_sticky", "", NoArgs, method="CREATE_STICKY", needs_editor=("figjam",), read_only=False)
    declared.append(board.name)
    assert (board.needs_editor, board.needs_bridge, board.read_only) == (("figjam",), True, False)


async def test_a_forward_sends_the_method_named_like_the_tool(declared: list[str]) -> None:
    spec = bridge_tool("design_get_file_info", "", _MoveArgs)
    declared.append(spec.name)
    plugin = _Plugin()
    await _run(spec, plugin, {"nodeId": "1:2", "x": 5})
    assert plugin.sent == [("GET_FILE_INFO", {"nodeId": "1:2", "x": 5}, "activeFile")]


def test_a_forward_with_no_method_of_its_name_is_refused_when_declared() -> None:
    with pytest.raises(ValueError, match="no plugin method TEST_NOTHING for tool design_test_nothing: pass method="):
        bridge_tool("design_test_nothing", "", NoArgs)
    assert "design_test_nothing" not in REGISTRY


class _ArgsOfHandler(Args, kw_only=True):
    depth: int = 1


async def _deep(ctx: Any, args: _ArgsOfHandler) -> ToolOutput:
    return ToolOutput(content=[])


async def _untyped(ctx: Any, args: Any) -> ToolOutput:
    return ToolOutput(content=[])


def test_a_declaration_takes_its_arguments_from_the_handler(declared: list[str]) -> None:
    api_read("test_from_handler", "")(_deep)
    declared.append("test_from_handler")
    assert REGISTRY["test_from_handler"].args is _ArgsOfHandler


def test_a_handler_without_an_argument_struct_is_refused_when_declared() -> None:
    with pytest.raises(TypeError, match="_untyped: annotate its arguments, `args`, with an Args struct"):
        api_read("test_untyped", "")(_untyped)
    assert "test_untyped" not in REGISTRY
