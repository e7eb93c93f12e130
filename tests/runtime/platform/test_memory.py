"""A process that grew through a big job gives the memory back once the job let go of it."""

from __future__ import annotations

import gc
import sys

import psutil
import pytest

from design_console.runtime.platform.memory import RECLAIM_BYTES, Reclaimer

MIB = 2**20


def _resident() -> int:
    return int(psutil.Process().memory_info().rss)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's heap trim is the part measured here")
def test_after_a_big_job_the_memory_goes_back() -> None:
    gc.collect()
    reclaimer = Reclaimer()
    start = _resident()
    # What parsing a big token file leaves behind: many small objects, some in reference cycles.
    job: list[dict[str, object]] = []
    for i in range(200_000):
        item: dict[str, object] = {"name": f"color/{i}", "values": [i, i * 2.5, str(i)]}
        item["self"] = item
        job.append(item)
    grown = _resident() - start
    assert grown > 4 * RECLAIM_BYTES, f"the job grew the process by {grown / MIB:.0f} MiB only"
    del job, item
    reclaimer.after_job()
    kept = _resident() - start
    assert kept < grown / 4, f"{kept / MIB:.0f} of {grown / MIB:.0f} MiB stayed"
