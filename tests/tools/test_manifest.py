"""The manifest of the active file's design system: built from the plugin's components and variables, cached per
file for a while, one build at a time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from fakes.context import FakeContext, data
from fakes.harness import Harness
from fakes.plugin_payloads import FILE_KEY, design_file, variables_snapshot

from design_console.errors import DesignError
from design_console.tools import manifest


@pytest.fixture
def fresh() -> Iterator[None]:
    """No manifest cached before or after the test."""
    manifest.MANIFESTS.clear()
    yield
    manifest.MANIFESTS.clear()


@pytest.fixture
def plugged(ctx: FakeContext, fresh: None) -> FakeContext:
    """The context with a plugin in FILE_KEY answering the components and variables of the design-system file."""
    ctx.active_file_key = FILE_KEY
    ctx.plugin = {"GET_LOCAL_COMPONENTS": design_file(), "GET_VARIABLES_DATA": variables_snapshot()}
    return ctx


async def test_a_manifest_is_built_from_the_plugin_then_cached_until_forced(plugged: FakeContext) -> None:
    built, cached = await manifest.load_manifest(plugged, force=False)
    assert cached is False and built.file_key == FILE_KEY and built.notes == []
    assert [c.name for c in built.component_sets] and built.variables is not None
    assert [p for p, _, _ in plugged.progress_reports] == [0, 1, 2]
    again, cached = await manifest.load_manifest(plugged, force=False)
    assert again is built and cached is True
    assert len(plugged.sent("GET_LOCAL_COMPONENTS")) == 1
    rebuilt, cached = await manifest.load_manifest(plugged, force=True)
    assert rebuilt is not built and cached is False and rebuilt.version == built.version
    assert len(plugged.sent("GET_LOCAL_COMPONENTS")) == 2


async def test_entries_are_sets_and_components_by_name(plugged: FakeContext) -> None:
    built, _ = await manifest.load_manifest(plugged, force=False)
    names = [e.name for e in built.entries()]
    assert names == sorted(names, key=str.lower)
    assert set(names) == {c.name for c in [*built.components, *built.component_sets]}


async def test_variables_and_freshness_of_a_manifest(plugged: FakeContext) -> None:
    built, _ = await manifest.load_manifest(plugged, force=False)
    variables, collections = manifest.variable_lists(built)
    snapshot = variables_snapshot()
    assert [v["id"] for v in variables] == [v["id"] for v in snapshot["variables"]]
    assert {c["name"] for c in collections} == {c["name"] for c in snapshot["variableCollections"]}
    built.built_at = time.time() - 42
    said = manifest.freshness(built, True)
    assert said["fileKey"] == FILE_KEY and said["fromCache"] is True and 41.5 <= said["ageSeconds"] <= 60


async def test_unreadable_variables_leave_a_note_and_no_lists(plugged: FakeContext) -> None:
    plugged.plugin = {
        "GET_LOCAL_COMPONENTS": design_file(),
        "GET_VARIABLES_DATA": {"success": True},
        "READ_VARIABLES": DesignError("plugin_api_error", "variables are not available"),
    }
    built, _ = await manifest.load_manifest(plugged, force=False)
    assert built.variables is None and manifest.variable_lists(built) == ([], [])
    assert built.notes == ["Variables could not be read: variables are not available"]


async def test_components_of_another_shape_are_refused(plugged: FakeContext) -> None:
    plugged.plugin = {"GET_LOCAL_COMPONENTS": {"success": True, "components": "all of them"}}
    with pytest.raises(DesignError, match="unexpected shape") as raised:
        await manifest.load_manifest(plugged, force=False)
    assert raised.value.code == "bad_reply"
    assert manifest.MANIFESTS.get(FILE_KEY) is None


async def test_without_an_active_file_nothing_is_cached(plugged: FakeContext) -> None:
    plugged.active_file_key = None
    await manifest.load_manifest(plugged, force=False)
    _, cached = await manifest.load_manifest(plugged, force=False)
    assert cached is False and len(plugged.sent("GET_LOCAL_COMPONENTS")) == 2


async def test_concurrent_calls_build_one_manifest(harness: Harness) -> None:
    await harness.connect()
    outs = await asyncio.gather(*(harness.call("design_get_design_system_summary") for _ in range(3)))
    assert sorted(data(o)["fromCache"] for o in outs) == [False, True, True]
    assert len(harness.sent("GET_LOCAL_COMPONENTS")) == 1
