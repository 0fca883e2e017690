"""Future variants are streams a conformant producer may write, and only that.

The producer side of the suite accepts every variant (``check --strict``), but for the member an
``unknown-member`` change adds (what the next additive revision may add: ``sj.schema`` names it,
nothing else): a consumer failing one fails on a stream milk may emit. Unknown values are never
known ones; each kind of change is reachable; a variant differs from its golden. Default run: a
few examples per golden; the deep run: the ``ci`` profile's budget.
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contract
from contract.consumers.feed_client import from_host_lines, host_lines, script_from
from contract.goldens.store import Golden, load, scenarios
from contract.wires.stream_json.kit import future
from contract.wires.subagent_stdio.kit import future as future_hosts
from contract.wires.subagent_stdio.kit.future import conversation
from tests.support.depth import deep

STREAM_GOLDENS = scenarios("stream-json")
HOST_GOLDENS = [g for g in scenarios("subagent-stdio") if future_hosts.available(host_lines(
    script_from(g.name, g.data())))]
EXAMPLES = 100 if deep() else 15


def _lines(golden: Golden) -> list[dict[str, object]]:
    return [orjson.loads(raw) for raw in golden.data().split(b"\n") if raw.strip()]


@pytest.mark.parametrize("golden", STREAM_GOLDENS, ids=[g.name for g in STREAM_GOLDENS])
def test_every_stream_variant_is_conformant_under_strict(golden: Golden) -> None:
    @settings(max_examples=EXAMPLES, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(future.variants(golden.name, _lines(golden)))
    def check(variant: future.Variant) -> None:
        report = contract.check(variant.data, "stream-json", strict=True)
        # an unknown-member change is the next additive revision's member: check names it, and nothing else
        added = {c.member for c in variant.changes if c.kind == "unknown-member"}
        others = [v for v in report.violations if not (v.rule == "sj.schema" and "additionalProperties is false"
                                                      in v.message and (v.pointer or "").rsplit("/", 1)[-1] in added)]
        assert not others, (variant.describe(), [v.message for v in others[:3]])
        assert report.conformant or added
        assert variant.data != golden.data()

    check()


@pytest.mark.parametrize("golden", HOST_GOLDENS, ids=[g.name for g in HOST_GOLDENS])
def test_every_host_variant_is_conformant_under_strict(golden: Golden) -> None:
    script = script_from(golden.name, golden.data())

    @settings(max_examples=EXAMPLES, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(future_hosts.variants(host_lines(script)))
    def check(drawn: tuple[list[dict[str, object]], list[str]]) -> None:
        data = conversation(from_host_lines(golden.name, drawn[0], ""))
        report = contract.check(data, "subagent-stdio", strict=True)
        # an unknown-member change's member is the next additive revision's: check names it, and nothing else
        said = " ".join(drawn[1])
        others = [v for v in report.violations
                  if not (v.rule == "sa.schema" and "additionalProperties is false" in v.message
                          and f"no schema names yet, {(v.pointer or '').rsplit('/', 1)[-1]!r}" in said)]
        assert not others, (drawn[1], [v.message for v in others[:3]])

    check()


@pytest.mark.parametrize("group", sorted(future.REALISTIC))
@settings(max_examples=30, database=None)
@given(data=st.data())
def test_unknown_values_are_never_known(group: str, data: st.DataObject) -> None:
    value = data.draw(future.unknown(group))
    assert value not in future.known(group)
    assert future.known(group), "the known set is read from the schema's words"


def test_every_kind_of_change_is_reachable() -> None:
    golden = load("stream-json", "tool_calls")
    assert set(future.available(_lines(golden))) == set(future.KINDS)
    seen: set[str] = set()

    @settings(max_examples=200, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(future.variants(golden.name, _lines(golden)))
    def collect(variant: future.Variant) -> None:
        seen.update(change.kind for change in variant.changes)

    collect()
    assert seen == set(future.KINDS)


def test_a_golden_too_short_for_a_change() -> None:
    with pytest.raises(ValueError, match="no place for a future change"):
        future.variants("x", [{"type": "system"}])


@pytest.mark.parametrize("kind", ["line-type", "block-type", "payload-member"])
def test_a_failure_shrinks_to_the_one_change_that_causes_it(kind: str) -> None:
    # what feed's search does with a consumer that fails on one kind of change: whatever variant
    # first fails (often several changes), hypothesis settles on one change of that kind
    from hypothesis import Phase, find

    golden = load("stream-json", "tool_calls")
    shape = settings(max_examples=200, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                     phases=(Phase.generate, Phase.shrink))
    found = find(future.variants(golden.name, _lines(golden)),
                 lambda v: any(c.kind == kind for c in v.changes), settings=shape)
    assert [c.kind for c in found.changes] == [kind]
    extra = len(found.data.split(b"\n")) - len(golden.data().split(b"\n"))
    assert extra == (1 if kind == "line-type" else 0)
