"""Each AI app's DESIGN_ACCESS_TOKEN reaches designd for that app's own session: a token added to an app's config
after designd started takes effect with that app's next chat, without restarting designd."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from fakes.api_server import ApiServer
from fakes.design_api import ENTERPRISE_KEY, OAUTH_TOKEN, PERSONAL_TOKEN
from mcp import Client, StdioServerParameters
from procs import BIN, TestEnv, running_daemon, wait_for

FILE_PATH = f"/v1/files/{ENTERPRISE_KEY}"


def _shim(env: TestEnv, token: str | None) -> StdioServerParameters:
    """The stdio server as an AI app whose config has ``token`` (None: no DESIGN_ACCESS_TOKEN at all)."""
    variables = {k: v for k, v in env.env.items() if k != "DESIGN_ACCESS_TOKEN"}
    if token is not None:
        variables["DESIGN_ACCESS_TOKEN"] = token
    return StdioServerParameters(command=str(BIN / "design-console-mcp"), env=variables)


def _ctl(env: TestEnv, *args: str) -> subprocess.CompletedProcess[str]:
    # designctl from a terminal without the token: what it reports must be designd's state, not its own environment.
    variables = {k: v for k, v in env.env.items() if k != "DESIGN_ACCESS_TOKEN"}
    return subprocess.run([str(BIN / "designctl"), *args], env=variables, capture_output=True, text=True, timeout=60)


def _file_reads(fake_api: ApiServer) -> list[str]:
    return [r["token"] for r in fake_api.requests() if r["path"] == FILE_PATH]


def _files_holding(root: Path, secret: str) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            try:
                if secret.encode() in path.read_bytes():
                    found.append(path)
            except OSError:
                continue
    return found


async def test_each_session_reads_with_its_own_apps_token(dc_env: TestEnv, fake_api: ApiServer) -> None:
    # designd starts from an app without a token, as when the first chat of the day came from such an app.
    dc_env.env["DESIGN_API_URL"] = fake_api.url
    dc_env.env.pop("DESIGN_ACCESS_TOKEN", None)
    for _ in running_daemon(dc_env):
        args: dict[str, Any] = {"fileUrl": ENTERPRISE_KEY, "depth": 1}
        async with (
            Client(_shim(dc_env, PERSONAL_TOKEN), mode="legacy") as personal,
            Client(_shim(dc_env, OAUTH_TOKEN), mode="legacy") as oauth,
            Client(_shim(dc_env, None), mode="legacy") as without,
        ):
            status = json.loads(_ctl(dc_env, "status", "--json").stdout)
            assert status["designApi"] == {"designdToken": False, "sessionsWithOwnToken": 2, "sessions": 3}

            first = await personal.call_tool("design_get_file_data", args)
            assert not first.is_error, first.content
            assert _file_reads(fake_api) == ["personal"]
            second = await oauth.call_tool("design_get_file_data", args)
            assert not second.is_error, second.content
            # Not served from the first session's cache: the second token's own request reached the API.
            assert _file_reads(fake_api) == ["personal", "oauth"]

            refused = await without.call_tool("design_get_file_data", args)
            assert refused.is_error
            text = refused.content[0].text  # type: ignore[union-attr]
            assert "DESIGN_ACCESS_TOKEN" in text and "restart that app" in text and "need not restart" in text

            diagnosed = await personal.call_tool("design_diagnose", {})
            assert json.loads(diagnosed.content[0].text)["designApi"]["tokenPresent"] is True  # type: ignore[union-attr]
            diagnosed = await without.call_tool("design_diagnose", {})
            assert json.loads(diagnosed.content[0].text)["designApi"]["tokenPresent"] is False  # type: ignore[union-attr]

            doctor = _ctl(dc_env, "doctor").stdout
            assert "designd has no design API token of its own; 2 of 3 AI app session(s) bring their own" in doctor
        # No token was written anywhere: not in designd's log, its caches, its runtime dir.
        wait_for(lambda: _ctl(dc_env, "status").returncode == 0, 10, "designd")
        for secret in (PERSONAL_TOKEN, OAUTH_TOKEN):
            assert _files_holding(dc_env.root, secret) == []
