"""The exported vectors vary: one per kind of future change per golden, drawn so that seeds matter.

An outside review found the old export one test repeated (three byte-identical future vectors
per golden, every stream-json one the same unknown line before line 2: hypothesis' simplest
example, whatever the seed). Here: the vectors of one golden are pairwise different, every kind
appears and names itself, the draws are not the simplest ones, a rule with more than one way to
break has more than one not-conformant stream, and a consumer that dies on any single kind
(tests/faulty_consumers/single_fault.py, one per kind) passes every golden and fails at least one
future vector.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from contract.consumers import vectors
from contract.wires.stream_json.kit.feeds import KINDS as BROKEN_KINDS
from contract.wires.stream_json.kit.future import VECTOR_KINDS
from contract.wires.subagent_stdio.kit.future import VECTOR_KINDS as CLIENT_KINDS
from tests.faulty_consumers.single_fault import CLIENT_KINDS as CLIENT_FAULTS
from tests.faulty_consumers.single_fault import STREAM_KINDS, fires
from tests.support.paths import TESTS

KINDS = {"stream-json": tuple(VECTOR_KINDS), "subagent-stdio": CLIENT_KINDS}
FAULTS = {"stream-json": STREAM_KINDS, "subagent-stdio": CLIENT_FAULTS}


@pytest.fixture
def drawn(drawn_vectors: list[tuple[vectors.Vector, dict[str, Any]]]) -> list[tuple[vectors.Vector, dict[str, Any]]]:
    return drawn_vectors  # tests/consumers/conftest.py: drawn once per test process


def _group(drawn: list[tuple[vectors.Vector, dict[str, Any]]], group: str) -> list[vectors.Vector]:
    return [vector for vector, _ in drawn if vector.group == group]


def test_the_vectors_of_one_golden_are_pairwise_different(drawn: list[tuple[vectors.Vector, dict[str, Any]]]) -> None:
    by_golden: dict[tuple[str, str], list[bytes]] = defaultdict(list)
    for vector in _group(drawn, "conformant"):
        by_golden[(vector.wire, vector.name)].append(vector.data)
    for vector in _group(drawn, "future-compatible"):
        golden = vector.name[: -len(vector.kind or "") - 1]
        assert vector.name == f"{golden}-{vector.kind}"
        by_golden[(vector.wire, golden)].append(vector.data)
    assert len(by_golden) == len(_group(drawn, "conformant"))  # every future vector names a golden
    from contract.goldens.store import load
    from contract.wires import get

    varied = {key: streams for key, streams in by_golden.items() if get(key[0]).load_future() is not None}
    for (wire, name), streams in by_golden.items():
        future = get(wire).load_future()
        if future is None:  # a wire with no future variants (the synthetic one): its golden alone
            assert len(streams) == 1, name
            continue
        assert future.kinds is not None
        assert len(streams) == 1 + len(future.kinds(load(wire, name).data())), name  # one per kind it has room for
        assert len(set(streams)) == len(streams), name
    assert sum(len(streams) > 1 for streams in varied.values()) >= len(varied) - 1  # room in all but one


def test_every_kind_appears_and_names_itself(drawn: list[tuple[vectors.Vector, dict[str, Any]]]) -> None:
    for wire, kinds in KINDS.items():
        documents = [d for v, d in drawn if v.wire == wire and v.group == "future-compatible"]
        assert {d["kind"] for d in documents} == set(kinds), wire
    broken = [d for v, d in drawn if v.group == "must-not-succeed"]
    assert {d["kind"] for d in broken} == set(BROKEN_KINDS)
    assert all("must not report it as a success" in d["description"] for d in broken)


def test_the_draws_are_not_the_simplest_example(drawn: list[tuple[vectors.Vector, dict[str, Any]]]) -> None:
    """The review's reproducer: every stream-json future vector carried one rate_limit_event line
    before line 2. Now the line-type changes differ from golden to golden, and from the minimal draw."""
    line_type = [v for v in _group(drawn, "future-compatible") if v.kind == "line-type"]
    changes = {v.description.split(";")[0] for v in line_type}
    assert len(changes) > len(line_type) // 2, changes
    assert "an unknown line type 'rate_limit_event' before line 2" not in changes or len(changes) > 1
    from contract.goldens.store import load
    from contract.wires.stream_json.kit.future import kind_vector

    golden = load("stream-json", "tool_calls")
    simplest = vectors._drawn(kind_vector(golden.name, golden.data(), "line-type"), seed=0, skip=0)
    seeded = {vectors._drawn(kind_vector(golden.name, golden.data(), "line-type"), seed=seed)[1] for seed in range(4)}
    assert simplest[1] not in seeded
    assert len(seeded) > 1


def test_a_rule_broken_more_than_one_way_has_more_than_its_minimal_stream(
        drawn: list[tuple[vectors.Vector, dict[str, Any]]]) -> None:
    per_rule: dict[tuple[str, str], set[bytes]] = defaultdict(set)
    for vector in _group(drawn, "not-conformant"):
        per_rule[(vector.wire, vector.name.rsplit("-", 1)[0])].add(vector.data)
    several = [rule for rule, streams in per_rule.items() if len(streams) > 1]
    assert len(several) > len(per_rule) // 2, sorted(rule for rule in per_rule if rule not in several)
    assert "sj.result-last" in {rule for _, rule in several}  # cut anywhere, or a line after it


@pytest.mark.parametrize(("wire", "kind"), [(w, k) for w, kinds in FAULTS.items() for k in kinds])
def test_a_consumer_dying_on_one_kind_fails_the_vectors(drawn: list[tuple[vectors.Vector, dict[str, Any]]],
                                                         wire: str, kind: str) -> None:
    goldens = [v for v in _group(drawn, "conformant") if v.wire == wire]
    assert not [v.name for v in goldens if fires(wire, kind, v.data)], "the fault is not single: a golden fails"
    future = [v for v in _group(drawn, "future-compatible") if v.wire == wire]
    failed = [v.name for v in future if fires(wire, kind, v.data)]
    assert failed, f"a consumer dying on {kind} accepts every future vector"
    assert any(v.kind == kind or v.kind == kind.replace("-replaced", "") for v in future if v.name in failed)


@pytest.mark.process
def test_a_single_fault_consumer_runs_as_a_program(drawn: list[tuple[vectors.Vector, dict[str, Any]]]) -> None:
    import subprocess
    import sys

    program = [sys.executable, str(TESTS / "faulty_consumers" / "single_fault.py"), "stream-json",
               "stop-reason"]
    golden = next(v for v in _group(drawn, "conformant") if v.name == "hello")
    changed = next(v for v in _group(drawn, "future-compatible") if v.name == "hello-stop-reason")
    assert subprocess.run(program, input=golden.data, capture_output=True, timeout=60).returncode == 0
    died = subprocess.run(program, input=changed.data, capture_output=True, timeout=60)
    assert died.returncode == 1
    assert b"RuntimeError" in died.stderr
