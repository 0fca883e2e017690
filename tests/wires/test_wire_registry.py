"""The registry holds the claim that a wire is its package plus one registry line.

Every test here takes ``any_wire`` (tests/conftest.py): each bundled wire, and the synthetic
audit-log wire of tests/wires/audit_log, in the session's registry (tests/support/wires.py). None names a wire or
counts them; what differs between wires is read from the descriptor.
"""

from __future__ import annotations

import dataclasses
import io
import json
from contextlib import redirect_stdout
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contract
from contract import cli
from contract.rules import requirements
from contract.rules.catalog import rules_for
from contract.strategies import also_fires, breakable, broken_streams, streams
from contract.wires import AUTO, NAMES, WIRES, DetectFailed, Evidence, Wire, candidates, detect, evidence
from tests.support.wires import registered, unregistered
from tests.wires.audit_log import AUDIT_LOG, GOLDEN

_FIXTURE = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # the wire stays registered


def _without_wire_notes(report: dict[str, Any]) -> dict[str, Any]:
    """A report's JSON without the note naming how the wire was chosen (auto says so, a name does not)."""
    return {**report, "wire": None, "notes": [n for n in report["notes"] if not n.startswith("wire: ")]}


def _first_object(data: bytes) -> dict[str, Any] | None:
    for body in data.split(b"\n"):
        try:
            value = json.loads(body)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


@_FIXTURE
@given(data=st.data())
def test_auto_gives_the_report_of_the_detected_wire_by_name(any_wire: Wire, data: st.DataObject) -> None:
    """``--wire auto`` decides the wire, then judges every line as that wire does: the same report."""
    rule = data.draw(st.none() | st.sampled_from(sorted(breakable(any_wire.name))), label="broken rule")
    stream = data.draw(streams(any_wire.name) if rule is None else broken_streams(any_wire.name, rule))
    auto = contract.check(stream, AUTO)
    own = contract.check(stream, auto.wire)
    assert auto.wire in WIRES
    assert _without_wire_notes(auto.to_json()) == _without_wire_notes(own.to_json())
    if rule is None:  # a conformant stream is detected as its own wire
        assert auto.wire == any_wire.name
        assert auto.conformant


@_FIXTURE
@given(data=st.data())
def test_every_breakable_rule_fails_its_requirement_and_nothing_else_does(any_wire: Wire,
                                                                          data: st.DataObject) -> None:
    rule = data.draw(st.sampled_from(sorted(breakable(any_wire.name))), label="broken rule")
    report = contract.check(data.draw(broken_streams(any_wire.name, rule)), any_wire.name)
    failed = {r.rule.id for r in requirements.verdicts(report) if r.status == requirements.FAILED}
    assert rule in failed
    assert failed <= {rule, *also_fires(any_wire.name, rule)}


@_FIXTURE
@given(data=st.data())
def test_a_conformant_stream_passes_its_schema_rule_and_the_rules_judged_on_every_stream(
        any_wire: Wire, data: st.DataObject) -> None:
    stream = data.draw(streams(any_wire.name))
    report = contract.check(stream, any_wire.name)
    assert contract.check(stream, any_wire).to_json() == report.to_json()  # the descriptor, or its name
    status = {r.rule.id: r.status for r in requirements.verdicts(report)}
    assert report.conformant, report.violations
    assert requirements.FAILED not in status.values()
    for rule in {any_wire.schema_rule, *any_wire.always_judged}:
        assert status[rule] == requirements.PASSED, rule
    first = _first_object(stream)
    assert first is not None
    assert detect(first) is any_wire
    assert candidates(first)[0] is any_wire


def test_the_wire_is_a_choice_of_check_and_its_rules_are_listed(any_wire: Wire, tmp_path: Any) -> None:
    assert any_wire.name in NAMES
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.run(["rules", "--wire", any_wire.name, "--format", "json"]) == 0
    listed = {rule["id"] for rule in json.loads(out.getvalue())}
    assert {rule.id for rule in any_wire.rules} <= listed
    assert ("line.ansi" in listed) is any_wire.ansi
    assert listed == {rule.id for rule in rules_for(any_wire.name)}


def test_the_synthetic_golden_checks_conformant_by_name_and_auto(tmp_path: Any) -> None:
    with registered(AUDIT_LOG):
        for wire in (AUDIT_LOG.name, AUTO):
            assert cli.run(["check", "--wire", wire, "--format", "json", str(GOLDEN)]) == 0
        report = contract.check(GOLDEN.read_bytes(), AUTO)
        assert report.wire == AUDIT_LOG.name
        assert report.conformant
    with unregistered(AUDIT_LOG.name), pytest.raises(ValueError, match="unknown wire"):  # out of the registry
        contract.check(GOLDEN.read_bytes(), AUDIT_LOG.name)


def test_an_audit_log_line_with_seq_is_not_taken_for_another_wire_that_numbers_lines() -> None:
    """Detection by evidence: a bare ``seq`` suggests a wire; a line type of a wire's own decides."""
    with registered(AUDIT_LOG):
        line = {"type": "audit", "seq": 1}
        assert detect(line) is AUDIT_LOG
        assert all(wire is AUDIT_LOG or wire.detect(line) < AUDIT_LOG.detect(line) for wire in candidates(line))


@pytest.mark.parametrize(("rule", "stream", "fires"), [
    ("al.seq", b'{"type":"audit","seq":1}\n{"type":"audit","seq":3}\n', True),
    ("al.seq", b'{"type":"audit","seq":1}\n{"type":"audit","seq":2}\n', False),
    ("al.schema", b'{"type":"audit","seq":1,"extra":true}\n', True),
    ("al.schema", b'{"type":"audit","seq":1,"note":"x"}\n', False),
    ("line.ansi", b'{"type":"audit","seq":1,"note":"\\u001b[31m"}\n', True),
    ("line.ansi", b'{"type":"audit","seq":1,"note":"[31m"}\n', False),
])
def test_the_synthetic_wire_rules_fire_and_hold(rule: str, stream: bytes, fires: bool) -> None:
    with registered(AUDIT_LOG):
        for wire in (AUDIT_LOG.name, AUTO):  # the same verdict either way
            assert (rule in contract.check(stream, wire).rules()) is fires, wire


def test_every_wire_keeps_its_goldens_where_its_descriptor_says(any_wire: Wire) -> None:
    """One convention for every wire, the synthetic one included: ``goldens/<name>/`` under its data
    root (``Wire.goldens_dir``), found by ``contract.goldens.store`` and each conformant under --strict."""
    from contract.goldens.store import all_scenarios, scenarios

    found = scenarios(any_wire.name)
    assert len(found) >= max(1, any_wire.coverage.goldens)
    assert {golden.path.parent for golden in found} == {any_wire.goldens_dir}
    assert {golden.name for golden in found} <= {g.name for g in all_scenarios() if g.wire == any_wire.name}
    for golden in found:
        assert contract.check(golden.data(), any_wire.name, strict=True).conformant, golden.name


# Values a member may hold on some stream: a detect that reads one as its own type (a list looked
# up in a set, a number sliced as a string) raises, and every wire's detect sees every stream.
_ANY_VALUE: tuple[object, ...] = ([], {}, [1], {"a": 1}, 0, -1, 1.5, 1e300, None, True, False, "", "x" * 300)


def test_each_wire_s_detect_takes_any_member_of_any_type(any_wire: Wire) -> None:
    """Every wire's golden first lines (its own and the others'), each member in turn given each
    JSON type: ``detect`` answers, and raises for none (docs/architecture.md, "detect sees any value")."""
    from contract.goldens.store import scenarios

    firsts = [_first_object(golden.data()) for name in NAMES for golden in scenarios(name)]
    probes: list[dict[str, Any]] = [{}, {"": None}]
    for first in filter(None, firsts):
        probes += [{**first, member: value} for member in first for value in _ANY_VALUE]
    for probe in probes:
        evidence(any_wire, probe)  # DetectFailed names the wire and the member's value


def test_a_detect_that_raises_is_named_in_the_report_not_passed() -> None:
    """Fail closed, and say whose defect it is: the stream was another wire's."""
    def fragile(obj: dict[str, Any]) -> Evidence:
        return Evidence.TYPE if obj.get("type") in frozenset({"audit"}) else Evidence.NONE

    with registered(dataclasses.replace(AUDIT_LOG, detect=fragile)) as wire:
        with pytest.raises(DetectFailed, match="the audit-log wire's detect raised TypeError"):
            evidence(wire, {"type": []})
        for name in (AUTO, NAMES[0]):
            report = contract.check(b'{"type":[]}\n', wire=name)
            found = [v.message for v in report.violations if v.rule == "checker.internal"]
            assert not report.conformant
            assert found
            assert "the audit-log wire's detect raised" in found[0]


def test_the_synthetic_golden_is_the_one_its_data_root_holds() -> None:
    from contract.goldens.store import scenarios

    with registered(AUDIT_LOG):
        [golden] = scenarios(AUDIT_LOG.name)
    assert golden.path == GOLDEN
    assert golden.path.is_relative_to(AUDIT_LOG.data_root)  # not the bundled goldens/


@pytest.mark.process
def test_the_synthetic_scenario_runs_live_through_the_scenario_harness() -> None:
    """The plugin's path for a golden (contract.goldens.scenarios): the wire's reference emitter started with
    the golden named in its environment, checked live and compared with the golden."""
    from contract.goldens.scenarios import run_scenario
    from contract.goldens.store import scenarios

    with registered(AUDIT_LOG):
        [golden] = scenarios(AUDIT_LOG.name)
        run = run_scenario(golden, timeout=30)
    assert run.report.conformant, run.explain()
    assert run.comparison.equal, run.explain()
    assert run.report.lines == len(golden.data().splitlines())


@pytest.mark.process
def test_the_synthetic_reference_emitter_replays_its_golden_live() -> None:
    from contract.live.harness import default_command, run_stream

    with registered(AUDIT_LOG):
        report = run_stream(default_command(AUDIT_LOG), wire=AUDIT_LOG.name, timeout=30)
    assert report.conformant, report.violations
    assert report.lines == len(GOLDEN.read_bytes().splitlines())


@_FIXTURE
@given(data=st.data())
def test_a_line_typed_as_another_wire_is_judged_by_the_decided_wire(any_wire: Wire, data: st.DataObject) -> None:
    """No exemption by a line's type: after the wire is decided, every line is judged by its rules
    (an ESC in a line typed as another wire fails wherever the decided wire forbids ESC)."""
    others = [name for name in NAMES if name != any_wire.name]
    foreign = _first_object(data.draw(streams(data.draw(st.sampled_from(others)))))
    assert foreign is not None
    foreign["note"] = "\x1b[31mred\x1b[0m"
    stream = data.draw(streams(any_wire.name)) + json.dumps(foreign).encode() + b"\n"
    auto = contract.check(stream, AUTO)
    assert auto.wire == any_wire.name
    assert _without_wire_notes(auto.to_json()) == _without_wire_notes(contract.check(stream, any_wire.name).to_json())
    assert ("line.ansi" in auto.rules()) is any_wire.ansi


def test_the_conversation_mode_takes_its_commands_and_line_types_from_the_descriptor() -> None:
    """No line type is the driver's own: a wire with another dialogue gets its own commands."""
    import dataclasses

    from contract.live import driver
    from contract.wires import Dialogue, conversation

    other = dataclasses.replace(conversation(), name="ping-stdio", dialogue=Dialogue(
        command="ping", response="pong", event=None, build=lambda ident: {"type": "ping", "n": ident}))
    plan = driver.default_plan(other)
    sent = [line for step in plan for line in step.commands]
    assert sent
    assert all(line["type"] == "ping" for line in sent)
    transcript = b'{"type":"ping","n":"a"}\n{"type":"ping","n":"b"}\n{"type":"pong"}\n{"type":"ping","n":"c"}\n'
    assert [len(step.commands) for step in driver.plan_from(transcript, other)] == [2, 1]
    assert driver.plan_from(transcript) == ()  # the bundled wire's commands are of another type


def test_auto_holds_a_bounded_number_of_findings_and_still_reports_as_the_named_wire(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A first line with more escapes than the hold keeps: only their number is held past the bound,
    and the report (counts, kept findings) is the named wire's all the same."""
    from contract.checking.deciding import Deciding, Held
    from contract.rules import report

    monkeypatch.setattr(Deciding, "HELD_PER_RULE", 5)
    monkeypatch.setattr(report, "MAX_KEPT_VIOLATIONS", 5)
    monkeypatch.setattr(report, "VITAL_PER_RULE", 3)
    monkeypatch.setattr(report, "FIRST_PER_RULE", 2)
    seen: list[int] = []
    real = Deciding.take

    def take(self: Deciding) -> list[Held]:
        held = real(self)
        seen.append(len(held))
        return held

    monkeypatch.setattr(Deciding, "take", take)
    line = {"type": "audit", "seq": 1, "note": {f"k{i}": "\x1b" for i in range(50)}}
    stream = json.dumps(line).encode() + b"\n"
    with registered(AUDIT_LOG):
        auto, own = contract.check(stream, AUTO), contract.check(stream, AUDIT_LOG.name)
        assert auto.wire == AUDIT_LOG.name
        assert auto.counts["line.ansi"] == own.counts["line.ansi"] == 50
        assert _without_wire_notes(auto.to_json()) == _without_wire_notes(own.to_json())
    assert max(seen) <= 5 + 1  # the bound, plus one count entry for the rule past it


def test_the_common_rules_cite_each_registered_wire_s_seed_through_its_descriptor() -> None:
    """The framing, line.ansi, harness and consumer rules' sources are composed from each wire's
    ``Wire.cites``: a wire registered with its own words adds them, and takes them away again."""
    import dataclasses

    from contract.core.rule import Basis
    from contract.rules.catalog import CATALOG
    from contract.wires import Cites

    before = {rule: CATALOG[rule].source for rule in ("line.utf8", "line.json", "line.ansi", "run.stdout-held",
                                                        "consumer.crash")}
    cited = dataclasses.replace(AUDIT_LOG, cites=Cites(
        framing="audit-log schema: one object a line", framing_basis=Basis.POLICY, opaque="al.seq",
        ansi="audit-log schema: no escapes", stdout_held="audit-log: its stdout ends", consumer="audit-log: ignore"))
    with registered(cited):
        assert CATALOG["line.utf8"].source == before["line.utf8"] + "; audit-log schema: one object a line"
        assert ("audit-log", Basis.POLICY) in CATALOG["line.utf8"].basis_on
        assert CATALOG["line.json"].source.endswith("; al.seq)")
        assert "no escapes" in CATALOG["line.ansi"].source
        assert CATALOG["line.ansi"].wire == "stream-json"  # listed under the registry's first wire that says it
        assert "audit-log: its stdout ends" in CATALOG["run.stdout-held"].source
        assert CATALOG["consumer.crash"].source.count("audit-log: ignore") == 1
    assert {rule: CATALOG[rule].source for rule in before} == before


def test_help_texts_list_the_registered_wires() -> None:
    """What lists wires to people reads the registry: a wire registered shows in --help."""
    text = " ".join(_help(["run", "--help"]).split())  # registered for the session (tests/conftest.py)
    assert "1 MiB for audit-log, which is checked as it streams" in text
    with unregistered(AUDIT_LOG.name):
        assert "audit-log" not in " ".join(_help(["run", "--help"]).split())


def _help(argv: list[str]) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.run(argv) == 0
    return out.getvalue()


@pytest.mark.process
def test_feeding_future_variants_of_a_wire_without_any_says_so() -> None:
    """``feed --future`` reads the variants from the descriptor (``Wire.future``): the synthetic wire
    has none, so its golden is fed as it is and the report says no variant was drawn."""
    import sys

    from contract.consumers import feed
    from contract.goldens.store import scenarios

    assert AUDIT_LOG.future is None
    with registered(AUDIT_LOG):
        [golden] = scenarios(AUDIT_LOG.name)
        result = feed.feed_stream([sys.executable, "-c", "import sys; sys.stdin.buffer.read()"], [golden],
                                  future=True, examples=2, seed=1)
    assert result.report.conformant, result.report.violations
    assert result.streams == 1  # the golden, and no variant
    assert any("has no future variants" in note for note in result.report.notes), result.report.notes


def test_a_variant_under_a_wire_s_name_is_judged_by_its_own_schema(tmp_path: Any) -> None:
    """The caches keyed by a wire's name (``contract.wires.by_wire``: its schema, its engines, its
    walker) follow the registry, both ways: a variant is not judged by the schema the name had."""
    stream = b'{"type":"audit","seq":1}\n{"type":"audit","seq":2}\n'
    assert contract.check(stream, wire=AUDIT_LOG.name).conformant  # the caches filled
    schema = json.loads(AUDIT_LOG.schema_path.read_text(encoding="utf-8"))
    schema["properties"]["seq"]["maximum"] = 1
    path = tmp_path / "audit-log.schema.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    with registered(dataclasses.replace(AUDIT_LOG, schema_file=str(path))):
        found = contract.check(stream, wire=AUDIT_LOG.name).violations
        assert [(v.rule, v.line, v.pointer) for v in found] == [(AUDIT_LOG.schema_rule, 2, "/seq")]
    assert contract.check(stream, wire=AUDIT_LOG.name).conformant
