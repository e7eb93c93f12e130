"""Starting designd at login, per user and without admin rights: a systemd user unit on Linux, a launchd agent
loaded with ``launchctl bootstrap gui/<uid>`` on macOS, a Task Scheduler task scoped to this user on Windows, or a
value of this user's Run key where policy refuses the task.

Each OS gets a :class:`ServicePlan`: the file to write and the commands that enable, query or disable it. The file
contents are pure functions of their inputs, so they are tested on every OS.
"""

from __future__ import annotations

import os
import plistlib
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from xml.sax.saxutils import escape

from design_console.runtime.launch import DAEMON_MODULE

SERVICE_LABEL = "com.design-console-mcp.designd"
TASK_NAME = "design-console-mcp designd"
#: This user's Run key: Windows starts each of its values at the user's logon.
RUN_KEY = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Run"
RUN_KEY_PATH = r"Software\Microsoft\Windows\CurrentVersion\Run"
#: A launchd agent's soft limit on open files (GUI sessions start at 256; OPEN_MAX is 10240).
LAUNCHD_OPEN_FILES = 10240


@dataclass(frozen=True)
class RunKeyEntry:
    """A value of this user's Run key: ``command`` runs at each logon. It needs no admin rights and no Task Scheduler,
    but nothing restarts designd when it fails."""

    name: str
    command: str


class RunKey(Protocol):
    """This user's Run key, one value at a time."""

    def get(self, name: str) -> str | None:
        """The command of value ``name``; None when there is none."""

    def set(self, name: str, command: str) -> None:
        """Write value ``name``; raises OSError when the registry refuses."""

    def delete(self, name: str) -> bool:
        """Remove value ``name``; False when there was none."""


@dataclass(frozen=True)
class ServicePlan:
    """What ``designctl service install|uninstall|status`` does on this OS."""

    #: What the service manager calls the item, for people.
    kind: str
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
    #: Succeeds when the service manager has the item (installed and enabled or loaded).
    query: tuple[str, ...] = ()
    #: Run before ``enable``; these may fail (nothing to undo yet).
    prepare: tuple[tuple[str, ...], ...] = ()
    #: Written instead when the service manager refuses the item.
    fallback: RunKeyEntry | None = None


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
        kind="systemd user unit designd.service",
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
        query=("systemctl", "--user", "is-enabled", "--quiet", "designd.service"),
        after_removal=(("systemctl", "--user", "daemon-reload"),),
    )


def launchd_plan(designd: str, user_home: Path, log_dir: Path, uid: int) -> ServicePlan:
    """The launchd agent, loaded into this user's GUI domain (``load -w`` is legacy since macOS 10.10)."""
    path = user_home / "Library" / "LaunchAgents" / f"{SERVICE_LABEL}.plist"
    domain = f"gui/{uid}"
    return ServicePlan(
        kind=f"launchd agent {SERVICE_LABEL}",
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
        query=("launchctl", "print", f"{domain}/{SERVICE_LABEL}"),
    )


def task_plan(python: Path, home: Path, user_id: str) -> ServicePlan:
    """The Task Scheduler task, registered from an XML file kept in the private home; the Run key value that starts
    the same command when policy refuses the task."""
    path = home / "designd-task.xml"
    # pythonw has no console: a login item must not open a window.
    windowless = python.with_name("pythonw.exe")
    command = str(windowless if windowless.exists() else python)
    arguments = ["-P", "-m", DAEMON_MODULE, "--foreground"]
    xml = task_xml(command, arguments, user_id)
    return ServicePlan(
        kind=f"Task Scheduler task {TASK_NAME!r}",
        path=path,
        content=xml.encode("utf-16"),
        enable=(("schtasks", "/Create", "/TN", TASK_NAME, "/XML", str(path), "/F"),),
        fix=(
            f'Run `schtasks /Create /TN {TASK_NAME} /XML "{path}" /F` in a PowerShell window of your own, then '
            "`designctl status`. Without a task, AI apps start designd on demand."
        ),
        disable=(("schtasks", "/Delete", "/TN", TASK_NAME, "/F"),),
        query=("schtasks", "/Query", "/TN", TASK_NAME),
        fallback=RunKeyEntry(TASK_NAME, subprocess.list2cmdline([command, *arguments])),
    )


if sys.platform == "win32":
    import winreg

    class _RegistryRunKey:
        """The Run key of HKEY_CURRENT_USER, through winreg."""

        def get(self, name: str) -> str | None:
            try:
                with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY_PATH) as key:
                    value, kind = winreg.QueryValueEx(key, name)
            except FileNotFoundError:
                return None
            return value if kind in (winreg.REG_SZ, winreg.REG_EXPAND_SZ) and isinstance(value, str) else None

        def set(self, name: str, command: str) -> None:
            with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, RUN_KEY_PATH, 0, winreg.KEY_SET_VALUE) as key:
                winreg.SetValueEx(key, name, 0, winreg.REG_SZ, command)

        def delete(self, name: str) -> bool:
            try:
                with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY_PATH, 0, winreg.KEY_SET_VALUE) as key:
                    winreg.DeleteValue(key, name)
            except FileNotFoundError:
                return False
            return True

    def user_run_key() -> RunKey | None:
        """This user's Run key."""
        return _RegistryRunKey()

    def service_plan(
        *, designd: str, unit_text: Callable[[str], str], user_home: Path, config_home: Path, home: Path, log_dir: Path
    ) -> ServicePlan:
        """This OS's start-at-login item for this installation."""
        domain = os.environ.get("USERDOMAIN", "")
        user = os.environ.get("USERNAME", "")
        return task_plan(Path(sys.executable), home, f"{domain}\\{user}" if domain else user)

elif sys.platform == "darwin":

    def user_run_key() -> RunKey | None:
        """macOS has no Run key."""
        return None

    def service_plan(
        *, designd: str, unit_text: Callable[[str], str], user_home: Path, config_home: Path, home: Path, log_dir: Path
    ) -> ServicePlan:
        """This OS's start-at-login item for this installation."""
        return launchd_plan(designd, user_home, log_dir, os.getuid())

else:

    def user_run_key() -> RunKey | None:
        """Linux has no Run key."""
        return None

    def service_plan(
        *, designd: str, unit_text: Callable[[str], str], user_home: Path, config_home: Path, home: Path, log_dir: Path
    ) -> ServicePlan:
        """This OS's start-at-login item for this installation."""
        return systemd_plan(unit_text(designd), config_home)
