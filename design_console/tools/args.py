"""Argument types shared by the tools: one definition of each, so every tool's schema says the same thing."""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
from msgspec import Meta

from design_console.errors import DesignError
from design_console.tools import shaping

MaxTokens = Annotated[int, msgspec.Meta(ge=shaping.MIN_RESULT_TOKENS, le=20_000)] | None
Cursor = Annotated[str, Meta(max_length=4096, description="`cursor` of the previous answer, to read on")]
_NODE_ID = re.compile(r"^I?-?\d+[:-]\d+(;-?\d+[:-]\d+)*$")


def node_id(value: str) -> str:
    """A node id as the design API wants it (``1:2``), from that form or a URL's ``node-id=1-2``."""
    text = value.strip()
    if "node-id=" in text:
        text = re.split(r"node-id=", text, maxsplit=1)[1].split("&")[0]
    if not _NODE_ID.match(text):
        raise DesignError(
            "bad_argument", f"{value[:80]!r} is not a node id.", "Node ids look like 1:2 (or 1-2 in URLs)."
        )
    return text.replace("-", ":") if ":" not in text else text
