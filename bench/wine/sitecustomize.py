"""Wine 8 lacks PssCaptureSnapshot, which CPython 3.13's ``os.getppid`` calls on Windows; the toolhelp snapshot that
psutil reads answers the same question there."""

import os


def _getppid() -> int:
    import psutil

    return psutil.Process().ppid()


os.getppid = _getppid
