"""An outside probe's findings on `milk-contract feed`, fixed: each was a strict xfail.

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

import os
import subprocess
import sys
from pathlib import Path

import pytest

from contract.consumers import feed, holding
from contract.goldens.store import load
from tests.support.paths import TESTS

pytestmark = pytest.mark.process
ONLY_GOLDENS = [sys.executable, str(TESTS / "faulty_consumers" / "reading_on_goldens_only.py")]


def test_the_consumer_passes_the_goldens_with_its_reading() -> None:
    """The near miss: on the goldens it is the reference consumer, and conformant."""
    result = feed.feed_stream(ONLY_GOLDENS, [load("stream-json", "hello")], seed=1)
    assert result.report.conformant, result.report.counts


def test_a_reading_stopped_after_the_control_is_not_a_pass() -> None:
    """Was a strict xfail (conformant under --future). The control's reading holds the consumer to one."""
    result = feed.feed_stream(ONLY_GOLDENS, [load("stream-json", "hello")], future=True, examples=2, seed=1)
    assert not result.report.conformant
    messages = [v.message for v in result.report.violations if v.rule == "consumer.reading-schema"]
    assert messages
    assert "the consumer wrote one on the golden hello as recorded" in messages[0]


@pytest.mark.parametrize("make", ["fifo", "directory", "link"])
def test_what_stands_at_the_reading_path_instead_of_a_file_is_named_not_read(tmp_path: Path, make: str) -> None:
    """The FIFO hang, in process: the reading is opened without blocking or following a link."""
    path = tmp_path / "reading.jsonl"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "directory":
        path.mkdir()
    else:
        (tmp_path / "elsewhere").write_text("{}\n")
        path.symlink_to(tmp_path / "elsewhere")
    raw, overflowed, instead = holding._reading(str(path))
    assert (raw, overflowed) == (None, False)
    assert instead == {"fifo": "a FIFO", "directory": "a directory", "link": "a symbolic link"}[make]


def test_a_reading_written_as_a_file_is_read() -> None:
    """The near miss of the above: a regular file is read, and no file at all is no reading."""
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "reading.jsonl"
        assert holding._reading(str(path)) == (None, False, None)
        path.write_bytes(b'{"view": {}}\n')
        assert holding._reading(str(path)) == (b'{"view": {}}\n', False, None)


FIFO_READING = ("import os, sys; sys.stdin.buffer.read(); path = os.environ['MILK_CONTRACT_READING']; "
                "os.path.exists(path) and os.remove(path); os.mkfifo(path); print('{\"is_error\": false}')")


@pytest.mark.deep  # a whole feed; the default run holds the reader in process (above)
def test_a_fifo_left_as_the_reading_does_not_hang_the_feed(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "contract", "feed", "-q", "--timeout", "2", "--scenario", "hello", "--",
            sys.executable, "-c", FIFO_READING]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("feed still running after 30 s")
    assert done.returncode == 1  # a reading that is no file breaks the protocol: a finding, never a hang


@pytest.mark.deep  # a whole transport feed (about 1 s); the default run holds --future to the control's reading
def test_a_reading_stopped_after_the_control_is_not_a_pass_under_transport() -> None:
    from contract.consumers.transport import feed_transport

    result = feed_transport(ONLY_GOLDENS, [load("stream-json", "hello")], seed=1, huge=False)
    assert not result.report.conformant
    assert {v.rule for v in result.report.violations} == {"consumer.reading-schema"}
