"""The per-file cache of what tools build for a file (the manifest, the design-system report)."""

from __future__ import annotations

from design_console.tools.file_cache import FileCache


def test_a_file_cache_keeps_each_value_for_its_ttl() -> None:
    now = [1000.0]
    cache: FileCache[str] = FileCache(ttl=300, clock=lambda: now[0])
    cache.put("f", "built")
    now[0] += 299
    assert cache.get("f") == "built" and cache.get("g") is None
    now[0] += 1
    assert cache.get("f") is None
    assert cache.lock("f") is cache.lock("f") and cache.lock("f") is not cache.lock("g")
