"""One page of a read made of several named lists (a kit's tokens, components and styles; a summary's collections,
categories and pages): the lists are read in order, as one, and a page stops where its budget does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from design_console.engines import shaping
from design_console.errors import DesignError, ErrorCode

#: Where a page starts: the index of a list, and of an item in it.
Position = tuple[int, int]


def page_sections(
    sections: Sequence[tuple[str, Sequence[Any]]], start: Position, budget: int
) -> tuple[dict[str, list[Any]], Position | None]:
    """The items from ``start`` on that fit in ``budget`` characters beside the answer's envelope (at least one), by
    list name; and where the next page starts, None when every list was read to its end."""
    chosen: dict[str, list[Any]] = {}
    used = shaping.ENVELOPE_CHARS
    section, index = start
    while section < len(sections):
        name, items = sections[section]
        while index < len(items):
            cost = shaping.size_of(items[index]) + len(name) + 1
            if chosen and used + cost > budget:
                return chosen, (section, index)
            chosen.setdefault(name, []).append(items[index])
            used += cost
            index += 1
        section, index = section + 1, 0
    return chosen, None


def position_of(value: Any, sections: int) -> Position:
    """A position a cursor carried, checked against how many lists the read has."""
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(part, int) and part >= 0 for part in value)
        and value[0] < sections
    ):
        return value[0], value[1]
    raise DesignError(
        ErrorCode.BAD_ARGUMENT, "The cursor is not one this tool handed out.", "Call again without cursor."
    )
