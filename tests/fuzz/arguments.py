"""The checks of the tool-argument fuzzing, shared by its test and bench/fuzz_long.py."""

from __future__ import annotations

import functools
import re
from typing import Any

import jsonschema

from design_console.errors import DesignError, ErrorCode
from design_console.tools import catalog
from design_console.tools.base import ToolSpec, _normalized_fields
from design_console.tools.calls import parse_args
from design_console.tools.wire.mcp import tool_definition

TOOLS = catalog()
#: msgspec's refusals of the unpublished length and closed-object rules.
UNPUBLISHED_RULE = re.compile(r"of length [<>]=|contains unknown field")
#: How a normaliser's refusal starts (Args.__post_init__ names the field first).
NORMALIZER_REFUSAL = re.compile(r"Invalid arguments for \w+: `(\w+)`: ")
#: msgspec's refusal of a float where an integer goes: JSON Schema calls 1e308 an integer, msgspec takes whole
#: floats only within 64 bits.
FLOAT_FOR_INT = re.compile(r"Expected `int[^`]*`, got `float` - at `\$\.(\w+)`")


def schema_of(spec: ToolSpec) -> dict[str, Any]:
    """The tool's published input schema."""
    return _schema(spec.name)


def validator_of(spec: ToolSpec) -> jsonschema.Draft202012Validator:
    """A validator of the tool's published input schema (itself checked against the metaschema)."""
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
    """Whether a refusal is of a rule the published schema leaves out on purpose (design_console/tools/schema.py)."""
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
