"""Hostile arguments for every tool of the catalog: parse_args refuses them only with a bad_argument DesignError,
and whatever the published input schema accepts, parse_args accepts too, but for the rules the schema leaves out on
purpose (string lengths, closed objects, normalised formats: see design_console/tools/schema.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from fuzz.arguments import TOOLS, check_arguments, schema_of, validator_of
from fuzz.strategies import BOUNDARY_INTS, CI_SETTINGS, from_schema, hostile_arguments

#: Per tool: the catalog is large, and bench/fuzz_long.py runs the same properties with a far larger budget.
PER_TOOL = settings(CI_SETTINGS, max_examples=12)
#: Values at the edges of what a field may hold, tried in every field of every tool.
EDGE_VALUES = [*BOUNDARY_INTS, None, "", [], {}, "x" * 100_000, 1e308, -1e-308, True]


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_parse_args_refuses_only_with_bad_argument(name: str) -> None:
    spec = TOOLS[name]

    @PER_TOOL
    @given(hostile_arguments(sorted(schema_of(spec)["properties"])))
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


def test_every_field_refuses_edge_values_with_bad_argument() -> None:
    for spec in TOOLS.values():
        for field in schema_of(spec)["properties"]:
            for value in EDGE_VALUES:
                check_arguments(spec, {field: value})
