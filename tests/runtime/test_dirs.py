"""Private directories and the single-instance lock (design_console.runtime.dirs) on real files and processes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from design_console.errors import PREFIX, DesignError
from design_console.runtime.dirs import InstanceLock, ensure_private_dir

IS_ROOT = sys.platform != "win32" and os.getuid() == 0
POSIX_MODES = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and owners; Windows uses an ACL")
OTHER_UID = 65534


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# --- ensure_private_dir -------------------------------------------------------------------------------------


@POSIX_MODES
def test_private_dir_is_created_0700_with_its_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "run"
    ensure_private_dir(target)
    assert target.is_dir() and _mode(target) == 0o700
    ensure_private_dir(target)
    assert _mode(target) == 0o700


@POSIX_MODES
@pytest.mark.parametrize("mode", [0o750, 0o705, 0o755, 0o777])
def test_private_dir_open_to_others_is_refused_with_the_chmod_fix(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "run"
    target.mkdir()
    target.chmod(mode)
    with pytest.raises(DesignError) as caught:
        ensure_private_dir(target)
    assert caught.value.code == "unsafe_runtime_dir"
    text = str(caught.value)
    assert text.startswith(PREFIX)
    assert f"chmod 700 {target}" in text and f"{mode:o}" in text
    assert _mode(target) == mode, "the check must not change the directory"


@POSIX_MODES
def test_symlink_to_a_private_dir_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "run"
    link.symlink_to(real)
    with pytest.raises(DesignError) as caught:
        ensure_private_dir(link)
    assert caught.value.code == "unsafe_runtime_dir" and "not a directory" in str(caught.value)
    assert f"rm {link}" in str(caught.value)


@pytest.mark.parametrize("kind", ["dangling symlink", "regular file"])
def test_non_directory_in_the_way_is_refused_with_a_design_error(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "run"
    if kind == "dangling symlink":
        target.symlink_to(tmp_path / "nowhere")
    else:
        target.write_text("x")
    with pytest.raises(DesignError) as caught:
        ensure_private_dir(target)
    assert caught.value.code == "unsafe_runtime_dir"


@pytest.mark.skipif(not IS_ROOT, reason="giving a directory to another user needs root")
def test_private_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "run"
    target.mkdir(mode=0o700)
    os.chown(target, OTHER_UID, OTHER_UID)
    with pytest.raises(DesignError) as caught:
        ensure_private_dir(target)
    assert caught.value.code == "unsafe_runtime_dir" and f"uid {OTHER_UID}" in str(caught.value)
    assert "DESIGN_RUNTIME_DIR" in str(caught.value)


# --- InstanceLock ---------------------------------------------------------------------------------------------

HOLDER = """
import json, sys
from pathlib import Path
from design_console.runtime.dirs import InstanceLock
lock = InstanceLock(Path(sys.argv[1]))
if not lock.acquire({"pid": 0, "version": "x"}):
    print("busy", flush=True)
    sys.exit(3)
lock.update({"pid": __import__("os").getpid(), "port": 43210})
print("held", flush=True)
sys.stdin.read()
lock.release()
print("released", flush=True)
"""


@pytest.fixture
def lock_holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """Another process holding the lock on tmp_path/designd.lock until its stdin closes."""
    path = tmp_path / "designd.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "held"
        yield proc, path
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


def test_lock_held_by_another_process_refuses_a_second_acquire(
    lock_holder: tuple[subprocess.Popen[str], Path],
) -> None:
    proc, path = lock_holder
    mine = InstanceLock(path)
    assert mine.is_held()
    assert mine.acquire({"pid": os.getpid()}) is False
    assert mine.holder() == {"pid": proc.pid, "port": 43210}, "a failed acquire must not overwrite the holder's info"
    assert _mode(path) == 0o600

    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    assert proc.stdout.readline().strip() == "released"
    assert proc.wait(10) == 0
    assert not mine.is_held()

    assert mine.acquire({"pid": os.getpid(), "port": 1}) is True
    try:
        assert mine.is_held() and mine.holder() == {"pid": os.getpid(), "port": 1}
        mine.update({"pid": os.getpid()})
        assert mine.holder() == {"pid": os.getpid()}, "a shorter update must not leave the old tail behind"
        second = subprocess.run([sys.executable, "-c", HOLDER, str(path)], capture_output=True, text=True, timeout=30)
        assert second.returncode == 3 and second.stdout.strip() == "busy"
    finally:
        mine.release()
    assert not InstanceLock(path).is_held()


def test_lock_of_a_killed_holder_is_free(lock_holder: tuple[subprocess.Popen[str], Path]) -> None:
    proc, path = lock_holder
    assert InstanceLock(path).is_held()
    proc.kill()
    proc.wait(10)
    assert not InstanceLock(path).is_held()
    assert InstanceLock(path).holder()["pid"] == proc.pid, "the file still names the last holder"


def test_lock_file_missing_or_garbage(tmp_path: Path) -> None:
    lock = InstanceLock(tmp_path / "designd.lock")
    assert not lock.is_held() and lock.holder() == {}
    (tmp_path / "designd.lock").write_text("{not json")
    assert lock.holder() == {} and not lock.is_held()
