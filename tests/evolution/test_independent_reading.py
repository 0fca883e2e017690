"""The gate against an independent reading: schema edits whose verdicts someone else wrote.

Each ``tests/wires/<wire>/independent_cases.json`` holds edits to a wire's seed and the verdict a
reader expected who had read only the seed and docs/adr-walk.md, never ``contract/`` or its tests:
our own cases can only hold our own reading. The classifier must be at least as severe as each
verdict (a reading of "none" met by "breaking" is the safe direction: the ADR accepts the break);
a milder verdict is a wrong "additive", unless the case records the disagreement and why. The
reading found that a new line kind of subagent-stdio, whose seed never says its types are an open
set, was called additive.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from contract.checking.schema import load
from contract.evolution.classify import classify, is_breaking
from contract.wires import BUNDLED
from tests.support.casefiles import wire_cases
from tests.support.seeds import SEED_DIGESTS

SEVERITY = {"none": 0, "additive": 1, "breaking": 2}


def _cases() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for wire in BUNDLED:
        path = wire_cases(wire).parent / "independent_cases.json"
        if path.is_file():
            found += [(wire, case) for case in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    return found


CASES = _cases()


def _apply(document: Any, edit: list[dict[str, Any]]) -> Any:
    """The reader's ops: ``add`` inserts into an array (``-``: at the end) or sets a member,
    ``replace`` sets one that exists, ``remove`` deletes."""
    for op in edit:
        *parents, last = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        node = document
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if op["op"] == "remove":
            del node[int(last) if isinstance(node, list) else last]
        elif isinstance(node, list):
            if op["op"] == "add":
                node.insert(len(node) if last == "-" else int(last), op["value"])
            else:
                node[int(last)] = op["value"]
        else:
            assert op["op"] == "add" or last in node, op
            node[last] = op["value"]
    return document


def _verdict(old: Any, new: Any) -> str:
    changes = classify(old, new)
    return "breaking" if is_breaking(changes) else "additive" if changes else "none"


@pytest.mark.parametrize(("wire", "case"), CASES, ids=[f"{wire}: {case['name']}" for wire, case in CASES])
def test_the_verdict_is_at_least_as_severe_as_the_independent_reading(wire: str, case: dict[str, Any]) -> None:
    seed = load(wire)
    ours = _verdict(seed, _apply(copy.deepcopy(seed), case["edit"]))
    if "disagreement" in case:
        assert SEVERITY[ours] < SEVERITY[case["expected"]], f"no longer a disagreement: {case['name']} is {ours}"
        return
    expected = case["expected"]
    assert SEVERITY[ours] >= SEVERITY[expected], f"{case['name']}: {ours}, expected {expected}: {case['why']}"


def test_the_reading_covers_each_verdict_on_each_of_milk_s_wires() -> None:
    """The data is there to be read: each of milk's wires (copied from a seed) has a file holding
    breaking, additive and no-change cases. A wire written here needs none: its own author cannot
    give it an independent reading (the eleventh add-a-wire trial met this test's first version)."""
    for wire in SEED_DIGESTS:
        assert {case["expected"] for w, case in CASES if w == wire} == set(SEVERITY), wire
