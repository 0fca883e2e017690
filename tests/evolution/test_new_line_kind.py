"""A new line kind is judged as a whole (issue 47, item 2): what its branch requires, forbids or bounds is
part of the new kind, not a change to an old one, wherever in the ``oneOf`` it is inserted.

Before: a ``rate_limit`` branch requiring ``type`` and ``retry_after_ms`` was "breaking both" (its
``required`` read as an unread keyword). The same constraints on a kind that existed before stay
breaking (a line that was valid may not be now), and inserting a kind never moves the verdict on
another kind's change.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract.evolution.classify import ADDITIVE, BREAKING, Change, classify
from tests.support.seeds import seed

# what a kind's branch may require, forbid or bound beside its type const (keywords the surface reads
# on the shared object's members, and some it does not read on a branch)
RESIDUES: list[dict[str, Any]] = [
    {"required": ["type", "retry_after_ms"]},
    {"required": ["type", "retry_after_ms"], "maxProperties": 6},
    {"required": ["type"], "not": {"required": ["usage"]}},
    {"required": ["type", "retry_after_ms"], "properties": {"retry_after_ms": {"minimum": 1}}},
    {"required": ["type"], "if": {"required": ["subtype"]}, "then": {"required": ["retry_after_ms"]}},
]


def _with_member(schema: dict[str, Any]) -> dict[str, Any]:
    """The seed with an optional top-level ``retry_after_ms`` (in both mirrored places)."""
    out = copy.deepcopy(schema)
    for holder in (out, out["$defs"]["event"]):
        holder["properties"]["retry_after_ms"] = {"type": "integer", "minimum": 0}
    return out


def _rate_limit(schema: dict[str, Any], at: int, residue: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(schema)
    branch = {"description": "rate limited: retry after retry_after_ms",
              "properties": {"type": {"const": "rate_limit"}}, **copy.deepcopy(residue)}
    if "properties" in residue:
        branch["properties"] = {"type": {"const": "rate_limit"}, **residue["properties"]}
    out["oneOf"].insert(at, branch)
    return out


def _shape(changes: list[Change]) -> set[tuple[str, str, str]]:
    return {(c.kind, c.code, c.path) for c in changes}


@pytest.mark.parametrize("at", range(6))
def test_the_issue_s_rate_limit_kind_is_additive_wherever_it_is_inserted(at: int) -> None:
    before = _with_member(seed("stream-json"))
    changes = classify(before, _rate_limit(before, at, RESIDUES[0]))
    assert _shape(changes) == {(ADDITIVE, "line-kind-added", "kind:rate_limit")}


@settings(derandomize=True)
@given(at=st.integers(0, 5), residue=st.sampled_from(RESIDUES))
def test_what_a_new_kind_requires_forbids_or_bounds_is_part_of_it(at: int, residue: dict[str, Any]) -> None:
    before = _with_member(seed("stream-json"))
    after = _rate_limit(before, at, residue)
    assert _shape(classify(before, after)) == {(ADDITIVE, "line-kind-added", "kind:rate_limit")}
    # and the other way: the kind removed, its constraints with it, is one change
    assert _shape(classify(after, before)) == {(BREAKING, "line-kind-removed", "kind:rate_limit")}


@pytest.mark.parametrize("residue", RESIDUES)
def test_the_same_constraints_on_a_kind_that_existed_stay_breaking(residue: dict[str, Any]) -> None:
    before = _with_member(seed("stream-json"))
    after = copy.deepcopy(before)
    result = next(b for b in after["oneOf"] if b["properties"]["type"]["const"] == "result")
    result.update({k: v for k, v in copy.deepcopy(residue).items() if k != "properties"})
    if "properties" in residue:
        result["properties"].update(copy.deepcopy(residue["properties"]))
    changes = classify(before, after)
    assert any(c.kind == BREAKING and c.path.startswith("/oneOf[result]") for c in changes), changes


@pytest.mark.parametrize("at", range(6))
def test_a_kind_inserted_moves_no_other_kind_s_verdict(at: int) -> None:
    before = _with_member(seed("stream-json"))
    edited = copy.deepcopy(before)
    next(b for b in edited["oneOf"] if b["properties"]["type"]["const"] == "user")["required"].append("seq")
    alone = _shape(classify(before, edited))
    assert alone  # the change to the user kind is seen at all
    inserted = _shape(classify(before, _rate_limit(edited, at, RESIDUES[1])))
    assert inserted - {(ADDITIVE, "line-kind-added", "kind:rate_limit")} == alone


@pytest.mark.parametrize("at", range(4))
def test_a_new_subagent_kind_is_one_change_wherever_it_is_inserted(at: int) -> None:
    """subagent-stdio's types are no open set: the kind is breaking for consumers, and only the kind."""
    before = seed("subagent-stdio")
    after = copy.deepcopy(before)
    after["$defs"]["ping"] = {"type": "object", "additionalProperties": False, "required": ["type", "nonce"],
                              "properties": {"type": {"const": "ping"}, "nonce": {"type": "integer", "maximum": 9}},
                              "not": {"required": ["id"]}}
    after["oneOf"].insert(at, {"$ref": "#/$defs/ping"})
    assert _shape(classify(before, after)) == {(BREAKING, "line-kind-added", "kind:ping")}
