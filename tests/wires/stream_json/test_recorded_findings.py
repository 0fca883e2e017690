"""The stream-json checker's findings, unchanged by its rules' rewrite and speed-ups (issues 48, 50).

tests/wires/stream_json/recorded_findings.json was recorded from the code before its rules became
one object each (``python -m tests.support.recorded_findings stream-json``, its own commit):
every case file, every golden and seeded mutants of the goldens, each with its findings (rule,
level, line, pointer, message, hint), counts, rules exercised, notes and verdict. The checker
must give each input the same today.
"""

from __future__ import annotations

import pytest

from tests.support.recorded_findings import fired_on_fewer, unmatched_after_holding

WIRE = "stream-json"


def test_every_input_is_judged_as_recorded() -> None:
    """Every case file's input strictly; a golden's inputs (named by its bytes) where that golden is as
    recorded. A golden added, changed or removed since (an ADR's) is said in a skip after the rest held."""
    reason = unmatched_after_holding(WIRE)
    if reason is not None:
        pytest.skip(reason)


def test_the_record_holds_the_cross_line_rules_firing() -> None:
    # the record is worth comparing only where the rules rewritten fire in it, on more than one input
    # (sj.init-once, sj.result-once, sj.capabilities, sj.parent-ref: their case files alone)
    walks = ("sj.schema", "sj.seq", "sj.seq-contiguous", "sj.ts-format", "sj.session", "sj.session-constant",
             "sj.tool-result-ref", "sj.tool-args-reassembly", "sj.result-last", "sj.result-success",
             "sj.result-is-error", "sj.init-first", "sj.usage-rollup", "sj.ts-order", "sj.role-form",
             "sj.agent-form", "sj.message-form", "sj.subtype", "sj.message-present")
    assert fired_on_fewer(WIRE, walks) == {}
