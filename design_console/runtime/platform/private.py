"""Folders and files only this user may open: 0700/0600 and an owner check on POSIX, an ACL of the user (plus
SYSTEM and Administrators) on Windows, where modes mean nothing but the read-only flag.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

#: How often, and how long between tries, a rename onto a file another process has open is retried on Windows
#: (CPython opens files without FILE_SHARE_DELETE, so a reader of an advert blocks its refresh for a moment).
REPLACE_TRIES = 10
REPLACE_PAUSE = 0.01


if sys.platform == "win32":

    def advert_folder(temp_dir: Path, user_home: Path) -> Path:
        """This user's port-advert folder, which every installation of the user reads: in the profile, since the
        temp dir is in AppData, which MSIX-packaged AI apps redirect for their children."""
        return user_home / ".design-console-mcp" / "adverts"

    def user_key() -> str:
        """A name for this user that is safe in a file name (its account name)."""
        return "".join(c if c.isalnum() else "_" for c in os.environ.get("USERNAME", "user"))

    def owned_by_me(info: os.stat_result) -> bool:
        # Windows reports no owner in a stat; the folder's ACL (set on creation) is what keeps it private.
        return True

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
        return " ".join(done.stdout.split())

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
    if not owned_by_me(info):
        return (
            f"{path} belongs to uid {info.st_uid}, not to you (uid {user_key()}).",
            "Set DESIGN_RUNTIME_DIR to a directory of your own.",
        )
    if open_to_others(info):
        mode = stat.S_IMODE(info.st_mode)
        return f"{path} is open to other users (mode {mode:o}).", f"Fix it with: {private_fix(path)}"
    return None
