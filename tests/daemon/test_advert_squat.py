"""Another local user cannot stop designd from starting by creating the names of its port adverts first.

The squatter here is a second user made for the test (``useradd``), so this runs only as root; it creates, in a
shared sticky temp dir like ``/tmp``, the ten advert names of the old layout (as folders: a rename over a folder fails
even for root) and this user's advert folder. designd must still start, advertise where only it can, and be found
by designctl and by the plugin.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest
from fakes.fake_plugin import FakePlugin
from procs import BIN, DaemonProcess, TestEnv, running_daemon

from design_console.runtime.adverts import PREFIX, advert_folders, is_live, list_adverts, user_folder

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() != 0 or shutil.which("useradd") is None,
    reason="needs root and useradd to make a second local user",
)


@pytest.fixture
def other_user() -> Iterator[str]:
    """A throw-away local user, deleted afterwards."""
    name = f"dcsquat{secrets.token_hex(3)}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True, timeout=30)
    try:
        yield name
    finally:
        subprocess.run(["userdel", name], check=False, timeout=30, capture_output=True)


@pytest.fixture
def squatted_env(dc_env: TestEnv, other_user: str) -> TestEnv:
    """``dc_env`` with a shared temp dir (mode 1777, as /tmp) in which ``other_user`` took every advert name."""
    dc_env.root.chmod(0o755)
    shared = dc_env.root / "tmp"
    shared.chmod(0o1777)
    names = [f"{PREFIX}{port}.json" for port in range(dc_env.port_start, dc_env.port_start + 10)]
    names.append(user_folder(dc_env.config).name)
    subprocess.run(["mkdir", *(str(shared / name) for name in names)], user=other_user, check=True, timeout=30)
    return dc_env


@pytest.fixture
def squatted_daemon(squatted_env: TestEnv) -> Iterator[DaemonProcess]:
    yield from running_daemon(squatted_env)


async def test_designd_starts_and_is_found_when_another_user_took_the_advert_names(
    squatted_daemon: DaemonProcess,
) -> None:
    env = squatted_daemon.env
    config = env.config
    found = [(path, advert) for path, advert in list_adverts(*advert_folders(config)) if advert is not None]
    assert [(path.parent, advert.pid, is_live(advert)) for path, advert in found] == [
        (config.runtime_dir, squatted_daemon.pid, True)
    ], "the advert goes where only its owner can write: the private runtime dir"
    log = (config.log_dir / "designd.log").read_text()
    assert "port advert goes to the runtime dir" in log
    plugin = await FakePlugin.connect(squatted_daemon.port, env.token, file_key="fileA", file_name="File A")
    try:
        out = subprocess.run(
            [str(BIN / "designctl"), "status", "--json"], env=env.env, capture_output=True, timeout=30, check=True
        )
        status = json.loads(out.stdout)
        assert status["pid"] == squatted_daemon.pid and status["port"] == squatted_daemon.port
        assert [f["fileKey"] for f in status["files"]] == ["fileA"]
    finally:
        await plugin.close()


def test_doctor_names_the_squatted_advert_folder(squatted_env: TestEnv) -> None:
    done = subprocess.run(
        [str(BIN / "designctl"), "doctor"], env=squatted_env.env, capture_output=True, text=True, timeout=60
    )
    folder = user_folder(squatted_env.config)
    assert f"[warn] advert folder: {folder} belongs to uid" in done.stdout, done.stdout
    assert f"remove {folder}" in done.stdout
