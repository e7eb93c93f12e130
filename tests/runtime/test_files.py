"""Atomic private writes (design_console.runtime.files): the mode, and no partial file ever visible."""

from __future__ import annotations

import stat
import threading
from pathlib import Path

import pytest

from design_console.runtime.files import write_private


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# --- write_private --------------------------------------------------------------------------------------------


def _leftovers(folder: Path, name: str) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(f".{name}.")]


def test_write_private_mode_and_replace(tmp_path: Path) -> None:
    target = tmp_path / "secret"
    target.write_text("old")
    target.chmod(0o644)
    write_private(target, b"new")
    assert target.read_bytes() == b"new" and _mode(target) == 0o600
    write_private(target, b"shared", mode=0o640)
    assert _mode(target) == 0o640
    assert _leftovers(tmp_path, "secret") == []


def test_write_private_never_shows_a_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "advert.json"
    size = 512 * 1024
    versions = [b"a" * size, b"b" * size]
    write_private(target, versions[0])
    bad: list[int] = []
    reads = 0
    done = threading.Event()

    def reader() -> None:
        nonlocal reads
        while not done.is_set():
            data = target.read_bytes()
            reads += 1
            if data not in versions:
                bad.append(len(data))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for n in range(150):
            write_private(target, versions[n % 2])
    finally:
        done.set()
        thread.join(10)
    assert reads > 0
    assert bad == [], f"{len(bad)} of {reads} reads saw a partial file (sizes {bad[:5]})"
    assert _leftovers(tmp_path, "advert.json") == []


def test_write_private_cleans_up_when_the_rename_fails(tmp_path: Path) -> None:
    target = tmp_path / "plugin"
    target.mkdir()
    (target / "keep").write_text("x")
    with pytest.raises(OSError):
        write_private(target, b"data")
    assert (target / "keep").read_text() == "x"
    assert _leftovers(tmp_path, "plugin") == []


def test_write_private_cleans_up_when_the_write_fails(tmp_path: Path) -> None:
    target = tmp_path / "token"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_private(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert _leftovers(tmp_path, "token") == []
