"""A registry is a value passed to the entry points, not a global the tests swap (issue 48).

``contract.wires.WireRegistry`` holds wires and the tables derived from them; the bundled one is
the default. ``contract.check``, the ``contract.api`` verbs and ``contract.cli.run`` take
``registry=``: the call judges by it, and no other caller (another thread included) sees it.
"""

from __future__ import annotations

import dataclasses
import io
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contract
from contract import cli, wires
from contract.checking import pipeline
from contract.rules import report, requirements
from contract.rules.catalog import CATALOG, rules_for
from contract.wires import AUTO, BUNDLED_REGISTRY, WireRegistry, current, using
from tests.support.wires import SESSION
from tests.wires.audit_log import AUDIT_LOG, GOLDEN

STREAM = GOLDEN.read_bytes()
OWN_RULES = {rule.id for rule in AUDIT_LOG.rules}
ALL = tuple(SESSION)  # the bundled wires and the synthetic one


def test_a_check_judges_by_the_registry_it_is_given() -> None:
    """Fires: the synthetic wire is known to a check given a registry holding it, and to no other."""
    assert contract.check(STREAM, AUDIT_LOG.name, registry=SESSION).conformant
    with pytest.raises(ValueError, match="unknown wire 'audit-log'"):
        contract.check(STREAM, AUDIT_LOG.name, registry=BUNDLED_REGISTRY)
    auto = contract.check(STREAM, AUTO, registry=BUNDLED_REGISTRY)  # auto among the bundled wires only
    assert auto.wire != AUDIT_LOG.name
    assert not auto.conformant


def test_a_registry_given_is_current_only_for_the_call() -> None:
    before = current()
    contract.check(STREAM, AUDIT_LOG.name, registry=SESSION.without(BUNDLED_REGISTRY.default.name))
    assert current() is before
    with pytest.raises(TypeError, match="WireRegistry"):
        contract.check(STREAM, AUDIT_LOG.name, registry="audit-log")  # type: ignore[arg-type]
    assert current() is before


def test_another_thread_keeps_its_own_registry() -> None:
    """What one call is given is not what a caller in another thread sees (no global is swapped)."""
    seen: list[tuple[str, ...]] = []
    inside = threading.Event()
    done = threading.Event()

    def other() -> None:
        inside.wait(10)
        seen.append(current().names)  # a fresh thread starts with the default: the bundled registry
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    with using(SESSION):
        inside.set()
        done.wait(10)
    thread.join(10)
    assert seen == [BUNDLED_REGISTRY.names]


def test_the_cli_knows_the_wires_of_its_registry(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_bytes(STREAM)
    argv = ["check", "--wire", AUDIT_LOG.name, str(path)]
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
        assert cli.run(argv, registry=SESSION) == 0
        assert cli.run(argv, registry=BUNDLED_REGISTRY) == 2  # misuse: not one of --wire's choices
    assert "invalid choice: 'audit-log'" in err.getvalue()


def test_the_derived_tables_are_the_registry_s() -> None:
    """The catalog, the vital, always-judged and schema-step rules follow the registry current."""
    with using(BUNDLED_REGISTRY):
        assert not OWN_RULES & set(CATALOG)
        assert AUDIT_LOG.schema_rule not in pipeline.schema_rules()
    with using(SESSION):
        assert set(CATALOG) >= OWN_RULES
        assert AUDIT_LOG.schema_rule in pipeline.schema_rules()
    vital = next(wire for wire in SESSION if wire.vital)
    judged = next(wire for wire in SESSION if wire.always_judged)
    rule = sorted(vital.vital)[0]
    with using(SESSION.without(vital.name)):
        assert not report.is_vital(rule)
    with using(SESSION.without(judged.name)):
        assert not judged.always_judged & requirements.always_judged_rules()
    with using(SESSION):
        assert report.is_vital(rule)
        assert judged.always_judged <= requirements.always_judged_rules()


def test_a_table_is_built_once_per_registry() -> None:
    built: list[WireRegistry] = []

    @wires.derived
    def names(registry: WireRegistry) -> tuple[str, ...]:
        built.append(registry)
        return registry.names

    variant = SESSION.without(AUDIT_LOG.name)
    with using(variant):
        assert names() == names() == variant.names
    with using(SESSION):
        assert names() == SESSION.names
    assert built == [variant, SESSION]


def test_a_variant_is_a_new_registry() -> None:
    variant = dataclasses.replace(AUDIT_LOG, open_types=not AUDIT_LOG.open_types)
    replaced = SESSION.replacing(variant)
    assert replaced.names == SESSION.names
    assert replaced.get(AUDIT_LOG.name) is variant
    assert SESSION.get(AUDIT_LOG.name) is AUDIT_LOG  # unchanged
    assert BUNDLED_REGISTRY.replacing(AUDIT_LOG).names == SESSION.names  # a new name goes last
    assert SESSION.shipped().names == BUNDLED_REGISTRY.names
    with pytest.raises(ValueError, match="already registered"):
        SESSION.plus(AUDIT_LOG)
    with pytest.raises(ValueError, match="already registered"):
        BUNDLED_REGISTRY.plus(dataclasses.replace(AUDIT_LOG, name=AUTO))
    with pytest.raises(ValueError, match="unknown wire"):
        BUNDLED_REGISTRY.without(AUDIT_LOG.name)
    with pytest.raises(ValueError, match="at least one wire"):
        WireRegistry(())


def test_the_production_package_keeps_no_swap_helpers() -> None:
    """The helpers that mutated the global registry for the tests are gone from ``contract``."""
    for name in ("registered", "unregistered", "bundled_only"):
        assert not hasattr(wires, name), name


@settings(derandomize=True, max_examples=30)
@given(order=st.permutations(range(len(ALL))), size=st.integers(1, len(ALL)))
def test_any_registry_is_what_its_wires_declare(order: list[int], size: int) -> None:
    """For any subset of the known wires in any order: the lookups, the default and the catalog
    are those wires', and a wire outside it is refused by name."""
    chosen = [ALL[i] for i in order[:size]]
    left = [ALL[i] for i in order[size:]]
    registry = WireRegistry(chosen, bundled=BUNDLED_REGISTRY.bundled)
    with using(registry):
        assert tuple(wires.NAMES) == tuple(w.name for w in chosen)
        assert registry.default is chosen[0]
        assert all(wires.get(w.name) is w for w in chosen)
        for wire in chosen:
            assert {r.id for r in wire.rules} <= set(CATALOG)
            assert {r.id for r in wire.rules} <= {r.id for r in rules_for(wire.name)}
        for wire in left:
            assert not {r.id for r in wire.rules} & set(CATALOG)
            with pytest.raises(ValueError, match="unknown wire"):
                wires.get(wire.name)
        found = [w.name for w in wires.candidates({"type": "audit", "seq": 1})]
        assert set(found) <= set(registry.names)  # auto picks among them only
        assert (AUDIT_LOG.name in found) is (AUDIT_LOG.name in registry.names)


@pytest.mark.process
def test_a_live_run_judges_by_its_registry_in_its_threads() -> None:
    """The harness judges a live run in a thread it starts: that thread keeps the caller's registry
    (``contextvars.copy_context``), so a wire known only to the registry passed is judged as itself."""
    with using(BUNDLED_REGISTRY):  # the caller's own context knows only the bundled wires
        live = contract.run(None, wire=AUDIT_LOG.name, timeout=20, registry=SESSION)
        assert current() is BUNDLED_REGISTRY
        with pytest.raises(ValueError, match="no wire named 'audit-log'"):
            contract.run(None, wire=AUDIT_LOG.name, timeout=20)
    assert live.wire == AUDIT_LOG.name
    assert live.conformant, live.violations
    assert "al.seq" in live.exercised
