"""Every rule's data-driven cases: the stream that must fire it does, the near miss does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import contract
from contract.rules import requirements
from contract.rules.catalog import CATALOG, rules_for
from tests.support.casefiles import Case, CaseFileError, Place, all_cases, load
from tests.support.wires import registered
from tests.wires.audit_log import AUDIT_LOG, HERE

CASES = all_cases()
# The synthetic wire's cases sit in its own folder (tests/wires/audit_log/cases), found the same way.
SYNTHETIC = [case for path in sorted((HERE / "cases").glob("*.json")) for case in load(path)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    _judge(case)


@pytest.mark.parametrize("case", SYNTHETIC, ids=[c.id for c in SYNTHETIC])
def test_synthetic_wire_case(case: Case) -> None:
    """The same judgement over a wire the tests register (a wire is its package plus one registry line)."""
    with registered(AUDIT_LOG):
        _judge(case)


def test_every_synthetic_wire_rule_has_a_firing_case_and_a_near_miss() -> None:
    covered = {(c.rule, c.fires) for c in SYNTHETIC}
    assert {(rule.id, fires) for rule in AUDIT_LOG.rules for fires in (True, False)} <= covered


def _judge(case: Case) -> None:
    report = contract.check(case.data, wire=case.wire, strict=case.strict)
    found = [v for v in report.violations if v.rule == case.rule]
    status = {v.rule.id: v.status for v in requirements.verdicts(report)}.get(case.rule)
    if status is None:  # a rule of the other wire (line.ansi on subagent-stdio): never judged there
        assert case.rule not in {r.id for r in rules_for(case.wire)}
        assert not found
        return
    if not case.fires:
        assert not found, f"{case.rule} fired on a near miss: {found}"
        want = requirements.PASSED if case.exercised else requirements.NOT_EXERCISED
        assert status == want, f"{case.rule}: expected the verdict {want}, found {status}"
        return
    assert status == requirements.FAILED
    assert found, f"{case.rule} did not fire; report had {dict(report.counts)}"
    assert not report.conformant or CATALOG[case.rule].level.value == "SHOULD"
    places = {(v.line, v.pointer) for v in found}
    for place in case.at:
        assert (place.line, place.pointer) in places, f"expected {place} among {sorted(places, key=str)}"


def test_every_wire_rule_has_a_firing_case_and_a_near_miss() -> None:
    covered = {(c.rule, c.fires) for c in (*CASES, *SYNTHETIC)}
    # Harness rules are observed on processes, baseline.stale on baseline files, and the checker's
    # integrity rules by fault injection (tests/checking/test_fail_closed.py), the consumer rules on consumers
    # fed streams (tests/consumers/test_feed.py): no stream fires them.
    harness_only = {rule for rule, spec in CATALOG.items()
                    if spec.wire in ("run", "checker", "consumer")} | {"baseline.stale"}
    missing = [
        f"{rule} ({'fires' if fires else 'near miss'})"
        for rule in CATALOG
        if rule not in harness_only
        for fires in (True, False)
        if (rule, fires) not in covered
    ]
    assert not missing, "rules without data-driven cases: " + ", ".join(missing)


def test_every_wire_rule_has_a_not_exercised_case() -> None:
    """Each machine's exercise point is tested both ways: a near miss where the rule judged
    and passed (above), and a stream that holds nothing the rule applies to (not-exercised)."""
    idle = {c.rule for c in (*CASES, *SYNTHETIC) if not c.fires and not c.exercised}
    passed = {c.rule for c in (*CASES, *SYNTHETIC) if not c.fires and c.exercised}
    exempt = {rule for rule, spec in CATALOG.items() if spec.wire in ("run", "checker", "consumer")}
    exempt |= {"baseline.stale", *requirements.always_judged_rules()}
    missing = sorted(set(CATALOG) - exempt - idle)
    assert not missing, "rules without a not-exercised case: " + ", ".join(missing)
    assert not sorted(set(CATALOG) - exempt - passed)


_GOOD = {"description": "a gap", "lines": [{"seq": 2}], "fires": True, "at": [{"line": 1, "pointer": "/seq"}]}


@pytest.mark.parametrize(("edit", "where", "says"), [
    ({"at": [{"line": 1}]}, "/cases/0/at/0", "'pointer' is a required property"),  # not "any pointer"
    ({"fire": True}, "/cases/0", "'fire' was unexpected"),
    ({"fires": False}, "/cases/0", "should not be valid"),  # a quiet case with a place
    ({"raw": "{}\n"}, "/cases/0", "is valid under each of"),  # two inputs
    ({"at": [{"line": "1", "pointer": None}]}, "/cases/0/at/0/line", "is not of type"),
], ids=["at-without-pointer", "misspelt-key", "quiet-with-at", "two-inputs", "line-as-string"])
def test_a_case_file_off_its_shape_stops_with_its_path_and_place(tmp_path: Path, edit: dict[str, Any],
                                                                 where: str, says: str) -> None:
    path = tmp_path / "al.seq.json"
    path.write_text(json.dumps({"rule": "al.seq", "wire": "audit-log", "cases": [{**_GOOD, **edit}]}))
    with pytest.raises(CaseFileError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}: at {where}: ")
    assert says in str(caught.value)


def test_a_case_file_on_its_shape_loads(tmp_path: Path) -> None:
    path = tmp_path / "al.seq.json"
    path.write_text(json.dumps({"rule": "al.seq", "wire": "audit-log", "cases": [_GOOD]}))
    [case] = load(path)
    assert case.at == (Place(1, "/seq"),)
    assert case.data == b'{"seq":2}\n'
    assert case.fires
