"""Every catalog rule has an emitter that declares it, and every declared id is catalogued.

Each component that writes findings declares the rule ids it emits (the reader, the schema step,
each wire's machines, the fail-closed guard, the live harness and driver, the baseline), so
the catalog and the code cannot drift apart: a rule nobody emits, or an emitted id nobody
catalogued, fails here. A second test holds every machine to its declaration on real input.
"""

from __future__ import annotations

import pytest

from contract.checking import checker, failsafe
from contract.checking.pipeline import schema_rules
from contract.consumers import broken_feed, feed, feed_client
from contract.core import reader
from contract.core.reader import read_records
from contract.core.rule import Observed
from contract.live import driver, harness
from contract.rules import baseline
from contract.rules.catalog import CATALOG
from contract.rules.report import Collector, Report
from contract.wires import WIRES
from tests.support.casefiles import all_cases


def _declared() -> set[str]:
    ids = set(reader.RULES | schema_rules() | failsafe.RULES | harness.RULES | driver.RULES | baseline.RULES
              | feed.RULES | feed_client.RULES | broken_feed.RULES | checker.RULES)
    for wire in WIRES.values():
        for machine in wire.machines():
            ids |= machine.rules
    return ids


def test_the_declared_rules_are_exactly_the_catalog() -> None:
    declared = _declared()
    assert declared - set(CATALOG) == set(), "declared but not catalogued"
    assert set(CATALOG) - declared == set(), "catalogued but nobody emits it"


def test_each_wire_declares_only_its_own_rules() -> None:
    for wire in WIRES.values():
        assert all(rule.wire == wire.name for rule in wire.rules), wire.name
        assert wire.schema_rule in {rule.id for rule in wire.rules}


def test_every_rule_says_how_it_is_observed() -> None:
    by_prefix = {"run": Observed.PROCESS, "checker": Observed.CHECKER, "baseline": Observed.BASELINE,
                 "consumer": Observed.CONSUMER}
    for rule in CATALOG.values():
        assert rule.observed is by_prefix.get(rule.id.split(".")[0], Observed.STREAM), rule.id


class _Held:
    """A sink that fails the test when a machine emits a rule it did not declare."""

    def __init__(self, declared: frozenset[str]) -> None:
        self.declared = declared
        self.seen: set[str] = set()

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str, hint: str | None = None) -> None:
        assert rule in self.declared, f"emitted undeclared {rule}"
        self.seen.add(rule)

    def note(self, text: str) -> None:
        pass

    def exercised(self, rule: str) -> None:
        assert rule in self.declared, f"exercised undeclared {rule}"


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_machines_emit_only_what_they_declare(wire: str) -> None:
    emitted: set[str] = set()
    for case in all_cases(wire):
        records = list(read_records(case.data, Collector(Report(wire=wire)), 1 << 20))
        for machine in WIRES[wire].machines():
            held = _Held(machine.rules)
            for record in records:
                machine.feed(record, held)
            machine.finish(held)
            emitted |= held.seen
    # the cases fire every rule of the wire the machines own (the schema rule is the schema step's)
    owned = {rule.id for rule in WIRES[wire].rules} - {WIRES[wire].schema_rule}
    assert owned <= emitted, sorted(owned - emitted)
