"""The navigation allowlist of Remote Mode's browser, on its own: which URLs it lets through, and its setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from design_console.config import load_config
from design_console.errors import DesignError, ErrorCode
from design_console.remote.browser import host_allowed, private_address


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://figma.com/file/abc", True),
        ("https://www.figma.com/design/abc/Name?node-id=1-2", True),
        ("https://FIGMA.com./x", True),
        ("https://evilfigma.com/", False),
        ("https://figma.com.evil.net/", False),
        ("https://figma.com@evil.net/", False),
        ("file:///etc/passwd", False),
        ("javascript:alert(1)", False),
        ("data:text/html,hi", False),
        ("https://figma.com:99999/", False),
        ("http://127.0.0.1:8080/", True),
        ("http://127.0.0.1:8081/", False),
        ("http://127.0.0.1/", False),
    ],
)
def test_host_allowed(url: str, allowed: bool) -> None:
    assert host_allowed(url, ("figma.com", "*.figma.com", "127.0.0.1:8080")) is allowed


def test_allowlist_setting_is_validated(tmp_path: Path) -> None:
    assert load_config({"HOME": str(tmp_path)}).remote_browser_allowlist == ("figma.com", "*.figma.com")
    with pytest.raises(DesignError) as err:
        load_config({"HOME": str(tmp_path), "REMOTE_BROWSER_ALLOWLIST": "https://figma.com"})
    assert err.value.code == ErrorCode.BAD_CONFIG and "REMOTE_BROWSER_ALLOWLIST" in err.value.message
    with pytest.raises(DesignError):
        load_config({"HOME": str(tmp_path), "REMOTE_BROWSER_MAX": "0"})


@pytest.mark.parametrize(
    ("url", "private"),
    [
        ("http://169.254.169.254/latest/meta-data/", True),
        ("http://127.0.0.1:9223/", True),
        ("http://10.1.2.3/", True),
        ("http://[::1]:80/", True),
        ("http://localhost/", True),
        ("http://api.localhost/", True),
        ("https://8.8.8.8/", False),
        ("https://static.figma.com/app.js", False),
        ("data:image/png;base64,AAAA", False),
    ],
)
def test_private_address(url: str, private: bool) -> None:
    assert private_address(url) is private
