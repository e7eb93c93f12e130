"""The shared argument types: colours, node ids, file references and token formats (an old format name refused with
its new one by every tool that takes one), checked and normalised as arguments are parsed."""

from __future__ import annotations

import enum
from typing import Literal, get_args

import msgspec
import pytest
from fakes.context import FakeContext, error_text
from fakes.design_api import ENTERPRISE_KEY

from design_console.errors import DesignError
from design_console.tools import catalog
from design_console.tools.args import Color, ConsoleLevelFilter, FileKey, FileUrl, NodeId, Rgba, parse_color
from design_console.tools.base import Args, ToolSpec, ok
from design_console.tools.calls import parse_args
from design_console.tools.schema import input_schema, input_schemas


@pytest.mark.parametrize(
    ("text", "rgba"),
    [
        ("#fff", (1, 1, 1, 1)),
        ("#0F08", (0, 1, 0, 0x88 / 255)),
        ("#336699", (0x33 / 255, 0x66 / 255, 0x99 / 255, 1)),
        ("  #33669980 ", (0x33 / 255, 0x66 / 255, 0x99 / 255, 0x80 / 255)),
        ("rgb(255, 0, 51)", (1, 0, 0.2, 1)),
        ("RGBA(255,128,0,0.25)", (1, 128 / 255, 0, 0.25)),
        ("rgba(100%, 50%, 0%, 40%)", (1, 0.5, 0, 0.4)),
        ("rgb(0 255 0 / 0.5)", (0, 1, 0, 0.5)),
        ("rgb(.5 1.5 2)", (0.5 / 255, 1.5 / 255, 2 / 255, 1)),
    ],
)
def test_colours_parse_to_rgba_floats(text: str, rgba: tuple[float, float, float, float]) -> None:
    colour = parse_color(text)
    assert (colour.r, colour.g, colour.b, colour.a) == pytest.approx(rgba)
    assert msgspec.to_builtins(colour).keys() == {"r", "g", "b", "a"}


@pytest.mark.parametrize(
    "text",
    ["", "fff", "#ff", "#fffff", "#ggg", "red", "rgb(256, 0, 0)", "rgb(1, 2)", "rgba(0, 0, 0, 2)", "rgb(-1, 0, 0)"],
)
def test_what_is_not_a_colour_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="colour"):
        parse_color(text)


class _Sample(Args, kw_only=True):
    fileUrl: FileUrl | None = None
    fileKey: FileKey | None = None
    nodeId: NodeId
    nodeIds: list[NodeId] | None = None
    fill: Color | None = None


SAMPLE = ToolSpec(name="sample", description="", args=_Sample, handler=lambda ctx, args: ok(None))


def test_arguments_are_normalised_as_they_are_parsed() -> None:
    url = "https://www.figma.com/design/AbCdEf123456/Name?node-id=1-2"
    args = parse_args(
        SAMPLE,
        {"fileUrl": url, "fileKey": "AbCdEf123456", "nodeId": url, "nodeIds": ["3-4", "I5:6;7:8"], "fill": " #fff "},
    )
    assert isinstance(args, _Sample)
    assert (args.fileUrl, args.fileKey, args.nodeId) == ("AbCdEf123456", "AbCdEf123456", "1:2")
    assert args.nodeIds == ["3:4", "I5:6;7:8"]
    assert args.fill == "#fff" and parse_color(args.fill) == Rgba(1, 1, 1)
    # A connected file is named by the key its plugin reported, whatever it looks like, or by its URL.
    assert parse_args(SAMPLE, {"nodeId": "1:2", "fileKey": "fileA"}).fileKey == "fileA"
    connected = parse_args(SAMPLE, {"nodeId": "1:2", "fileKey": "https://www.figma.com/design/fileA/A"})
    assert connected.fileKey == "fileA"


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"nodeId": "x"}, "`nodeId`: 'x' is not a node id"),
        ({"nodeId": "1:2", "nodeIds": ["1:2", "frame"]}, "`nodeIds`: 'frame' is not a node id"),
        ({"nodeId": "1:2", "fileUrl": "https://example.com/a"}, "`fileUrl`: 'https://example.com/a' is not a design"),
        ({"nodeId": "1:2", "fill": "blue"}, "`fill`: 'blue' is not a colour"),
    ],
)
def test_a_bad_value_names_its_field(arguments: dict[str, object], reason: str) -> None:
    with pytest.raises(DesignError) as caught:
        parse_args(SAMPLE, arguments)
    assert caught.value.code == "bad_argument"
    assert f"Invalid arguments for sample: {reason}" in str(caught.value)
    assert " - at `$`" not in str(caught.value)


class _Align(enum.Enum):
    START = "start"
    END = "end"


class _Step(msgspec.Struct, forbid_unknown_fields=True):
    kind: Literal["fill", "stroke"]
    weight: Literal[1, 2, 4] | None = None


class _Choices(Args, kw_only=True):
    mode: Literal["light", "dark"] = "light"
    align: _Align | None = None
    steps: list[_Step] = msgspec.field(default_factory=list)
    byName: dict[str, _Step] = msgspec.field(default_factory=dict)


CHOICES = ToolSpec(name="choices", description="", args=_Choices, handler=lambda ctx, args: ok(None))


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"mode": "dim"}, 'Invalid enum value \'dim\' - at `$.mode`; allowed: "dark", "light"'),
        ({"align": "middle"}, 'Invalid enum value \'middle\' - at `$.align`; allowed: "start", "end"'),
        (
            {"steps": [{"kind": "fill"}, {"kind": "glow"}]},
            'Invalid enum value \'glow\' - at `$.steps[1].kind`; allowed: "fill", "stroke"',
        ),
        (
            {"byName": {"a": {"kind": "fill", "weight": 3}}},
            "Invalid enum value 3 - at `$.byName[...].weight`; allowed: 1, 2, 4",
        ),
        ({"mdoe": "dark"}, "Object contains unknown field `mdoe`; known fields: `mode`, `align`, `steps`, `byName`"),
        (
            {"steps": [{"kind": "fill", "wieght": 1}]},
            "Object contains unknown field `wieght` - at `$.steps[0]`; known fields: `kind`, `weight`",
        ),
    ],
)
def test_a_refused_choice_lists_the_allowed_ones(arguments: dict[str, object], expected: str) -> None:
    """An enum value names the values its field allows; an unknown field the fields its object has."""
    with pytest.raises(DesignError) as caught:
        parse_args(CHOICES, arguments)
    assert f"Invalid arguments for choices: {expected}. " in str(caught.value)


def test_a_tools_refused_choice_lists_the_allowed_ones() -> None:
    tools = catalog()
    with pytest.raises(DesignError) as caught:
        parse_args(tools["design_get_console_logs"], {"level": "loud"})
    # In the order the input schema lists them.
    schema = input_schema(tools["design_get_console_logs"].args)["properties"]["level"]["enum"]
    assert sorted(schema) == sorted(get_args(ConsoleLevelFilter))
    levels = ", ".join(f'"{level}"' for level in schema)
    assert f"Invalid enum value 'loud' - at `$.level`; allowed: {levels}." in str(caught.value)
    with pytest.raises(DesignError) as caught:
        parse_args(tools["design_execute"], {"code": "return 1", "timout": 5})
    fields = ", ".join(f"`{name}`" for name in input_schema(tools["design_execute"].args)["properties"])
    assert f"Object contains unknown field `timout`; known fields: {fields}." in str(caught.value)


def test_normalised_types_publish_plain_schemas() -> None:
    schema = input_schema(_Sample)["properties"]
    assert schema["nodeId"] == {"type": "string"}
    assert schema["nodeIds"] == {"type": "array", "items": {"type": "string"}}
    assert schema["fileUrl"]["type"] == "string" and "normalize" not in str(schema)


def test_one_pass_over_every_tool_publishes_what_each_alone_would() -> None:
    """The batched pass describes shared structs once; every tool's schema is still byte for byte its own."""
    structs = [spec.args for spec in catalog().values()]
    alone = [input_schema(struct) for struct in structs]
    assert msgspec.json.encode(input_schemas(structs)) == msgspec.json.encode(alone)


def test_console_levels_match_the_catalog() -> None:
    assert get_args(ConsoleLevelFilter) == ("log", "info", "warn", "error", "debug", "all")
    for name in ("design_get_console_logs", "design_watch_console"):
        levels = input_schema(catalog()[name].args)["properties"]["level"]["enum"]
        assert sorted(levels) == sorted(get_args(ConsoleLevelFilter))


#: A design file for the token format refusals (the fake design API's).
TOKENS_FILE_URL = f"https://www.figma.com/design/{ENTERPRISE_KEY}/Design-System"


@pytest.mark.parametrize(
    ("old", "new"),
    [("css", "css-vars"), ("sass", "scss"), ("tailwind", "tailwind-v3"), ("typescript", "ts-module"), ("json", "dtcg")],
)
async def test_an_old_export_format_name_is_refused_with_its_new_name(ctx: FakeContext, old: str, new: str) -> None:
    for tool in ("design_get_variables", "design_get_styles"):
        refused = await ctx.call(tool, {"fileUrl": TOKENS_FILE_URL, "include_exports": True, "export_formats": [old]})
        assert f"`export_formats`: the token format {old!r} is now called {new!r}" in error_text(refused), tool
    refused = await ctx.call("design_export_tokens", {"format": old})
    assert f"`format`: the token format {old!r} is now called {new!r}" in error_text(refused)


async def test_the_import_takes_the_formats_by_the_same_names(ctx: FakeContext) -> None:
    refused = await ctx.call("design_import_tokens", {"format": "tailwind-v3-config", "payload": "{}"})
    assert "`format`: the token format 'tailwind-v3-config' is now called 'tailwind-v3'" in error_text(refused)
