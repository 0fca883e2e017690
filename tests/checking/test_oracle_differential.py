"""Differential test: the independent oracle (tests/oracle) against ``contract.check``.

Inputs are the goldens, every rule case file (tests/cases/line and tests/wires/*/cases, firing cases and near misses
alike), systematic mutations of the goldens (tests/oracle/mutations.py) and whole streams from
``contract.strategies.streams``. For each input the oracle's MUST rule set and verdict are
compared with the project's, with every basis judged and then per basis (``--basis written``,
``derived``, ``policy``: the oracle keeps its own basis per rule, tests/oracle/READINGS.md), so a
rule the two sides place on different bases disagrees too; any difference not listed in
tests/oracle/known_disagreements.json fails, and so does a listed entry that no longer occurs on
the witness corpus (a stale entry).

Run ``python -m tests.checking.test_oracle_differential`` for a survey of every disagreement on the whole
deterministic corpus (about two minutes).
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contract
from contract.core.rule import bases as parse_bases
from contract.rules.catalog import CATALOG, rules_for
from contract.strategies import streams
from contract.wires import BUNDLED
from tests.oracle import BASES, BASIS, WIRES, basis_of, judge
from tests.oracle.mutations import Mutation, corpus
from tests.support.casefiles import all_cases
from tests.support.paths import ROOT

KNOWN_PATH = ROOT / "tests" / "oracle" / "known_disagreements.json"
# Richest goldens first: the witness corpus takes the first mutations of each kind in this order.
PREFERRED = ("subagent_tasks", "tool_calls", "session_housekeeping", "epoch_change", "workflow_events")
WITNESSES_PER_KIND = 2

Difference = tuple[str, str, str, str]  # (wire, kind, rule, side)


def goldens(wire: str) -> list[tuple[str, bytes]]:
    paths = sorted((ROOT / "goldens" / wire).glob("*.jsonl"))
    paths.sort(key=lambda p: (PREFERRED.index(p.stem) if p.stem in PREFERRED else len(PREFERRED), p.stem))
    return [(p.stem, p.read_bytes()) for p in paths]


# Every basis judged, then each alone: the per-basis comparisons.
SELECTIONS: tuple[tuple[str, ...], ...] = (BASES, *((basis,) for basis in BASES))


def differences(wire: str, kind: str, data: bytes) -> set[Difference]:
    """Rule-level disagreements on one input, per basis selection, after checking the project's
    verdict is consistent.

    A verdict disagreement always comes with a rule-level one (an empty MUST set on one side and a
    non-empty one on the other), so listing rule-level entries covers verdicts as well. A
    disagreement under one basis alone is listed with the kind ``<kind> [--basis <basis>]``.
    """
    verdict = judge(data, wire)
    report = contract.check(data, wire=wire)
    found: set[Difference] = set()
    for selection in SELECTIONS:
        report.bases = parse_bases(selection)  # what --basis sets: the findings are the same
        theirs = {v.rule for v in report.violations if v.level == "MUST" and report.judged(v.rule)}
        # The project's own verdict must follow its judged MUST findings; a mismatch is never excusable.
        assert report.conformant == (not theirs), (
            f"{wire} {kind} {selection}: conformant={report.conformant} with MUST {sorted(theirs)}")
        ours = verdict.must_under(selection)
        label = kind if selection == BASES else f"{kind} [--basis {selection[0]}]"
        found |= {(wire, label, rule, ORACLE_ONLY) for rule in ours - theirs}
        found |= {(wire, label, rule, CONTRACT_ONLY) for rule in theirs - ours}
    return found


@pytest.mark.parametrize("wire", WIRES)
def test_oracle_bases_agree_with_the_catalog(wire: str) -> None:
    """The oracle's own basis for every rule it judges is the catalog's on that wire, and what it
    never filters is what the catalog never filters."""
    theirs = {rule.id for rule in rules_for(wire)}
    for rule in BASIS:
        if rule not in theirs:  # the other wire's rule (line.ansi is stream-json's)
            continue
        assert basis_of(rule, wire) == CATALOG[rule].basis_for(wire).value, (wire, rule)
    from tests.oracle import ALWAYS

    assert {rule for rule in BASIS if not CATALOG[rule].filterable} == ALWAYS


ORACLE_ONLY = "oracle MUST, contract not"
CONTRACT_ONLY = "contract MUST, oracle not"


@cache
def known() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads(KNOWN_PATH.read_text(encoding="utf-8"))["disagreements"]
    return entries


def listed_by(diff: Difference) -> list[int]:
    """Indexes of the known entries that cover one difference."""
    wire, kind, rule, side = diff
    return [
        i
        for i, entry in enumerate(known())
        if entry["wire"] == wire
        and entry["rule"] == rule
        and entry["side"] == side
        and any(fnmatch.fnmatchcase(kind, pattern) for pattern in entry["kinds"])
    ]


def describe(diffs: set[Difference]) -> str:
    return "\n".join(f"  {w} {k}: {r}: {s}" for w, k, r, s in sorted(diffs))


def witness_corpus() -> Iterator[tuple[str, Mutation]]:
    """The first WITNESSES_PER_KIND mutations of every kind, richest goldens first (deterministic)."""
    for wire in WIRES:
        taken: dict[str, int] = {}
        for _name, data in goldens(wire):
            for kind, mutated in corpus(wire, _name, data):
                if taken.get(kind, 0) < WITNESSES_PER_KIND:
                    taken[kind] = taken.get(kind, 0) + 1
                    yield wire, (kind, mutated)


def test_known_disagreements_are_well_formed_and_not_stale() -> None:
    """Every entry is complete, and its minimal input still shows exactly that disagreement."""
    required = {"id", "wire", "kinds", "rule", "side", "oracle", "contract", "seed", "verdict", "minimal"}
    ids = [entry["id"] for entry in known()]
    assert len(ids) == len(set(ids)), "entry ids repeat"
    stale = []
    for entry in known():
        assert required <= set(entry), entry
        assert entry["wire"] in WIRES, entry["id"]
        assert entry["kinds"], entry["id"]
        assert entry["seed"].strip(), entry["id"]
        assert entry["side"] in (ORACLE_ONLY, CONTRACT_ONLY), entry["id"]
        diffs = differences(entry["wire"], "minimal", entry["minimal"].encode("utf-8"))
        if (entry["wire"], "minimal", entry["rule"], entry["side"]) not in diffs:
            stale.append(entry["id"])
    assert not stale, f"stale entries (their minimal input no longer disagrees): {stale}"


@pytest.mark.parametrize("wire", BUNDLED)
def test_goldens_agree(wire: str) -> None:
    """Every shipped wire's goldens, judged by the oracle too; a shipped wire the oracle has no
    independent reading of is said (skipped, with why), not passed over."""
    if wire not in WIRES:
        pytest.skip(f"{wire}: tests/oracle has no independent reading of its seed, so nothing checks the "
                    "checker against one")
    for name, data in goldens(wire):
        verdict = judge(data, wire)
        assert verdict.conformant, f"{name}: oracle finds {verdict.notes}"
        assert not differences(wire, "golden", data), name


def test_case_files_agree() -> None:
    """Every case file entry (tests/cases/line, tests/wires/*/cases) gets the same verdict and MUST rules
    from both."""
    unlisted: set[Difference] = set()
    cases = [case for case in all_cases() if case.wire in WIRES]  # one with no reading: test_goldens_agree
    assert cases, "no case files found"
    for case in cases:
        kind = f"case/{case.rule}/{case.description}"
        unlisted |= {d for d in differences(case.wire, kind, case.data) if not listed_by(d)}
    assert not unlisted, "disagreements not in known_disagreements.json:\n" + describe(unlisted)


def test_witness_corpus_disagrees_only_as_listed() -> None:
    unlisted: set[Difference] = set()
    for wire, (kind, mutated) in witness_corpus():
        unlisted |= {d for d in differences(wire, kind, mutated) if not listed_by(d)}
    assert not unlisted, "disagreements not in known_disagreements.json:\n" + describe(unlisted)


@st.composite
def mutated_golden(draw: st.DrawFn, wire: str) -> tuple[str, bytes]:
    name = draw(st.sampled_from([golden_name for golden_name, _ in goldens(wire)]))
    mutations = _corpus_cached(wire, name)
    return draw(st.sampled_from(mutations))


@cache
def _corpus_cached(wire: str, name: str) -> list[Mutation]:
    data = dict(goldens(wire))[name]
    return corpus(wire, name, data)


@pytest.mark.parametrize("wire", WIRES)
@settings(max_examples=max(10, settings().max_examples * 3), suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutations_disagree_only_as_listed(wire: str, data: st.DataObject) -> None:
    kind, mutated = data.draw(mutated_golden(wire))
    unlisted = {d for d in differences(wire, kind, mutated) if not listed_by(d)}
    assert not unlisted, "disagreements not in known_disagreements.json:\n" + describe(unlisted)


@pytest.mark.parametrize("wire", WIRES)
@settings(max_examples=max(2, settings().max_examples // 5), suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_streams_disagree_only_as_listed(wire: str, data: st.DataObject) -> None:
    stream = data.draw(streams(wire))
    unlisted = {d for d in differences(wire, "generated", stream) if not listed_by(d)}
    assert not unlisted, "disagreements not in known_disagreements.json:\n" + describe(unlisted)


def survey() -> None:
    """Print every disagreement on the whole deterministic corpus, grouped, with one example each."""
    groups: dict[tuple[str, str, str, str], list[int]] = {}
    example: dict[tuple[str, str, str, str], bytes] = {}
    for wire in WIRES:
        for name, data in goldens(wire):
            for kind, mutated in corpus(wire, name, data):
                for diff in differences(wire, kind, mutated):
                    groups.setdefault(diff, []).append(1)
                    example.setdefault(diff, mutated)
    for diff in sorted(groups):
        mark = "listed" if listed_by(diff) else "UNLISTED"
        print(mark, len(groups[diff]), *diff, sep=" | ")


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    survey()
