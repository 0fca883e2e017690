"""consumer.early-exit whatever the consumer's buffering: the feed writes the next line only once
the consumer has taken the one before, so one that stops early never pulled the rest into a buffer
of its own (CPython's 8 KiB, Node's stream chunks, C stdio), and what it never asked for is counted
unread with what it left in the pipe.

The outside review's reproducer (a consumer sleeping 0.3 s, then reading one line) was conformant:
every golden is under 8 KiB and was written whole before its first read. Now it, head -n1-style
consumers in Python, Node and C, and one that stops at the first unknown line type all give
consumer.early-exit; consumers that read everything pass (20 runs each in the deep run).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from contract.consumers import feed
from contract.goldens.store import load
from tests.support.paths import TESTS

pytestmark = pytest.mark.process

HERE = TESTS / "buffered_consumers"
RUNS = 20


def _rules(argv: list[str], scenario: str = "tool_calls", **options: Any) -> set[str]:
    result = feed.feed_stream(argv, [load("stream-json", scenario)], seed=1, **options)
    return set(result.report.counts)


def _compiled(tmp_path: Path, name: str) -> list[str]:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (gcc or cc) on PATH: the C stdio consumer cannot be built")
    out = tmp_path / name
    subprocess.run([compiler, "-O1", "-o", str(out), str(HERE / f"{name}.c")], check=True, timeout=120)
    return [str(out)]


def test_the_reviews_reproducer_exits_early() -> None:
    assert _rules([sys.executable, "-c", "import sys,time; time.sleep(.3); sys.stdin.readline()"]) == \
        {"consumer.early-exit"}


def test_a_python_head_exits_early() -> None:
    result = feed.feed_stream([sys.executable, str(HERE / "head_line.py")], [load("stream-json", "tool_calls")])
    [finding] = result.report.violations
    assert finding.rule == "consumer.early-exit"
    assert "never written" in finding.message  # the paced feed held the rest back


def test_a_node_head_exits_early() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH (Debian: apt-get install nodejs)")
    assert _rules([node, str(HERE / "head_line.js")]) == {"consumer.early-exit"}


def test_a_c_stdio_head_exits_early(tmp_path: Path) -> None:
    assert _rules(_compiled(tmp_path, "head_line")) == {"consumer.early-exit"}


def test_a_head_exits_early_through_a_terminal_too() -> None:
    assert _rules([sys.executable, str(HERE / "head_line.py")], pty=True) == {"consumer.early-exit"}


def test_a_consumer_stopping_at_the_first_unknown_type_fails_feed_future() -> None:
    argv = [sys.executable, str(HERE / "stops_at_unknown.py")]
    assert _rules(argv, "hello") == set()  # the golden is read to its end
    assert _rules(argv, "hello", future=True, examples=4, shrink_seconds=5.0) == {"consumer.early-exit"}


def _reads_all(tmp_path: Path, reader: str) -> list[str]:
    if reader == "python":
        return [sys.executable, "-c", "import sys; sys.stdin.buffer.read(); print('read')"]
    if reader == "node":
        node = shutil.which("node")
        if node is None:
            pytest.skip("node is not on PATH (Debian: apt-get install nodejs)")
        return [node, "-e", "process.stdin.on('data', () => {}); process.stdin.on('end', () => console.log('read'))"]
    return _compiled(tmp_path, "reads_all")


@pytest.mark.parametrize("reader", ["python", "node", "c"])
def test_a_consumer_that_reads_everything_passes(tmp_path: Path, reader: str) -> None:
    goldens = [load("stream-json", "tool_calls"), load("stream-json", "hello")]
    assert feed.feed_stream(_reads_all(tmp_path, reader), goldens, seed=1).report.conformant


@pytest.mark.deep
@pytest.mark.parametrize("reader", ["python", "node", "c"])
def test_a_consumer_that_reads_everything_passes_every_one_of_20_runs(tmp_path: Path, reader: str) -> None:
    """The paced feed has no race that could call a whole read early: 20 runs over every golden."""
    from contract.goldens.store import scenarios

    argv = _reads_all(tmp_path, reader)
    verdicts = [feed.feed_stream(argv, scenarios("stream-json"), seed=1).report.conformant for _ in range(RUNS)]
    assert verdicts == [True] * RUNS


def test_drained_waits_for_the_reader_and_no_longer() -> None:
    import os
    import threading
    import time

    from contract.consumers.pacing import drained, pending

    reader, writer = os.pipe()
    try:
        stop = threading.Event()
        assert drained(reader, time.monotonic() + 5, stop)
        assert pending(reader) == 0
        os.write(writer, b"line\n")
        assert pending(reader) == 5
        assert not drained(reader, time.monotonic() + 0.05, stop)  # nobody reads: the deadline ends the wait
        stop.set()
        assert not drained(reader, time.monotonic() + 5, stop)  # the consumer went away: no wait at all
        os.read(reader, 5)
        assert drained(reader, time.monotonic() + 5, threading.Event())
        assert drained(None, time.monotonic() + 5, stop)  # no witness: nothing to wait for
    finally:
        os.close(reader)
        os.close(writer)
