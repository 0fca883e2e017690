"""The quick pass over a snapshot (``snapshots.Walked``, issue 50) says only what the machines' walks would.

``UniqueKeys`` and ``Consistency`` skip their walks where one shared quick pass proved nothing is
there to report, and mark exercised the rules the pass says their walks judge. On a space of
snapshots (the wire's own consistent ones, drawn by its strategies, then edited at random places:
a number nudged, a string of another place, a list item repeated or dropped, a member removed, a
value of another JSON kind; ``recorded_findings.edit``) both machines must give, with the pass,
exactly the findings and the exercised rules they give without it (every snapshot walked).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contract.core.reader import Record
from contract.rules.report import Collector, Report
from contract.wires.subagent_stdio.kit.strategies import snapshot
from contract.wires.subagent_stdio.snapshots import Consistency, UniqueKeys, Walked
from tests.support.recorded_findings import edit


class _Never(Walked):
    """A pass that proves nothing: every snapshot walked by the machines, as before issue 50."""

    def of(self, snap: dict[str, Any]) -> tuple[bool, tuple[str, ...]] | None:
        return None


def _judged(obj: dict[str, Any], walked: Walked) -> tuple[list[Any], set[str]]:
    report = Report(wire="subagent-stdio")
    out = Collector(report)
    record = Record(7, b"", obj, True)
    for machine in (UniqueKeys(walked), Consistency(walked)):
        machine.feed(record, out)
    return report.violations, report.exercised


STATUSES = ("running", "complete", "completed", "failed", "rejected", "stopped", None)


def _nodes(runs: Any) -> list[dict[str, Any]]:
    found, stack = [], [runs]
    while stack:
        siblings = stack.pop()
        for node in siblings if type(siblings) is list else ():
            if type(node) is dict:
                found.append(node)
                stack.append(node.get("children"))
    return found


def _aimed(snap: dict[str, Any], rng: random.Random) -> None:
    """One edit aimed at a rule of the two machines: times out of order, an outcome that disagrees,
    a repeated fleet entry."""
    nodes = _nodes(snap.get("runs"))
    if not nodes:
        return
    node = rng.choice(nodes)
    found = node.get("startedAt")
    started: int = found if type(found) is int else 5
    choice = rng.randrange(5)
    if choice == 0:
        node[rng.choice(("updatedAt", "endedAt"))] = started + rng.choice((-1, 0, 1))
    elif choice == 1:
        node["processTerminal"] = {"state": "exited", "observedAt": started + rng.choice((-1, 0, 1))}
    elif choice == 2:
        outcome = {"status": rng.choice(STATUSES), "success": rng.choice((True, False, None)),
                   "exitCode": rng.choice((0, 1, None))}
        node["outcome"] = {key: value for key, value in outcome.items() if value is not None}
        node["status"] = rng.choice(STATUSES[:-1])
    elif choice == 3:
        entries = snap["fleet"].get("entries") if type(snap.get("fleet")) is dict else None
        if type(entries) is list and entries:
            entries.append(dict(entries[0]))
    else:
        node["tokens"] = {"input": 1, "output": 2, "total": rng.choice((2, 3, 4))}


@st.composite
def _edited(draw: st.DrawFn) -> dict[str, Any]:
    snap = snapshot(draw, "sess_a", "e1", draw(st.integers(0, 9)), True)
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 3))):
        (edit if rng.random() < 0.3 else _aimed)(snap, rng)
    kind = draw(st.sampled_from(("response", "subagent_event")))
    return {"type": kind, "data": snap} if kind == "response" else {"type": kind, "snapshot": snap}


@settings(max_examples=500, derandomize=True, deadline=None)
@given(_edited())
def test_the_quick_pass_changes_no_finding_and_no_exercised_rule(obj: dict[str, Any]) -> None:
    assert _judged(obj, Walked()) == _judged(obj, _Never())


def test_the_pass_proves_the_common_snapshot_and_declines_a_fault() -> None:
    # the near miss and the fault: a consistent node is proven, a total one off is walked
    node = {"key": "r", "status": "running", "children": [], "startedAt": 1, "updatedAt": 2,
            "tokens": {"input": 1, "output": 2, "total": 3}}
    snap = {"available": True, "runs": [node, dict(node, key="s")],
            "fleet": {"entries": [], "totalActive": 0, "omitted": 0}}
    assert Walked().of(snap) == (True, ("sa.fleet-counts", "sa.tokens-total", "sa.node-times"))
    node["tokens"] = {"input": 1, "output": 2, "total": 4}
    assert Walked().of(snap) is None
    violations, _ = _judged({"type": "response", "data": snap}, Walked())
    assert [v.pointer for v in violations] == ["/data/runs/0/tokens/total"]
