"""Starting designd at login, per user and without admin rights: a systemd user unit on Linux, a launchd agent
loaded with ``launchctl bootstrap gui/<uid>`` on macOS, a Task Scheduler task scoped to this user on Windows.

Each OS gets a :class:`ServicePlan`: the file to write and the commands that enable or disable it. The file contents
are pure functions of their inputs, so they are tested on every OS.
"""

from __future__ import annotations

import os
import plistlib
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from design_console.runtime.launch import DAEMON_MODULE

SERVICE_LABEL = "com.design-console-mcp.designd"
TASK_NAME = "design-console-mcp designd"
#: A launchd agent's soft limit on open files (GUI sessions start at 256; OPEN_MAX is 10240).
LAUNCHD_OPEN_FILES = 10240


@dataclass(frozen=True)
class ServicePlan:
    """What ``designctl service install|uninstall`` does on this OS."""

    path: Path
    content: bytes
    #: Run after the file is written.
    enable: tuple[tuple[str, ...], ...]
    #: The next step when an ``enable`` command fails.
    fix: str
    #: Run before the file is removed.
    disable: tuple[tuple[str, ...], ...]
    #: Run after the file is removed.
    after_removal: tuple[tuple[str, ...], ...] = ()
    #: Run before ``enable``; these may fail (nothing to undo yet).
    prepare: tuple[tuple[str, ...], ...] = ()


def launchd_plist(argv: Sequence[str], stderr_log: Path, label: str = SERVICE_LABEL) -> bytes:
    """A launchd agent that runs ``argv`` at login and again when it fails (not after a clean exit)."""
    return plistlib.dumps(
        {
            "Label": label,
            "ProgramArguments": list(argv),
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},
            "ProcessType": "Background",
            "StandardErrorPath": str(stderr_log),
            "SoftResourceLimits": {"NumberOfFiles": LAUNCHD_OPEN_FILES},
        }
    )


def task_xml(command: str, arguments: Sequence[str], user_id: str, description: str = "design-console-mcp") -> str:
    """A Task Scheduler task (schema 1.2) that runs ``command arguments`` when ``user_id`` logs on.

    A logon trigger scoped to the user with an interactive, least-privilege principal registers without admin
    rights. The defaults that would stop designd are lifted: the 72-hour run limit, the battery rules; a second
    start while one runs is ignored, and a failed run is retried.
    """
    args = subprocess.list2cmdline(arguments)
    user = escape(user_id)
    return f"""<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>{escape(description)}</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>{user}</UserId>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>{user}</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>3</Count>
    </RestartOnFailure>
    <StartWhenAvailable>true</StartWhenAvailable>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>{escape(subprocess.list2cmdline([command]))}</Command>
      <Arguments>{escape(args)}</Arguments>
    </Exec>
  </Actions>
</Task>
"""


def systemd_plan(unit_text: str, config_home: Path) -> ServicePlan:
    """The systemd user unit ``designd.service``, enabled and started at once."""
    return ServicePlan(
        path=config_home / "systemd" / "user" / "designd.service",
        content=unit_text.encode(),
        enable=(
            ("systemctl", "--user", "daemon-reload"),
            ("systemctl", "--user", "enable", "--now", "designd.service"),
        ),
        fix=(
            "'Failed to connect to bus' means this shell has no systemd user session (su, sudo, ssh without "
            "lingering, a container). Log in as this user directly, or run `loginctl enable-linger $USER` and set "
            "XDG_RUNTIME_DIR=/run/user/$(id -u), then `systemctl --user daemon-reload && systemctl --user enable "
            "--now designd.service`. Without a service, AI apps start designd on demand."
        ),
        disable=(("systemctl", "--user", "disable", "--now", "designd.service"),),
        after_removal=(("systemctl", "--user", "daemon-reload"),),
    )


def launchd_plan(designd: str, user_home: Path, log_dir: Path, uid: int) -> ServicePlan:
    """The launchd agent, loaded into this user's GUI domain (``load -w`` is legacy since macOS 10.10)."""
    path = user_home / "Library" / "LaunchAgents" / f"{SERVICE_LABEL}.plist"
    domain = f"gui/{uid}"
    return ServicePlan(
        path=path,
        content=launchd_plist([designd, "--foreground"], log_dir / "designd.stderr.log"),
        # A loaded older copy is booted out first: bootstrap refuses a label that is already loaded.
        prepare=(("launchctl", "bootout", f"{domain}/{SERVICE_LABEL}"),),
        enable=(("launchctl", "bootstrap", domain, str(path)),),
        fix=(
            f"Run `launchctl bootstrap {domain} '{path}'` in a terminal of your own login session, "
            "then `designctl status`."
        ),
        disable=(("launchctl", "bootout", f"{domain}/{SERVICE_LABEL}"),),
    )


def task_plan(python: Path, home: Path, user_id: str) -> ServicePlan:
    """The Task Scheduler task, registered from an XML file kept in the private home."""
    path = home / "designd-task.xml"
    # pythonw has no console: a login item must not open a window.
    windowless = python.with_name("pythonw.exe")
    command = str(windowless if windowless.exists() else python)
    xml = task_xml(command, ["-P", "-m", DAEMON_MODULE, "--foreground"], user_id)
    return ServicePlan(
        path=path,
        content=xml.encode("utf-16"),
        enable=(("schtasks", "/Create", "/TN", TASK_NAME, "/XML", str(path), "/F"),),
        fix=(
            f'Run `schtasks /Create /TN {TASK_NAME} /XML "{path}" /F` in a PowerShell window of your own, then '
            "`designctl status`. Without a task, AI apps start designd on demand."
        ),
        disable=(("schtasks", "/Delete", "/TN", TASK_NAME, "/F"),),
    )


if sys.platform == "win32":

    def service_plan(
        *, designd: str, unit_text: Callable[[str], str], user_home: Path, config_home: Path, home: Path, log_dir: Path
    ) -> ServicePlan:
        """This OS's start-at-login item for this installation."""
        domain = os.environ.get("USERDOMAIN", "")
        user = os.environ.get("USERNAME", "")
        return task_plan(Path(sys.executable), home, f"{domain}\\{user}" if domain else user)

elif sys.platform == "darwin":

    def service_plan(
        *, designd: str, unit_text: Callable[[str], str], user_home: Path, config_home: Path, home: Path, log_dir: Path
    ) -> ServicePlan:
        """This OS's start-at-login item for this installation."""
        return launchd_plan(designd, user_home, log_dir, os.getuid())

else:

    def service_plan(
        *, designd: str, unit_text: Callable[[str], str], user_home: Path, config_home: Path, home: Path, log_dir: Path
    ) -> ServicePlan:
        """This OS's start-at-login item for this installation."""
        return systemd_plan(unit_text(designd), config_home)
