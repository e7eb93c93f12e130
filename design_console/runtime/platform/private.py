"""Folders and files only this user may open: 0700/0600 and an owner check on POSIX, an ACL of the user (plus
SYSTEM and Administrators) on Windows, where modes mean nothing but the read-only flag.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

#: Owners a folder of ours may have besides the user: SYSTEM and the Administrators group, which only a privileged
#: process can make a folder's owner (an elevated process of the user itself makes its folders Administrators').
PRIVILEGED_OWNERS = frozenset({"S-1-5-18", "S-1-5-32-544"})
#: How often, and how long between tries, a rename onto a file another process has open is retried on Windows
#: (CPython opens files without FILE_SHARE_DELETE, so a reader of an advert blocks its refresh for a moment).
REPLACE_TRIES = 10
REPLACE_PAUSE = 0.01


if sys.platform == "win32":
    import subprocess

    def advert_folder(temp_dir: Path, user_home: Path) -> Path:
        """This user's port-advert folder, which every installation of the user reads: in the profile, since the
        temp dir is in AppData, which MSIX-packaged AI apps redirect for their children."""
        return user_home / ".design-console-mcp" / "adverts"

    def user_key() -> str:
        """A name for this user that is safe in a file name (its account name)."""
        return "".join(c if c.isalnum() else "_" for c in os.environ.get("USERNAME", "user"))

    def owned_by_me(info: os.stat_result) -> bool:
        # Windows reports no owner in a stat: private_dir_problem asks for the folder's owner SID by its path.
        return True

    import ctypes
    from ctypes import wintypes

    _SE_FILE_OBJECT = 1
    _OWNER_SECURITY_INFORMATION = 1
    _TOKEN_QUERY = 0x0008
    _TOKEN_USER = 1

    def _sid_text(sid: ctypes.c_void_p) -> str | None:
        advapi32 = ctypes.WinDLL("advapi32", use_last_error=True)
        text = wintypes.LPWSTR()
        if not advapi32.ConvertSidToStringSidW(sid, ctypes.byref(text)):
            return None
        try:
            return text.value
        finally:
            ctypes.WinDLL("kernel32").LocalFree(text)

    def path_owner(path: Path) -> str | None:
        """The owner SID of ``path`` (``S-1-5-21-…``); None when Windows does not say."""
        advapi32 = ctypes.WinDLL("advapi32", use_last_error=True)
        owner = ctypes.c_void_p()
        descriptor = ctypes.c_void_p()
        failed = advapi32.GetNamedSecurityInfoW(
            str(path),
            _SE_FILE_OBJECT,
            _OWNER_SECURITY_INFORMATION,
            ctypes.byref(owner),
            None,
            None,
            None,
            ctypes.byref(descriptor),
        )
        if failed:
            return None
        try:
            return _sid_text(owner)
        finally:
            ctypes.WinDLL("kernel32").LocalFree(descriptor)

    def current_user() -> str | None:
        """This process's user SID, from its access token; None when Windows does not say."""
        advapi32 = ctypes.WinDLL("advapi32", use_last_error=True)
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        token = wintypes.HANDLE()
        if not advapi32.OpenProcessToken(kernel32.GetCurrentProcess(), _TOKEN_QUERY, ctypes.byref(token)):
            return None
        try:
            size = wintypes.DWORD()
            advapi32.GetTokenInformation(token, _TOKEN_USER, None, 0, ctypes.byref(size))
            buffer = ctypes.create_string_buffer(size.value)
            if not advapi32.GetTokenInformation(token, _TOKEN_USER, buffer, size, ctypes.byref(size)):
                return None
            # TOKEN_USER starts with a SID_AND_ATTRIBUTES, whose first field points at the SID.
            return _sid_text(ctypes.cast(buffer, ctypes.POINTER(ctypes.c_void_p))[0])
        finally:
            kernel32.CloseHandle(token)

    def open_to_others(info: os.stat_result) -> bool:
        return False

    def _restrict(path: Path) -> None:
        user = os.environ.get("USERNAME", "")
        if not user:
            return
        subprocess.run(
            [
                "icacls",
                str(path),
                "/inheritance:r",
                "/grant:r",
                f"{user}:(OI)(CI)F",
                "*S-1-5-18:(OI)(CI)F",
                "*S-1-5-32-544:(OI)(CI)F",
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
            creationflags=subprocess.CREATE_NO_WINDOW,
        )

    def make_private_dir(path: Path) -> None:
        """Create ``path`` (and its parents) and close it to other users with an ACL."""
        existed = path.is_dir()
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not existed:
            _restrict(path)

    def chmod_private(fd: int, mode: int) -> None:
        # The folder's inherited ACL is the file's protection.
        return None

    def replace(source: str | Path, target: Path) -> None:
        """``os.replace``, retried briefly while another process has ``target`` open."""
        for attempt in range(REPLACE_TRIES):
            try:
                os.replace(source, target)
                return
            except PermissionError:
                if attempt == REPLACE_TRIES - 1:
                    raise
                time.sleep(REPLACE_PAUSE)

    def describe_access(path: Path) -> str:
        """Who may open ``path``, as ``icacls`` lists it (for ``designctl doctor``)."""
        done = subprocess.run(
            ["icacls", str(path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            creationflags=subprocess.CREATE_NO_WINDOW,
        )
        return " ".join(done.stdout.split()) or "icacls printed no access list"

    def private_fix(path: Path) -> str:
        return f'icacls "{path}" /inheritance:r /grant:r "%USERNAME%:(OI)(CI)F"'

else:

    def advert_folder(temp_dir: Path, user_home: Path) -> Path:
        """This user's port-advert folder, which every installation of the user reads:
        ``<temp dir>/design-console-mcp-<uid>`` (the caller checks that it is the user's own: anyone may create names
        in a shared temp dir)."""
        return temp_dir / f"design-console-mcp-{user_key()}"

    def user_key() -> str:
        """A name for this user that is safe in a file name (its uid)."""
        return str(os.getuid())

    def owned_by_me(info: os.stat_result) -> bool:
        """Whether the file ``info`` describes belongs to this user."""
        return info.st_uid == os.getuid()

    def path_owner(path: Path) -> str | None:
        """The owner of ``path``: its uid."""
        return f"uid {path.lstat().st_uid}"

    def current_user() -> str | None:
        """This process's user: its uid."""
        return f"uid {os.getuid()}"

    def open_to_others(info: os.stat_result) -> bool:
        """Whether group or others have any access bit."""
        return bool(info.st_mode & 0o077)

    def make_private_dir(path: Path) -> None:
        """Create ``path`` (and its parents) with mode 0700."""
        path.mkdir(mode=0o700, parents=True, exist_ok=True)

    def chmod_private(fd: int, mode: int) -> None:
        """Set the mode of an open file (0600 for our files)."""
        os.fchmod(fd, mode)

    def replace(source: str | Path, target: Path) -> None:
        """``os.replace``: atomic on POSIX, even over a file another process has open."""
        os.replace(source, target)

    def describe_access(path: Path) -> str:
        """Owner and mode of ``path`` (for ``designctl doctor``)."""
        info = path.lstat()
        return f"owner uid {info.st_uid}, mode {stat.S_IMODE(info.st_mode):o}"

    def private_fix(path: Path) -> str:
        return f"chmod 700 {path}"


def private_dir_problem(path: Path) -> tuple[str, str] | None:
    """Why the existing folder ``path`` is not safe for our files, with the fix; None when it is ours and private."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a directory.", f"Remove it and start again: rm {path}"
    # An owner the OS cannot name (a Windows volume without security, such as FAT) guards nothing to check.
    owner, me = path_owner(path), current_user()
    if owner is not None and me is not None and owner != me and owner not in PRIVILEGED_OWNERS:
        return (
            f"{path} belongs to {owner}, not to you ({me}).",
            "Set DESIGN_RUNTIME_DIR to a directory of your own.",
        )
    if open_to_others(info):
        mode = stat.S_IMODE(info.st_mode)
        return f"{path} is open to other users (mode {mode:o}).", f"Fix it with: {private_fix(path)}"
    return None
