"""Coverage computation: required items come from the schemas, and a gap is found when present."""

from __future__ import annotations

import pytest

from contract.checking import coverage
from contract.checking.coverage import Item
from contract.checking.schemawalk import walker
from contract.goldens import store as goldens


def _data(wire: str, *, without: str = "") -> list[bytes]:
    return [g.data() for g in goldens.scenarios(wire) if g.name != without]


def test_known_sets_are_read_from_the_descriptions() -> None:
    walk = walker("stream-json")
    subtype = "#/properties/subtype"
    result_family = coverage.known_values(walk, subtype, 1)  # the second "a | b" run: the result family
    assert result_family[0] == "success"
    assert {"error_during_execution", "error_max_turns", "interrupted", "refused"} <= set(result_family)
    # every value read is in the description in force (an ADR that documents one more reads it too)
    assert all(value in walk.root["properties"]["subtype"]["description"] for value in result_family)
    assert "permission_denied" in coverage.known_values(walk, subtype, 0)
    assert coverage.known_values(walk, "#/properties/stop_reason", -1)[0] == "end_turn"
    with pytest.raises(LookupError):
        coverage.known_values(walk, "#/properties/seq", -1)


def test_required_items_follow_the_schemas() -> None:
    sj = coverage.required("stream-json")
    assert Item("field", "# total_cost_usd") not in sj, "reserved, exempt"
    assert Item("field", "#/$defs/usage cache_read") in sj
    assert not any(i.name.startswith("#/$defs/event ") for i in sj), "$defs/event is unreferenced"
    assert Item("system subtype", "config_option") in sj
    sa = coverage.required("subagent-stdio")
    assert Item("value", "#/$defs/node/properties/status detached") in sa
    assert Item("value", "#/$defs/node/properties/processTerminal/properties/state not-started") \
        in sa
    assert not any("outcome/properties/status" in i.name for i in sa)


@pytest.mark.parametrize(("wire", "scenario", "expected"), [
    ("stream-json", "escalation", Item("system subtype", "agent_switch")),
    ("stream-json", "subagent_tasks", Item("edge", "nested user line (parent_tool_use_id)")),
    ("stream-json", "refused", Item("result subtype", "refused")),
    ("subagent-stdio", "unavailable", Item("edge", "null sessionId")),
    ("subagent-stdio", "epoch_change", Item("edge", "epoch change within a conversation")),
    ("subagent-stdio", "terminal_states", Item("value", "#/$defs/node/properties/status paused")),
])
def test_dropping_a_scenario_opens_a_gap(wire: str, scenario: str, expected: Item) -> None:
    assert coverage.gaps(wire, _data(wire)) == []
    assert expected in coverage.gaps(wire, _data(wire, without=scenario))


def test_no_transcripts_cover_nothing() -> None:
    assert coverage.covered("subagent-stdio", []) == frozenset()
    assert set(coverage.gaps("stream-json", [])) == set(coverage.required("stream-json"))
