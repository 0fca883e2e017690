"""The default text report is as short as its news (issue 51): the findings, one requirement line
of counts, then the verdict line; ``-v`` lists every requirement, ``-q`` is the findings and the
verdict line only.

- A clean golden's report is at most 3 lines, on every golden of every shipped wire.
- The requirement line counts the rules that cannot apply to what was run (a file is not a live
  run, nor a feed, nor a baseline run) and names none of them; ``-v`` names each, by reason.
- The foreign transcript tests/data/foreign/claude-code/sample-max-turns.jsonl (18 lines in
  Claude Code's shape, which is not milk's wire) reports in at most 40 lines, its first findings
  intact; any report does, whatever its findings, while its other lines leave room (hypothesis).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract import cli
from contract.checking.checker import check
from contract.core.resources import data_dir
from contract.reporting import reporters
from contract.reporting.reporters import render_text, requirement_line
from contract.reporting.terminal import PIPE_WIDTH, Style
from contract.rules import requirements
from contract.rules.catalog import CATALOG, rules_for
from contract.rules.report import Report, Violation
from contract.wires import BUNDLED
from tests.support.depth import deep
from tests.support.paths import TESTS

SAMPLE = TESTS / "data" / "foreign" / "claude-code" / "sample-max-turns.jsonl"
GOLDENS = sorted(p for wire in BUNDLED for p in (data_dir("goldens") / wire).glob("*.jsonl"))
PIPE = Style(width=PIPE_WIDTH)  # what the CLI uses on a pipe
FINDING = re.compile(r"^\S+:\d+ \S+ \[(MUST|SHOULD)\]")


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    code = cli.run(list(argv))
    return code, capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_clean_golden_reports_in_at_most_three_lines(golden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wire = golden.parent.name
    code, out = _out(capsys, "check", "--wire", wire, str(golden))
    if code != 0:  # a golden of a broken run (truncated.jsonl): findings are its news
        assert any(FINDING.match(line) for line in out), out
        return
    assert len(out) <= 3, "\n".join(out)
    assert out[-1].startswith(f"{golden}: conformant (")
    assert out[-2].startswith("requirements: ")


def test_hello_is_two_lines(capsys: pytest.CaptureFixture[str]) -> None:
    hello = data_dir("goldens") / "stream-json" / "hello.jsonl"
    assert _out(capsys, "check", str(hello)) == (0, [requirement_line(check(hello)),
                                                     f"{hello}: conformant (stream-json, 3 lines, no findings)"])


def test_the_requirement_line_counts_and_names_no_rule() -> None:
    hello = data_dir("goldens") / "stream-json" / "hello.jsonl"
    report = check(hello)
    tally = requirements.tally(report)
    line = requirement_line(report)
    assert line == (f"requirements: {tally['passed']} passed, 0 failed, {tally['not-exercised']} not exercised; "
                    f"{tally['not-applicable']} not applicable (-v lists each)")
    assert tally["not-applicable"] > 0  # the live-run, feed and baseline rules are counted there...
    for rule in rules_for("stream-json"):  # ...and no rule is named
        assert rule.id not in render_text(report, PIPE), rule.id
    # -v names each, by reason, as the default report did before
    verbose = render_text(report, Style(width=None, verbosity=1))
    assert "not applicable (judged only in a live run, never on a file): run.timeout" in verbose
    assert "not applicable (no --baseline was given): baseline.stale" in verbose
    assert "  not exercised: sj.ts-leap-second" in verbose


def test_ignored_and_outside_basis_are_counted_only_when_there_are_some() -> None:
    hello = data_dir("goldens") / "stream-json" / "hello.jsonl"
    assert "ignored" not in requirement_line(check(hello))
    assert ", 1 ignored;" in requirement_line(check(hello, ignore=["sj.seq"]))
    narrowed = check(hello)
    narrowed.bases = (narrowed.bases[0],)
    assert " outside --basis;" in requirement_line(narrowed)
    assert "outside --basis" not in requirement_line(check(hello))


def test_the_foreign_sample_is_eighteen_lines_of_foreign_input() -> None:
    assert len(SAMPLE.read_bytes().splitlines()) == 18
    assert not check(SAMPLE).conformant


@pytest.mark.parametrize("wire", ["stream-json", "auto", "subagent-stdio"])
def test_a_foreign_transcript_reports_in_forty_lines_with_its_first_findings_intact(
        wire: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _out(capsys, "check", "--wire", wire, str(SAMPLE))
    assert code == 1
    assert len(out) <= 40, "\n".join(out)
    _, verbose = _out(capsys, "check", "-v", "--wire", wire, str(SAMPLE))
    findings = [line for line in out if FINDING.match(line)]
    assert findings  # the first findings are shown, each as -v shows it and in its order
    assert findings == [line for line in verbose if FINDING.match(line)][:len(findings)]
    assert out[-1] == verbose[-1]  # the same verdict line
    assert out[-2].startswith("requirements: ")
    assert not any("run.timeout" in line or "consumer.crash" in line for line in out)


def test_the_sample_keeps_its_first_finding_and_hint(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _out(capsys, "check", str(SAMPLE))
    first = next(i for i, line in enumerate(out) if FINDING.match(line))
    assert out[first] == (f"{SAMPLE}:1 sj.init-first [MUST] at /type: expected system/init as the first line, "
                          "found system/hook_started [basis: written]")
    assert out[first + 1].startswith("    hint: ")


def test_quiet_is_the_findings_and_the_verdict_line(capsys: pytest.CaptureFixture[str]) -> None:
    _, default = _out(capsys, "check", str(SAMPLE))
    _, quiet = _out(capsys, "check", "-q", str(SAMPLE))
    assert quiet[-1] == default[-1]
    assert all(FINDING.match(line) or line.startswith(("    ×", "    hint:", "… ")) for line in quiet[:-1])
    shown = [line for line in quiet if FINDING.match(line)]
    assert shown[:3] == [line for line in default if FINDING.match(line)][:3]


def _unlisted(line: int, kind: str) -> str:
    """A note of the schema step's shape (contract.checking.pipeline, one per line type it does not list)."""
    return (f"sj.schema: line {line} has type '{kind}', which the schema does not list (assistant | result): judged "
            "by the common envelope only (open set: the seed says 'open set: ignore unknown values')")


def test_notes_alike_are_one_in_full_then_what_the_others_differ_in() -> None:
    report = Report(wire="stream-json", source="x.jsonl", lines=9)
    report.notes.extend([_unlisted(n, f"kind{n}") for n in range(2, 10)])  # eight alike
    report.notes.append("wire: checked as stream-json")  # and one of its own
    lines = render_text(report, Style(width=None)).splitlines()
    assert lines[:3] == ["# " + _unlisted(2, "kind2"),
                         "# 7 more notes like it: line 3 has type 'kind3'; line 4 has type 'kind4'; line 5 has type "
                         "'kind5'; line 6 has type 'kind6'; line 7 has type 'kind7'; … (-v shows each)",
                         "# wire: checked as stream-json"]
    verbose = render_text(report, Style(width=None, verbosity=1)).splitlines()
    assert verbose[:9] == [f"# {note}" for note in report.notes]  # near miss: -v shows each in full
    one = Report(wire="stream-json", source="x.jsonl", lines=9, notes=[_unlisted(2, "a"), _unlisted(3, "b")])
    assert render_text(one).splitlines()[1] == "# 1 more note like it: line 3 has type 'b' (-v shows each)"
    assert render_text(one, Style(verbosity=-1)).splitlines() == ["x.jsonl: conformant (stream-json, 9 lines, no "
                                                                 "findings)"]  # -q: no note at all


_RULES = [rule.id for rule in rules_for("stream-json") if rule.id.startswith(("sj.", "line."))]


@st.composite
def _reports(draw: st.DrawFn) -> Report:
    report = Report(wire="stream-json", source=draw(st.sampled_from(["x.jsonl", "a/b/" + "long" * 30 + ".jsonl"])),
                    lines=draw(st.integers(1, 10_000)))
    for _ in range(draw(st.integers(0, 200))):
        rule = draw(st.sampled_from(_RULES))
        line = draw(st.integers(1, report.lines))
        message = draw(st.sampled_from(["expected seq 3, found 4", "expected no member 'x'", "bad " * 40]))
        hint = draw(st.none() | st.sampled_from(["a hint", "another hint " * 12]))
        report.violations.append(Violation(rule, CATALOG[rule].level, line,
                                           draw(st.none() | st.sampled_from(["/seq", "/a/0/b", "/ts"])), message,
                                           hint))
        report.counts[rule] += 1
    dropped = draw(st.integers(0, 10**6)) if report.violations else 0  # counted past the memory cap, not kept
    if dropped:
        report.counts[report.violations[0].rule] += dropped
    report.notes.extend(draw(st.lists(st.sampled_from(["a note", "a long note " * 20]), max_size=2)))
    report.notes.extend(_unlisted(line, kind) for line, kind in  # one note per unlisted line type, up to 9
                        draw(st.lists(st.tuples(st.integers(1, 99), st.sampled_from(["a", "b.c", "x" * 60])),
                                      max_size=9)))
    report.violations.sort(key=lambda v: v.line or 0)
    return report


@settings(derandomize=True, max_examples=300 if deep() else 12)
@given(report=_reports(), verbosity=st.sampled_from([-1, 0]))
def test_any_default_or_quiet_report_fits_forty_lines(report: Report, verbosity: int) -> None:
    """The notes and the verdict take their lines, the findings what is left (never fewer than
    MIN_TEXT_FINDING_LINES); the first kinds of finding are shown whole, the rest counted."""
    lines = render_text(report, Style(width=PIPE_WIDTH, verbosity=verbosity)).splitlines()
    assert len(lines) <= reporters.MAX_TEXT_LINES, "\n".join(lines)
    assert lines[-1].startswith(f"{report.source}: ")
    kinds = len(reporters.group(report.violations))
    shown = sum(1 for line in lines if " [MUST]" in line or " [SHOULD]" in line)
    if shown < kinds:
        assert any(line.startswith(f"… {kinds - shown} more kind") for line in lines), "\n".join(lines)


@pytest.mark.process
def test_run_quiet_is_the_findings_and_the_verdict_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _out(capsys, "run", "-q")
    assert code == 0
    assert len(out) == 1
    assert ": conformant (stream-json, " in out[0]
    faulty = [sys.executable, str(TESTS / "faulty_emitters" / "exits_early.py")]
    code, default = _out(capsys, "run", "--", *faulty)
    assert code == 1
    assert any(line.startswith(("emitter stderr", "requirements: ", "timeline: ")) for line in default)
    code, quiet = _out(capsys, "run", "-q", "--", *faulty)
    assert code == 1
    assert quiet[-1] == default[-1]
    assert [line for line in quiet if " [MUST]" in line] == [line for line in default if " [MUST]" in line]
    assert all(" [MUST]" in line or line.startswith("    hint:") for line in quiet[:-1])


def test_the_readme_shows_what_the_quick_start_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    readme = (TESTS.parent / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- output:emitter -->\n```text\n(.*?)\n```", readme, re.DOTALL)
    assert shown, "README has no output block after <!-- output:emitter -->"
    (tmp_path / "goldens").symlink_to(data_dir("goldens"))
    hello = (tmp_path / "goldens" / "stream-json" / "hello.jsonl").read_bytes()
    (tmp_path / "truncated.jsonl").write_bytes(b"".join(hello.splitlines(keepends=True)[:2]))
    monkeypatch.chdir(tmp_path)
    _, first = _out(capsys, "check", "goldens/stream-json/hello.jsonl")
    _, second = _out(capsys, "check", "truncated.jsonl")
    assert shown.group(1).splitlines() == [*first, *second]
