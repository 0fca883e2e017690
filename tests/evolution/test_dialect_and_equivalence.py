"""The gate reads the dialect, calls equivalent spellings no change, and shows a witness (issue 46).

Before: ``$schema`` changed to draft-04 was "no change" (and ``evolve`` pinned it, though under
draft-04 ``const`` is no keyword and ``{"type":"subagent_status","version":99}`` validates); and
``const: 1`` → ``enum: [1]``, ``maximum: 9`` → ``exclusiveMaximum: 10`` on an integer and a root
``oneOf`` of disjoint branches → ``anyOf`` were breaking. The equivalences are tested on a space of
rewrites of the seeds (contract/evolution/normal.py), each beside a near miss that is no
equivalence and must stay breaking.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft4Validator, Draft202012Validator

from contract.evolution.classify import BREAKING, classify, is_breaking
from contract.evolution.normal import disjoint, normalised
from contract.evolution.witness import search
from tests.support.schema_objects import at, schema_objects
from tests.support.seeds import seed

WIRES = ("stream-json", "subagent-stdio")
DRAFT_04 = "http://json-schema.org/draft-04/schema#"


_objects, _at = schema_objects, at


def _integer(node: dict[str, Any]) -> bool:
    return node.get("type") == "integer"


# each rewrite: (applies to the node?, the equivalent rewrite, the near miss that is not equivalent)
Rewrite = tuple[Callable[[dict[str, Any]], bool], Callable[[dict[str, Any]], None], Callable[[dict[str, Any]], None]]
REWRITES: dict[str, Rewrite] = {
    "const as a one-value enum": (
        lambda n: "const" in n,
        lambda n: n.__setitem__("enum", [n.pop("const")]),
        lambda n: n.__setitem__("enum", [n.pop("const"), "other"])),
    "maximum as exclusiveMaximum": (
        lambda n: _integer(n) and isinstance(n.get("maximum"), int),
        lambda n: n.__setitem__("exclusiveMaximum", n.pop("maximum") + 1),
        lambda n: n.__setitem__("exclusiveMaximum", n.pop("maximum"))),
    "minimum as exclusiveMinimum": (
        lambda n: _integer(n) and isinstance(n.get("minimum"), int),
        lambda n: n.__setitem__("exclusiveMinimum", n.pop("minimum") - 1),
        lambda n: n.__setitem__("exclusiveMinimum", n.pop("minimum"))),
}


def _sites(wire: str) -> list[tuple[str, tuple[Any, ...]]]:
    return [(name, path) for path, node in _objects(seed(wire)) for name, (applies, _, _) in REWRITES.items()
            if applies(node)]


def test_the_rewrites_reach_many_places() -> None:
    """The space is not three examples: every kind of rewrite applies at many places of the seeds."""
    sites = [name for wire in WIRES for name, _ in _sites(wire)]
    assert {name: sites.count(name) >= 5 for name in REWRITES} == dict.fromkeys(REWRITES, True)


@pytest.mark.parametrize("wire", WIRES)
@settings(derandomize=True)
@given(data=st.data())
def test_equivalent_rewrites_are_no_change(wire: str, data: st.DataObject) -> None:
    original = seed(wire)
    rewritten = copy.deepcopy(original)
    sites = _sites(wire)
    chosen = data.draw(st.lists(st.sampled_from(sites), min_size=1, max_size=12, unique=True))
    for name, path in chosen:
        REWRITES[name][1](_at(rewritten, path))
    if data.draw(st.booleans()):
        rewritten["anyOf"] = rewritten.pop("oneOf")  # the root's branches are disjoint by their type const
    assert classify(original, rewritten) == []
    assert classify(rewritten, original) == []


@pytest.mark.parametrize("wire", WIRES)
@settings(derandomize=True)
@given(data=st.data())
def test_a_near_miss_stays_breaking(wire: str, data: st.DataObject) -> None:
    original = seed(wire)
    missed = copy.deepcopy(original)
    name, path = data.draw(st.sampled_from(_sites(wire)))
    REWRITES[name][2](_at(missed, path))
    assert is_breaking(classify(original, missed))


@pytest.mark.parametrize("wire", WIRES)
def test_anyof_of_branches_that_overlap_is_not_oneof(wire: str) -> None:
    """Two branches no pinned member tells apart: an instance may pass both, so anyOf is not oneOf."""
    original = seed(wire)
    overlapping = copy.deepcopy(original)
    overlapping["oneOf"].append(copy.deepcopy(overlapping["oneOf"][0]))
    as_any = copy.deepcopy(overlapping)
    as_any["anyOf"] = as_any.pop("oneOf")
    assert "oneOf" not in normalised(as_any)
    assert is_breaking(classify(overlapping, as_any))


def test_disjointness_is_shown_not_assumed() -> None:
    def pinned(value: Any, required: bool = True) -> dict[str, Any]:
        return {"properties": {"t": {"const": value}}, "required": ["t"] if required else []}

    assert disjoint({}, [pinned("a"), pinned("b")])
    assert not disjoint({}, [pinned("a"), pinned("a")])
    assert not disjoint({}, [pinned("a", required=False), pinned("b")])  # {} passes the first
    assert disjoint({}, [pinned("a", required=False), pinned("b")], frozenset({"t"}))  # the parent requires it
    assert not disjoint({}, [{"properties": {"t": {"enum": ["a", "b"]}}, "required": ["t"]}, pinned("b")])


def test_only_integer_bounds_are_moved() -> None:
    assert normalised({"type": "integer", "exclusiveMaximum": 10}) == {"type": "integer", "maximum": 9}
    assert normalised({"type": "integer", "maximum": 5, "exclusiveMaximum": 10}) == {"type": "integer", "maximum": 5}
    assert normalised({"type": "number", "exclusiveMaximum": 10}) == {"type": "number", "exclusiveMaximum": 10}
    assert normalised({"type": "integer", "exclusiveMaximum": 9.5}) == {"type": "integer", "exclusiveMaximum": 9.5}
    assert normalised({"enum": [1, 2]}) == {"enum": [1, 2]}
    assert normalised({"properties": {"enum": {"enum": [True]}}}) == {"properties": {"enum": {"const": True}}}


# -- the dialect ---------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("dialect", [DRAFT_04, "http://json-schema.org/draft-07/schema#", None])
def test_a_dialect_change_is_breaking(wire: str, dialect: str | None) -> None:
    original = seed(wire)
    other = copy.deepcopy(original)
    if dialect is None:
        del other["$schema"]
    else:
        other["$schema"] = dialect
    for changes in (classify(original, other), classify(other, original)):
        assert [(c.kind, c.code, c.path) for c in changes] == [(BREAKING, "dialect-changed", "$schema")]


def test_the_same_dialect_spelled_with_its_fragment_is_no_change() -> None:
    original = seed("stream-json")
    other = copy.deepcopy(original)
    other["$schema"] += "#"
    assert classify(original, other) == []


def test_the_issue_s_line_is_the_draft_04_witness() -> None:
    original = seed("subagent-stdio")
    other = {**copy.deepcopy(original), "$schema": DRAFT_04}
    line = {"type": "subagent_status", "version": 99}
    assert Draft4Validator(other).is_valid(line)
    assert not Draft202012Validator(original).is_valid(line)
    found = search(original, other, [{"type": "subagent_status", "version": 1}])
    assert found.valid_under == "new"
    assert found.text().startswith("witness: valid under the new schema, invalid under the old: ")


def test_no_witness_is_said_so_with_the_budget() -> None:
    old = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}}
    new = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a)"}}}  # the same language
    assert is_breaking(classify(old, new))  # by structure
    found = search(old, new, [{"a": "abc"}], budget=25)
    assert (found.line, found.valid_under, found.tried, found.exhausted) == (None, None, 25, True)
    assert found.text() == "breaking by structure, no witness found (25 lines tried, the budget of 25 reached)"
    assert search(old, new, [{"a": "abc"}], budget=25) == found  # a fixed seed: the same answer every run


def test_diff_shows_the_witness(tmp_path: Path) -> None:
    original = seed("subagent-stdio")
    other = tmp_path / "draft-04.json"
    other.write_text(json.dumps({**original, "$schema": DRAFT_04}), encoding="utf-8")
    old = tmp_path / "seed.json"
    old.write_text(json.dumps(original), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "contract", "diff", str(old), str(other)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 1, done.stderr
    assert "[dialect-changed; breaks both]" in done.stdout
    assert "\nwitness: valid under the new schema, invalid under the old: {" in done.stdout
    done = subprocess.run([sys.executable, "-m", "contract", "diff", "--format", "json", str(old), str(other)],
                          capture_output=True, text=True, check=False)
    assert json.loads(done.stdout)["witness"]["valid_under"] == "new"


def test_the_gate_says_a_dialect_change_cannot_be_accepted() -> None:
    """The gate offers no accepted-breaks entry for a refused code (the schema would reject the entry)."""
    from contract.evolution.gate import evaluate
    from contract.evolution.surface import surface_of

    original = seed("subagent-stdio")
    stored = surface_of(original, "subagent-stdio")
    verdict = evaluate("subagent-stdio", stored, surface_of({**original, "$schema": DRAFT_04}, "subagent-stdio"), [])
    assert [c.code for c in verdict.refused] == ["dialect-changed"]
    assert "dialect-changed cannot be accepted: " in verdict.problems
    assert "ADR-NNNN" not in verdict.problems
    # near miss: an acceptable break still gets its example entry
    narrowed = copy.deepcopy(original)
    narrowed["$defs"]["command"]["properties"]["id"]["maxLength"] = 64
    verdict = evaluate("subagent-stdio", stored, surface_of(narrowed, "subagent-stdio"), [])
    assert "cannot be accepted" not in verdict.problems
    assert "ADR-NNNN" in verdict.problems
