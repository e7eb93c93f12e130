"""Hostile arguments for every tool of the catalog: parse_args refuses them only with a bad_argument DesignError,
and whatever the published input schema accepts, parse_args accepts too, but for the rules the schema leaves out on
purpose (string lengths, closed objects, normalised formats: see design_console/tools/schema.py)."""

from __future__ import annotations

import functools
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings

from design_console.daemon.mcp_host import tool_definition
from design_console.errors import DesignError, ErrorCode
from design_console.tools import catalog
from design_console.tools.base import ToolSpec, _normalized_fields, parse_args
from fuzz.strategies import BOUNDARY_INTS, CI_SETTINGS, from_schema, hostile_arguments

TOOLS = catalog()
#: Per tool: the catalog is large, and bench/fuzz_long.py runs the same properties with a far larger budget.
PER_TOOL = settings(CI_SETTINGS, max_examples=12)
#: msgspec's refusals of the unpublished length and closed-object rules.
UNPUBLISHED_RULE = re.compile(r"of length [<>]=|contains unknown field")
#: How a normaliser's refusal starts (Args.__post_init__ names the field first).
NORMALIZER_REFUSAL = re.compile(r"Invalid arguments for \w+: `(\w+)`: ")
#: msgspec's refusal of a float where an integer goes: JSON Schema calls 1e308 an integer, msgspec takes whole
#: floats only within 64 bits.
FLOAT_FOR_INT = re.compile(r"Expected `int[^`]*`, got `float` - at `\$\.(\w+)`")


def schema_of(spec: ToolSpec) -> dict[str, Any]:
    return _schema(spec.name)


def validator_of(spec: ToolSpec) -> jsonschema.Draft202012Validator:
    return _validator(spec.name)


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = tool_definition(TOOLS[name]).input_schema
    return schema


@functools.cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(_schema(name))
    return jsonschema.Draft202012Validator(_schema(name))


def deliberately_unpublished(spec: ToolSpec, arguments: dict[str, Any], message: str) -> bool:
    """Whether a refusal is of a rule the published schema leaves out on purpose."""
    if UNPUBLISHED_RULE.search(message):
        return True
    normalized = NORMALIZER_REFUSAL.match(message)
    if normalized is not None:
        return normalized[1] in {name for name, _, _ in _normalized_fields(spec.args)}
    too_big = FLOAT_FOR_INT.search(message)
    if too_big is not None:
        value = arguments.get(too_big[1])
        return isinstance(value, float) and value.is_integer() and abs(value) >= 2**63
    return False


def check_arguments(spec: ToolSpec, arguments: dict[str, Any]) -> bool:
    """parse_args accepts the arguments or refuses them with bad_argument, nothing else; and it accepts whatever
    the published schema accepts, but for the unpublished rules. Returns whether they were accepted."""
    try:
        parse_args(spec, arguments)
    except DesignError as err:
        assert err.code == ErrorCode.BAD_ARGUMENT, err
        if validator_of(spec).is_valid(arguments):
            assert deliberately_unpublished(spec, arguments, err.message), (
                f"{spec.name}: the published schema accepts {arguments!r}, but {err.message}"
            )
        return False
    return True


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_parse_args_refuses_only_with_bad_argument(name: str) -> None:
    spec = TOOLS[name]
    fields = sorted(schema_of(spec)["properties"])

    @PER_TOOL
    @given(hostile_arguments(fields))
    def fuzz(arguments: dict[str, Any]) -> None:
        check_arguments(spec, arguments)

    fuzz()


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_what_the_schema_accepts_parse_args_accepts(name: str) -> None:
    spec = TOOLS[name]

    @PER_TOOL
    @given(from_schema(schema_of(spec)))
    def fuzz(arguments: dict[str, Any]) -> None:
        assert validator_of(spec).is_valid(arguments), arguments
        check_arguments(spec, arguments)

    fuzz()


#: Values at the edges of what a field may hold, tried in every field of every tool.
EDGE_VALUES = [*BOUNDARY_INTS, None, "", [], {}, "x" * 100_000, 1e308, -1e-308, True]


def test_every_field_refuses_edge_values_with_bad_argument() -> None:
    for spec in TOOLS.values():
        for field in schema_of(spec)["properties"]:
            for value in EDGE_VALUES:
                check_arguments(spec, {field: value})
