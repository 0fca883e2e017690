"""Time is part of the contract: each liveness rule fires on its faulty emitter alone, and not on its near miss.

The cases were written from issue 32's words before the detection was settled (see the table in
docs/live-runs.md, "Liveness"): a block-buffered Python emitter (plain ``print`` on a pipe,
0.2 s between lines) is ``run.buffered`` and the same with ``flush=True`` is not; a fast emitter
that writes everything at once is not; a first line later than ``--first-line-within`` is
``run.first-line``; a gap over ``--max-gap`` before the result is ``run.stall``; an emitter that
writes its result and never exits is ``run.exit-after-result`` within the grace plus a second
(not ``run.timeout``); a host slower than ``--response-within`` is ``run.response-late``. The
thresholds are small here so the cases stay short; the defaults are held by every other live
test of the suite (none of them may fire). The 20-run separation loop is deep.
"""

from __future__ import annotations

import dataclasses
import io
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract import cli
from contract.cli.common import liveness_of
from contract.live.driver import converse
from contract.live.harness import default_command, run_stream
from contract.live.timeline import Clock, Liveness, timed
from contract.reporting.formats import REPORTERS
from contract.rules.report import Report
from tests.support.paths import TESTS

pytestmark = pytest.mark.process

EMITTERS = TESTS / "faulty_emitters"
HOSTS = TESTS / "faulty_hosts"
# Python's stdout is block-buffered on a pipe unless PYTHONUNBUFFERED says otherwise (CI shells often do)
PLAIN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONUNBUFFERED", "PYTHONIOENCODING")}
LIVENESS = frozenset({"run.first-line", "run.stall", "run.buffered", "run.exit-after-result", "run.response-late"})


def _emitter(name: str, *args: str) -> list[str]:
    return [sys.executable, str(EMITTERS / f"{name}.py"), "liveness", *args]


def _timed_run(argv: list[str], **options: Any) -> tuple[Report, float]:
    began = time.monotonic()
    report = run_stream(argv, **options)
    return report, time.monotonic() - began


# Every live case of this file, started at once on threads (each waits on its own process, mostly
# asleep): the file costs the longest case's time, not the sum of them (the default run's budget).
RUNS: dict[str, Callable[[], Any]] = {
    "plain": lambda: run_stream(_emitter("unflushed", "plain", "0.2"), env=PLAIN_ENV, timeout=20),
    "flush": lambda: run_stream(_emitter("unflushed", "flush", "0.2"), env=PLAIN_ENV, timeout=20),
    "fast": lambda: run_stream(_emitter("unflushed", "plain", "0"), env=PLAIN_ENV, timeout=20),
    "reference": lambda: run_stream(default_command("stream-json"), timeout=20),
    "first-line": lambda: run_stream(_emitter("first_line_late", "0.4"), timeout=20,
                                     liveness=Liveness(first_line_within=0.2)),
    "stall": lambda: run_stream(_emitter("stalls", "5"), timeout=20, liveness=Liveness(max_gap=1.0)),
    "stall-cut": lambda: _timed_run(_emitter("stalls", "30"), timeout=30, liveness=Liveness(max_gap=1.0)),
    "stall-timeout": lambda: run_stream(_emitter("stalls", "30"), timeout=0.8, liveness=Liveness(max_gap=5)),
    "silent": lambda: _timed_run([sys.executable, "-c", "import time; time.sleep(60)"], timeout=30,
                                 liveness=Liveness(max_gap=0.6)),
    "unbuffered-env": lambda: run_stream(_emitter("unflushed", "flush", "0"),
                                         env={**PLAIN_ENV, "PYTHONUNBUFFERED": "1"}, timeout=20),
    # issue 46's three: made late and flushed (passes), CPU-busy and buffered, init flushed and the rest buffered
    "late": lambda: run_stream(_emitter("unflushed", "late", "1.5"), env=PLAIN_ENV, timeout=20),
    "busy": lambda: run_stream(_emitter("unflushed", "busy", "0.2"), env=PLAIN_ENV, timeout=20),
    "init": lambda: run_stream(_emitter("unflushed", "init", "0.25"), env=PLAIN_ENV, timeout=20),
    "hang": lambda: _timed_run(_emitter("result_then_hangs"), timeout=30, liveness=Liveness(exit_grace=0.3)),
    "hang-timeout": lambda: run_stream(_emitter("result_then_hangs"), timeout=0.8, liveness=Liveness(exit_grace=5)),
    "slow-host": lambda: converse([sys.executable, str(HOSTS / "slow_answer.py"), "0.3"], timeout=20,
                                  response_within=0.2),
    "slow-host-near": lambda: converse([sys.executable, str(HOSTS / "slow_answer.py"), "0.3"], timeout=20,
                                       response_within=2),
}


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    with ThreadPoolExecutor(max_workers=len(RUNS)) as pool:
        futures = {name: pool.submit(run) for name, run in RUNS.items()}
        return {name: future.result() for name, future in futures.items()}


def test_unflushed_print_on_a_pipe_is_buffered(runs: dict[str, Any]) -> None:
    report = runs["plain"]
    assert report.rules() == {"run.buffered"}, report.violations
    [finding] = report.violations
    assert "held back on the pipe" in finding.message
    assert "pseudo-terminal" in finding.message  # the twin run is the proof
    assert report.timeline is not None
    assert report.timeline.same_read == report.lines


def test_the_same_emitter_flushing_is_not(runs: dict[str, Any]) -> None:
    report = runs["flush"]
    assert not report.rules(), report.violations
    assert report.conformant
    assert "run.buffered" in report.exercised
    assert report.timeline is not None
    assert report.timeline.longest_gap >= 0.15


def test_a_fast_emitter_writing_at_once_is_not(runs: dict[str, Any]) -> None:
    report = runs["fast"]
    assert not report.rules(), report.violations
    assert report.conformant


@pytest.fixture(scope="module")
def reference(runs: dict[str, Any]) -> Report:
    report: Report = runs["reference"]
    return report


def test_the_reference_emitter_passes_every_liveness_rule(reference: Report) -> None:
    """The near miss of every stream liveness rule, under the default thresholds."""
    assert reference.conformant, reference.violations
    assert {"run.first-line", "run.stall", "run.buffered", "run.exit-after-result"} <= reference.exercised


def test_a_late_first_line(runs: dict[str, Any]) -> None:
    report = runs["first-line"]
    assert report.rules() == {"run.first-line"}, report.violations
    assert "within 0.2s" in report.violations[0].message
    # the hint names the wire's opening line through its descriptor (Wire.hints), not a generic module's words
    assert "write system/init as soon as the run starts" in (report.violations[0].hint or "")


def test_a_stall_before_the_result(runs: dict[str, Any]) -> None:
    """Judged when the silence passes --max-gap: the emitter is killed there, its stream cut after line 1."""
    report = runs["stall"]
    assert report.rules() == {"run.stall", "sj.result-last"}, report.violations  # the cut stream has no result
    [finding] = [v for v in report.violations if v.rule == "run.stall"]
    assert finding.line is None
    assert "after line 1, until the end" in finding.message
    assert "write progress (stream_event) lines during long work" in (finding.hint or "")


def test_a_stall_past_the_timeout_is_still_run_timeout(runs: dict[str, Any]) -> None:
    """A timeout shorter than --max-gap ends the run first: run.timeout, no stall judged."""
    report = runs["stall-timeout"]
    assert "run.timeout" in report.rules(), report.violations
    assert "run.stall" not in report.rules()


def test_a_stall_is_judged_at_the_max_gap_not_the_timeout(runs: dict[str, Any]) -> None:
    """Once the silence passes --max-gap with no result, run.stall is sure: the emitter is killed there."""
    report, took = runs["stall-cut"]
    assert report.rules() >= {"run.stall"}, report.violations
    assert "run.timeout" not in report.rules()
    assert report.exit_status == -9
    assert took < 15, took  # not the 30 s timeout
    assert any("killed the emitter" in note and "run.stall" in note for note in report.notes), report.notes


def test_a_silent_emitter_is_judged_at_the_max_gap(runs: dict[str, Any]) -> None:
    """Issue 46: an emitter that prints nothing took the whole --timeout and was run.timeout, its
    timeline saying "no gap (every line in one read)"."""
    report, took = runs["silent"]
    assert "run.stall" in report.rules(), report.violations
    assert "run.timeout" not in report.rules()
    assert took < 15, took
    [stall] = [v for v in report.violations if v.rule == "run.stall"]
    assert "no line at all" in stall.message
    assert report.timeline is not None
    summary = report.timeline.summary()
    assert "no gap" not in summary, summary
    assert "no line arrived" in summary, summary


def test_made_late_and_flushed_is_not_buffered(runs: dict[str, Any]) -> None:
    """Issue 46 (a): silent 1.5 s, then each line written and flushed: one burst, but the twin run
    under a pseudo-terminal shows the same burst, so the lines were made late, not held back."""
    report = runs["late"]
    assert "run.buffered" not in report.rules(), report.violations
    assert "run.buffered" in report.exercised
    assert any("made late, not held back" in note for note in report.notes), report.notes


@pytest.mark.parametrize(("name", "first"), [("busy", 1), ("init", 2)])
def test_held_back_lines_are_buffered_whatever_the_emitter_does_meanwhile(runs: dict[str, Any], name: str,
                                                                          first: int) -> None:
    """Issue 46 (b) CPU-busy between block-buffered lines, (c) the init line flushed and the rest
    block-buffered: both passed, the first because the emitter was not idle, the second because its
    lines did not all come at once."""
    report = runs[name]
    assert report.rules() == {"run.buffered"}, report.violations
    [finding] = report.violations
    assert finding.line == first
    assert f"lines {first} to 7 came within" in finding.message


def test_the_environment_s_pythonunbuffered_is_said(runs: dict[str, Any]) -> None:
    """PYTHONUNBUFFERED hides a Python emitter's buffering: a run under it says so (a note)."""
    said = [note for note in runs["unbuffered-env"].notes if "PYTHONUNBUFFERED" in note]
    assert said, runs["unbuffered-env"].notes
    assert "PYTHONUNBUFFERED=1 is set for the emitter" in said[0]
    assert not [note for note in runs["plain"].notes if "PYTHONUNBUFFERED" in note]  # unset: nothing to say


def test_result_then_hang_is_killed_at_the_exit_grace(runs: dict[str, Any]) -> None:
    """Killed at the grace (plus a second), long before the timeout; exit_status -9."""
    report, took = runs["hang"]
    assert report.rules() == {"run.exit-after-result"}, report.violations
    assert report.exit_status == -9
    assert report.timeline is not None
    assert report.timeline.result_line == 3
    start = report.timeline.result_at  # the interpreter's start up to the result, on a loaded machine
    assert took < start + 0.3 + 1.0, took  # the grace plus a second


def test_the_cli_takes_the_exit_grace() -> None:
    parsed = cli.build_parser().parse_args(["run", "--exit-grace", "0.3", "--max-gap", "2", "--", "x"])
    assert liveness_of(parsed) == Liveness(first_line_within=10.0, max_gap=2.0, exit_grace=0.3)


def test_result_then_hang_past_the_timeout_is_run_timeout(runs: dict[str, Any]) -> None:
    report = runs["hang-timeout"]
    assert report.rules() == {"run.timeout"}, report.violations


def test_a_slow_host_response_is_late(runs: dict[str, Any]) -> None:
    report = runs["slow-host"]
    assert report.rules() == {"run.response-late"}, report.violations
    [late] = report.violations  # the first command alone; the others were answered at once
    assert late.line == 1
    assert "s after" in late.message
    assert report.timeline is not None
    assert report.timeline.lines > 0
    near = runs["slow-host-near"]
    assert near.conformant, near.violations
    assert "run.response-late" in near.exercised


def test_every_format_shows_the_timeline(reference: Report) -> None:
    report = reference
    assert report.timeline is not None
    shown = report.timeline.summary()
    assert shown.startswith("timeline: first line at ")
    for name, fmt in REPORTERS.items():
        text = fmt.one(report)
        assert "first_line" in text or "first line at" in text, name


# -- the clock itself, on a pipe of our own ----------------------------------------------------


@pytest.fixture
def pipe() -> Iterator[tuple[Clock, io.BufferedReader, int]]:
    read, write = os.pipe()
    clock, reader = timed(read, time.monotonic(), max_gap=0.05)
    yield clock, reader, write
    os.close(write) if _open(write) else None
    reader.close()


def _open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _drain(reader: io.BufferedReader) -> list[bytes]:
    return list(iter(reader.readline, b""))


def test_the_clock_places_each_line_in_its_read(pipe: tuple[Clock, io.BufferedReader, int]) -> None:
    clock, reader, write = pipe
    os.write(write, b"a\nb\n")
    assert reader.readline() == b"a\n"
    time.sleep(0.08)
    os.write(write, b"c\n")
    os.close(write)
    assert _drain(reader) == [b"b\n", b"c\n"]
    assert clock.lines == 3
    assert clock.reads == 2
    assert clock.arrival(1) == (clock.at[0], 1)
    assert clock.arrival(2)[1] == 1  # type: ignore[index]  # line 2 has arrived: never None
    assert clock.arrival(3)[1] == 2  # type: ignore[index]  # line 3 has arrived: never None
    assert clock.arrival(4) is None
    line = clock.timeline(None)
    assert line.same_read == 2
    assert line.longest_gap_line == 3
    assert line.longest_gap >= 0.07
    assert [gap_line for _, gap_line in clock.gaps] == [3]  # over max_gap
    assert line.to_json()["arrivals"][2][1] == 2  # type: ignore[index]  # the JSON's arrivals: a list of pairs


def test_the_summary_counts_one_read_in_the_singular(pipe: tuple[Clock, io.BufferedReader, int]) -> None:
    """Found by an outside review: "17 of 17 lines came in a read with others (1 reads)"."""
    clock, reader, write = pipe
    os.write(write, b"a\nb\n")
    os.close(write)
    assert _drain(reader) == [b"a\n", b"b\n"]
    summary = clock.timeline(None).summary()
    assert "(1 read)" in summary, summary


def test_block_sized_reads_mid_line_with_silence_are_buffered(pipe: tuple[Clock, io.BufferedReader, int]) -> None:
    clock, reader, write = pipe
    body = (b'{"k":"' + b"x" * 1000 + b'"}\n') * 9  # 9 lines of 1009 bytes: 8 KiB ends mid-line

    def writer() -> None:
        data = body * 3
        for start in range(0, len(data), 8192):
            os.write(write, data[start:start + 8192])
            time.sleep(0.15)
        os.close(write)

    thread = threading.Thread(target=writer)
    thread.start()
    _drain(reader)
    thread.join()
    assert clock.quiet_cuts >= 2, clock.cuts
    from contract.live import timeline
    from contract.rules.report import Collector

    report = Report(wire="stream-json")
    timeline.judge(clock, clock.timeline(1.0), Liveness(max_gap=10), Collector(report), 1.0)
    assert report.rules() == {"run.buffered"}
    assert "cut at a buffer size" in report.violations[0].message
    tty = Report(wire="stream-json")  # a terminal's stdio is line-buffered: not judged there
    timeline.judge(clock, clock.timeline(1.0, tty=True), Liveness(max_gap=10), Collector(tty), 1.0)
    assert not tty.rules()


def test_past_the_listed_count_arrivals_are_summarised_and_said(pipe: tuple[Clock, io.BufferedReader, int]) -> None:
    from contract.live.timeline import LISTED_LINES

    clock, reader, write = pipe
    lines = LISTED_LINES + 50

    def writer() -> None:
        os.write(write, b"{}\n" * lines)
        os.close(write)

    thread = threading.Thread(target=writer)
    thread.start()
    _drain(reader)
    thread.join()
    data = clock.timeline(None).to_json()
    assert data["lines"] == lines
    assert data["listed"] == LISTED_LINES
    assert data["summarised"] == 50
    assert "summarised" in str(data["note"])


@pytest.mark.deep
def test_unflushed_and_flushed_separate_in_every_run_of_twenty() -> None:
    for attempt in range(20):
        plain = run_stream(_emitter("unflushed", "plain", "0.2"), env=PLAIN_ENV, timeout=30)
        flushed = run_stream(_emitter("unflushed", "flush", "0.2"), env=PLAIN_ENV, timeout=30)
        assert plain.rules() == {"run.buffered"}, (attempt, plain.violations)
        assert flushed.conformant, (attempt, flushed.violations)


def _clock(reads: list[tuple[float, bytes]]) -> Clock:
    clock = Clock(-1, 0.0)
    for at, data in reads:
        clock.note(data, len(data), at)
    return clock


def test_a_build_that_streams_on_a_terminal_and_dumps_on_a_pipe_is_named() -> None:
    from contract.live.timeline import streams_only_on_a_terminal

    line = b'{"type":"system"}\n'
    dumped = _clock([(1.4, line * 7)]).timeline(1.45)
    streamed = _clock([(0.1 + 0.2 * i, line) for i in range(7)]).timeline(1.4, tty=True)
    named = streams_only_on_a_terminal(dumped, streamed)
    assert named is not None
    assert "streams on a terminal and dumps on a pipe" in named
    assert streams_only_on_a_terminal(streamed, streamed) is None  # streamed on both: nothing to name
    assert streams_only_on_a_terminal(dumped, dumped) is None  # dumped on both: not a terminal's doing


@pytest.mark.deep
def test_provoke_names_a_build_that_streams_only_on_a_terminal() -> None:
    from contract.live.provoke import ENVIRONMENTS, provoke

    pty = [environment for environment in ENVIRONMENTS if environment.name == "pty"]
    report = provoke(_emitter("unflushed", "plain", "0.2"), env=PLAIN_ENV, environments=pty, timeout=20)
    assert report.rules() == {"run.buffered"}, report.violations
    assert any("streams on a terminal and dumps on a pipe" in v.message for v in report.violations)
    flushed = provoke(_emitter("unflushed", "flush", "0.2"), env=PLAIN_ENV, environments=pty, timeout=20)
    assert flushed.conformant, flushed.violations  # and run.buffered is never judged under the pty


def test_the_defaults_are_said_alike_everywhere() -> None:
    """The thresholds' defaults: the Liveness dataclass, the rules' titles (``rules``), the CLI, the plugin."""
    from contract.live.timeline import DEFAULT_LIVENESS
    from contract.plugin import DEFAULTS
    from contract.rules.catalog import CATALOG

    d = DEFAULT_LIVENESS
    for rule, option, value in (("run.first-line", "first-line-within", d.first_line_within),
                                ("run.stall", "max-gap", d.max_gap),
                                ("run.exit-after-result", "exit-grace", d.exit_grace),
                                ("run.response-late", "response-within", d.response_within)):
        assert f"(default {value:g} s)" in CATALOG[rule].title, rule
        assert DEFAULTS[f"--contract-{option}"] == value, option
        parsed = cli.build_parser().parse_args(["run"])
        assert getattr(parsed, option.replace("-", "_")) == value, option


_KIND_LINES = ("import time\n"
               "print('{\"kind\":\"start\",\"seq\":1}', flush=True)\n"
               "time.sleep(0.8)\n"
               "print('{\"kind\":\"end\",\"seq\":2}', flush=True)\n"
               "time.sleep(2)\n")


@pytest.mark.parametrize("terminal", [None, "end"], ids=["no-terminal", "terminal-by-kind"])
def test_a_terminal_line_is_found_by_the_wire_s_own_type_member(terminal: str | None) -> None:
    """The tenth add-a-wire trial: a wire whose lines carry no ``type`` and no ``terminal`` had its
    first line taken for the result (``None == None``), so run.exit-after-result read "passed" and
    an emitter was killed ``--exit-grace`` after its first line. Its terminal is matched by the
    member it names (``Wire.type_member``)."""
    from contract.rules import requirements
    from tests.support.wires import registered
    from tests.wires.audit_log import AUDIT_LOG

    wire = dataclasses.replace(AUDIT_LOG, terminal=terminal, type_member="kind")
    with registered(wire):
        report = run_stream([sys.executable, "-c", _KIND_LINES], wire=wire.name, timeout=20,
                            liveness=Liveness(exit_grace=0.4, max_gap=10))
        verdict = {v.rule.id: v.status for v in requirements.verdicts(report)}["run.exit-after-result"]
    found = [v.line for v in report.violations if v.rule == "run.exit-after-result"]
    if terminal is None:
        assert (found, verdict) == ([], requirements.NOT_APPLICABLE)
        assert report.exit_status == 0  # not killed: it exited by itself after its 2 s
    else:
        assert (found, verdict) == ([2], requirements.FAILED)  # killed 0.4 s after the end line


_LINE = b'{"type":"system"}\n'


def test_a_burst_is_proved_only_by_a_twin_that_streams_it() -> None:
    """The burst's lines spread over the twin run under a pseudo-terminal is the proof; the same burst
    there, fewer lines there, or no twin, and nothing is said to be held back."""
    from contract.live.timeline import burst, streamed_on_a_terminal

    pipe = _clock([(0.05, _LINE), (1.4, _LINE * 6)])  # init flushed, the rest in one read 1.35 s later
    held = burst(pipe)
    assert held is not None
    assert (held.first, held.last) == (2, 7)
    streamed = _clock([(0.05 + 0.2 * i, _LINE) for i in range(7)]).timeline(1.3, tty=True)
    assert streamed_on_a_terminal(held, 7, streamed) is not None
    assert streamed_on_a_terminal(held, 7, pipe.timeline(1.4, tty=True)) is None  # the same burst there
    assert streamed_on_a_terminal(held, 8, streamed) is None  # another run: it wrote other lines
    assert streamed_on_a_terminal(held, 7, None) is None
    assert burst(_clock([(0.05 + 0.2 * i, _LINE) for i in range(7)])) is None  # streamed: no burst
    assert burst(_clock([(0.3, _LINE * 7)])) is None  # everything at once, at once: nothing held long


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 3.0), st.integers(1, 4)), min_size=1, max_size=12))
def test_a_twin_that_came_as_the_pipe_run_never_proves_buffering(reads: list[tuple[float, int]]) -> None:
    """Whatever the pipe run's timing, a twin that wrote the same lines at the same times proves nothing."""
    from contract.live.timeline import burst, streamed_on_a_terminal

    at, clocked = 0.0, []
    for gap, lines in reads:
        at += gap
        clocked.append((at, _LINE * lines))
    pipe = _clock(clocked)
    held = burst(pipe)
    if held is not None:
        assert streamed_on_a_terminal(held, pipe.lines, pipe.timeline(at, tty=True)) is None


def test_a_wire_without_hints_gets_hints_that_name_no_line_type(pipe: tuple[Clock, io.BufferedReader, int]) -> None:
    """The generic hints name no wire's lines: a wire that declares no ``Wire.hints`` gets plain words."""
    from contract.live import timeline
    from contract.rules.report import Collector
    from contract.wires.base import Hints

    clock, reader, write = pipe
    os.close(write)
    _drain(reader)
    report = Report(wire="stream-json")
    timeline.judge(clock, clock.timeline(5.0), Liveness(first_line_within=1, max_gap=2), Collector(report), 5.0)
    hints = {v.rule: v.hint or "" for v in report.violations}
    assert "write the first line as soon as the run starts" in hints["run.first-line"]
    assert "write progress lines during long work" in hints["run.stall"]
    named = Report(wire="stream-json")
    timeline.judge(clock, clock.timeline(5.0), Liveness(first_line_within=1, max_gap=2), Collector(named), 5.0,
                   hints=Hints(opening="hello", progress="tick lines"))
    assert {v.rule: v.hint for v in named.violations} == {
        rule: hint.replace("the first line", "hello").replace("progress lines", "tick lines")
        for rule, hint in hints.items()}
