"""One table of what a producer may change: the ADR gate's additive codes and ``feed --future``'s kinds.

The gate (``contract.evolution.classify``, ``diff``/``evolve``) calls a new optional member additive
("consumers ignore fields they do not know"), yet before issue 46 ``feed --future`` never fed an
unknown member outside the free-form payloads: a consumer exiting 3 on any member it did not know
passed. Each wire now declares, in its own package (``contract/wires/<wire>/may_change.py``), which
future change kinds make each additive code of the gate on a stream, and these tests hold the two
together:

- the additive codes are read from the gate's own source (``contract/evolution``: every
  ``Change`` made additive and the code it carries; classify exports no table of them, only
  ``BREAKING_CODES``), so a code added there fails here until a wire declares it;
- every declared kind is one the wire's future module draws, the future's kinds are the table's,
  and each is drawn on some golden;
- an unknown member reaches every object level the schema in force models and the gate calls a
  new member additive at (read from the gate's surface, not listed);
- a consumer strict on members (tests/faulty_consumers/strict_members.py) fails ``--future`` at
  each level, while the reference consumer and the subagent client still pass.
"""

from __future__ import annotations

import ast
import copy
import importlib
import itertools
import json
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, Phase, find, settings

import contract
import contract.evolution
from contract import cli
from contract.checking.schema import load as load_schema
from contract.checking.schemawalk import walker
from contract.consumers.feed import hold, judge
from contract.consumers.feed_client import host_lines, script_from
from contract.consumers.judging import Expectation
from contract.evolution import classify
from contract.evolution.surface import as_surface
from contract.goldens.store import load, scenarios
from contract.wires import WIRES, Live
from contract.wires.base import NO_SCHEMA_CHANGE
from contract.wires.stream_json.kit import future
from tests.faulty_consumers.strict_members import unknown_member
from tests.support.depth import sample
from tests.support.paths import TESTS

PY = sys.executable
STRICT = [PY, str(TESTS / "faulty_consumers" / "strict_members.py")]
REFERENCE = [PY, "-m", "contract.reference.stream_json_consumer"]


# -- the gate's additive codes, read from its source ----------------------------------------------


def _resolve(expr: ast.expr, function: ast.FunctionDef | None, calls: dict[str, list[ast.Call]]) -> set[str] | None:
    """The strings ``expr`` can be: a constant, or an f-string of the enclosing function's parameters
    whose calls in the module pass constants. None when it cannot be read (the test then fails)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if not isinstance(expr, ast.JoinedStr) or function is None:
        return None
    parts: list[set[str]] = []
    params = [a.arg for a in function.args.args]
    for value in expr.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append({value.value})
        elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name) \
                and value.value.id in params:
            index = params.index(value.value.id)
            given = [c.args[index] if len(c.args) > index else None for c in calls.get(function.name, [])]
            texts = [a.value for a in given if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if not given or len(texts) != len(given):  # every call must pass a constant there
                return None
            parts.append(set(texts))
        else:
            return None
    return {"".join(p) for p in itertools.product(*parts)}


def _additive_calls(tree: ast.Module) -> Iterator[tuple[ast.Call, ast.expr | None, ast.FunctionDef | None]]:
    """Each call that makes an additive Change, with the expression of its code and its function."""
    def name(node: ast.expr) -> str:
        return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""

    def additive(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "ADDITIVE") or \
            (isinstance(node, ast.Constant) and node.value == classify.ADDITIVE)

    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    owner: dict[int, ast.FunctionDef] = {}  # each call's innermost function: the larger ones first, overwritten
    for function in sorted(functions, key=lambda f: (f.end_lineno or f.lineno) - f.lineno, reverse=True):
        owner.update((id(node), function) for node in ast.walk(function) if isinstance(node, ast.Call))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        code = next((k.value for k in node.keywords if k.arg == "code"), None)
        if name(node.func) == "_additive":
            yield node, code or (node.args[1] if len(node.args) > 1 else None), owner.get(id(node))
        elif name(node.func) == "Change" and node.args and additive(node.args[0]) \
                and getattr(owner.get(id(node)), "name", "") != "_additive":  # the helper: its callers are read
            yield node, code or (node.args[4] if len(node.args) > 4 else None), owner.get(id(node))


def gate_additive_codes() -> tuple[set[str], list[str]]:
    """Every code the gate's modules give an additive change, and the calls whose code could not be read."""
    codes: set[str] = set(getattr(classify, "ADDITIVE_CODES", ()))  # a table, should the gate grow one
    unread: list[str] = []
    for info in pkgutil.iter_modules(contract.evolution.__path__):
        module = importlib.import_module(f"contract.evolution.{info.name}")
        path = Path(module.__file__ or "")
        tree = ast.parse(path.read_text("utf-8"))
        calls: dict[str, list[ast.Call]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                calls.setdefault(node.func.id, []).append(node)
        for call, code, function in _additive_calls(tree):
            found = _resolve(code, function, calls) if code is not None else None
            if found is None:
                unread.append(f"{path.name}:{call.lineno}")
            else:
                codes |= found
    return codes, unread


FUTURES = [(wire.name, wire.load_future()) for wire in WIRES.values() if wire.future is not None]


def test_the_gates_additive_codes_are_read_whole() -> None:
    codes, unread = gate_additive_codes()
    assert not unread, f"additive changes whose code this test cannot read: {unread}"
    # the reading finds what the gate says of a new optional field, a new line kind, an open-set value
    assert {"optional-field-added", "line-kind-added", "open-set-value-added"} <= codes
    assert not codes & set(classify.BREAKING_CODES) - {"line-kind-added"}  # (breaking where types are closed)


@pytest.mark.parametrize(("wire", "wire_future"), FUTURES, ids=[name for name, _ in FUTURES])
def test_every_additive_code_has_its_place_in_the_wires_table(wire: str, wire_future: Any) -> None:
    codes, _ = gate_additive_codes()
    table = wire_future.may_change
    assert table is not None, f"{wire}: Future.may_change declares nothing"
    assert sorted(codes - set(table)) == [], f"{wire}: additive codes of the gate with no future variant declared"
    assert sorted(set(table) - codes - {NO_SCHEMA_CHANGE}) == [], f"{wire}: declared codes the gate no longer gives"
    for code, allowance in table.items():
        assert allowance.why, (wire, code)
    # the wire's future draws exactly the table's kinds, each on some golden
    module = importlib.import_module(WIRES[wire].future or "")
    declared = {kind for allowance in table.values() for kind in allowance.kinds}
    assert set(module.KINDS) == declared
    assert "unknown-member" in table["optional-field-added"].kinds  # a new optional field: an unknown member fed
    drawn: set[str] = set()
    for golden in scenarios(wire):
        drawn |= set(_available(wire, golden))
    assert drawn == declared, f"{wire}: declared kinds no golden has a place for"


def _available(wire: str, golden: Any) -> tuple[str, ...]:
    module = importlib.import_module(WIRES[wire].future or "")
    if WIRES[wire].live is Live.CONVERSATION:
        return tuple(module.available(host_lines(script_from(golden.name, golden.data()))))
    return tuple(module.available([orjson.loads(r) for r in golden.data().split(b"\n") if r.strip()]))


def test_subagent_stdio_declares_no_kind_where_the_gate_is_never_additive() -> None:
    """Its table gives a new line kind and the open-set codes no kind: shown here on the gate itself."""
    before = as_surface(load_schema("subagent-stdio"))
    assert not [path for path, entry in before["schema"]["fields"].items() if "open_set" in entry]
    after = copy.deepcopy(before)
    after["schema"]["line_kinds"]["x_new"] = {"type": "x_new"}
    assert [(c.kind, c.code) for c in classify.classify(before, after)] == [(classify.BREAKING, "line-kind-added")]


# -- every object level the gate calls a new member additive at ------------------------------------


def object_levels(wire: str) -> set[str]:
    """The surface's closed objects with named members (and a line's top level, ``""``)."""
    fields = as_surface(load_schema(wire))["schema"]["fields"]
    return {"", *(path for path, entry in fields.items()
                  if "object" in entry.get("types", []) and entry.get("additionalProperties") is False)}


@pytest.mark.parametrize("level", sorted(object_levels("stream-json")), ids=lambda level: level or "top")
def test_the_gate_calls_a_new_member_at_each_level_additive(level: str) -> None:
    before = as_surface(load_schema("stream-json"))
    after = copy.deepcopy(before)
    after["schema"]["fields"][f"{level}.x_new" if level else "x_new"] = {"required": False, "types": ["string"]}
    changes = classify.classify(before, after)
    assert [(c.kind, c.code) for c in changes] == [(classify.ADDITIVE, "optional-field-added")]


def _goldens() -> list[tuple[str, list[dict[str, Any]]]]:
    return [(g.name, [orjson.loads(r) for r in g.data().split(b"\n") if r.strip()]) for g in scenarios("stream-json")]


def test_an_unknown_member_has_a_place_at_every_level() -> None:
    reached = {place.level for _, lines in _goldens() for _, place in future.places(lines)}
    assert object_levels("stream-json") <= reached


SHAPE = settings(max_examples=3000, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                 phases=(Phase.generate,))  # the first found: the test needs a witness, not its simplest


def _golden_with(level: str) -> tuple[str, list[dict[str, Any]]]:
    return next((name, lines) for name, lines in _goldens()
                if any(place.level == level for _, place in future.places(lines)))


# a sweep: every third level in the default run, every level in the deep run (tests/support/depth.py)
@pytest.mark.parametrize("level", sample(sorted(object_levels("stream-json")), 3), ids=lambda level: level or "top")
def test_a_consumer_strict_at_a_level_fails_a_future_variant(level: str) -> None:
    """The variants reach every level (hypothesis finds one there, shrunk to that one change) and the
    strict consumer, strict at that level only, fails the variant fed (consumer.crash), having passed
    the golden."""
    name, lines = _golden_with(level)
    walk = walker("stream-json")
    only = level or "top"
    found = find(future.variants(name, lines),
                 lambda v: any(c.kind == "unknown-member" and c.level == level for c in v.changes), settings=SHAPE)
    # the strict reading, in process: the variant has a member the schema forbids at that level
    assert any(unknown_member(walk, orjson.loads(r), only) for r in found.data.split(b"\n") if r.strip())
    golden = load("stream-json", name).data()
    argv = [*STRICT, "stream-json", only]
    assert judge(hold(argv, golden), golden, Expectation(), "the golden") == []
    findings = judge(hold(argv, found.data), found.data, Expectation(), "the variant")
    assert [f.rule for f in findings] == ["consumer.crash"]
    assert "unknown member" in findings[0].message


SHOWN: list[str] = []  # what the last feed wrote on stderr (the failing streams, for the json format)


def _feed(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = cli.run(["feed", "--future", "--format", "json", "--seed", "5", *args])
    out, err = capsys.readouterr()
    SHOWN[:] = [err]
    return code, json.loads(out)


@pytest.mark.process
def test_feed_future_refuses_the_strict_consumer_and_passes_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _feed(capsys, "--scenario", "tool_calls", "--examples", "20", "--shrink-seconds", "2", "--",
                         *STRICT, "stream-json")
    assert (code, set(report["counts"])) == (1, {"consumer.crash"}), report["notes"]
    assert any("no schema names yet" in v["message"] for v in report["violations"])
    assert "conformant but for the member no schema names yet" in SHOWN[0]  # what check will say of it
    code, report = _feed(capsys, "--scenario", "tool_calls", "--scenario", "streaming_thinking", "--examples", "10",
                         "--", *REFERENCE)
    assert (code, report["conformant"]) == (0, True), report["violations"]


@pytest.mark.process
def test_the_subagent_client_still_passes_and_a_strict_one_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _feed(capsys, "--wire", "subagent-stdio", "--examples", "5", "--scenario", "first_poll",
                         "--scenario", "workflow_events", "--", PY, "-m", "contract.reference.subagent_client", "1")
    assert (code, report["conformant"]) == (0, True), report["violations"]
    code, report = _feed(capsys, "--wire", "subagent-stdio", "--examples", "20", "--shrink-seconds", "2",
                         "--scenario", "first_poll", "--", *STRICT, "subagent-stdio")
    assert (code, set(report["counts"])) == (1, {"consumer.crash"}), report["violations"]
    assert any("no schema names yet" in v["message"] for v in report["violations"])


def test_a_variant_is_conformant_but_for_its_unknown_members() -> None:
    name, lines = _golden_with("message.content[]")
    found = find(future.variants(name, lines), lambda v: sum(c.kind == "unknown-member" for c in v.changes) >= 2,
                 settings=SHAPE)
    added = {c.member for c in found.changes if c.kind == "unknown-member"}
    report = contract.check(found.data, "stream-json", strict=True)
    assert report.violations
    for violation in report.violations:
        assert violation.rule == "sj.schema"
        assert "additionalProperties is false" in violation.message
        assert (violation.pointer or "").rsplit("/", 1)[-1] in added
