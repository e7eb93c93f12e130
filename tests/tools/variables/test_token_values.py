"""design_get_token_values: the active file's tokens by type from the manifest the plugin answers, aliases resolved
per mode, paged by a cursor; over a real Bridge with the fake plugin."""

from __future__ import annotations

from typing import Any

from fakes.context import data, error_text
from fakes.harness import Harness


async def test_token_values_colours_resolve_aliases_per_mode(harness: Harness) -> None:
    await harness.connect()
    result = data(await harness.call("design_get_token_values", {"type": "colors"}))
    tokens = {t["name"]: t for t in result["tokens"]}
    assert set(tokens) == {"blue/500", "gray/900", "color/primary"}
    assert tokens["blue/500"]["values"] == {"Value": "#0000FF"}
    assert tokens["color/primary"]["values"] == {"Light": "#0000FF", "Dark": "#1A1A1A"}
    assert tokens["color/primary"]["id"] == "VariableID:2:1" and tokens["color/primary"]["collection"] == "Semantic"
    assert "scopes" not in tokens["blue/500"] and "key" not in tokens["blue/500"]
    raw = data(await harness.call("design_get_token_values", {"type": "colors", "resolveAliases": False}))
    primary = next(t for t in raw["tokens"] if t["name"] == "color/primary")
    assert primary["values"] == {"Light": {"alias": "blue/500"}, "Dark": {"alias": "gray/900"}}


async def test_token_values_spacing_and_filter(harness: Harness) -> None:
    await harness.connect()
    spacing = data(await harness.call("design_get_token_values", {"type": "spacing"}))
    assert {t["name"]: t["values"] for t in spacing["tokens"]} == {"space/sm": {"Default": 8}, "stack": {"Default": 16}}
    everything = data(await harness.call("design_get_token_values", {"type": "all"}))
    assert everything["total"] == 7
    filtered = data(await harness.call("design_get_token_values", {"filter": "^(radius|font)/"}))
    assert sorted(t["name"] for t in filtered["tokens"]) == ["font/family", "radius/md"]


async def test_token_values_limit_and_cursor(harness: Harness) -> None:
    await harness.connect()
    names: list[str] = []
    cursor = None
    for _ in range(10):
        args: dict[str, Any] = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        result = data(await harness.call("design_get_token_values", args))
        assert len(result["tokens"]) <= 3
        names += [t["name"] for t in result["tokens"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert len(names) == 7 == len(set(names))
    first = data(await harness.call("design_get_token_values", {"limit": 3}))
    text = error_text(await harness.call("design_get_token_values", {"type": "colors", "cursor": first["nextCursor"]}))
    assert "other arguments" in text
    text = error_text(await harness.call("design_get_token_values", {"limit": 0}))
    assert "limit" in text


async def test_token_values_without_a_plugin_give_setup_steps(harness: Harness) -> None:
    text = error_text(await harness.call("design_get_token_values", {"type": "colors"}))
    assert "No Desktop Bridge plugin is connected" in text
    assert str(harness.config.plugin_dir / "manifest.json") in text
    assert "Invalid arguments" in error_text(await harness.call("design_get_token_values", {"type": "gradients"}))
