"""Applicability (contract.rules.requirements): what a report could never exercise is not-applicable,
with its reason (the verb, a capability the emitter did not declare, another wire), never a gap.

Each reason has a case that makes a rule not applicable and one that must not: a declared
capability makes its rules applicable, and a rule that judged something applies whatever made
the report.
"""

from __future__ import annotations

import json
import sys

import pytest

from contract.checking.checker import check
from contract.cli import run
from contract.core.resources import data_dir
from contract.rules import requirements
from contract.rules.report import Report

HELLO = data_dir("goldens") / "stream-json" / "hello.jsonl"
TOOL_CALLS = data_dir("goldens") / "stream-json" / "tool_calls.jsonl"
GATED = ("sj.tool-args-reassembly", "sj.tool-args-duplicate-key")


def _verdicts(report: Report) -> dict[str, requirements.Requirement]:
    return {v.rule.id: v for v in requirements.verdicts(report)}


def _with_capabilities(caps: object) -> bytes:
    """hello with its init's capabilities replaced by ``caps``."""
    first, *rest = HELLO.read_bytes().splitlines(keepends=True)
    init = json.loads(first)
    init["capabilities"] = caps
    return b"".join([json.dumps(init).encode() + b"\n", *rest])


def test_an_undeclared_capability_makes_its_rules_not_applicable() -> None:
    report = check(HELLO)
    assert report.declared == frozenset({"stream_v1"})
    verdicts = _verdicts(report)
    for rule in GATED:
        assert verdicts[rule].status == requirements.NOT_APPLICABLE
        assert verdicts[rule].applicability == requirements.CAPABILITY
        assert "partial_messages_v1" in verdicts[rule].reason


def test_a_declared_capability_makes_its_rules_applicable() -> None:
    declared = check(_with_capabilities(["stream_v1", "partial_messages_v1"]))
    verdicts = _verdicts(declared)
    for rule in GATED:  # declared, never shown in this capture: a gap, said as one
        assert verdicts[rule].status == requirements.NOT_EXERCISED
    shown = _verdicts(check(TOOL_CALLS))
    assert all(shown[rule].status == requirements.PASSED for rule in GATED)


def test_no_declaration_leaves_the_gated_rules_applicable() -> None:
    """A first line that is not init declares nothing: no gap is hidden behind a missing declaration."""
    _first, *rest = HELLO.read_bytes().splitlines(keepends=True)
    report = check(b"".join(rest))
    assert report.declared is None
    verdicts = _verdicts(report)
    assert all(verdicts[rule].status == requirements.NOT_EXERCISED for rule in GATED)


def test_hostile_capabilities_declare_nothing_and_never_raise() -> None:
    for caps in ("partial_messages_v1", {"a": 1}, [1, None, ["partial_messages_v1"]], None):
        report = check(_with_capabilities(caps))
        assert report.declared == frozenset()
        assert _verdicts(report)["sj.tool-args-reassembly"].status == requirements.NOT_APPLICABLE
        assert "checker.internal" not in report.counts


def test_a_rule_that_judged_something_applies_whatever_the_scope() -> None:
    report = Report(wire="stream-json", scope=requirements.Scope.FILE)
    report.exercised.add("run.timeout")
    report.counts["consumer.crash"] += 1
    verdicts = _verdicts(report)
    assert verdicts["run.timeout"].status == requirements.PASSED
    assert verdicts["consumer.crash"].status == requirements.FAILED


def test_feed_does_not_list_the_emitters_rules_as_gaps() -> None:
    report = Report(wire="stream-json", scope=requirements.Scope.FEED, lines=3)
    report.exercised.update({"run.start", "consumer.crash", "consumer.hang", "checker.internal", "checker.limit"})
    verdicts = _verdicts(report)
    for rule, verdict in verdicts.items():
        if rule.startswith("sj.") or rule == "run.timeout":
            assert verdict.status == requirements.NOT_APPLICABLE, rule
            assert verdict.applicability == requirements.VERB
    assert verdicts["consumer.crash"].status == requirements.PASSED
    assert verdicts["consumer.early-exit"].status == requirements.NOT_EXERCISED  # a consumer rule: applicable
    assert verdicts["checker.input-changed"].applicability == requirements.VERB  # no input file read
    assert verdicts["checker.internal"].status == requirements.PASSED  # the checker rules apply


def test_another_wires_rule_is_not_applicable_on_a_stream_wire_only() -> None:
    stream = _verdicts(Report(wire="stream-json", scope=requirements.Scope.LIVE))
    assert stream["run.no-response"].applicability == requirements.OTHER_WIRE
    conversation = _verdicts(Report(wire="subagent-stdio", scope=requirements.Scope.LIVE))
    assert conversation["run.no-response"].status == requirements.NOT_EXERCISED
    assert conversation["run.timeout"].status == requirements.NOT_EXERCISED  # a live run: applicable


def test_the_text_tally_counts_applicable_rules_only() -> None:
    report = check(HELLO)
    tally = requirements.tally(report)
    line = requirements.summary_lines(report)[0]
    applicable = sum(tally.values()) - tally[requirements.NOT_APPLICABLE]
    assert f"of {applicable} applicable rules exercised" in line
    assert "consumer" not in " ".join(requirements.summary_lines(report)[1:2])


@pytest.mark.process
def test_a_real_feed_lists_no_emitter_rule_as_not_exercised(capsys: pytest.CaptureFixture[str]) -> None:
    consumer = [sys.executable, "-m", "contract.reference.stream_json_consumer"]
    assert run(["feed", "--scenario", "hello", "--format", "json", "--", *consumer]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["scope"] == "feed"
    statuses = {r["rule"]: r["status"] for r in document["requirements"]}
    assert all(statuses[r] == "not-applicable" for r in statuses if r.startswith(("sj.", "line.")))
    assert statuses["consumer.crash"] == statuses["consumer.hang"] == statuses["checker.internal"] == "passed"
    output = next(r for r in document["requirements"] if r["rule"] == "consumer.output")
    assert output["status"] == "not-applicable"  # no expectation was given: nothing asked of its output
    assert "--expect-stdout" in output["reason"]
    assert not [r for r in document["requirements"] if r["status"] == "not-exercised"]
