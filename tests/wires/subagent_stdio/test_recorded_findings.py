"""The subagent-stdio checker's findings, unchanged by its speed-ups (issue 50).

tests/wires/subagent_stdio/recorded_findings.json was recorded from the code before the snapshot
walks were rewritten (``python -m tests.support.recorded_findings subagent-stdio``, its own
commit): every case file, every golden and seeded mutants of the goldens, each with its findings
(rule, level, line, pointer, message, hint), counts, rules exercised, notes and verdict. The
checker must give each input the same today.
"""

from __future__ import annotations

import pytest

from tests.support.recorded_findings import fired_on_fewer, unmatched_after_holding

WIRE = "subagent-stdio"


def test_every_input_is_judged_as_recorded() -> None:
    """Every case file's input strictly; a golden's inputs (named by its bytes) where that golden is as
    recorded. A golden added, changed or removed since (an ADR's) is said in a skip after the rest held."""
    reason = unmatched_after_holding(WIRE)
    if reason is not None:
        pytest.skip(reason)


def test_the_record_holds_every_rule_of_the_snapshot_walks_firing() -> None:
    # the record is worth comparing only where the rules rewritten fire in it, on more than one input
    walks = ("sa.unique-keys", "sa.fleet-counts", "sa.capacity", "sa.tokens-total", "sa.node-times",
             "sa.outcome", "sa.unavailable", "sa.event-envelope")
    assert fired_on_fewer(WIRE, walks) == {}
