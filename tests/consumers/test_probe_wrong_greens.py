"""An outside probe's findings on `milk-contract feed`, held as strict xfails until they are fixed.

A consumer that writes its reading on every golden (the control) and none on the streams made
from them, where it loses the text and exits 0, is conformant under ``--future``: a stream it
leaves without a reading is judged as if it never spoke the protocol, so the misreading is not
seen (tests/faulty_consumers/reading_on_goldens_only.py). `compat` has the promise for this
(``reading: true``: a stream left without one is ``consumer.reading-schema``); `feed` does not
hold a consumer to what its controls showed.

A consumer that leaves a FIFO at its ``$MILK_CONTRACT_READING`` path hangs `feed` for good
(`--timeout` does not bound it): the suite opens the reading and waits for a writer.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from contract.consumers import feed
from contract.goldens.store import load
from tests.support.paths import TESTS

pytestmark = pytest.mark.process
ONLY_GOLDENS = [sys.executable, str(TESTS / "faulty_consumers" / "reading_on_goldens_only.py")]


def test_the_consumer_passes_the_goldens_with_its_reading() -> None:
    """The near miss: on the goldens it is the reference consumer, and conformant."""
    result = feed.feed_stream(ONLY_GOLDENS, [load("stream-json", "hello")], seed=1)
    assert result.report.conformant, result.report.counts


@pytest.mark.xfail(strict=True, reason="probe: a consumer that wrote its reading on the control and none on the "
                                       "future variants, losing their text, is conformant under --future")
def test_a_reading_stopped_after_the_control_is_not_a_pass() -> None:
    result = feed.feed_stream(ONLY_GOLDENS, [load("stream-json", "hello")], future=True, examples=2, seed=1)
    assert not result.report.conformant


FIFO_READING = ("import os, sys; sys.stdin.buffer.read(); path = os.environ['MILK_CONTRACT_READING']; "
                "os.path.exists(path) and os.remove(path); os.mkfifo(path); print('{\"is_error\": false}')")


@pytest.mark.deep  # until it is fixed the feed hangs, and this test waits its 30 s bound
@pytest.mark.xfail(strict=True, reason="probe: a consumer that leaves a FIFO at $MILK_CONTRACT_READING hangs feed "
                                       "for good (past --timeout), waiting for a writer")
def test_a_fifo_left_as_the_reading_does_not_hang_the_feed(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "contract", "feed", "-q", "--timeout", "2", "--scenario", "hello", "--",
            sys.executable, "-c", FIFO_READING]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("feed still running after 30 s")
    assert done.returncode == 1  # a reading that is no file breaks the protocol: a finding, never a hang
