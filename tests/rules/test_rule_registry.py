"""Each wire's rules are declared once, in its registry (``contract/wires/<wire>/rules.py``).

What the code reads is derived from the registry: the wire's catalog rules, each machine's
declared ``rules``, the checks the machines run and the strategies' breakers. These tests hold
the derivations to the registry, show every rule without a breaker (skipped, with the reason)
and run a declared ``Check`` through each wire's machines.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from contract.core.rule import SCHEMA_STEP, Basis, Check, Family, Level, Registry, Rule
from contract.core.sink import Sink
from contract.rules.catalog import CATALOG
from contract.wires import BUNDLED, WIRES
from contract.wires.stream_json import machines as sj_machines
from contract.wires.stream_json.registry import REGISTRY as SJ_REGISTRY
from contract.wires.subagent_stdio import machines as sa_machines

# each shipped wire declares its rules in its package's registry (contract/wires/<wire>/rules.py)
REGISTRIES = {name: importlib.import_module(f"contract.wires.{name.replace('-', '_')}.rules").REGISTRY
              for name in BUNDLED}


def test_every_wire_has_a_registry_and_its_rules_are_the_registry() -> None:
    assert set(REGISTRIES) == set(BUNDLED)
    assert set(BUNDLED) <= set(WIRES)
    for name, registry in REGISTRIES.items():
        assert WIRES[name].rules == registry.rules
        assert registry.emitted_by(SCHEMA_STEP) == {WIRES[name].schema_rule}


@pytest.mark.parametrize("wire", sorted(REGISTRIES))
def test_each_rule_is_emitted_by_a_family_a_machine_of_its_wire_runs_or_the_schema_step(wire: str) -> None:
    # a family is a machine itself (subagent-stdio's), one a machine is put together from
    # (stream-json's StreamRules), or a Check the machines run by line type
    registry = REGISTRIES[wire]
    machines = WIRES[wire].machines()
    families = {cls.__name__: (cls, machine) for machine in machines for cls in type(machine).__mro__
                if issubclass(cls, Family) and "declared" in vars(cls)}
    checks = {check.__name__ for check in registry.checks()}
    assert registry.emitters() - {SCHEMA_STEP} - checks <= set(families), "an emitter that no machine runs"
    for by, (family, machine) in families.items():
        declared = {rule.id for rule in family.declared}
        assert registry.emitted_by(by) == declared == family.rules - family.also, by
        assert family.rules <= machine.rules, by


def test_a_family_declares_its_rules_beside_its_logic_once() -> None:
    registry = Registry("stream-json", order=("sj.b", "sj.a"))

    @registry.family(_rule("sj.a"), _rule("sj.b"))
    class Pair(Family):
        also = frozenset({"checker.limit"})

    assert Pair.rules == {"sj.a", "sj.b", "checker.limit"}
    assert registry.emitted_by("Pair") == {"sj.a", "sj.b"}
    assert [rule.id for rule in registry.rules] == ["sj.b", "sj.a"]  # the catalog order, not the declaration's
    assert registry.checks() == ()  # a family its machine runs; a Check is run by line type
    with pytest.raises(ValueError, match="declared twice"):
        registry.family(_rule("sj.a"))(type("Again", (Family,), {}))
    with pytest.raises(ValueError, match="at least one rule"):
        registry.family()


def test_an_id_in_the_catalog_order_that_no_family_declares_fails_closed() -> None:
    registry = Registry("stream-json", order=("sj.a", "sj.gone"))
    registry.family(_rule("sj.a"))(type("One", (Family,), {}))
    with pytest.raises(LookupError, match=r"sj\.gone"):
        _ = registry.rules


def test_a_rule_declared_outside_the_catalog_order_is_listed_after_it() -> None:
    registry = Registry("stream-json", order=("sj.a",))
    registry.family(_rule("sj.new"))(type("New", (Family,), {}))
    registry.family(_rule("sj.a"))(type("Old", (Family,), {}))
    assert [rule.id for rule in registry.rules] == ["sj.a", "sj.new"]


BREAKABLE = [rule for registry in REGISTRIES.values() for rule in registry.rules]


@pytest.mark.parametrize("rule", BREAKABLE, ids=[rule.id for rule in BREAKABLE])
def test_each_rule_has_a_breaker_or_shows_it_has_none(rule: Rule) -> None:
    if rule.breaker is None:
        pytest.skip(f"{rule.id} has no breaking strategy: generated broken streams never break it")
    breakers = WIRES[rule.wire].load_strategies().breakers
    assert callable(breakers.get(rule.id)), f"{rule.id}: breaker {rule.breaker!r} not among the breakers"


def _rule(rule_id: str, wire: str = "stream-json") -> Rule:
    return Rule(rule_id, Level.SHOULD, wire, "a title", "a source", basis=Basis.DERIVED)


def test_the_registry_refuses_a_rule_twice_or_of_another_wire() -> None:
    registry = Registry("stream-json")
    registry.add("M", _rule("x.one"))
    with pytest.raises(ValueError, match="declared twice"):
        registry.add("N", _rule("x.one"))
    with pytest.raises(ValueError, match="a subagent-stdio rule"):
        registry.add("M", _rule("x.two", "subagent-stdio"))
    assert [rule.id for rule in registry.rules] == ["x.one"]


def test_a_breaker_the_strategies_lack_is_an_error_naming_the_rule() -> None:
    registry = Registry("stream-json")
    registry.add("M", Rule("x.one", Level.MUST, "stream-json", "t", "s", basis=Basis.POLICY, breaker="missing"),
                 _rule("x.two"))
    with pytest.raises(LookupError, match=r"x\.one"):
        registry.breakers({})
    assert registry.breakers({"missing": len}) == {"x.one": len}  # x.two has none: not listed


def _counting(registry: Registry, kinds: tuple[str, ...]) -> type[Check]:
    """A check declared in ``registry`` that fires on every line of ``kinds`` after the first."""

    @registry.family(_rule("x.repeat", registry.wire))
    class Repeat(Check):
        """x.repeat: fires on each line of its kinds after the first, and once more at the end."""

        def __init__(self) -> None:
            self.count = 0

        def line(self, obj: dict[str, Any], line: int, out: Sink) -> None:
            self.count += 1
            if self.count > 1:
                out.emit(self.rule, line, "/type", f"expected one line of type {obj['type']}, found another")

        def finish(self, out: Sink) -> None:
            out.emit(self.rule, None, None, f"saw {self.count}")

    Repeat.kinds = kinds
    return Repeat


class _Found:
    """A sink keeping each finding's (rule, line), for the tests that watch a declared check emit."""

    def __init__(self, found: list[tuple[str, int | None]]) -> None:
        self.found = found

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str, hint: str | None = None) -> None:
        self.found.append((rule, line))

    def note(self, text: str) -> None:
        pass

    def exercised(self, rule: str) -> None:
        pass


def test_a_declared_check_joins_the_stream_json_dispatch(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = Registry("stream-json")
    _counting(registry, ("assistant", "task"))  # a line type the machine has a handler for, and one it has not
    monkeypatch.setattr(sj_machines, "REGISTRY", registry)
    machine = sj_machines.StreamRules()
    lines = [{"type": "assistant"}, {"type": "assistant"}, {"type": "task"}, {"type": "user"}]
    found: list[tuple[str, int | None]] = []
    out = _Found(found)

    machine.feed_batch(1, lines, out)
    machine.finish(out)
    mine = [(rule, line) for rule, line in found if rule == "x.repeat"]
    assert mine == [("x.repeat", 2), ("x.repeat", 3), ("x.repeat", None)]
    assert ("sj.message-present", 1) in found  # the machine's own handler still ran first


def test_where_no_check_joins_it_the_stream_json_dispatch_is_the_machines_own() -> None:
    """No line pays for the registry: a line type no declared check names keeps its method."""
    joined = {kind for check in SJ_REGISTRY.checks() for kind in check.kinds}
    handlers = sj_machines.StreamRules().by_kind
    own = {"assistant": "_assistant", "user": "_user", "stream_event": "_stream_event", "system": "_system",
           "result": "_result"}
    assert set(handlers) == set(own) | joined
    for kind, name in own.items():
        if kind not in joined:
            assert handlers[kind].__name__ == name, kind


def test_a_declared_check_runs_among_the_subagent_machines(monkeypatch: pytest.MonkeyPatch) -> None:
    from contract.core.reader import Record
    from contract.wires import subagent_stdio

    assert not any(isinstance(m, sa_machines.Checks) for m in WIRES["subagent-stdio"].machines())  # none declared
    registry = Registry("subagent-stdio")
    _counting(registry, ("subagent_status",))
    monkeypatch.setattr(subagent_stdio, "REGISTRY", registry)
    checks = WIRES["subagent-stdio"].machines()[-1]
    assert isinstance(checks, sa_machines.Checks)
    assert checks.rules == {"x.repeat"}
    found: list[tuple[str, int | None]] = []
    out = _Found(found)

    for number, obj in enumerate([{"type": "subagent_status"}, {"type": "response"}, None,
                                  {"type": "subagent_status"}], 1):
        checks.feed(Record(number, b"", obj), out)
    checks.finish(out)
    assert found == [("x.repeat", 4), ("x.repeat", None)]


def test_the_catalog_holds_every_registered_rule_once() -> None:
    registered = [rule.id for registry in REGISTRIES.values() for rule in registry.rules]
    assert len(registered) == len(set(registered))
    assert set(registered) <= set(CATALOG)
