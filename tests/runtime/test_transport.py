"""The control transport's own checks, without a designd."""

from __future__ import annotations

from pathlib import Path

import pytest

from design_console.errors import DesignError
from design_console.runtime.platform.system import MAX_SOCKET_PATH
from design_console.runtime.transport import check_socket_path


def test_a_socket_path_the_os_cannot_bind_is_refused_with_the_fix(tmp_path: Path) -> None:
    fits = tmp_path / "c.sock"
    check_socket_path(fits)
    too_long = Path("/") / ("x" * MAX_SOCKET_PATH) / "control.sock"
    with pytest.raises(DesignError) as caught:
        check_socket_path(too_long)
    assert caught.value.code == "bad_config"
    assert "DESIGN_RUNTIME_DIR" in str(caught.value) and "DESIGN_IPC=tcp" in str(caught.value)


def test_the_limit_counts_bytes_not_characters() -> None:
    # A user name in another script takes more bytes than characters: the byte count is what the OS checks.
    name = "é" * (MAX_SOCKET_PATH // 2)
    with pytest.raises(DesignError):
        check_socket_path(Path("/") / name / "s")
