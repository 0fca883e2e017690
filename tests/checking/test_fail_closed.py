"""Fault injection: an exception anywhere in the checker is a ``checker.internal`` finding.

Each test makes one component raise — a rule machine in ``feed`` or ``finish``, the schema
engine, the line reader, a reporter — on both wires, through ``check`` as API and as CLI,
and asserts that the report is not conformant, names the line, the component and the
exception, and that nothing else is lost (the other machines still report). Also here: the
API's misuse errors and ``--baseline-write`` without ``--baseline`` (issue 11).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

import contract
from contract import cli
from contract.checking.schema import Engine, engine
from contract.core.reader import Record
from contract.reporting import formats
from contract.rules.report import Collector, Report
from contract.wires.stream_json.machines import StreamRules
from contract.wires.subagent_stdio.machines import Correlation, UniqueKeys
from tests.support.paths import ROOT

GOLDEN = {
    "stream-json": ROOT / "goldens" / "stream-json" / "hello.jsonl",
    "subagent-stdio": ROOT / "goldens" / "subagent-stdio" / "first_poll.jsonl",
}
# per wire: the machine made to raise, and a machine of the same wire that must go on
VICTIM: dict[str, Any] = {"stream-json": StreamRules, "subagent-stdio": Correlation}
WIRES = tuple(GOLDEN)


def _internal(report: contract.Report) -> list[contract.Violation]:
    return [v for v in report.violations if v.rule == "checker.internal"]


def _raising_on(line: int, calls: list[int]) -> Any:
    def feed(self: Any, record: Record, out: Collector) -> None:
        calls.append(record.line)
        if record.line == line:
            raise TypeError("unhashable type: 'list'")

    return feed


@pytest.mark.parametrize("wire", WIRES)
def test_golden_is_conformant_before_any_fault(wire: str) -> None:
    """The near miss of every test below: the same input with no fault passes."""
    report = contract.check(GOLDEN[wire].read_bytes(), wire)
    assert report.conformant, report.violations


@pytest.mark.parametrize("wire", WIRES)
def test_a_machine_raising_in_feed_is_a_finding_and_is_not_fed_again(
    wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    monkeypatch.setattr(VICTIM[wire], "feed", _raising_on(2, calls))
    report = contract.check(GOLDEN[wire].read_bytes(), wire)
    assert not report.conformant
    [finding] = _internal(report)
    assert finding.line == 2
    assert VICTIM[wire].__name__ in finding.message
    assert "TypeError: unhashable type: 'list'" in finding.message
    assert "not fed again" in finding.message
    assert calls == [1, 2]  # never fed after it raised
    assert report.counts == {"checker.internal": 1}  # and no false finding from its own finish


def test_the_other_machines_go_on_after_one_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """subagent-stdio: Correlation dies at line 1; UniqueKeys still finds a duplicate key later."""
    monkeypatch.setattr(Correlation, "feed", _raising_on(1, []))
    seen: list[int] = []
    original = UniqueKeys.feed

    def spy(self: Any, record: Record, out: Collector) -> None:
        seen.append(record.line)
        original(self, record, out)

    monkeypatch.setattr(UniqueKeys, "feed", spy)
    data = GOLDEN["subagent-stdio"].read_bytes()
    report = contract.check(data, "subagent-stdio")
    assert len(_internal(report)) == 1
    assert seen == list(range(1, data.count(b"\n") + 1))


@pytest.mark.parametrize("wire", WIRES)
def test_a_machine_raising_in_finish_is_a_finding(wire: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def finish(self: Any, out: Collector) -> None:
        raise RuntimeError("finish broke")

    monkeypatch.setattr(VICTIM[wire], "finish", finish)
    report = contract.check(GOLDEN[wire].read_bytes(), wire)
    [finding] = _internal(report)
    assert not report.conformant
    assert finding.line is None
    assert "(finish)" in finding.message
    assert "RuntimeError: finish broke" in finding.message


@pytest.mark.process
def test_a_machine_raising_in_feed_batch_under_two_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parallel checker's main process feeds blocks: the same fail-closed front."""
    def feed_batch(self: Any, first: int, objs: list[Any], out: Collector) -> None:
        raise KeyError("batch")

    monkeypatch.setattr(StreamRules, "feed_batch", feed_batch)
    path = tmp_path / "hello.jsonl"
    path.write_bytes(GOLDEN["stream-json"].read_bytes())
    with open(path, "rb") as handle:
        report = contract.check(handle, "stream-json", jobs=2)
    [finding] = _internal(report)
    assert not report.conformant
    assert "StreamRules (feed_batch of lines 1-" in finding.message
    assert "KeyError" in finding.message


@pytest.mark.parametrize("wire", WIRES)
def test_the_schema_engine_raising_is_a_finding_per_line(wire: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> bool:
        raise RuntimeError("engine broke")

    monkeypatch.setattr(engine(wire), "is_valid_fast", broken)  # the cached engine the checker uses
    monkeypatch.setattr(Engine, "is_valid", broken)
    data = GOLDEN[wire].read_bytes()
    report = contract.check(data, wire, jobs=1)
    found = _internal(report)
    assert not report.conformant
    assert [v.line for v in found] == list(range(1, data.count(b"\n") + 1))
    assert all("the schema step" in v.message and "RuntimeError: engine broke" in v.message for v in found)


@pytest.mark.parametrize("wire", WIRES)
def test_the_reader_raising_ends_the_stream_with_a_finding(wire: str) -> None:
    """A source that fails mid-way: the lines read are judged, the end-of-stream checks are not."""
    first = GOLDEN[wire].read_bytes().splitlines(keepends=True)[0]

    def chunks() -> Iterator[bytes]:
        yield first
        raise OSError(5, "Input/output error")

    report = contract.check(chunks(), wire)
    [finding] = _internal(report)
    assert not report.conformant
    assert finding.line == 2
    assert "the line reader" in finding.message
    assert "OSError" in finding.message
    assert report.counts == {"checker.internal": 1}  # no false sj.result-last from a cut stream


def test_the_cli_reports_a_machine_fault_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(StreamRules, "feed", _raising_on(1, []))
    path = tmp_path / "hello.jsonl"
    path.write_bytes(GOLDEN["stream-json"].read_bytes())
    code = cli.run(["check", str(path)])
    out = capsys.readouterr()
    assert code == 1
    assert "checker.internal [MUST]" in out.out
    assert "NOT conformant" in out.out
    assert "Traceback" not in out.out + out.err


@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
def test_a_reporter_raising_never_exits_0(
    fmt: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: Any) -> NoReturn:
        raise ValueError("render broke\x1b[2J")

    real = formats.REPORTERS[fmt]  # the same shape, every renderer broken (json: its streaming writer too)
    monkeypatch.setitem(formats.REPORTERS, fmt, formats.Reporter(broken, broken, broken if real.stream else None))
    code = cli.run(["check", "--format", fmt, str(GOLDEN["stream-json"])])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert f"the {fmt} reporter failed (ValueError: render broke\\u001b[2J)" in err
    assert "\x1b" not in err


def test_a_conformant_report_exits_0_through_the_same_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["check", "--format", "json", str(GOLDEN["stream-json"])]) == 0
    assert json.loads(capsys.readouterr().out)["conformant"] is True


# -- API misuse ---------------------------------------------------------------------------------


def test_a_path_is_read_as_a_file() -> None:
    report = contract.check(GOLDEN["stream-json"])
    assert report.conformant
    assert report.source == str(GOLDEN["stream-json"])
    assert report.lines == GOLDEN["stream-json"].read_bytes().count(b"\n")


def test_a_str_is_refused_with_what_to_pass() -> None:
    with pytest.raises(TypeError, match=r"not a str .*pathlib\.Path\(path\)"):
        contract.check(str(GOLDEN["stream-json"]))  # type: ignore[arg-type]  # the wrong type, on purpose


def test_a_text_mode_file_is_refused() -> None:
    with open(GOLDEN["stream-json"], encoding="utf-8") as handle, \
            pytest.raises(TypeError, match=r"binary file: open it with open\(path, 'rb'\)"):
        contract.check(handle)  # type: ignore[arg-type]  # a text file, on purpose
    with pytest.raises(TypeError, match="binary file"):
        contract.check(io.StringIO("{}\n"))  # type: ignore[arg-type]  # a text stream, on purpose


def test_an_unknown_rule_in_ignore_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown rule 'sj\.bogus'; known rules: line\.utf8, .*sj\.seq"):
        contract.check(b"", ignore=["sj.bogus"])
    with pytest.raises(TypeError, match=r"pass \['sj\.seq'\]"):
        contract.check(b"", ignore="sj.seq")
    assert contract.check(GOLDEN["stream-json"].read_bytes(), ignore=["sj.seq"]).conformant  # near miss


def test_the_cli_rejects_an_unknown_ignore_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["check", "--ignore", "sj.bogus", str(GOLDEN["stream-json"])]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# -- baselines ------------------------------------------------------------------------------------


def test_baseline_write_alone_records_and_still_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(GOLDEN["stream-json"].read_bytes().replace(b'"seq":2', b'"seq":7'))
    file = tmp_path / "baseline.json"
    code = cli.run(["check", "--format", "json", "--baseline-write", str(file), str(broken)])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert not report["conformant"]
    assert report["counts"]
    assert json.loads(file.read_text())["entries"]
    assert cli.run(["check", "--baseline", str(file), str(broken)]) == 0  # accepting is --baseline's job


def test_help_says_writing_does_not_accept(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["check", "--help"]) == 0
    assert "does not accept them" in " ".join(capsys.readouterr().out.split())


def test_an_exception_outside_every_component_is_still_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last net in ``check``: the wire detection (auto) raising, say."""
    from contract.checking import pipeline

    def broken(records: Any, report: Any, deciding: Any = None) -> Any:
        raise AttributeError("detect broke")

    monkeypatch.setattr(pipeline, "pick_wire", broken)
    report = contract.check(GOLDEN["stream-json"].read_bytes(), "auto")
    [finding] = _internal(report)
    assert not report.conformant
    assert "the checker" in finding.message
    assert "AttributeError: detect broke" in finding.message


@pytest.mark.process
def test_a_live_run_whose_machine_raised_is_not_conformant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 11's first case: the reader thread of ``run`` died and an empty report passed."""
    import sys

    from contract.live.harness import run_stream

    monkeypatch.setattr(StreamRules, "feed", _raising_on(1, []))
    emitter = [sys.executable, "-c", "import sys; sys.stdout.buffer.write(open(sys.argv[1], 'rb').read())",
               str(GOLDEN["stream-json"])]
    report = run_stream(emitter, wire="stream-json", timeout=30)
    assert not report.conformant
    assert report.lines == GOLDEN["stream-json"].read_bytes().count(b"\n")
    assert [v.line for v in _internal(report)] == [1]


def test_a_usage_error_naming_hostile_input_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["check", str(tmp_path / "no\x1b]0;x\x07such")]) == 2
    err = capsys.readouterr().err
    assert "no\\u001b]0;x\\u0007such" in err
    assert "\x1b" not in err


@pytest.mark.parametrize("rule", ["checker.internal", "checker.limit", "run.interrupted"])
def test_a_finding_that_says_the_check_did_not_finish_cannot_be_ignored(
        rule: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot be ignored"):
        contract.check(b"", ignore=[rule])
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"{}\n")
    assert cli.run(["check", "--ignore", rule, str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    # and an ignore list that reaches the collector another way is refused there too
    # (every path: tests/rules/test_unjudged.py)
    with pytest.raises(ValueError, match="cannot be ignored"):
        Collector(Report(wire="stream-json"), ignore=[rule])
