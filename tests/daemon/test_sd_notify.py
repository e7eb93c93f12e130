"""Readiness notification to systemd (design_console.daemon.sd_notify) over real datagram sockets."""

from __future__ import annotations

import socket
import sys
import uuid
from pathlib import Path

import pytest

from design_console.daemon.sd_notify import notify

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="systemd's notify socket is an AF_UNIX datagram socket")

# --- sd_notify ------------------------------------------------------------------------------------------------


def _receiver(address: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(5)
    return sock


def test_notify_sends_a_datagram(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "notify.sock"
    with _receiver(str(path)) as sock:
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        assert notify("READY=1") is True
        assert sock.recv(4096) == b"READY=1"
        assert notify("STOPPING=1") is True
        assert sock.recv(4096) == b"STOPPING=1"


def test_notify_to_an_abstract_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"dc-test-notify-{uuid.uuid4().hex}"
    with _receiver("\0" + name) as sock:
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert notify("READY=1") is True
        assert sock.recv(4096) == b"READY=1"


def test_notify_without_notify_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify("READY=1") is False


def test_notify_to_a_missing_socket_does_not_raise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody.sock"))
    assert notify("READY=1") is False
