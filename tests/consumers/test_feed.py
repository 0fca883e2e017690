"""``milk-contract feed``: a stream-json consumer fed the goldens and their future variants.

The reference consumer passes ``feed --future``; the strict one fails it, shrunk to one unknown
line; each faulty consumer of tests/faulty_consumers/ fails with its rule (crash, hang, output,
the pty mode); misuse is one line and exit 2; every report format carries the verdict. In the
default run a fixed seed and a few variants per golden; the deep run feeds every golden with the
default budget. No process outlives a test.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.cli import FORMAT_NAMES
from contract.consumers import feed, holding
from contract.goldens.store import load, scenarios
from contract.wires import Live, named
from tests.support.depth import deep
from tests.support.paths import TESTS
from tests.support.processes import spy_on_starts

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

CONSUMERS = TESTS / "faulty_consumers"
REFERENCE = [sys.executable, "-m", "contract.reference.stream_json_consumer"]
STRICT = [sys.executable, "-m", "contract.reference.strict_consumer"]
DEEP = deep()
# the default run: two goldens that have a place for every kind of change, a few variants each
SCENARIOS = [] if DEEP else ["--scenario", "hello", "--scenario", "tool_calls"]
BUDGET = [] if DEEP else ["--examples", "4", "--seed", "1", "--shrink-seconds", "5"]
RESULT = {"members": {"is_error": "/is_error", "result": "/result"}}


@pytest.fixture(autouse=True)
def _no_process_left(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    yield from spy_on_starts(monkeypatch, holding)  # feed.hold starts them (contract.consumers.holding)


def _consumer(name: str) -> list[str]:
    return [sys.executable, str(CONSUMERS / f"{name}.py")]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:  # JSON: any shape
    code = cli.run(["feed", "--format", "json", *args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


@pytest.fixture
def result_contract(tmp_path: Path) -> Path:
    path = tmp_path / "expect.json"
    path.write_text(json.dumps(RESULT))
    return path


def test_the_reference_consumer_passes_feed_future(capsys: pytest.CaptureFixture[str], result_contract: Path) -> None:
    code, report, _ = _json(capsys, "--future", *SCENARIOS, *BUDGET, "--expect-json", str(result_contract),
                            "--", *REFERENCE)
    assert code == 0, report
    assert report["conformant"] is True
    accepted = [note for note in report["notes"] if "future variants accepted" in str(note)]
    assert len(accepted) == (2 if not DEEP else len(scenarios("stream-json")))


def test_the_strict_consumer_fails_on_one_unknown_line(capsys: pytest.CaptureFixture[str]) -> None:
    # every golden passes the strict consumer: it is the future variants that find it out
    assert cli.run(["feed", "--scenario", "hello", "--", *STRICT]) == 0
    capsys.readouterr()
    result = feed.feed_stream(STRICT, [load("stream-json", "hello")], future=True, examples=4, seed=1,
                              shrink_seconds=30.0 if DEEP else 5.0)
    assert not result.report.conformant
    assert set(result.report.counts) == {"consumer.crash"}
    [failure] = result.failures
    golden = load("stream-json", "hello").data().split(b"\n")
    fed = failure.data.split(b"\n")
    # shrunk to one change: one unknown line type between two lines of the golden
    assert failure.changes.startswith("an unknown line type"), failure.changes
    assert ";" not in failure.changes, failure.changes
    assert len(fed) == len(golden) + 1
    unknown = [json.loads(line) for line in fed if line and json.loads(line)["type"] not in feed_types()]
    assert len(unknown) == 1, unknown
    assert "consumer.crash" in result.report.violations[0].rule
    assert failure.variant in result.report.violations[0].message


def feed_types() -> set[str]:
    """The line types the schema in force lists (an ADR's new one included)."""
    from contract.checking.schema import known_types

    return set(known_types("stream-json"))


def test_the_failing_stream_is_printed_and_saved(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved = tmp_path / "failing.jsonl"
    code = cli.run(["feed", "--future", "--scenario", "hello", *BUDGET, "--transcript", str(saved), "--", *STRICT])
    out = capsys.readouterr().out
    assert code == 1
    assert "failing stream: hello+" in out
    assert "find it again with: milk-contract feed" in out
    import contract

    assert contract.check(saved.read_bytes(), "stream-json", strict=True).conformant  # a stream milk may write


def test_the_saved_stream_is_what_was_fed_and_feeding_it_again_gives_the_same_verdict(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--transcript FILE holds the failing variant byte for byte: shown line by line in the text,
    the consumer fails on it again when fed the file, and the heading says what the file is for."""
    import subprocess

    saved = tmp_path / "failing.jsonl"
    code = cli.run(["feed", "--future", "--scenario", "hello", *BUDGET, "--transcript", str(saved), "--", *STRICT])
    out = capsys.readouterr().out
    assert code == 1
    data = saved.read_bytes()
    shown = [line[5:] for line in out.split("stream fed (", 1)[1].splitlines()[1:] if line[:4].strip().isdigit()]
    from contract.core import textsafe
    from contract.core.jsonvalue import clip

    assert shown == [textsafe.text(clip(raw.decode(), feed.SHOWN_LINE_CHARS)) for raw in data.splitlines()]
    assert ("--transcript FILE saves it whole, byte for byte as fed: `milk-contract check --strict FILE` finds it "
            "conformant, and `CONSUMER < FILE` feeds it again):") in out
    again = subprocess.run(STRICT, input=data, capture_output=True, timeout=60, check=False)
    assert again.returncode == 1  # the verdict of the run: exit status 1
    assert "found exit status 1" in out
    assert subprocess.run(REFERENCE, input=data, capture_output=True, timeout=60, check=False).returncode == 0


def test_only_the_first_failing_stream_is_said_to_be_saved(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved = tmp_path / "failing.jsonl"
    code, report, err = _json(capsys, "--scenario", "hello", "--scenario", "tool_calls", "--transcript", str(saved),
                              "--", sys.executable, "-c", "import sys; sys.stdin.buffer.read(); sys.exit(3)")
    assert code == 1
    assert saved.read_bytes() == load("stream-json", "hello").data()  # the first failing stream, as fed
    notes = [str(note) for note in report["notes"]]
    hello, tool_calls = (next(n for n in notes if n.startswith(f"failing stream {name} (")) for name in
                         ("hello", "tool_calls"))
    assert hello.endswith("saved whole by --transcript FILE")
    assert tool_calls.endswith("not saved by --transcript FILE, which saves the first failing stream")
    assert "shown whole" not in hello  # lines are shown clipped: the file is the whole stream
    assert "--transcript FILE saves the first failing stream, not this one" in err


def test_with_nothing_failed_the_transcript_is_not_written_and_that_is_said(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A file left at the path by an earlier run must not pass for this run's failing stream."""
    saved = tmp_path / "failing.jsonl"
    code, _, err = _json(capsys, "--scenario", "hello", "--transcript", str(saved), "--", *REFERENCE)
    assert code == 0
    assert not saved.exists()
    assert "--transcript" in err
    assert "nothing failed, so nothing was written" in err
    assert "from before this run" not in err
    saved.write_bytes(b"earlier\n")
    code, _, err = _json(capsys, "--scenario", "hello", "--transcript", str(saved), "--", *REFERENCE)
    assert code == 0
    assert saved.read_bytes() == b"earlier\n"
    assert "nothing was written (the file there is from before this run)" in err


def test_a_consumer_that_crashes_on_a_golden(capsys: pytest.CaptureFixture[str]) -> None:
    code, report, _ = _json(capsys, "--scenario", "hello", "--", sys.executable, "-c", "import sys; sys.exit(3)")
    assert code == 1
    assert report["counts"] == {"consumer.crash": 1}
    assert "exit status 3" in json.dumps(report["violations"])
    # every format names the failing stream, not only the text one
    assert any(str(note).startswith("failing stream hello (") for note in report["notes"])


@pytest.mark.deep  # the same run is the second of test_a_hang_says_what_the_consumer_read_as_far_as_it_is_known
def test_a_consumer_that_never_exits_is_killed(capsys: pytest.CaptureFixture[str]) -> None:
    code, report, _ = _json(capsys, "--scenario", "hello", "--timeout", "1", "--", *_consumer("hangs"))
    assert code == 1
    assert report["counts"] == {"consumer.hang": 1}


def _hang_message(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, report, _ = _json(capsys, "--scenario", "hello", "--timeout", "1", *args)
    assert code == 1
    assert report["counts"] == {"consumer.hang": 1}
    [finding] = report["violations"]
    message: str = finding["message"]
    assert "lines read" not in message  # lines written are not lines read
    return message


HELLO_BYTES = len(load("stream-json", "hello").data())
SLEEPS = [sys.executable, "-c", "import time; time.sleep(60)"]


def test_a_hang_says_what_the_consumer_read_as_far_as_it_is_known(capsys: pytest.CaptureFixture[str]) -> None:
    """consumer.hang once said "3 of 3 lines read" of a consumer that never read: its pipe had taken
    them. Now: what was written, and what its stdin pipe says it read (none, some, all), or that it
    is not known (a terminal)."""
    # the feed writes the next line once the consumer has taken the one before (a consumer that
    # never reads is written its first line only)
    first = len(load("stream-json", "hello").data().split(b"\n")[0]) + 1
    one = "1 of 3 lines written to its stdin"
    assert f"({one}; it had read none of it (all {first} bytes waiting unread))" in _hang_message(
        capsys, "--", *SLEEPS)
    written = "all 3 lines and the end of input written to its stdin"
    assert f"({written}; it had read all of it)" in _hang_message(capsys, "--", *_consumer("hangs"))
    some = [sys.executable, "-c", "import os, time; os.read(0, 100); time.sleep(60)"]
    assert f"({one}; it had read 100 of the {first} bytes (0 lines whole))" in _hang_message(
        capsys, "--", *some)
    assert ("(1 of 3 lines written to its terminal; how much of it it read is not known)"
            in _hang_message(capsys, "--pty", "--", *SLEEPS))


def test_a_hang_on_a_full_pipe_says_how_many_lines_were_written() -> None:
    """A consumer that never reads a stream longer than its pipe holds: the lines written are fewer
    than the stream's, no end of input was written, and it read none of what was."""
    data = b"".join(b'{"n": %d, "pad": "%s"}\n' % (i, b"x" * 1000) for i in range(500))
    outcome = feed.hold(SLEEPS, data, timeout=1, pace=0)
    assert outcome.hung
    assert 0 < outcome.fed < 500
    assert not outcome.ended
    detail = feed.hang_detail(outcome)
    assert detail == (f"{outcome.fed} of 500 lines written to its stdin; it had read none of it "
                      f"(all {outcome.written} bytes waiting unread)")
    assert outcome.written >= outcome.fed * 1020  # a line cut short by the full pipe counts as written too


def test_expectations_of_output(capsys: pytest.CaptureFixture[str], tmp_path: Path, result_contract: Path) -> None:
    hello = load("stream-json", "hello").data().split(b"\n")
    result = json.loads(hello[-2])
    wanted = tmp_path / "stdout.txt"
    wanted.write_text(json.dumps({"is_error": False, "result": result["result"], "text": result["result"]},
                                 ensure_ascii=False) + "\n")
    assert cli.run(["feed", "--scenario", "hello", "--expect-stdout", str(wanted), "--", *REFERENCE]) == 0
    capsys.readouterr()
    wanted.write_text("something else\n")
    code, report, _ = _json(capsys, "--scenario", "hello", "--expect-stdout", str(wanted), "--", *REFERENCE)
    assert code == 1
    assert report["counts"] == {"consumer.output": 1}
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"members": {"is_error": "/subtype", "missing": "/is_error"}}))
    code, report, _ = _json(capsys, "--scenario", "hello", "--expect-json", str(wrong), "--", *REFERENCE)
    assert code == 1
    assert report["counts"] == {"consumer.output": 2}
    # a pointer the golden's result line does not have could only expect null: misuse (tests/checking/test_edges.py)
    wrong.write_text(json.dumps({"members": {"is_error": "/subtype", "missing": "/no/such"}}))
    assert cli.run(["feed", "--scenario", "hello", "--expect-json", str(wrong), "--", *REFERENCE]) == 2


def test_a_consumer_that_misreads_an_unknown_block(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    expect = tmp_path / "text.json"
    expect.write_text(json.dumps({"members": {"text": "/result"}}))
    assert cli.run(["feed", "--scenario", "hello", "--expect-json", str(expect), "--", *_consumer("first_block")]) == 0
    capsys.readouterr()
    result = feed.feed_stream(_consumer("first_block"), [load("stream-json", "hello")], future=True, examples=10,
                              seed=2, expect=feed.Expectation(members={"text": "/result"}),
                              shrink_seconds=30.0 if DEEP else 5.0)
    assert "consumer.output" in result.report.counts, result.report.notes


def test_output_past_the_capture_bound_is_a_finding(capsys: pytest.CaptureFixture[str], result_contract: Path) -> None:
    # without an expectation nothing is compared, so a long output is no finding ...
    assert cli.run(["feed", "--scenario", "hello", "--", *_consumer("floods")]) == 0
    capsys.readouterr()
    # ... with one, output past the bound cannot be compared: fail closed
    code, report, _ = _json(capsys, "--scenario", "hello", "--expect-json", str(result_contract),
                            "--max-output-bytes", "1024", "--", *_consumer("floods"))
    assert code == 1
    assert report["counts"] == {"consumer.output": 1}
    assert "more than the 1024 kept" in json.dumps(report["violations"])


def test_the_pty_mode_gives_the_consumer_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["feed", "--scenario", "tool_calls", "--", *_consumer("needs_tty")]) == 1
    capsys.readouterr()
    lines = load("stream-json", "tool_calls").data().count(b"\n")
    result = feed.feed_stream(_consumer("needs_tty"), [load("stream-json", "tool_calls")], pty=True,
                              expect=feed.Expectation(stdout=b"%d\n" % lines))
    assert result.report.conformant, [v.message for v in result.report.violations]
    assert feed.feed_stream(REFERENCE, [load("stream-json", "tool_calls")], pty=True).report.conformant


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_every_report_format(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["feed", "--format", fmt, "--scenario", "hello", "--", sys.executable, "-c", "raise SystemExit(1)"])
    captured = capsys.readouterr()
    assert code == 1
    assert "consumer.crash" in captured.out


@pytest.mark.parametrize(("args", "says"), [
    (["--scenario", "hello"], "feed needs the consumer"),
    (["--scenario", "no-such", "--", "true"], "no stream-json golden named 'no-such'"),
    (["--expect-stdout", "x", "--", "true"], "--expect-stdout compares one scenario's output"),
    (["--scenario", "hello", "--expect-json", "/no/such/file", "--", "true"], "--expect-json: cannot read"),
    (["--wire", "subagent-stdio", "--pty", "--", "true"], f"--pty feeds {named(Live.STREAM)} consumers"),
    (["--pace", "5", "--", "true"], "expected 0 to 1 seconds"),
])
def test_misuse_is_one_line_and_exit_2(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["feed", *args]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert err.count("\n") == 1, err


def test_a_bad_members_contract_is_misuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document: object  # each a JSON document of another shape
    for document in ([], {"members": {}}, {"members": {"a": 3}}, {"members": {"a": "no-slash"}}, {"other": 1}):
        path = tmp_path / "c.json"
        path.write_text(json.dumps(document))
        assert cli.run(["feed", "--scenario", "hello", "--expect-json", str(path), "--", "true"]) == 2
        assert capsys.readouterr().err.startswith("milk-contract: error: --expect-json:")


def test_a_consumer_that_cannot_start(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["feed", "--scenario", "hello", "--", "/no/such/consumer"])
    assert code == 2
    err = capsys.readouterr().err  # in text, one line (as every harness error is); other formats keep the finding
    assert len(err.splitlines()) == 1
    assert "run.start" in err
    assert "/no/such/consumer" in err


def test_feeding_nothing_is_never_a_pass() -> None:
    with pytest.raises(ValueError, match="no golden to feed"):
        feed.feed_stream(REFERENCE, [])


def test_a_search_that_breaks_is_checker_internal(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from contract.wires.stream_json.kit import future

    def broken(*_: object, **__: object) -> object:
        from hypothesis import strategies as st

        return st.nothing()  # hypothesis cannot draw from it: the search fails, never passes

    monkeypatch.setattr(future, "FUTURE", dataclasses.replace(future.FUTURE, variants=broken))  # what feed loads
    result = feed.feed_stream(REFERENCE, [load("stream-json", "hello")], future=True, examples=2, seed=1)
    assert "checker.internal" in result.report.counts
    assert not result.report.conformant


# -- a consumer that exits 0 without reading its stream exercised nothing ----------------------


def test_a_consumer_that_never_reads_accepts_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """``true`` once "accepted" every golden and variant (exit 0): it read none of them."""
    code, report, _ = _json(capsys, "--future", "--examples", "3", "--seed", "1", "--", "true")
    assert code == 1  # before: 0
    counts: dict[str, int] = report["counts"]
    assert set(counts) == {"consumer.early-exit"}
    assert counts["consumer.early-exit"] == len(scenarios("stream-json"))  # each golden; no variant after a failure
    message = report["violations"][0]["message"]
    assert "none of its" in message
    assert "nothing of the wire was exercised" in message


def test_a_consumer_that_reads_part_of_its_stream_says_how_much_it_left() -> None:
    data = load("stream-json", "tool_calls").data()
    outcome = feed.hold(_consumer("reads_a_little"), data)
    assert outcome.status == 0
    assert not outcome.hung
    assert outcome.left == len(data) - 100  # never written, or left in its pipe
    [finding] = feed.judge(outcome, data, feed.Expectation(), "the golden tool_calls")
    assert finding.rule == "consumer.early-exit"
    assert f"{len(data) - 100} of its {len(data)} bytes unread" in finding.message
    whole = feed.hold(REFERENCE, data)  # near miss: the reference consumer reads to the end
    assert whole.status == 0
    assert whole.left == 0
    assert feed.judge(whole, data, feed.Expectation(), "the golden tool_calls") == []


@pytest.mark.parametrize("consumer", [["true"], ["sh", "-c", "head -n 1 >/dev/null; sleep 0.3"],
                                      ["sh", "-c", "exec 0<&-; sleep 0.3"]], ids=["exits", "one-line", "closes"])
def test_through_a_terminal_what_was_left_unread_is_known(consumer: list[str]) -> None:
    """The terminal's input queue keeps what the consumer did not read (the suite holds the slave
    end too): a consumer that read one line, or closed its stdin, passed under --pty (a review)."""
    golden = load("stream-json", "tool_calls")
    result = feed.feed_stream(consumer, [golden], pty=True)
    assert result.report.counts == {"consumer.early-exit": 1}
    (finding,) = result.report.violations
    assert "written to its terminal" in finding.message
    assert "at least" not in finding.message


def test_through_a_terminal_a_consumer_that_reads_it_all_passes() -> None:
    whole = feed.feed_stream(REFERENCE, [load("stream-json", "tool_calls")], pty=True)
    assert whole.report.conformant, [v.message for v in whole.report.violations]
    assert "consumer.early-exit" in whole.report.exercised  # judged through a terminal as through a pipe
    cat = feed.feed_stream(["sh", "-c", "cat >/dev/null; echo read"], [load("stream-json", "tool_calls")], pty=True)
    assert cat.report.conformant, [v.message for v in cat.report.violations]


def test_the_stream_wire_fed_is_the_caller_s() -> None:
    """The wire is a parameter, not fixed at import (issue 29): a registered stream wire's goldens fed
    with ``wire=`` are reported as that wire's; without it the registry's first stream wire."""
    from contract.wires import Live, first
    from tests.wires.audit_log import AUDIT_LOG  # registered for the session (tests/conftest.py)

    reads = [sys.executable, "-c", "import sys; sys.stdin.buffer.read()"]
    [golden] = scenarios(AUDIT_LOG.name)
    result = feed.feed_stream(reads, [golden], seed=1, wire=AUDIT_LOG.name)
    assert result.report.wire == AUDIT_LOG.name
    assert result.report.conformant, result.report.violations
    assert feed.feed_stream(reads, [golden], seed=1).report.wire == first(Live.STREAM).name


@pytest.mark.parametrize("mode", [[], ["--broken"], ["--future", "--examples", "2"]], ids=["plain", "broken", "future"])
def test_quiet_prints_the_findings_and_the_verdict_only(capsys: pytest.CaptureFixture[str], mode: list[str]) -> None:
    # issue 51: -q printed every failing stream in full after them (20 lines each)
    assert cli.run(["feed", "-q", "--color", "no", *mode, "--scenario", "tool_calls", "--", "/bin/false"]) == 1
    out = capsys.readouterr().out
    assert "failing stream" not in out
    assert "find it again with" not in out
    lines = out.strip().splitlines()
    assert lines[-1].startswith("/bin/false: NOT conformant")
    assert [line for line in lines if " consumer.crash [MUST]" in line]
    assert len(lines) == 3  # the finding, its hint, the verdict
    assert cli.run(["feed", "--color", "no", *mode, "--scenario", "tool_calls", "--", "/bin/false"]) == 1
    assert "failing stream" in capsys.readouterr().out  # without -q the stream is shown, as before
