"""The stream-json checker's findings, unchanged by its rules' rewrite and speed-ups (issues 48, 50).

tests/wires/stream_json/recorded_findings.json was recorded from the code before its rules became
one object each (``python -m tests.support.recorded_findings stream-json``, its own commit):
every case file, every golden and seeded mutants of the goldens, each with its findings (rule,
level, line, pointer, message, hint), counts, rules exercised, notes and verdict. The checker
must give each input the same today.
"""

from __future__ import annotations

import json

import pytest

from tests.support.recorded_findings import inputs, observe, record_path

WIRE = "stream-json"


def test_every_input_is_judged_as_recorded() -> None:
    """Every case file's input strictly; a golden's inputs (named by its bytes) where that golden is as
    recorded. A golden added, changed or removed since (an ADR's) is said in a skip after the rest held."""
    recorded = json.loads(record_path(WIRE).read_text(encoding="utf-8"))
    seen = observe(WIRE)
    cases = sorted(k for k in seen if not k.startswith("golden "))
    assert cases == sorted(k for k in recorded if not k.startswith("golden ")), \
        "the case files changed: record again from the code before the change"
    both = sorted(set(seen) & set(recorded))
    moved = [name for name in both if seen[name] != recorded[name]]
    assert not moved, (f"{len(moved)} of {len(both)} inputs judged otherwise, first {moved[0]!r}:\n"
                       f"recorded {recorded[moved[0]]}\nseen     {seen[moved[0]]}")
    unmatched = len(set(recorded) - set(seen)) + len(set(seen) - set(recorded))
    if unmatched:
        pytest.skip(f"{len(both)} inputs judged as recorded; {unmatched} belong to goldens added, changed or removed "
                    "since the record: record again from the code before your change to compare them")


def test_the_record_holds_the_cross_line_rules_firing() -> None:
    # the record is worth comparing only where the rules rewritten fire in it, on more than one input
    # (sj.init-once, sj.result-once, sj.capabilities, sj.parent-ref: their case files alone)
    recorded = json.loads(record_path(WIRE).read_text(encoding="utf-8"))
    fired: dict[str, int] = {}
    for found in recorded.values():
        for rule in {finding[0] for finding in found["findings"]}:
            fired[rule] = fired.get(rule, 0) + 1
    walks = ("sj.schema", "sj.seq", "sj.seq-contiguous", "sj.ts-format", "sj.session", "sj.session-constant",
             "sj.tool-result-ref", "sj.tool-args-reassembly", "sj.result-last", "sj.result-success",
             "sj.result-is-error", "sj.init-first", "sj.usage-rollup", "sj.ts-order", "sj.role-form",
             "sj.agent-form", "sj.message-form", "sj.subtype", "sj.message-present")
    assert {rule: fired.get(rule, 0) for rule in walks if fired.get(rule, 0) < 5} == {}
    assert len(recorded) >= len([i for i in inputs(WIRE) if not i[0].startswith("golden ")])
