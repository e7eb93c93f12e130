"""A network of the test's own: a Python script run in a fresh network namespace with an Ethernet-like interface (one
end of a veth pair) whose addresses stand for the host's LAN, a private network or the public internet.

Packets to those addresses never leave the namespace, so a test can show what a browser would send to them (and
serve pages on them) without sending anything past this machine. Needs ``unshare`` (util-linux) and ``ip``
(iproute2), and either root or unprivileged user namespaces; where they are missing the test skips and says why.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from typing import Any

import pytest


def available() -> str | None:
    """Why a namespace cannot be made here, or None when it can."""
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = subprocess.run(
        ["unshare", "--net", "--map-root-user", "true"], capture_output=True, text=True, timeout=30, check=False
    )
    if probe.returncode != 0:
        return f"no network namespace for this user: {probe.stderr.strip()}"
    return None


def run(addresses: list[str], script: str, *, timeout: float = 120) -> dict[str, Any]:
    """Run ``script`` with this interpreter in a new network namespace where loopback is up and a veth interface
    holds ``addresses``; the script prints one JSON object last, which is returned."""
    reason = available()
    if reason is not None:
        pytest.skip(reason)
    setup = [
        "ip link set lo up",
        "ip link add lan0 type veth peer name lan1",
        "ip link set lan1 up",
        "ip link set lan0 up",
        *(f"ip addr add {shlex.quote(a)} dev lan0" for a in addresses),
    ]
    command = " && ".join([*setup, f"exec {shlex.quote(sys.executable)} -c {shlex.quote(script)}"])
    done = subprocess.run(
        ["unshare", "--net", "--map-root-user", "sh", "-c", command],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))
