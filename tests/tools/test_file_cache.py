"""The per-file cache of what tools build for a file (the manifest, the design-system report, a paged read's list)."""

from __future__ import annotations

from design_console.tools.file_cache import FileCache, ReadCache


def test_a_file_cache_keeps_each_value_for_its_ttl() -> None:
    now = [1000.0]
    cache: FileCache[str] = FileCache(ttl=300, clock=lambda: now[0])
    cache.put("f", "built")
    now[0] += 299
    assert cache.get("f") == "built" and cache.get("g") is None
    now[0] += 1
    assert cache.get("f") is None
    assert cache.lock("f") is cache.lock("f") and cache.lock("f") is not cache.lock("g")


def test_putting_a_value_lets_go_of_other_files_past_their_time() -> None:
    now = [1000.0]
    cache: FileCache[str] = FileCache(ttl=60, clock=lambda: now[0])
    cache.put("big", "a whole file's variables")
    now[0] += 60
    cache.put("other", "built")
    assert "big" not in cache._entries and cache.get("other") == "built"


async def test_a_read_cache_builds_once_per_version_and_request() -> None:
    now = [1000.0]
    cache: ReadCache[int] = ReadCache(ttl=60, clock=lambda: now[0])
    builds: list[int] = []

    async def build() -> int:
        builds.append(len(builds))
        return len(builds)

    assert await cache.get("f", "v1", "r", build) == 1
    assert await cache.get("f", "v1", "r", build) == 1
    assert await cache.get("f", "v2", "r", build) == 2
    assert await cache.get("f", "v2", "other", build) == 3
    assert await cache.get("f", "v2", "other", build, refresh=True) == 4
    now[0] += 60
    assert await cache.get("f", "v2", "other", build) == 5
