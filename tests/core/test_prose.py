"""Values listed in description prose: one reading for the surface, coverage and the strategies."""

from __future__ import annotations

import pytest

from contract.checking.coverage import known_values
from contract.checking.schemawalk import Walker
from contract.core import prose
from contract.evolution.surface import open_set_values

CASES = [
    ("call.begin | call.end | audit.close (open set: ignore unknown kinds)",
     [("call.begin", "call.end", "audit.close")], []),
    ("text | thinking | tool_use (open set)", [("text", "thinking", "tool_use")], []),
    ("open set (known: end_turn, max_turns, refusal)", [], [("end_turn", "max_turns", "refusal")]),
    ("open set; known: v1.0, v2-beta. Tolerate others.", [], [("v1.0", "v2-beta")]),
    ("an open set, in a sentence ending in a run: x/a | x/b.", [("x/a", "x/b")], []),
    ("no list here (open set)", [], []),
]


@pytest.mark.parametrize(("text", "runs", "known"), CASES, ids=[c[0][:40] for c in CASES])
def test_runs_and_known_lists(text: str, runs: list[tuple[str, ...]], known: list[tuple[str, ...]]) -> None:
    assert prose.runs(text) == runs
    assert prose.known(text) == known


@pytest.mark.parametrize(("text", "runs", "known"), CASES, ids=[c[0][:40] for c in CASES])
def test_coverage_reads_each_list_as_the_surface_does(text: str, runs: list[tuple[str, ...]],
                                                      known: list[tuple[str, ...]]) -> None:
    """The ninth add-a-wire trial: coverage read ``call.begin | call.end`` as ``begin``/``call``."""
    walk = Walker({"type": "object", "properties": {"kind": {"type": "string", "description": text}}})
    listed = [known_values(walk, "#/properties/kind", which) for which in range(len(runs))]
    if known:
        listed.append(known_values(walk, "#/properties/kind", -1))
    assert sorted({value for found in listed for value in found}) == (open_set_values(text) or [])
