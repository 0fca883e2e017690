"""Runs on several threads of one process never touch each other's emitters.

Between its fork and its exec an emitter is a child of ours, in a session of its own, whose
environment carries no run token: what an adopted orphan looks like. Before the fix another
thread's run, looking for orphans at its end, killed and reaped such an emitter, and that
emitter's Popen then read exit status 0 (1 to 5 of these 120 statuses, in each of three runs
before the fix; issue 32's liveness cases failed so under load). contract.live.process starts
emitters and scans for orphans under one lock, and knows the emitters it started.
"""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from contract.live import process
from contract.live.process import Process

pytestmark = pytest.mark.process

THREADS, RUNS = 8, 15


def _statuses(_: int) -> list[int | None]:
    statuses = []
    for _ in range(RUNS):
        emitter = Process(["sh", "-c", "exit 3"])
        try:
            statuses.append(emitter.wait(30))
        finally:
            emitter.close()  # its orphan scan runs while other threads start theirs
    return statuses


def test_concurrent_runs_each_read_their_own_emitters_exit_status() -> None:
    with ThreadPoolExecutor(THREADS) as pool:
        statuses = [s for run in pool.map(_statuses, range(THREADS)) for s in run]
    assert statuses == [3] * (THREADS * RUNS)


def test_an_emitter_a_run_started_is_never_taken_for_another_runs_orphan() -> None:
    """The near miss, kept: a child that looks the same but no run started is still an orphan."""
    lookalike = subprocess.Popen(["sleep", "30"], start_new_session=True, env={})  # no run token
    try:
        with Process(["sleep", "30"]) as run:
            found = process._descendants(run.token, run.popen.pid)
            assert lookalike.pid in found  # another session, no token, ours, not there before: an orphan
            process._STARTED.add(lookalike.pid)
            try:
                assert lookalike.pid not in process._descendants(run.token, run.popen.pid)
            finally:
                process._STARTED.discard(lookalike.pid)
    finally:
        lookalike.kill()
        lookalike.wait()
