"""designd's log (design_console.runtime.logs): secrets never reach the file or stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# --- log redaction --------------------------------------------------------------------------------------------

LOGGER = """
import logging, sys
from design_console.config import load_config
from design_console.runtime.logs import setup_logging
from design_console.runtime.dirs import ensure_private_dir
config = load_config()
ensure_private_dir(config.home)
bridge = sys.argv[1]
print(setup_logging(config, "designd", [bridge]), flush=True)
log = logging.getLogger("design_console.test")
log.info("args %s and %s", config.access_token, bridge)
log.info("dict %s", {"token": bridge, "access": config.access_token})
log.warning("inline " + bridge + " " + config.access_token)
log.info("secret %s", config.oauth_client_secret)
log.info("plain line")
{extra}
"""

ACCESS = "figd_access_token_value_0123456789"
BRIDGE = "bridge-token-value-abcdefghijklmnop"
OAUTH = "oauth-client-secret-value-xyz"


def _run_logger(tmp_path: Path, extra: str = "") -> tuple[str, str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DESIGN_")},
        "DESIGN_CONSOLE_HOME": str(tmp_path / "dc"),
        "DESIGN_ACCESS_TOKEN": ACCESS,
        "DESIGN_OAUTH_CLIENT_SECRET": OAUTH,
        "LOG_LEVEL": "debug",
    }
    done = subprocess.run(
        [sys.executable, "-c", LOGGER.replace("{extra}", extra), BRIDGE],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    log_file = Path(done.stdout.splitlines()[0])
    assert log_file == tmp_path / "dc" / "logs" / "designd.log"
    return log_file.read_text(), done.stderr


def test_secrets_never_reach_the_log(tmp_path: Path) -> None:
    text, stderr = _run_logger(tmp_path)
    for output in (text, stderr):
        assert "plain line" in output and "args *** and ***" in output
        for secret in (ACCESS, BRIDGE, OAUTH):
            assert secret not in output


def test_secrets_in_a_logged_exception_are_redacted(tmp_path: Path) -> None:
    extra = (
        "try:\n    raise RuntimeError('bad token ' + bridge)\nexcept RuntimeError:\n    log.exception('call failed')\n"
    )
    text, stderr = _run_logger(tmp_path, extra)
    assert "failed" in text and "RuntimeError" in text
    assert BRIDGE not in text and BRIDGE not in stderr
