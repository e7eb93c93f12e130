"""The tools/list answer kept between designd starts: served only while the code and the selection are the same."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import msgspec
import pytest

from design_console.config import load_config
from design_console.daemon.listing_cache import CACHE_NAME, ListingCache, listing_key
from design_console.daemon.mcp_front import Answers
from design_console.tools import catalog
from design_console.tools.wire.listing import tool_entries


def _fresh(tools: dict) -> bytes:
    return msgspec.json.encode({"tools": tool_entries(tools.values())})


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    (package / "tools").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "tools" / "args.py").write_text("LIMIT = 1\n")
    return package


def test_a_kept_answer_is_served_byte_for_byte(tmp_path: Path) -> None:
    tools = catalog(load_config({"HOME": str(tmp_path)}))
    names = list(tools)
    first = ListingCache(tmp_path / "cache", names)
    assert first.load() is None
    built = Answers(tools, tools_result=first.load())
    assert built.built and built.tools_result == _fresh(tools)
    first.save(built.tools_result)
    assert stat.S_IMODE((tmp_path / "cache").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "cache" / CACHE_NAME).stat().st_mode) == 0o600

    kept = Answers(tools, tools_result=ListingCache(tmp_path / "cache", names).load())
    assert not kept.built and kept.tools_result == built.tools_result


def test_another_selection_builds_afresh(tmp_path: Path) -> None:
    everything = catalog(load_config({"HOME": str(tmp_path)}))
    ListingCache(tmp_path, list(everything)).save(_fresh(everything))
    core_only = catalog(load_config({"HOME": str(tmp_path), "DESIGN_TOOLSETS": "core"}))
    assert list(core_only) != list(everything)
    assert ListingCache(tmp_path, list(core_only)).load() is None


def test_any_change_to_a_source_file_changes_the_key(tmp_path: Path) -> None:
    package = _package(tmp_path)
    names = ["design_execute"]
    key = listing_key(names, package)
    assert key is not None and listing_key(names, package) == key
    args = package / "tools" / "args.py"
    args.write_text("LIMIT = 2\n")  # same size: the modification time tells
    os.utime(args, ns=(args.stat().st_atime_ns, args.stat().st_mtime_ns + 1))
    edited = listing_key(names, package)
    assert edited != key
    (package / "tools" / "new_topic.py").write_text("")
    added = listing_key(names, package)
    assert added not in (key, edited)
    (package / "tools" / "__pycache__").mkdir()
    (package / "tools" / "__pycache__" / "args.cpython-311.py").write_text("")
    assert listing_key(names, package) == added, "compiled files are not sources"
    assert listing_key(["design_execute", "design_get_status"], package) != added


def test_a_kept_answer_of_older_code_is_not_served(tmp_path: Path) -> None:
    package = _package(tmp_path)
    ListingCache(tmp_path / "cache", ["a"], package).save(b'{"tools":[{"name":"a"}]}')
    assert ListingCache(tmp_path / "cache", ["a"], package).load() == b'{"tools":[{"name":"a"}]}'
    (package / "tools" / "args.py").write_text("LIMIT = 10\n")
    assert ListingCache(tmp_path / "cache", ["a"], package).load() is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda key: b"",
        lambda key: key,
        lambda key: key + b"\n",
        lambda key: key + b'\n{"tools":[{"name":"a"',
        lambda key: key + b'\n{"tools":[{"name":"b"}]}',
        lambda key: key + b'\n{"tools":[{"name":"a"},{"name":"a"}]}',
        lambda key: b"0" * len(key) + b'\n{"tools":[{"name":"a"}]}',
        lambda key: b"\xff\xfe" + key + b'\n{"tools":[{"name":"a"}]}',
    ],
    ids=["empty", "key only", "no answer", "cut short", "other tools", "one tool twice", "other key", "bytes before"],
)
def test_a_damaged_or_foreign_file_is_never_served(tmp_path: Path, damage: object) -> None:
    package = _package(tmp_path)
    cache = ListingCache(tmp_path / "cache", ["a"], package)
    assert cache.key is not None
    (tmp_path / "cache").mkdir(mode=0o700)
    (tmp_path / "cache" / CACHE_NAME).write_bytes(damage(cache.key.encode()))  # type: ignore[operator]
    assert cache.load() is None


def test_a_cache_that_cannot_be_written_costs_only_the_cache(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be")
    cache = ListingCache(blocked, ["a"], _package(tmp_path))
    with caplog.at_level(logging.WARNING, logger="design_console.daemon"):
        cache.save(b'{"tools":[{"name":"a"}]}')
    assert "could not keep the tool list" in caplog.text
    assert cache.load() is None
