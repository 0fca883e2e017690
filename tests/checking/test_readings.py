"""The rule machines judge every reading of a line whose repeated member names read two ways
(contract/checking/readings.py): bounded, and failing closed at the bound and on a copy's error."""

from __future__ import annotations

import pytest

import contract
from contract.checking import readings

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
