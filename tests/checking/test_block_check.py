"""The one-process checker's block path (``contract.checking.pipeline.check_blocks``) judges as line by line.

A file or a buffer of a ``Wire.batch`` wire is checked a block at a time: a block of clean lines
is proven with C-level passes and fed whole to the machine's ``feed_batch``; any other block is
judged line by line. A readline-only source (a live pipe) is always judged line by line, so the
two reports are compared whole, on streams whose faults fall inside later blocks (the first block
is always line by line). Fail closed: a machine or the reader raising inside a late block is
still ``checker.internal``, and no rule is "passed" beside it.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest

from contract.checking.checker import check
from contract.core.reader import BLOCK_BYTES
from contract.core.resources import data_dir
from contract.rules import requirements
from contract.wires.stream_json.machines import StreamRules

HELLO = data_dir("goldens") / "stream-json" / "hello.jsonl"


def _stream(lines: int, faults: dict[int, str]) -> bytes:
    """A long run from the hello golden, line ``n`` replaced by ``faults[n]`` (its text) where given."""
    golden = [json.loads(x) for x in HELLO.read_text().splitlines()]
    objs = [golden[0]]
    while len(objs) < lines - 1:
        objs.extend(dict(o) for o in golden[1:-1])
    objs.append(golden[-1])
    out = []
    for seq, obj in enumerate(objs):
        obj.update(seq=seq, session_id=golden[0]["session_id"],
                   ts=f"2026-01-01T00:{seq // 60000 % 60:02d}:{seq // 1000 % 60:02d}.{seq % 1000:03d}Z")
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        out.append(faults.get(seq + 1, text).replace("{SEQ}", str(seq)).encode() + b"\n")
    return b"".join(out)


def _line_by_line(data: bytes, **options: Any) -> dict[str, Any]:
    return check(_ReadlineOnly(io.BytesIO(data)), "stream-json", source="x", **options).to_json()


class _ReadlineOnly:
    def __init__(self, handle: Any) -> None:
        self.readline = handle.readline


LATE = {  # each past the first block (about 100 lines of 32 KiB), each a different step's finding
    1200: '{"type":"system","subtype":"hook","session_id":"sess_hello","seq":{SEQ},"ts":"2026-01-01T00:00:01.199Z"}',
    1900: '{"type":"user","seq":{SEQ}}',  # schema and session
    2500: '{"type":"assistant","seq":{SEQ},"x":"\\u001b[31m"}',  # an escaped ESC: the block's may_esc
    3100: '{"type":"assistant","seq": {SEQ}}',  # not canonical: the exact parse
    3600: '{"type":"assistant","seq":{SEQ},"seq":1}',  # a duplicate member
    4100: '{"type":"future_kind","session_id":"sess_hello","seq":{SEQ},"ts":"2026-01-01T00:00:04.099Z"}',
    4700: "[1,2]",  # not an object
    5300: "",  # a blank line
}


@pytest.mark.parametrize("strict", [False, True])
def test_the_block_path_gives_the_line_by_line_report(strict: bool) -> None:
    data = _stream(6000, LATE)
    assert len(data) > 20 * BLOCK_BYTES  # most blocks take the batch path
    blocks: dict[str, Any] = check(data, "stream-json", source="x", strict=strict, coverage=True).to_json()
    assert blocks == _line_by_line(data, strict=strict, coverage=True)
    assert {"sj.schema", "line.ansi", "line.duplicate-key", "line.object", "line.blank"} <= set(blocks["counts"])
    assert any("future_kind" in note for note in blocks["notes"])  # the open type's note, from a late block


def test_a_clean_long_stream_is_conformant_both_ways() -> None:
    """The near miss: no fault, the same conformant report."""
    data = _stream(6000, {})
    report = check(data, "stream-json", source="x")
    assert report.conformant
    assert report.to_json() == _line_by_line(data)


def test_a_long_line_and_a_cr_in_a_late_block() -> None:
    data = _stream(3000, {2000: '{"type":"user","seq":{SEQ},"pad":"' + "x" * 5000 + '"}'})
    data = data.replace(b'"seq":2500,', b'"seq":2500,\r', 1)  # a bare CR inside a line
    options: dict[str, Any] = {"max_line_bytes": 4096}
    blocks: dict[str, Any] = check(data, "stream-json", source="x", **options).to_json()
    assert blocks == _line_by_line(data, **options)
    assert {"line.limit", "line.newline"} <= set(blocks["counts"])


def test_a_machine_raising_in_a_late_block_is_checker_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    original = StreamRules.feed_batch
    calls: list[int] = []

    def feed_batch(self: Any, first: int, objs: list[Any], out: Any) -> None:
        calls.append(first)
        if len(calls) == 5:
            raise KeyError("batch")
        original(self, first, objs, out)

    monkeypatch.setattr(StreamRules, "feed_batch", feed_batch)
    report = check(_stream(3000, {}), "stream-json", source="x")
    [finding] = [v for v in report.violations if v.rule == "checker.internal"]
    assert not report.conformant
    assert finding.line == calls[4]
    assert "StreamRules (feed_batch of lines" in finding.message
    assert "not fed again" in finding.message
    assert len(calls) == 5  # never fed after it raised
    assert report.counts == {"checker.internal": 1}  # and no finding from its own finish
    assert "passed" not in {r.status for r in requirements.verdicts(report)}


def test_the_reader_raising_after_batched_blocks_ends_the_stream() -> None:
    data = _stream(3000, {})
    cut = data.index(b"\n", 10 * BLOCK_BYTES) + 1

    def chunks() -> Iterator[bytes]:
        yield data[:cut]
        raise OSError(5, "Input/output error")

    report = check(chunks(), "stream-json", source="x")
    [finding] = [v for v in report.violations if v.rule == "checker.internal"]
    assert finding.line == data[:cut].count(b"\n") + 1
    assert "the line reader" in finding.message
    assert report.counts == {"checker.internal": 1}  # no false sj.result-last from a cut stream
