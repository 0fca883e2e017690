"""Generated streams check clean; every broken stream is reported with the rule it breaks.

The checker is right about transcripts nobody recorded only if both hold: a conformant stream
draws no finding at all (strict, SHOULD rules included), and a stream broken in one way draws
that rule's finding and no other (but for the rules :func:`also_fires` names, where breaking
one rule necessarily breaks another).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contract
from contract.checking.schema import engine
from contract.rules.catalog import CATALOG, rules_for
from contract.strategies import (
    NOT_STREAM_PROPERTIES,
    WIRES,
    also_fires,
    breakable,
    broken_streams,
    streams,
)
from contract.wires import get as wire_named

EXAMPLES = settings().max_examples
BROKEN_EXAMPLES = max(3, EXAMPLES // 3)  # per rule: there are some forty-six of them
CASES = [(wire, rule) for wire in WIRES for rule in sorted(breakable(wire))]


@pytest.mark.parametrize("wire", WIRES)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_generated_streams_check_clean(wire: str, data: st.DataObject) -> None:
    stream = data.draw(streams(wire), label="stream")
    report = contract.check(stream, wire=wire, strict=True)
    assert report.conformant, [v.to_json() for v in report.violations]
    assert not report.counts, [v.to_json() for v in report.violations]
    # The reference engine agrees with the fast one that checked each line.
    reference = engine(wire).is_valid_reference
    for number, line in enumerate(stream.split(b"\n")[:-1], 1):
        assert reference(json.loads(line)), f"line {number} fails jsonschema: {line!r}"


@pytest.mark.parametrize(("wire", "rule"), CASES, ids=[f"{w}:{r}" for w, r in CASES])
@settings(max_examples=BROKEN_EXAMPLES)
@given(data=st.data())
def test_broken_stream_is_reported_with_its_rule(wire: str, rule: str, data: st.DataObject) -> None:
    stream = data.draw(broken_streams(wire, rule), label="broken stream")
    report = contract.check(stream, wire=wire, strict=True)
    found = report.rules()
    assert rule in found, f"{rule} not reported; found {sorted(found)}"
    others = found - {rule} - also_fires(wire, rule)
    assert not others, f"breaking {rule} also fired {sorted(others)}: {report.violations[:5]}"
    assert not report.conformant


STREAM_RULES = [(wire, rule.id) for wire in WIRES for rule in rules_for(wire) if rule.id not in NOT_STREAM_PROPERTIES]


@pytest.mark.parametrize(("wire", "rule"), STREAM_RULES, ids=[f"{w}:{r}" for w, r in STREAM_RULES])
def test_every_catalog_rule_has_a_breaking_strategy(wire: str, rule: str) -> None:
    """A rule with no breaker (``Rule.breaker`` unset) shows as skipped, with its name: the
    generated sweeps cannot break it, and the summary says so (docs/architecture.md, "Adding a rule")."""
    if rule not in breakable(wire):
        pytest.skip(f"{rule} has no breaking strategy (Rule.breaker) in {wire}'s strategies module, "
                    f"{wire_named(wire).strategies}")


@pytest.mark.parametrize("wire", WIRES)
def test_no_breaker_breaks_a_rule_of_another_wire(wire: str) -> None:
    wanted = {rule.id for rule in rules_for(wire)} - set(NOT_STREAM_PROPERTIES)
    foreign = breakable(wire) - wanted
    assert not foreign, f"breaking strategies for rules that are not {wire}'s: {sorted(foreign)}"


def test_only_harness_and_baseline_rules_are_excluded() -> None:
    excluded = set(NOT_STREAM_PROPERTIES)
    not_stream = {r for r, spec in CATALOG.items() if spec.wire in ("run", "checker", "consumer")}
    assert excluded == not_stream | {"baseline.stale"}
    assert all(NOT_STREAM_PROPERTIES.values()), "every exclusion says why"
    everywhere = set().union(*(breakable(wire) for wire in WIRES))
    assert everywhere <= set(CATALOG) - excluded


def test_also_fires_names_catalog_rules_of_the_same_wire() -> None:
    for wire, rule in CASES:
        extra = also_fires(wire, rule)
        assert extra <= breakable(wire), (rule, extra)
        assert rule not in extra


def test_unknown_wire_and_unbreakable_rules_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown wire"):
        streams("no-such-wire")
    with pytest.raises(ValueError, match="not a stream property"):
        broken_streams("stream-json", "run.timeout")
    with pytest.raises(ValueError, match="no breaking strategy"):
        broken_streams("stream-json", "sa.schema")


@pytest.mark.parametrize("wire", WIRES)
def test_null_line_is_reported(wire: str) -> None:
    report = contract.check(b"null\n", wire=wire)
    assert "line.object" in report.rules()
