"""A worker's state changes only by a move its table allows, and every move is logged."""

from __future__ import annotations

import logging

import pytest

from design_console.daemon.supervisor import ENTERED_FROM, IllegalMove, Worker, WorkerState


def test_a_worker_walks_its_life_one_allowed_move_at_a_time(caplog: pytest.LogCaptureFixture) -> None:
    worker = Worker("api")
    path = [
        WorkerState.STARTING,
        WorkerState.RUNNING,
        WorkerState.BACKOFF,
        WorkerState.STARTING,
        WorkerState.RUNNING,
        WorkerState.IDLE_STOPPING,
        WorkerState.IDLE_STOPPED,
        WorkerState.STOPPING,
        WorkerState.STOPPED,
    ]
    with caplog.at_level(logging.DEBUG, logger="design_console.supervisor"):
        for state in path:
            worker.move(state)
    assert worker.state is WorkerState.STOPPED
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("api worker: ")]
    assert logged[0] == "api worker: not started -> starting"
    assert logged[-1] == "api worker: stopping -> stopped"
    assert len(logged) == len(path)


@pytest.mark.parametrize(
    ("before", "target"),
    [
        ((), WorkerState.RUNNING),  # a hello before any start
        ((WorkerState.STARTING, WorkerState.RUNNING), WorkerState.IDLE_STOPPED),  # an idle stop skipping its stop
        ((WorkerState.STARTING, WorkerState.RUNNING, WorkerState.STOPPING), WorkerState.RUNNING),  # revived in shutdown
        ((WorkerState.STARTING, WorkerState.RUNNING, WorkerState.STOPPING), WorkerState.STOPPING),  # stopped twice
    ],
)
def test_an_illegal_move_is_refused_and_leaves_the_state_as_it_was(
    before: tuple[WorkerState, ...], target: WorkerState
) -> None:
    worker = Worker("media")
    for state in before:
        worker.move(state)
    was = worker.state
    with pytest.raises(IllegalMove, match=f"from {was} to {target}"):
        worker.move(target)
    assert worker.state is was


def test_every_state_has_its_row_and_nothing_re_enters_not_started() -> None:
    assert set(ENTERED_FROM) == set(WorkerState)
    assert ENTERED_FROM[WorkerState.NOT_STARTED] == frozenset()
