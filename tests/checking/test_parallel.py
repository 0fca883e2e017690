"""The parallel checker (contract.checking.parallel) gives the very report of the serial one.

Every golden, the foreign sample (and the foreign corpus when given: tests/support/outside.py), the
rule cases (a deterministic sample in the default run, every one in the deep run: tests/support/depth.py,
which also takes every combination of wire choice and options) and generated large inputs are checked
with ``jobs=1`` and ``jobs=2`` (forced, whatever the size) and their JSON reports compared whole:
findings, order, counts, notes. A worker that dies falls back to one process with the same
report, and leaves no process behind.
"""

from __future__ import annotations

import json
import os
import random
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.checking import parallel, pipeline
from contract.checking.checker import check
from contract.core import reader
from contract.core.resources import data_dir
from tests.support import long_runs, shapes
from tests.support.casefiles import all_cases
from tests.support.depth import deep, sample
from tests.support.outside import FOREIGN_SAMPLE, foreign_transcripts

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)


def _report(path: Path, wire: Any, jobs: int, **options: Any) -> dict[str, Any]:
    with path.open("rb") as handle:
        report = check(handle, wire, jobs=jobs, source="x", **options)
    return report.to_json()


def _same(path: Path, wire: str, **options: Any) -> None:
    serial = _report(path, wire, 1, **options)
    assert _report(path, wire, 2, **options) == serial
    with path.open("rb") as handle:  # the readline-only path (live pipes) agrees too
        assert check(_ReadlineOnly(handle), wire, source="x", **options).to_json() == serial


class _ReadlineOnly:
    def __init__(self, handle: Any) -> None:
        self.readline = handle.readline


# Each rule case costs a forked worker per comparison (four comparisons a case): the default run
# takes every 8th (every rule file's cases still interleave through the sample), the deep run all.
CASE_EVERY = 8


def _inputs() -> Iterator[tuple[str, str, bytes]]:
    for case in sample(all_cases(), CASE_EVERY):
        yield f"case {case.id}", case.wire, case.data
    for path in sorted(data_dir("goldens").glob("*/*.jsonl")):
        yield f"golden {path.parent.name}/{path.name}", path.parent.name, path.read_bytes()
    for path in [*sorted(FOREIGN_SAMPLE.glob("*/*.jsonl")), *foreign_transcripts()]:  # the corpus: when given
        yield f"foreign {path.parent.name}/{path.name}", "auto", path.read_bytes()


OPTIONS: tuple[dict[str, Any], ...] = ({"max_line_bytes": 4096}, {"strict": True, "ignore": ["sj.seq"]})


def test_every_case_golden_and_foreign_file_same_report(tmp_path: Path) -> None:
    path = tmp_path / "input.jsonl"
    checked = 0
    for number, (name, wire, data) in enumerate(_inputs()):
        path.write_bytes(data)
        # the deep run: both options with the named wire and with auto; the default run: each input
        # under both wire choices, with the options alternating from input to input
        grid = [(each, options) for each in (wire, "auto") for options in OPTIONS] if deep() else \
            [(wire, OPTIONS[number % 2]), ("auto", OPTIONS[(number + 1) % 2])]
        for each, options in grid:
            try:
                _same(path, each, **options)
            except AssertionError:
                pytest.fail(f"serial and parallel reports differ on {name} ({each}, {options})")
        checked += 1
    assert checked > len(sample(all_cases(), CASE_EVERY))  # the sampled cases, then the goldens


def _golden_stream(lines: int, wreck: bool = False) -> bytes:
    """A long stream-json run from the hello golden; ``wreck`` breaks a rule every few lines."""
    golden = [json.loads(x) for x in (data_dir("goldens") / "stream-json" / "hello.jsonl").read_text().splitlines()]
    out = [golden[0]]
    body = golden[1:-1]
    while len(out) < lines - 1:
        out.extend(dict(o) for o in body)
    out.append(golden[-1])
    chunks = []
    for seq, obj in enumerate(out):
        # rising UTC stamps of one shape, so whole blocks take the run-wide batch checks
        obj.update(seq=seq, session_id=golden[0]["session_id"], ts=f"2026-01-01T00:{seq // 60000 % 60:02d}:"
                   f"{seq // 1000 % 60:02d}.{seq % 1000:03d}Z")
        if wreck and seq == 1500:
            obj["seq"] = seq + 5  # a gap (sj.seq-contiguous), then the next line a step back (sj.seq)
        if wreck and seq == 2400:
            obj["session_id"] = "sess_other"
        if wreck and seq in (2600, 2601):
            obj["ts"] = "2026-02-30T00:00:00.000Z" if seq == 2600 else "2025-01-01T00:00:00.000Z"
        text = json.dumps(obj, separators=(",", ":"))
        if wreck and seq < 1000 and seq % 7 == 3:
            text = text.replace('"seq":', '"seq": ', 1)  # not canonical: the exact path
        if wreck and seq < 1000 and seq % 11 == 5:
            text = text[:-1] + ',"seq":1}'  # duplicate key
        if wreck and seq < 1000 and seq % 13 == 6:
            text = '{"type":"user","x":123456789012345678901234567890}'
        if wreck and seq < 1000 and seq % 17 == 2:
            text = ""
        if wreck and seq == 3000:  # orjson writes this float back byte for byte, yet the double is
            # 3684554643880214528, not the number written: only the exact parse reads it right
            text = text.replace('"seq":3000', '"seq":3.6845546438802145e+18', 1)
        chunks.append(text.encode() + (b"\r\n" if wreck and seq < 1000 and seq % 19 == 4 else b"\n"))
    return b"".join(chunks)


@pytest.mark.parametrize("wreck", [False, True], ids=["conformant", "broken-every-few-lines"])
def test_large_generated_inputs_same_report(tmp_path: Path, wreck: bool) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(_golden_stream(6000, wreck))
    _same(path, "stream-json")
    _same(path, "auto")
    if wreck:
        rules = _report(path, "stream-json", 1)["counts"]
        assert {"sj.seq", "sj.seq-contiguous", "sj.session-constant", "sj.ts-format", "sj.ts-order",
                "line.duplicate-key"} <= set(rules)


def test_batch_run_checks_match_line_by_line() -> None:
    """StreamRules.feed_batch reports what feed reports, line for line, batch or no batch."""
    from contract.core.reader import Record
    from contract.rules.report import Collector, Report
    from contract.wires.stream_json.machines import StreamRules

    objs = [json.loads(line) for line in _golden_stream(3000, wreck=True).splitlines() if line.startswith(b"{")]
    objs = [o for o in objs if isinstance(o, dict)]
    one, many = Report("stream-json"), Report("stream-json")
    by_line, by_batch = StreamRules(), StreamRules()
    for line, obj in enumerate(objs, 1):
        by_line.feed(Record(line, b"", obj), Collector(one))
    for first in range(0, len(objs), 37):
        by_batch.feed_batch(first + 1, objs[first : first + 37], Collector(many))
    assert many.to_json() == one.to_json()
    assert one.counts["sj.seq"] > 0


def test_many_findings_hit_the_memory_cap_identically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import contract.rules.report

    monkeypatch.setattr(contract.rules.report, "MAX_KEPT_VIOLATIONS", 50)
    path = tmp_path / "big.jsonl"
    path.write_bytes(_golden_stream(3000, wreck=True))
    serial = _report(path, "stream-json", 1)
    assert serial["dropped"] > 0
    assert _report(path, "stream-json", 2) == serial


def test_a_killed_worker_falls_back_to_the_same_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(_golden_stream(4000, wreck=True))
    serial = _report(path, "stream-json", 1)
    real_work = parallel._work

    def dying_work(*args: Any) -> None:
        os.kill(os.getpid(), signal.SIGKILL)  # the worker dies before a word
        real_work(*args)

    monkeypatch.setattr(parallel, "_work", dying_work)
    assert _report(path, "stream-json", 2) == serial
    _assert_no_children()


def test_a_worker_killed_midway_falls_back_to_the_same_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(_golden_stream(4000, wreck=True))
    serial = _report(path, "stream-json", 1)
    real_send = parallel._send
    sent = []

    def send_then_die(fd: int, message: Any) -> None:
        real_send(fd, message)
        sent.append(1)
        if len(sent) == 3:
            os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(parallel, "_send", send_then_die)
    assert _report(path, "stream-json", 2) == serial
    _assert_no_children()


def _assert_no_children() -> None:
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_auto_uses_one_process_for_small_files_and_pipes(tmp_path: Path) -> None:
    path = tmp_path / "small.jsonl"
    path.write_bytes(_golden_stream(50))
    with path.open("rb") as handle:
        assert not parallel.worth_it(handle, None)
        assert parallel.worth_it(handle, 2)
        assert not parallel.worth_it(handle, 1)
    big = tmp_path / "big.jsonl"
    big.write_bytes(_golden_stream(20000))
    with big.open("rb") as handle:
        assert parallel.worth_it(handle, None, "stream-json") == (len(os.sched_getaffinity(0)) >= 2)
        assert not parallel.worth_it(handle, None, "subagent-stdio")  # measured slower there
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"):
        assert not parallel.worth_it(pipe, 2)
    assert not parallel.worth_it(b"{}\n", 2)


def test_auto_uses_one_process_when_most_lines_fail(tmp_path: Path) -> None:
    """The worker's findings would dominate: one process measured twice as fast there."""
    failing = tmp_path / "failing.jsonl"
    failing.write_bytes(b"{}\n" * (parallel.MIN_PARALLEL_BYTES // 3 + 1))
    with failing.open("rb") as handle:
        assert not parallel.worth_it(handle, None, "stream-json")
        assert parallel.worth_it(handle, 2, "stream-json")  # asked for explicitly: still honoured


def test_an_unknown_line_type_is_noted_on_both_paths(tmp_path: Path) -> None:
    """A line of a type the schema does not list is valid (open set), so a block of such lines is
    "clean" to the worker's C-level proof; the one-process step notes the type, so the worker must
    not prove that block clean (found by the deep run's whole case sweep, which the sample missed)."""
    lines = (data_dir("goldens") / "stream-json" / "hello.jsonl").read_bytes().splitlines(keepends=True)
    unknown = lines[1].replace(b'"type":"assistant"', b'"type":"thought"', 1)
    assert unknown != lines[1]
    path = tmp_path / "open.jsonl"
    path.write_bytes(lines[0] + unknown + b"".join(lines[1:]))
    serial = _report(path, "stream-json", 1)
    assert any("'thought', which the schema does not list" in note for note in serial["notes"])
    assert _report(path, "stream-json", 2) == serial


# -- the worker's facts (issue 25): the main folds them, takes what has not come, never waits --------


def _broken_file(tmp_path: Path, seed: int, lines: int = 6000) -> Path:
    """A long run from every golden with random faults (tests/support/long_runs.py), and a few lines that
    are no objects, so blocks of every kind meet: clean and folded, clean and declined, not clean."""
    objs: list[Any] = long_runs.broken(lines, seed)[0]
    pick = random.Random(seed)
    for _ in range(3):
        objs[pick.randrange(200, lines - 1)] = pick.choice(["[1]", "", "{\"type\":\"user\",\"seq\":1,\"seq\":2}"])
    path = tmp_path / f"broken-{seed}.jsonl"
    path.write_bytes(long_runs.text(objs))
    return path


@pytest.mark.parametrize("seed", sample(range(3), 2))  # every seed in the deep run
def test_runs_with_random_faults_same_report(tmp_path: Path, seed: int) -> None:
    path = _broken_file(tmp_path, seed)
    _same(path, "stream-json", strict=True)
    _same(path, "stream-json", max_line_bytes=2000)


def _counting(monkeypatch: pytest.MonkeyPatch, cls: Any, name: str) -> list[int]:
    calls: list[int] = []
    original = getattr(cls, name)

    def counted(self: Any, *args: Any) -> Any:
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(cls, name, counted)
    return calls


def test_the_main_folds_the_worker_s_facts_without_parsing_its_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from contract.checking import pipeline
    from contract.wires.stream_json.machines import StreamRules

    path = tmp_path / "run.jsonl"
    path.write_bytes(long_runs.text(long_runs.run(8000)))
    serial = _report(path, "stream-json", 1)
    folded = _counting(monkeypatch, StreamRules, "feed_facts")
    parsed = _counting(monkeypatch, pipeline._Whole, "line") + _counting(monkeypatch, pipeline._Whole, "objects")
    real_call = parallel._Inbox.__call__

    def unhurried(self: Any, index: int, block: Any) -> Any:
        time.sleep(0.002)  # leave the worker time to be ahead, however busy the machine
        return real_call(self, index, block)

    monkeypatch.setattr(parallel._Inbox, "__call__", unhurried)
    assert _report(path, "stream-json", 2) == serial
    assert len(folded) > 20  # the worker's blocks, folded in the main
    assert len(parsed) < len(folded) // 4  # hardly any of their lines parsed there


def test_a_slow_worker_s_blocks_are_taken_by_the_main(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The main never waits: a block whose proof has not come is proven by the main, and the
    worker, told, skips it."""
    import time

    path = _broken_file(tmp_path, 7)
    serial = _report(path, "stream-json", 1)
    real_send = parallel._send

    def slow_send(fd: int, message: Any) -> None:
        time.sleep(0.05)
        real_send(fd, message)

    taken: list[int] = []
    real_call = parallel._Inbox.__call__

    def call(self: Any, index: int, block: Any) -> Any:
        proof = real_call(self, index, block)
        if parallel._owns(index) and proof is None:
            taken.append(index)
        return proof

    monkeypatch.setattr(parallel, "_send", slow_send)
    monkeypatch.setattr(parallel._Inbox, "__call__", call)
    assert _report(path, "stream-json", 2) == serial
    assert taken
    _assert_no_children()


@pytest.mark.parametrize("lie", ["a count off by one", "garbage", "not a proof", "a proof of no kind"])
def test_a_worker_out_of_step_is_sent_away_and_its_blocks_proven_by_the_main(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lie: str
) -> None:
    path = _broken_file(tmp_path, 8)
    serial = _report(path, "stream-json", 1)
    real_send = parallel._send
    sent: list[int] = []

    def lying_send(fd: int, message: Any) -> None:
        if lie == "a proof of no kind":  # the first block found not clean, said to be proven by a 1
            if message[3] is False and not sent:
                sent.append(1)
                real_send(fd, (*message[:3], 1))
            else:
                real_send(fd, message)
            return
        sent.append(1)
        if len(sent) != 3:
            real_send(fd, message)
        elif lie == "a count off by one":
            real_send(fd, (message[0], message[1] + 1, *message[2:]))
        elif lie == "garbage":
            os.write(fd, parallel._HEADER.pack(3) + b"\xff\xff\xff")
        else:
            real_send(fd, ["a", "list"])

    monkeypatch.setattr(parallel, "_send", lying_send)
    assert _report(path, "stream-json", 2) == serial
    _assert_no_children()


def test_a_wire_that_does_not_split_is_checked_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """subagent-stdio (no batch machine) and --wire auto: one process, with --jobs 2 too (measured
    the faster there); the report is the one-process report, with no note of a failed split."""
    path = tmp_path / "epoch.jsonl"
    path.write_bytes((data_dir("goldens") / "subagent-stdio" / "epoch_change.jsonl").read_bytes())
    serial = _report(path, "subagent-stdio", 1)
    auto = _report(path, "auto", 1)

    def no_fork() -> int:
        raise AssertionError("forked")

    monkeypatch.setattr(os, "fork", no_fork)
    assert _report(path, "subagent-stdio", 2) == serial
    assert _report(path, "auto", 2) == auto


def test_a_wire_registered_for_a_test_is_checked_by_the_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The descriptor, not a name, crosses the fork: a wire registered for the test is the worker's
    too (a copy of stream-json under another name)."""
    import dataclasses

    from contract.wires import get
    from contract.wires.stream_json.machines import StreamRules
    from tests.support.wires import registered

    wire = dataclasses.replace(get("stream-json"), name="stream-json-copy")
    path = tmp_path / "run.jsonl"
    path.write_bytes(long_runs.text(long_runs.run(6000)))
    with registered(wire):
        serial = _report(path, wire, 1)
        folded = _counting(monkeypatch, StreamRules, "feed_facts")
        assert _report(path, wire, 2) == serial
    assert serial["wire"] == "stream-json-copy"
    assert serial["conformant"]
    assert folded


def test_a_block_the_worker_cannot_prove_is_proven_by_the_main(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker reads as orjson does, so it proves no block holding an "e+" float (the generated
    streams' tool inputs hold many); the main proves such a block exactly, as one process does,
    instead of judging it line by line (which made --jobs 2 half as slow again as --jobs 1 on such
    a stream: BENCHMARKS.md, issue 34's fourth round)."""
    path = tmp_path / "floats.jsonl"
    path.write_bytes(shapes.stream("strategies 0", 10000, shapes.DATES["the 30th"], "ms", spelling="compact"))
    lined: dict[int, list[int]] = {1: [], 2: []}
    jobs = [1]
    real = pipeline._Walk._lines

    def counting(self: Any, records: Any) -> bool:
        lined[jobs[0]].append(self.index)
        return bool(real(self, records))

    monkeypatch.setattr(pipeline._Walk, "_lines", counting)
    serial = _report(path, "stream-json", 1)
    jobs[0] = 2
    assert _report(path, "stream-json", 2) == serial
    assert serial["conformant"]
    assert path.read_bytes().count(b"e+") > 100
    assert set(lined[2]) <= set(lined[1]) == {0}  # one process: the first block, by design; two: no more


def test_the_worker_ahead_is_held_back_by_the_pipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounded memory: the main reads the worker's proofs only up to the block it is at, so a
    worker far ahead waits on a full pipe instead of piling its proofs up in the main."""
    import time

    path = tmp_path / "run.jsonl"
    path.write_bytes(long_runs.text(long_runs.run(30000)))
    serial = _report(path, "stream-json", 1)
    held: list[int] = []
    real_call = parallel._Inbox.__call__

    def slow_main(self: Any, index: int, block: Any) -> Any:
        time.sleep(0.002)
        proof = real_call(self, index, block)
        held.append(len(self._proofs))
        return proof

    monkeypatch.setattr(parallel._Inbox, "__call__", slow_main)
    # every block of the small size, so the file is many blocks (the worker's messages, one a block,
    # fill the pipe) whatever size the reader takes a long file's later blocks in
    monkeypatch.setattr(reader, "LARGE_BLOCK_BYTES", reader.BLOCK_BYTES)
    assert _report(path, "stream-json", 2) == serial
    assert len(held) > 250  # blocks
    assert max(held) < 100  # proofs held at once: what one read of the pipe brings (64 KiB), not the file's
