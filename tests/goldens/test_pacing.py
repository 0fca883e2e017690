"""Timed goldens: a golden's pace kept beside it, normalised so an unchanged build changes nothing, replayed.

``contract.goldens.pacing`` keeps per line the gap since the line before (``timing.gaps_ms`` in the
meta, an optional member of schemas/golden-meta.schema.json); the reference emitter and ``feed``
replay it with ``--pace recorded``. Each case here holds a lower bound only (a sleep guarantees
it); the 10 % bound on ``feed --pace recorded``'s duration is the deep test's, as timing is.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from contract.consumers.feed import hold
from contract.core.resources import data_dir
from contract.goldens import pacing
from contract.goldens.store import meta_errors
from contract.live.harness import default_command, run_stream
from tests.support.depth import deep

HELLO = data_dir("goldens") / "stream-json" / "hello.jsonl"
GAPS = [0, 250, 250]  # hello's three lines, half a second in all
# a consumer that says, on stdout, when (CLOCK_MONOTONIC: the same clock in every process) its last line came
TIMER = "import sys,time\nfor line in sys.stdin:\n    now=time.monotonic()\nprint(now)\n"
# ... and one that says when its first line came and when its last did: the stream as it saw it
# (slow to start, as a consumer on a loaded machine is: 0.3 s before its first read)
SPAN = ("import sys,time\ntime.sleep(0.3)\nseen=[]\nfor line in sys.stdin:\n    seen.append(time.monotonic())\n"
        "print(seen[-1]-seen[0])\n")


@pytest.fixture
def timed_hello(tmp_path: Path) -> Path:
    golden = tmp_path / "hello.jsonl"
    shutil.copyfile(HELLO, golden)
    meta = json.loads(pacing.meta_path(HELLO).read_text(encoding="utf-8"))
    meta["timing"] = {"gaps_ms": GAPS}
    assert meta_errors(meta) == []  # the optional member is the schema's
    pacing.meta_path(golden).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return golden


def test_normalised_gaps_round_and_drop_the_jitter() -> None:
    assert pacing.normalised([0.0, 0.004, 0.099, 0.1234, 0.2049, 1.2345, float("nan")]) == [0, 0, 0, 120, 200, 1200, 0]


def test_settle_keeps_the_stored_timing_while_the_new_one_is_close() -> None:
    assert pacing.settle([0, 200, 1200], [0, 240, 1100]) == [0, 200, 1200]  # within 25 %: unchanged
    assert pacing.settle([0, 200, 1200], [0, 400, 1200]) == [0, 400, 1200]  # a real change
    assert pacing.settle(None, [0, 300]) == [0, 300]
    assert pacing.settle([0, 300], [0, 300, 0]) == [0, 300, 0]  # another line count: the new one


def test_keep_timing_writes_once_then_nothing(timed_hello: Path) -> None:
    arrivals = [(0.1, 1), (0.5, 2), (0.9, 3)]
    assert pacing.keep_timing(timed_hello, arrivals, 3)  # 400 ms gaps are not 250: rewritten
    assert pacing.recorded_gaps(timed_hello) == [0, 400, 400]
    again = [(0.0, 1), (0.42, 2), (0.8, 3)]  # the same build again, its jitter within the tolerance
    assert not pacing.keep_timing(timed_hello, again, 3)
    assert pacing.recorded_gaps(timed_hello) == [0, 400, 400]
    assert not pacing.keep_timing(timed_hello, arrivals[:2], 3)  # arrivals not covering every line: kept
    assert meta_errors(json.loads(pacing.meta_path(timed_hello).read_text(encoding="utf-8"))) == []


def test_delays_for_each_pace(timed_hello: Path) -> None:
    assert pacing.delays("recorded", timed_hello, 3) == [0.0, 0.25, 0.25]
    assert pacing.delays("recorded", timed_hello, 4) == [0.0] * 4  # not these lines: at once
    assert pacing.delays("recorded", HELLO, 3) == [0.0] * 3  # no timing stored (the bundled golden)
    assert pacing.delays(0.1, None, 3) == [0.0, 0.1, 0.1]
    assert pacing.delays(0.0, None, 2) == [0.0, 0.0]
    with pytest.raises(ValueError, match="recorded or seconds"):
        pacing.pace_option("-1")


@pytest.mark.process
def test_the_reference_emitter_replays_the_recorded_pace(timed_hello: Path) -> None:
    env = {**os.environ, "MILK_CONTRACT_GOLDEN": str(timed_hello)}
    report = run_stream([*default_command("stream-json"), "--pace", "recorded"], env=env, timeout=20)
    assert report.conformant, report.violations
    assert report.timeline is not None
    assert report.timeline.longest_gap >= 0.24  # type: ignore[attr-defined]  # a Timeline behind the protocol
    at_once = run_stream(default_command("stream-json"), env=env, timeout=20)
    assert at_once.timeline is not None
    assert at_once.timeline.longest_gap_line == 0  # type: ignore[attr-defined]  # one read: no pace asked


@pytest.mark.process
def test_feed_pace_recorded_takes_at_least_the_recorded_duration(timed_hello: Path) -> None:
    lines = timed_hello.read_bytes().count(b"\n")
    pauses = [*pacing.delays("recorded", timed_hello, lines)[1:], 0.0]  # what feed --pace recorded hands hold
    began = time.monotonic()  # the first line is written as soon as the consumer is started
    outcome = hold([sys.executable, "-c", TIMER], timed_hello.read_bytes(), pace=pauses, timeout=20)
    assert outcome.status == 0, outcome.stderr
    took = float(outcome.stdout) - began  # from the first line written to the last line read
    recorded = pacing.duration(GAPS)
    assert took >= recorded * 0.99
    if deep():  # within 10 % of the recorded duration (a timing bound, so the deep run's; the consumer
        # has started long before the last line is due)
        assert took <= recorded * 1.10, took


@pytest.mark.process
def test_the_consumer_sees_the_recorded_gaps_between_its_reads(timed_hello: Path) -> None:
    """Found by an outside review: the pause was timed from the write, so a consumer still starting
    up when the first line came saw its first gap swallowed (0.25 s of a recorded 0.5 s). The pause
    now follows the consumer's read of the line before it."""
    lines = timed_hello.read_bytes().count(b"\n")
    pauses = [*pacing.delays("recorded", timed_hello, lines)[1:], 0.0]
    outcome = hold([sys.executable, "-c", SPAN], timed_hello.read_bytes(), pace=pauses, timeout=20)
    assert outcome.status == 0, outcome.stderr
    seen = float(outcome.stdout)  # the consumer's first read to its last
    recorded = pacing.duration(GAPS)
    assert seen >= recorded * 0.9, seen
    if deep():  # the upper bound is a timing bound: the deep run's
        assert seen <= recorded * 1.10, seen
