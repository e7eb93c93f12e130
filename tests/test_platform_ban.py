"""Every OS difference lives in ``design_console/runtime/platform/``: no other module imports an OS-only module, uses
a POSIX-only or Windows-only call, or branches on the OS.

mypy checks the platform package once per OS (``--platform linux|darwin|win32``); what mypy cannot see (an
``os.kill(pid, 0)`` that kills on Windows, an ignored ``start_new_session``, an event-loop method that raises
``NotImplementedError`` on the Proactor loop) is caught here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import design_console

PACKAGE = Path(design_console.__file__).parent
PLATFORM = PACKAGE / "runtime" / "platform"

#: Modules that exist on one OS family only.
OS_MODULES = {"fcntl", "msvcrt", "pwd", "grp", "termios", "resource", "winreg", "_winapi", "nt", "posix"}
#: ``module.attribute`` uses that work on one OS family only, or not at all on Windows' default event loop.
OS_ATTRIBUTES = {
    ("os", "getuid"),
    ("os", "geteuid"),
    ("os", "killpg"),
    ("os", "getppid"),
    ("os", "fchmod"),
    ("os", "pwrite"),
    ("os", "name"),
    ("signal", "SIGKILL"),
    ("sys", "platform"),
    ("platform", "system"),
}
#: Attribute names that are OS-specific whatever object they are read from.
OS_NAMES = {"AF_UNIX", "add_reader", "add_writer", "add_signal_handler", "start_new_session", "uids"}
OS_PREFIXES = ("create_unix_",)
OS_STRINGS = ("/bin/sh",)


def _dotted(node: ast.expr) -> tuple[str, str] | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id, node.attr
    return None


def _masks_others(node: ast.BinOp) -> bool:
    """``x.st_mode & 0o077`` and the like: a mask of group or other bits alone. A mask with the owner's bits too
    (``& 0o777``) copies a mode, which means the same on every OS."""
    sides = (node.left, node.right)
    mode = any(isinstance(side, ast.Attribute) and side.attr == "st_mode" for side in sides)
    masks = [side.value for side in sides if isinstance(side, ast.Constant) and isinstance(side.value, int)]
    return mode and any(mask & 0o077 and not mask & 0o700 for mask in masks)


def _violations(source: str, name: str) -> list[str]:
    """Each OS-specific use in ``source`` as ``name:line: what``."""
    tree = ast.parse(source, name)
    bad: list[str] = []
    for node in ast.walk(tree):
        found: str | None = None
        if isinstance(node, ast.Import):
            hits = [a.name for a in node.names if a.name.split(".")[0] in OS_MODULES]
            found = f"imports {', '.join(hits)}" if hits else None
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in OS_MODULES:
                found = f"imports from {node.module}"
            elif any(a.name in OS_NAMES or a.name.startswith(OS_PREFIXES) for a in node.names):
                found = f"imports an OS-specific name from {node.module}"
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted is not None and dotted in OS_ATTRIBUTES:
                found = f"uses {dotted[0]}.{dotted[1]}"
            elif node.attr in OS_NAMES or node.attr.startswith(OS_PREFIXES):
                found = f"uses .{node.attr}"
        elif isinstance(node, ast.keyword) and node.arg in OS_NAMES:
            found = f"passes {node.arg}="
        elif isinstance(node, ast.Call) and _dotted(node.func) == ("os", "kill") and len(node.args) == 2:
            signal = node.args[1]
            if isinstance(signal, ast.Constant) and signal.value == 0:
                found = "probes a pid with os.kill(pid, 0)"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd) and _masks_others(node):
            found = "reads other users' mode bits (Windows has none: its ACLs guard our files)"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            hits = [s for s in OS_STRINGS if s in node.value]
            found = f"names {', '.join(hits)}" if hits else None
        if found is not None:
            bad.append(f"{name}:{getattr(node, 'lineno', 0)}: {found}")
    return bad


def test_no_module_outside_the_platform_layer_is_os_specific() -> None:
    bad: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if PLATFORM in path.parents:
            continue
        bad += _violations(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))
    assert bad == []


def test_the_ban_sees_each_kind_of_os_specific_code() -> None:
    """The check above must notice every form it bans, or passing it proves nothing."""
    samples = {
        "import fcntl": "imports fcntl",
        "import msvcrt": "imports msvcrt",
        "from resource import getrlimit": "imports from resource",
        "import pwd, grp, termios, winreg": "imports pwd, grp, termios, winreg",
        "socket.socket(socket.AF_UNIX)": "uses .AF_UNIX",
        "from socket import AF_UNIX": "imports an OS-specific name",
        "os.getuid()": "uses os.getuid",
        "os.killpg(1, 9)": "uses os.killpg",
        "signal.SIGKILL": "uses signal.SIGKILL",
        "os.kill(pid, 0)": "probes a pid",
        "os.getppid()": "uses os.getppid",
        "subprocess.run(['x'], start_new_session=True)": "passes start_new_session=",
        "subprocess.run(['/bin/sh', '-c', 'x'])": "names /bin/sh",
        "loop.add_reader(fd, cb)": "uses .add_reader",
        "loop.add_signal_handler(15, cb)": "uses .add_signal_handler",
        "loop.create_unix_server(cb, path)": "uses .create_unix_server",
        "if sys.platform == 'win32': pass": "uses sys.platform",
        "proc.uids()": "uses .uids",
        "if path.stat().st_mode & 0o077: pass": "reads other users' mode bits",
        "info.st_mode & 0o002": "reads other users' mode bits",
    }
    for code, expected in samples.items():
        found = _violations(code, "sample")
        assert found and expected in found[0], (code, found)
    assert _violations("os.kill(pid, signal.SIGTERM)\nos.getpid()\nsocket.AF_INET", "sample") == []
    assert _violations("mode = path.stat().st_mode & 0o777", "sample") == []
