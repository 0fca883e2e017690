"""Every rule's data-driven cases: the stream that must fire it does, the near miss does not."""

from __future__ import annotations

import pytest

import contract
from contract.catalog import CATALOG
from tests.casefiles import Case, all_cases

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    report = contract.check(case.data, wire=case.wire, strict=case.strict)
    found = [v for v in report.violations if v.rule == case.rule]
    if not case.fires:
        assert not found, f"{case.rule} fired on a near miss: {found}"
        return
    assert found, f"{case.rule} did not fire; report had {dict(report.counts)}"
    assert not report.conformant or CATALOG[case.rule].level.value == "SHOULD"
    places = {(v.line, v.pointer) for v in found}
    for place in case.at:
        assert (place.line, place.pointer) in places, f"expected {place} among {sorted(places, key=str)}"


def test_every_wire_rule_has_a_firing_case_and_a_near_miss() -> None:
    covered = {(c.rule, c.fires) for c in CASES}
    # Harness rules are observed on processes, baseline.stale on baseline files, and the checker's
    # integrity rules by fault injection (tests/test_fail_closed.py): no stream fires them.
    harness_only = {rule for rule, spec in CATALOG.items() if spec.wire in ("run", "checker")} | {"baseline.stale"}
    missing = [
        f"{rule} ({'fires' if fires else 'near miss'})"
        for rule in CATALOG
        if rule not in harness_only
        for fires in (True, False)
        if (rule, fires) not in covered
    ]
    assert not missing, "rules without data-driven cases: " + ", ".join(missing)
