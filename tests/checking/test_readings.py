"""The rule machines judge every reading of a line whose repeated member names read two ways
(contract/checking/readings.py): bounded, and failing closed at the bound and on a copy's error."""

from __future__ import annotations

import types
from typing import Any

import pytest

import contract
from contract.checking import readings
from contract.core.rule import Check
from contract.core.sink import Sink
from contract.goldens.store import scenarios
from contract.wires import WIRES
from contract.wires.stream_json.registry import REGISTRY

INIT = '{"type":"system","subtype":"init","session_id":"sess_1","seq":0,"ts":"2026-03-01T10:00:00Z"}'
TEXT = ('{"type":"assistant","session_id":"sess_1",SEQ,"ts":"2026-03-01T10:00:01Z",'
        '"message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}')


def _stream(seqs: list[str]) -> bytes:
    lines = [INIT, *(TEXT.replace("SEQ", seq) for seq in seqs)]
    last = len(seqs) + 1
    lines.append('{"type":"result","subtype":"success","is_error":false,"session_id":"sess_1",'
                 f'"seq":{last},"ts":"2026-03-01T10:00:02Z"}}')
    return ("\n".join(lines) + "\n").encode()


def _rules(data: bytes) -> list[tuple[str, int | None]]:
    report = contract.check(data, wire="stream-json", basis=["written"])
    return [(v.rule, v.line) for v in report.violations if v.rule != "line.duplicate-key"]


def test_a_repeat_whose_readings_agree_with_the_stream_is_conformant_under_written() -> None:
    seqs = [f'"seq":{n},"seq":{n}' for n in range(1, readings.MAX_LINES + 5)]  # same value: one reading
    assert _rules(_stream(seqs)) == []


def test_up_to_the_bound_every_line_s_first_reading_is_judged() -> None:
    back = [f'"seq":0,"seq":{n}' for n in range(1, readings.MAX_LINES + 1)]  # 0 is a step back, but on line 2
    found = _rules(_stream(back))
    assert [line for rule, line in found if rule == "sj.seq"] == list(range(3, readings.MAX_LINES + 2))
    assert "checker.limit" not in {rule for rule, _ in found}


def test_past_the_bound_the_next_such_line_is_a_limit_finding_never_a_silent_skip() -> None:
    back = [f'"seq":0,"seq":{n}' for n in range(1, readings.MAX_LINES + 4)]
    found = _rules(_stream(back))
    assert found.count(("checker.limit", readings.MAX_LINES + 2)) == 1  # the 33rd such line (line 34)
    assert [r for r, _ in found].count("checker.limit") == 1
    assert not contract.check(_stream(back), wire="stream-json", basis=["written"]).conformant


def test_a_copy_that_raises_is_an_internal_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(value: object, memo: object = None) -> object:
        raise RuntimeError("copy failed")

    monkeypatch.setattr(readings.copy, "deepcopy", broken)  # type: ignore[attr-defined]  # patched where readings looks it up (not re-exported)
    found = _rules(_stream(['"seq":0,"seq":1']))
    assert ("checker.internal", 2) in found


# -- a copy never feeds the machines it was copied from ------------------------------------------


class _Watch(Check):
    """A declared check on every line type (it joins StreamRules' dispatch as a chained handler)."""

    kinds = ("system", "assistant", "user", "stream_event", "result")

    def line(self, obj: dict[str, Any], line: int, out: Sink) -> None:
        pass


def _with_extension(raw: bytes, value: bytes) -> bytes:
    return raw.replace(b"{", b'{"extension":' + value + b",", 1)


def _findings(data: bytes) -> list[tuple[str, int | None, str | None, str]]:
    report = contract.check(data, wire="stream-json")
    return [(v.rule, v.line, v.pointer, v.message) for v in report.violations if v.rule != "line.duplicate-key"]


@pytest.mark.parametrize("watched", [False, True], ids=["machines alone", "with a declared check"])
@pytest.mark.parametrize("golden", scenarios("stream-json"), ids=lambda g: g.name)
def test_the_other_reading_of_every_line_leaves_the_machines_as_they_were(
        golden: Any, watched: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line (up to the bound) repeats a member whose two values no rule reads: the report is
    the one of the same stream with that member once. A copy that shared state with the machines
    (a closure in their dispatch) fed them the line twice, and findings changed (seq, tool ids)."""
    if watched:
        monkeypatch.setattr(REGISTRY, "_checks", [*REGISTRY.checks(), _Watch])
    lines = [raw for raw in golden.data().split(b"\n") if raw]
    if any(b'"extension"' in raw for raw in lines[:readings.MAX_LINES]):
        pytest.skip(f"{golden.name}: a line holds extension already")
    head, rest = lines[:readings.MAX_LINES], lines[readings.MAX_LINES:]
    repeated = [_with_extension(raw, b'{"x":1,"x":2}') for raw in head] + rest
    once = [_with_extension(raw, b'{"x":2}') for raw in head] + rest
    assert _findings(b"\n".join(repeated) + b"\n") == _findings(b"\n".join(once) + b"\n")


def _closures(value: object, path: str, seen: set[int]) -> list[str]:
    """Where a machine's state holds a closure (which ``copy.deepcopy`` shares, not copies)."""
    if id(value) in seen or isinstance(value, (type, types.ModuleType, str, bytes, int, float)):
        return []
    seen.add(id(value))
    if isinstance(value, types.FunctionType):
        return [f"{path} ({value.__qualname__})"] if value.__closure__ else []
    if isinstance(value, types.MethodType):
        return _closures(value.__self__, path, seen)
    items: list[tuple[str, object]] = []
    if isinstance(value, dict):
        items = [(f"[{k!r}]", v) for k, v in value.items()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = [(f"[{i}]", v) for i, v in enumerate(value)]
    else:
        slots = [name for cls in type(value).__mro__ for name in getattr(cls, "__slots__", ())]
        items = [(f".{k}", v) for k, v in getattr(value, "__dict__", {}).items()]
        items += [(f".{k}", getattr(value, k)) for k in slots if hasattr(value, k)]
    return [found for key, item in items for found in _closures(item, path + key, seen)]


@pytest.mark.parametrize("watched", [False, True], ids=["machines alone", "with a declared check"])
def test_no_machine_of_any_wire_holds_a_closure(watched: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if watched:
        monkeypatch.setattr(REGISTRY, "_checks", [*REGISTRY.checks(), _Watch])
    for wire in WIRES.values():
        for machine in wire.machines():
            assert _closures(machine, f"{wire.name}:{type(machine).__name__}", set()) == []
