"""Requirement verdicts (contract.rules.requirements) in every report format.

Per catalogued rule of the wire, a report says passed, failed, not-exercised or ignored: a
green run on a three-line capture must not read as full conformance. The machines' exercise
points are tested rule by rule by the data cases (tests/rules/test_rule_cases.py); here: the
formats, the declared families (line.*, checker.*, run.*, baseline.stale), --ignore, and the
parallel checker giving the same verdicts as one process.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from contract.checking import parallel
from contract.checking.checker import check
from contract.cli import run
from contract.core.resources import data_dir
from contract.live.harness import run_stream
from contract.reporting.reporters import render_junit, render_text
from contract.reporting.terminal import Style
from contract.rules import baseline, requirements
from contract.rules.catalog import CATALOG, rules_for
from contract.wires import get
from tests.support.wrapped import unwrapped

GOLDENS = data_dir("goldens")
HELLO = GOLDENS / "stream-json" / "hello.jsonl"


def _statuses(report: Any) -> dict[str, str]:
    return {v.rule.id: v.status for v in requirements.verdicts(report)}


def test_hello_text_report_counts_exercised_rules_and_lists_the_others(
        capsys: pytest.CaptureFixture[str]) -> None:
    found = requirements.verdicts(check(HELLO))
    applicable = sum(v.applicable for v in found)
    assert applicable < len(list(rules_for("stream-json")))
    # the default report counts (one line); -v lists the rules by status and reason
    assert run(["check", str(HELLO)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("requirements: "))
    counts = requirements.tally(check(HELLO))
    assert line.startswith(f"requirements: {counts['passed']} passed, 0 failed, {counts['not-exercised']} not "
                           "exercised; ")
    assert f"; {len(found) - applicable} not applicable (-v lists each)" in line
    assert run(["check", "-v", str(HELLO)]) == 0
    out = "\n".join(unwrapped(capsys.readouterr().out))  # each list on one line (wrapped at 80 on a pipe)
    tally = next(line for line in out.splitlines() if line.startswith("requirements: "))
    assert f" of {applicable} applicable rules exercised" in tally
    assert tally.endswith(f"; {len(found) - applicable} not applicable")
    idle = next(line for line in out.splitlines() if line.strip().startswith("not exercised: "))
    # hello has no tool call: those rules were never exercised (a gap a longer capture fills)
    for rule in ("sj.tool-result-ref", "sj.parent-ref"):
        assert rule in idle
    # what a file check can never exercise is not a gap: not listed as not exercised
    for rule in ("sj.tool-args-reassembly", "run.timeout", "run.no-response", "consumer.crash", "baseline.stale",
                 "sj.seq", "sj.schema"):
        assert rule not in idle, rule
    inapplicable = [line for line in out.splitlines() if line.strip().startswith("not applicable")]
    assert any("run.timeout" in line and "live run" in line for line in inapplicable)
    assert any("consumer.crash" in line and "feed" in line for line in inapplicable)
    assert any("baseline.stale" in line and "--baseline" in line for line in inapplicable)
    assert any("sj.tool-args-reassembly" in line and "partial_messages_v1" in line for line in inapplicable)


@pytest.mark.parametrize("path", sorted(GOLDENS.glob("*/*.jsonl")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_json_has_one_requirement_per_catalogued_rule(path: Path) -> None:
    wire = path.parent.name
    document = json.loads(json.dumps(check(path, wire).to_json()))
    listed = document["requirements"]
    assert [r["rule"] for r in listed] == [r.id for r in rules_for(wire)]
    assert {r["status"] for r in listed} <= set(requirements.STATUSES)
    for entry in listed:
        assert set(entry) == {"rule", "level", "basis", "status", "findings", "source", "reason", "applicability"}
        assert entry["basis"] == CATALOG[entry["rule"]].basis_for(wire).value
        assert bool(entry["reason"]) == (entry["status"] in ("not-exercised", "not-applicable", "ignored",
                                                             "outside-basis"))
        assert (entry["applicability"] is None) == (entry["status"] != "not-applicable")
        assert entry["findings"] == document["counts"].get(entry["rule"], 0)
    by_rule = {r["rule"]: r["status"] for r in listed}
    assert by_rule[get(wire).schema_rule] == "passed"
    # a file, not a run: the run, consumer and baseline rules never apply to it
    assert all(by_rule[r] == "not-applicable" for r in by_rule if r.startswith(("run.", "consumer.", "baseline.")))
    assert {r["applicability"] for r in listed if r["rule"].startswith(("run.", "consumer."))} <= {"verb", "wire"}
    assert document["scope"] == "file"


def test_failed_and_ignored() -> None:
    lines = HELLO.read_bytes().splitlines(keepends=True)
    broken = b"".join([lines[0], lines[1].replace(b'"seq":2', b'"seq":5'), *lines[2:]])
    report = check(broken)
    assert _statuses(report)["sj.seq"] == "failed"
    ignored = check(broken, ignore=["sj.seq"])
    assert _statuses(ignored)["sj.seq"] == "ignored"
    assert ignored.ignored == ("sj.seq",)
    assert requirements.tally(ignored)["ignored"] == 1
    junit = ET.fromstring(render_junit(ignored))
    case = next(c for c in junit.iter("testcase") if c.get("name", "").startswith("sj.seq:"))
    skipped = case.find("skipped")
    assert skipped is not None
    assert "--ignore" in (skipped.get("message") or "")
    assert "  ignored: sj.seq" in render_text(ignored, Style(verbosity=1))  # -v names it
    assert ", 1 ignored; " in render_text(ignored)  # the default report counts it


def test_an_empty_stream_exercises_no_framing_rule() -> None:
    statuses = _statuses(check(b""))
    assert statuses["line.utf8"] == "not-exercised"
    assert statuses["checker.internal"] == "passed"  # the check itself ran to its end
    assert statuses["sj.init-first"] == "failed"


def test_junit_shows_not_exercised_as_skipped_never_passed() -> None:
    report = check(HELLO)
    suite = ET.fromstring(render_junit(report))
    cases = {c.get("name", "").split(":")[0]: c for c in suite.iter("testcase")}
    statuses = _statuses(report)
    for rule, status in statuses.items():
        skipped = cases[rule].find("skipped")
        if status in ("not-exercised", "not-applicable"):
            assert skipped is not None
            assert status.replace("-", " ") in (skipped.get("message") or "")
        else:
            assert skipped is None
            assert cases[rule].find("failure") is None
    assert suite.get("skipped") == str(sum(s in ("not-exercised", "not-applicable") for s in statuses.values()))


@pytest.mark.process
def test_a_live_run_exercises_the_run_rules() -> None:
    from contract.live.harness import default_command

    report = run_stream(default_command("stream-json"), wire="stream-json", timeout=60)
    statuses = _statuses(report)
    assert report.conformant
    for rule in ("run.start", "run.timeout", "run.exit-status", "run.output-limit", "run.interrupted"):
        assert statuses[rule] == "passed", rule
    assert statuses["run.no-response"] == "not-applicable"  # a conversation wire's question only
    assert all(statuses[r] == "not-applicable" for r in statuses if r.startswith("consumer."))
    assert statuses["sj.seq"] == "passed"


@pytest.mark.process
def test_a_run_that_cannot_start_exercises_only_run_start() -> None:
    report = run_stream([str(Path(sys.executable).parent / "no-such-emitter")], wire="stream-json")
    statuses = _statuses(report)
    assert statuses["run.start"] == "failed"
    assert statuses["run.timeout"] == "not-exercised"


def test_baseline_stale_is_exercised_only_with_a_baseline() -> None:
    report = check(HELLO)
    assert _statuses(report)["baseline.stale"] == "not-applicable"
    applied = baseline.apply(report, baseline.Baseline((), "stream-json", "x"))
    assert _statuses(applied)["baseline.stale"] == "passed"
    assert _statuses(applied)["sj.seq"] == "passed"  # the check's own verdicts are kept


@pytest.mark.process
def test_parallel_checker_gives_the_same_requirements(tmp_path: Path) -> None:
    """jobs=2 forces the worker whatever the size (tests/checking/test_parallel.py compares whole reports,
    requirements included, on every case, golden and large generated inputs)."""
    for path in (GOLDENS / "stream-json" / "tool_calls.jsonl", GOLDENS / "subagent-stdio" / "epoch_change.jsonl"):
        wire = path.parent.name
        copy = tmp_path / path.name
        copy.write_bytes(path.read_bytes())
        with copy.open("rb") as handle:
            one = check(handle, wire, jobs=1)
        with copy.open("rb") as handle:
            two = check(handle, wire, jobs=2)
        with copy.open("rb") as handle:
            assert parallel.worth_it(handle, 2, wire)
        assert not any("parallel checker failed" in note for note in two.notes)
        assert requirements.verdicts(two) == requirements.verdicts(one)
        assert _statuses(one)["sj.tool-result-ref" if wire == "stream-json" else "sa.revision-order"] == "passed"


def test_sarif_lists_requirements_per_file(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.reporting.test_ci_formats import _valid_sarif

    assert run(["check", "--format", "sarif", str(HELLO)]) == 0
    sarif = _valid_sarif(capsys.readouterr().out)
    files = sarif["runs"][0]["properties"]["files"]
    listed = {r["rule"]: r["status"] for r in files[0]["requirements"]}
    assert listed == _statuses(check(HELLO))


def test_markdown_and_github_say_how_many_rules_were_exercised(capsys: pytest.CaptureFixture[str]) -> None:
    report = check(HELLO)
    tally = requirements.tally(report)
    exercised = f"{tally['passed'] + tally['failed']} of {sum(tally.values()) - tally['not-applicable']}"
    assert run(["check", "--format", "markdown", str(HELLO)]) == 0
    markdown = capsys.readouterr().out
    assert f"| {exercised} |" in markdown
    gaps, inapplicable = markdown.split("Applicable rules not exercised", 1)[1].split("Rules not applicable", 1)
    assert "sj.tool-result-ref" in gaps
    assert "consumer" not in gaps
    assert "run." not in gaps
    assert "consumer.crash" in inapplicable
    assert "run.timeout" in inapplicable
    assert run(["check", "--format", "github", str(HELLO)]) == 0
    assert f"{exercised} applicable rules exercised ({tally['not-applicable']} not applicable)" in \
        capsys.readouterr().out


def test_a_check_that_did_not_finish_passes_no_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    from contract.wires.stream_json.machines import StreamRules

    clean = check(HELLO.read_bytes())
    assert _statuses(clean)["sj.seq"] == "passed"  # near miss: a finished check earns "passed"
    original = StreamRules.feed

    def feed(self: Any, record: Any, out: Any) -> None:
        if record.line == 3:
            raise TypeError("injected")
        original(self, record, out)

    monkeypatch.setattr(StreamRules, "feed", feed)
    report = check(HELLO.read_bytes(), jobs=1)
    statuses = _statuses(report)
    assert statuses["checker.internal"] == "failed"
    assert "passed" not in statuses.values()
    seq = next(v for v in requirements.verdicts(report) if v.rule.id == "sj.seq")
    assert seq.status == "not-exercised"
    assert seq.to_json()["reason"] == "not judged to the end: checker.internal stopped the check"
