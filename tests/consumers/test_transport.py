"""``feed --transport``: conformant content, hostile delivery. Every delivery is conformant under
``check --strict`` and is the stream's bytes exactly; the reference consumer passes them all; a
consumer reading a fixed 64 KiB buffer without reassembling lines (tests/faulty_consumers/
fixed_buffer.py) fails the split and the long lines; one that stops at the result line while
stdin is held open passes."""

from __future__ import annotations

import json
import sys

import pytest

import contract
from contract import cli
from contract.consumers import transport
from contract.consumers.feed import Expectation
from contract.goldens.store import load
from tests.support.paths import TESTS

pytestmark = pytest.mark.process

REFERENCE = [sys.executable, "-m", "contract.reference.stream_json_consumer"]
FIXED = [sys.executable, str(TESTS / "faulty_consumers" / "fixed_buffer.py")]
MEMBERS = Expectation(members={"is_error": "/is_error", "result": "/result"})


def test_every_delivery_is_conformant_and_the_stream_whole() -> None:
    golden = load("stream-json", "hello")
    cases = transport.deliveries(golden, seed=3)
    assert {c.name for c in cases} == {"line-over-1mib", "line-over-16mib", "split-64k", "split-arbitrary",
                                       "slow-drip", "pause-mid-line", "one-write", "held-open"}
    for case in cases:
        assert b"".join(piece for piece, _ in case.chunks) == case.data, case.name
        assert contract.check(case.data, "stream-json", strict=True).conformant, case.name
    sizes = {c.name: max(len(line) for line in c.data.split(b"\n")) for c in cases}
    assert sizes["line-over-1mib"] > transport.MIB
    assert sizes["line-over-16mib"] > 16 * transport.MIB
    split = next(c for c in cases if c.name == "split-64k")
    assert len(split.chunks) >= 5
    assert all(len(p) == transport.PIECE for p, _ in split.chunks[:-1])


def test_the_reference_consumer_passes_every_delivery() -> None:
    result = transport.feed_transport(REFERENCE, [load("stream-json", "hello")], expect=MEMBERS, seed=1)
    assert result.report.conformant, [v.message for v in result.report.violations]
    assert result.streams == 1 + 8  # the control (the golden as recorded), then every delivery


def test_a_fixed_64k_buffer_without_reassembly_fails() -> None:
    result = transport.feed_transport(FIXED, [load("stream-json", "hello")], seed=1, huge=False)
    failed = {f.variant.split("~")[1] for f in result.failures}
    assert {"line-over-1mib", "split-64k", "split-arbitrary", "pause-mid-line"} <= failed
    assert set(result.report.counts) == {"consumer.crash"}


def test_a_consumer_ending_at_the_result_while_stdin_is_held_open_passes() -> None:
    at_result = [sys.executable, "-c", "import json, sys\nfor raw in sys.stdin.buffer:\n"
                                       "    if json.loads(raw).get('type') == 'result': break\nprint('read')"]
    result = transport.feed_transport(at_result, [load("stream-json", "hello")], seed=1, huge=False)
    assert result.report.conformant, [v.message for v in result.report.violations]


def test_the_cli_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["feed", "--transport", "--scenario", "hello", "--format", "json", "--", *FIXED]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["counts"]["consumer.crash"] >= 4
    assert cli.run(["feed", "--transport", "--pty", "--", *FIXED]) == 2
    assert "--transport writes to a pipe" in capsys.readouterr().err
