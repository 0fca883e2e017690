"""Numbers by exact value, one nesting limit for every caller, and bounds that are reported.

Issue 12's readings D1/D7/D8/D9 as executable checks below the case files: the parser's number
types, the reference engine's integer type, the depth limit from a deep Python stack, and the
subagent rule machines' bounds (reached: ``checker.limit`` once; not reached: no finding).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

import contract
from contract.checking.schema import engine
from contract.core.jsonline import MAX_DEPTH, exact_int, nesting, parse
from contract.wires.subagent_stdio import conversation  # the machines whose bounds these tests reach

# -- the parser ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "integer"),
    [
        ("7", int, 7),
        ("7.0", float, 7),
        ("5e0", float, 5),
        ("70e-1", float, 7),
        ("0.5", float, None),
        ("2.0000000000000001", Decimal, None),
        ("9007199254740991.0000001", Decimal, None),
        ("9007199254740993.0", Decimal, 9007199254740993),
        ("1e400", Decimal, 10**400),
        ("-1e400", Decimal, -(10**400)),
        ("1e-400", Decimal, None),
        ("-0.0", float, 0),
    ],
)
def test_numbers_are_read_exactly(text: str, kind: type, integer: int | None) -> None:
    value, faults = parse(b'{"n":' + text.encode() + b"}")
    assert faults == ()
    assert type(value["n"]) is kind
    assert value["n"] == Decimal(text)  # the exact value, never a rounded one
    assert exact_int(value["n"]) == integer


def test_exact_int_refuses_booleans_containers_and_huge_exponents() -> None:
    for value in (True, False, None, "7", [7], {"n": 7}, Decimal("1E+999999999")):
        assert exact_int(value) is None


def test_nesting_is_measured_without_recursion_and_ignores_strings() -> None:
    assert nesting(b'{"s":"[[[{{{\\"]","a":[[{}]]}') == 4
    assert nesting(b"[" * 200_000 + b"]" * 200_000) == 200_000
    assert nesting(b"1") == 0


# -- the schema engines agree, exactly --------------------------------------------------------

SA_LINE = (
    '{{"type":"response","command":"subagent_status","success":true,"data":{{"version":1,'
    '"sessionId":"s","epoch":"e1","revision":{},"available":true,'
    '"capabilities":{{"snapshot":true,"events":true}},"fleet":{{"version":1,"entries":[],'
    '"totalActive":0,"topLevelAsyncCapacity":{{"used":0,"limit":4}},"omitted":0}},"runs":[],'
    '"omitted":{{"runs":0,"children":0}}}},"id":"q1"}}'
)


@pytest.mark.parametrize(
    ("revision", "valid"),
    [
        ("5", True),
        ("5.0", True),
        ("5e0", True),
        ("9007199254740991.0", True),
        ("9007199254740991.0000001", False),  # over the maximum, read exactly
        ("9007199254740992", False),
        ("2.0000000000000001", False),  # not an integer, read exactly
        ("1e400", False),
        ("-1e-400", False),  # below the minimum 0, though a double would round it to -0.0
        ("1e-400", False),  # not an integer
    ],
)
def test_both_engines_judge_numbers_exactly(revision: str, valid: bool) -> None:
    value, faults = parse(SA_LINE.format(revision).encode())
    assert faults == ()
    eng = engine("subagent-stdio")
    assert bool(eng.is_valid_fast(value)) is valid
    assert eng.is_valid_reference(value) is valid
    if not valid:
        assert {e.pointer for e in eng.explain(value)} == {"/data/revision"}


# -- one nesting limit, whoever calls ------------------------------------------------------------


def _deep_call(frames: int, fn: Any) -> Any:
    return fn() if frames == 0 else _deep_call(frames - 1, fn)


def _nested_line(depth: int) -> bytes:
    """A stream-json system line whose ``extension`` makes the whole line ``depth`` deep."""
    inner = depth - 2  # the line object and the extension object
    return (b'{"type":"system","subtype":"x","session_id":"s","seq":0,"ts":"2026-03-01T10:00:00Z",'
            b'"extension":{"a":' + b"[" * inner + b"]" * inner + b"}}\n")


@pytest.mark.parametrize("frames", [0, 300, 800])
@pytest.mark.parametrize(("depth", "limited"), [(300, False), (1000, False), (MAX_DEPTH, False),
                                                (MAX_DEPTH + 1, True)])
def test_the_depth_limit_does_not_depend_on_the_callers_stack(frames: int, depth: int, limited: bool) -> None:
    data = _nested_line(depth)
    assert nesting(data.rstrip(b"\n")) == depth
    report = _deep_call(frames, lambda: contract.check(data, wire="stream-json"))
    assert ("line.limit" in report.rules()) is limited
    assert "line.json" not in report.rules()


def test_a_deep_line_behind_a_huge_number_is_measured_too() -> None:
    body = b'{"n":1e400,"a":' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}"
    value, faults = parse(body)
    assert value is None
    assert [f.rule for f in faults] == ["line.limit"]


# -- numbers do not cascade ----------------------------------------------------------------------


def test_a_huge_number_in_a_line_does_not_cascade_into_stream_rules() -> None:
    stream = [
        {"type": "system", "subtype": "init", "session_id": "sess_1", "seq": 0, "ts": "2026-03-01T10:00:00Z",
         "agent": {"name": "milk", "provider": "p", "model": "m"}, "capabilities": ["stream_v1"],
         "cwd": "/w", "tools": [], "extension": {"n": "@"}},
        {"type": "result", "subtype": "success", "session_id": "sess_1", "seq": 1, "ts": "2026-03-01T10:00:01Z",
         "is_error": False, "result": "", "num_turns": 1, "duration_ms": 1,
         "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read": 0, "cache_creation": 0},
         "model_usage": {}},
    ]
    data = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in stream)
    for number in ("1e400", "-1e400", "1e-400"):
        report = contract.check(data.replace('"@"', number).encode(), wire="stream-json")
        assert report.conformant, report.violations


# -- the subagent machines' bounds -------------------------------------------------------------


def _event(epoch: str, revision: int) -> str:
    return (f'{{"type":"subagent_event","version":1,"sessionId":"s","epoch":"{epoch}","revision":{revision},'
            f'"snapshot":{{"version":1,"sessionId":"s","epoch":"{epoch}","revision":{revision},"available":true,'
            '"capabilities":{"snapshot":true,"events":true},"fleet":{"version":1,"entries":[],'
            '"totalActive":0,"topLevelAsyncCapacity":{"used":0,"limit":4},"omitted":0},"runs":[],'
            '"omitted":{"runs":0,"children":0}}}\n')


def _epochs(count: int, then: str = "") -> bytes:
    return ("".join(_event(f"e{i}", 1) for i in range(count)) + then).encode()


def test_epochs_up_to_the_bound_are_judged_without_a_limit_finding() -> None:
    # every epoch kept: a revision going back in the first epoch, seen last, still fires
    data = _epochs(conversation.MAX_EPOCHS, _event("e0", 0))
    report = contract.check(data, wire="subagent-stdio")
    assert report.rules() == {"sa.revision-order"}


def test_reaching_the_epoch_bound_is_reported_once_and_known_epochs_stay_judged() -> None:
    data = _epochs(conversation.MAX_EPOCHS + 3, _event("e0", 0))
    report = contract.check(data, wire="subagent-stdio")
    limits = [v for v in report.violations if v.rule == "checker.limit"]
    assert len(limits) == 1
    assert limits[0].line == conversation.MAX_EPOCHS + 1
    assert "sa.revision-order" in limits[0].message
    assert str(conversation.MAX_EPOCHS) in limits[0].message
    assert "sa.revision-order" in report.rules()  # e0 was remembered: its going back is judged
    assert not report.conformant


def test_long_epochs_are_remembered_by_digest_and_still_compared() -> None:
    long = "e" * 10_000
    report = contract.check((_event(long, 5) + _event(long, 4) + _event(long + "x", 1)).encode(),
                            wire="subagent-stdio")
    assert [v.line for v in report.violations if v.rule == "sa.revision-order"] == [2]


def _command(i: int) -> str:
    return f'{{"type":"subagent_status","version":1,"id":"q{i}"}}\n'


def test_responses_before_any_command_past_the_listed_ones_are_counted() -> None:
    early = conversation.MAX_EARLY + 5
    response = SA_LINE.format(1).replace(',"id":"q1"', "") + "\n"
    report = contract.check((response * early + _command(1)).encode(), wire="subagent-stdio")
    found = [v for v in report.violations if v.rule == "sa.response-correlation"]
    # MAX_EARLY listed, one counting the other five, one for the unanswered command
    assert len(found) == conversation.MAX_EARLY + 2
    assert any("found 5 more before any command" in v.message for v in found)


def test_responses_before_any_command_within_the_bound_are_listed() -> None:
    response = SA_LINE.format(1).replace(',"id":"q1"', "") + "\n"
    report = contract.check((response * 3 + _command(1)).encode(), wire="subagent-stdio")
    found = [v for v in report.violations if v.rule == "sa.response-correlation"]
    assert [v.line for v in found] == [1, 2, 3, 4]
    assert not any("more before any command" in v.message for v in found)


def test_unanswered_commands_past_the_bound_are_a_checker_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversation, "MAX_PENDING", 4)
    report = contract.check("".join(_command(i) for i in range(6)).encode(), wire="subagent-stdio")
    assert [v.line for v in report.violations if v.rule == "checker.limit"] == [5]
    assert "sa.response-correlation" not in report.rules()  # no false finding past the bound
    report = contract.check("".join(_command(i) for i in range(4)).encode(), wire="subagent-stdio")
    assert "checker.limit" not in report.rules()
    assert [v.line for v in report.violations if v.rule == "sa.response-correlation"] == [1, 2, 3, 4]


# -- defensive reads ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["null", "true", "[]", "{}", '[[]]', '{"a":{}}', '"7"', "1e400", "-1",
                                   "2.0000000000000001"])
def test_any_json_kind_in_an_integer_field_is_a_schema_finding_not_an_exception(value: str) -> None:
    fields = ('"revision":1', '"totalActive":0', '"used":0', '"limit":4', '"omitted":0', '"runs":0')
    for field in fields:
        name = field.split(":")[0]
        data = SA_LINE.format(1).replace(field, f"{name}:{value}", 1)
        assert data != SA_LINE.format(1)
        report = contract.check((_command(1) + data + "\n").encode(), wire="subagent-stdio")
        assert "checker.internal" not in report.rules()
        assert "sa.schema" in report.rules(), (field, value)
