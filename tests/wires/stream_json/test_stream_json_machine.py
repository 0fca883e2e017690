"""The stream-json rule machine on its own: any JSON kind in any member, exact numbers, and its bounds.

The case files (tests/wires/stream_json/cases) show each rule firing and its near miss through the
whole checker; these tests reach what a case file cannot: number types the parser may hand over
(Decimal), bounds of 64 MiB (lowered here), and a sweep of every member of every golden line
replaced by every JSON kind.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any, cast

import pytest

import contract
from contract.core.jsonvalue import same_value
from contract.core.reader import Record
from contract.rules.report import Collector, Report
from contract.wires.stream_json.machines import StreamRules
from tests.support.depth import deep, sample
from tests.support.paths import ROOT

GOLDENS = ROOT / "goldens" / "stream-json"
S = "sess_01HZX3"

KINDS: list[Any] = [None, True, False, 0, -1, 1.5, 7.0, 1e300, Decimal("2.0000000000000001"), "", "x", [], {},
                    [[]], {"a": {}}]


def _deep(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


KINDS.append(_deep(300))


def _line(seq: Any, kind: str, ts: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "session_id": S, "seq": seq, "ts": ts or f"2026-03-01T10:00:{int(seq) % 60:02d}Z",
            **fields}


def _init() -> dict[str, Any]:
    return _line(0, "system", subtype="init", agent={"name": "milk", "provider": "p", "model": "m"},
                 capabilities=["stream_v1", "partial_messages_v1"], cwd="/w", tools=[])


def _result(seq: int) -> dict[str, Any]:
    return _line(seq, "result", subtype="success", is_error=False, result="ok", num_turns=1, duration_ms=1)


def _feed(objs: Sequence[dict[str, Any] | None], machine: StreamRules | None = None) -> Report:
    report = Report("stream-json")
    out = Collector(report)
    rules = machine or StreamRules()
    for line, obj in enumerate(objs, 1):
        rules.feed(Record(line, b"", obj), out)
    rules.finish(out)
    return report


def _rules(report: Report) -> dict[str, int]:
    return dict(report.counts)


# -- D1: seq by exact value, whatever number type arrives -------------------------------------

@pytest.mark.parametrize(
    ("seqs", "back", "steps"),
    [
        ([0, 1, 2, 3], 0, 0),
        ([0, 1.0, 2.0, 3.0], 0, 0),
        ([Decimal("0"), Decimal("1.0"), Decimal("20e-1"), Decimal("3")], 0, 0),
        ([0, 1, Decimal("3.0"), 4], 0, 1),  # a gap: contiguity's (derived)
        ([0, 1, 1.0, 2], 0, 1),  # a repeat: contiguity's too (monotonic allows it)
        ([0, Decimal("1.0"), Decimal("1.0"), Decimal("99.0")], 0, 2),  # a repeat, then a gap
        ([0, 1, 2, Decimal("1.0"), 2], 1, 0),  # a step back: monotonic's (written), then one step on
    ],
)
def test_seq_is_judged_by_exact_value(seqs: list[Any], back: int, steps: int) -> None:
    objs = [_init() | {"seq": seqs[0]}] + [_line(s, "system", subtype="state") for s in seqs[1:-1]]
    objs.append(_result(0) | {"seq": seqs[-1]})
    found = _rules(_feed(objs))
    assert (found.get("sj.seq", 0), found.get("sj.seq-contiguous", 0)) == (back, steps)


def test_a_non_integral_seq_read_exactly_is_no_integer() -> None:
    """2.0000000000000001 read exactly is not 2: the schema's finding, and no seq finding either way."""
    objs = [_init(), _line(1, "system", subtype="state"),
            _line(Decimal("2.0000000000000001"), "system", subtype="state"), _result(3)]
    assert not {"sj.seq", "sj.seq-contiguous"} & set(_rules(_feed(objs)))
    objs[2]["seq"] = Decimal("2.5")
    objs[3]["seq"] = 2  # would be a repeat of the skipped line's place if 2.5 were read as 2
    assert _rules(_feed(objs)).get("sj.seq-contiguous") == 1


def test_a_seq_longer_than_the_checker_reads_is_a_checker_limit_not_a_pass() -> None:
    objs = [_init(), _line(Decimal("1e5000"), "system", subtype="state", ts="2026-03-01T10:00:01Z"),
            _line(7, "system", subtype="state"), _result(8)]
    report = _feed(objs)
    assert _rules(report) == {"checker.limit": 1}
    (limit,) = report.violations
    assert (limit.line, limit.pointer) == (2, "/seq")
    assert "sj.seq" in limit.message
    assert not report.conformant


def test_token_counts_are_judged_by_value() -> None:
    usage = {"input_tokens": 10.0, "output_tokens": 5, "cache_read": 0, "cache_creation": Decimal("0.0")}
    per_model: dict[str, dict[str, float | Decimal]] = {
        "m": {"input_tokens": 10, "output_tokens": 5e0, "cache_read": 0.0, "cache_creation": 0}}
    objs = [_init(), _result(1) | {"usage": usage, "model_usage": per_model}]
    assert "sj.usage-rollup" not in _rules(_feed(objs))
    per_model["m"]["input_tokens"] = Decimal("9.0")
    assert _rules(_feed(objs)).get("sj.usage-rollup") == 1


def test_reassembly_compares_numbers_by_exact_value_and_keeps_booleans_apart() -> None:
    assert same_value({"n": 1}, {"n": 1.0})
    assert same_value([Decimal("1.00")], [1])
    assert not same_value({"n": 1}, {"n": True})
    assert not same_value([0], [False])
    assert not same_value([Decimal("2.0000000000000001")], [2])
    assert not same_value([1], ["1"])


# -- D9: bounds emit checker.limit once, and stop the check instead of guessing ---------------

def _tool_call(seq: int, ref: str, fragments: list[str], final: Any) -> list[dict[str, Any]]:
    lines = [_line(seq + i, "stream_event", event={"type": "tool_args_delta", "tool_use_id": ref, "partial_json": f})
             for i, f in enumerate(fragments)]
    lines.append(_line(seq + len(fragments), "assistant", agent="primary", message={
        "role": "assistant", "content": [{"type": "tool_use", "id": ref, "name": "Read", "input": final}]}))
    return lines


def _renumber(objs: list[dict[str, Any]]) -> None:
    for seq, obj in enumerate(objs):
        obj["seq"], obj["ts"] = seq, f"2026-03-01T10:{seq // 60:02d}:{seq % 60:02d}Z"


def _calls(*calls: tuple[str, list[str], Any]) -> list[dict[str, Any]]:
    objs = [_init()]
    for ref, fragments, final in calls:
        objs += _tool_call(len(objs), ref, fragments, final)
    objs.append(_result(len(objs)))
    _renumber(objs)
    return objs


def test_pending_fragments_bound_is_a_checker_limit_and_no_false_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StreamRules, "MAX_PENDING_BYTES", 400)
    big = '{"text":"' + "a" * 300 + '"}'
    halves = [big[:150], big[150:]]
    # tu_1 fits; tu_2's second half passes the bound (line 5); tu_3, after it, mismatches.
    objs = _calls(("tu_1", ['{"a":', "1}"], {"a": 1}), ("tu_2", halves, json.loads(big)),
                  ("tu_3", ['{"a":1}'], {"a": 2}))
    report = _feed(objs)
    assert _rules(report) == {"checker.limit": 1}
    (limit,) = report.violations
    assert limit.line == 6
    assert "sj.tool-args-reassembly" in limit.message
    assert "400" in limit.message
    assert not report.conformant


def test_under_the_pending_bound_reassembly_is_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StreamRules, "MAX_PENDING_BYTES", 400)
    objs = _calls(("tu_1", ['{"a":', "1}"], {"a": 1}), ("tu_2", ['{"a":1}'], {"a": 2}))
    assert _rules(_feed(objs)) == {"sj.tool-args-reassembly": 1}  # the budget is returned as calls complete
    objs = _calls(*((f"tu_{i}", ['{"text":"' + "a" * 100, '"}'], {"text": "a" * 100}) for i in range(20)))
    assert _rules(_feed(objs)) == {}


def test_remembered_tool_use_ids_bound_is_a_checker_limit_and_no_false_ref(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StreamRules, "MAX_TOOL_USE_BYTES", 3 * (StreamRules.ENTRY_OVERHEAD + 4))
    objs = _calls(*((f"tu_{i}", [], {}) for i in range(5)))
    results = [_line(0, "user", agent="primary", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": f"tu_{i}", "content": "x"}]}) for i in range(5)]
    objs[-1:-1] = results
    objs.insert(-1, _line(0, "assistant", agent="primary", parent_tool_use_id="tu_4",
                          message={"role": "assistant", "content": []}))
    _renumber(objs)
    report = _feed(objs)
    assert _rules(report) == {"checker.limit": 1}
    (limit,) = report.violations
    assert limit.line == 5
    assert "sj.tool-result-ref" in limit.message
    # Under the bound, an unknown id still fires.
    objs[6]["message"]["content"][0]["tool_use_id"] = "tu_404"
    monkeypatch.setattr(StreamRules, "MAX_TOOL_USE_BYTES", 1 << 20)
    assert _rules(_feed(objs)) == {"sj.tool-result-ref": 1}


def test_reassembly_beyond_the_checkers_limits_is_a_checker_limit() -> None:
    deep = "[" * 1100 + "]" * 1100
    report = _feed(_calls(("tu_1", [deep[:1100], deep[1100:]], [])))
    assert _rules(report) == {"checker.limit": 1}
    assert "sj.tool-args-reassembly" in report.violations[0].message


# -- issue 11: any JSON kind in any member, never an exception ---------------------------------

def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every member and item path of a line (depth-first), the line's own members first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield (*prefix, index)
            yield from _paths(item, (*prefix, index))


def _replaced(obj: Any, path: tuple[Any, ...], kind: Any) -> Any:
    """``obj`` with the value at ``path`` replaced, copying only the containers along the path."""
    if not path:
        return kind
    copied = copy.copy(obj)
    copied[path[0]] = _replaced(obj[path[0]], path[1:], kind)
    return copied


def _golden_streams(names: tuple[str, ...] | None = None) -> list[list[dict[str, Any]]]:
    paths = sorted(GOLDENS.glob("*.jsonl")) if names is None else [GOLDENS / f"{name}.jsonl" for name in names]
    return [[json.loads(line) for line in path.read_bytes().splitlines()] for path in paths]


# The default run sweeps two goldens that hold every line type and block kind (a sample of their
# mutations, below); the deep run every golden, every mutation.
SWEPT = None if deep() else ("tool_calls", "subagent_tasks")


def _judged(objs: list[Any], batch: bool) -> Report:
    report = Report("stream-json")
    rules = StreamRules()
    if batch:  # one line, then the rest as one batch: the batch path when the run is in step
        rules.feed_batch(1, objs[:1], Collector(report))
        rules.feed_batch(2, objs[1:], Collector(report))
    else:
        for line, each in enumerate(objs, 1):
            rules.feed(Record(line, b"", each), Collector(report))
    rules.finish(Collector(report))
    return report


# A path's kinds are listed together and SAMPLE_EVERY is below len(KINDS): in the default run's
# sample every member path keeps at least two kinds, rotating from path to path; the deep run all.
SAMPLE_EVERY = 3


def test_every_member_of_every_golden_line_may_hold_any_json_kind() -> None:
    """No exception from feed (any member, any depth) or feed_batch (the line's own members), and
    both report the same (issue 11's sweep, at the machine)."""
    swept = [(stream, index, path, kind) for stream in _golden_streams(SWEPT)
             for index, obj in enumerate(stream) for path in _paths(obj) for kind in KINDS]
    assert len(swept) > 3000
    mutations = 0
    for stream, index, path, kind in sample(swept, SAMPLE_EVERY):
        objs = [*stream[:index], _replaced(stream[index], path, kind), *stream[index + 1:]]
        one = _judged(objs, batch=False)
        if len(path) == 1:
            assert _judged(objs, batch=True).to_json() == one.to_json(), (path, kind)
        mutations += 1
    assert mutations > len(swept) // SAMPLE_EVERY


def test_type_confusion_through_the_checker_is_a_finding_never_an_internal_error() -> None:
    """The top-level members of one golden through contract.check: a report, and never checker.internal."""
    (stream,) = _golden_streams(("tool_calls",))
    # the kinds typed as any value (mypy cannot infer the empty list and dict in the literal)
    swept = [(index, obj, key, kind) for index, obj in enumerate(stream) for key in obj
             for kind in cast("tuple[object, ...]", (None, [], {}, [[]], 7.0, "x"))]
    # the default run: every 5th, so each member gets one or two kinds, rotating (6 kinds a member);
    # tests/checking/test_type_confusion.py sweeps every golden's members through the checker as well
    for index, obj, key, kind in sample(swept, 5):
        objs = [*stream[:index], obj | {key: kind}, *stream[index + 1:]]
        data = b"".join(json.dumps(o).encode() + b"\n" for o in objs)
        report = contract.check(data, wire="stream-json")
        assert "checker.internal" not in report.counts, (index, key, kind)


# -- issue 20: calls that never complete, fragments after their tool_use, the per-call bound ---

def _fragment(seq: int, ref: str, piece: str) -> dict[str, Any]:
    return _line(seq, "stream_event", event={"type": "tool_args_delta", "tool_use_id": ref, "partial_json": piece})


def test_one_calls_bound_is_a_checker_limit_for_that_call_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StreamRules, "MAX_CALL_BYTES", 100)
    big = '{"text":"' + "a" * 150 + '"}'
    # tu_1 passes its own bound (line 3): not judged, even at the end; tu_2 is still judged.
    objs = _calls(("tu_1", [big[:80], big[80:]], json.loads(big)), ("tu_2", ['{"a":1}'], {"a": 2}))
    report = _feed(objs)
    assert _rules(report) == {"checker.limit": 1, "sj.tool-args-reassembly": 1}
    limit = next(v for v in report.violations if v.rule == "checker.limit")
    assert limit.line == 3
    assert "'tu_1'" in limit.message
    assert "100" in limit.message
    dangling = [_init(), _fragment(1, "tu_1", big[:80]), _fragment(2, "tu_1", big[80:]), _result(3)]
    assert _rules(_feed(dangling)) == {"checker.limit": 1}  # no false "never completed" for it
    monkeypatch.setattr(StreamRules, "MAX_CALL_BYTES", 1 << 20)
    assert _rules(_feed(objs)) == {"sj.tool-args-reassembly": 1}  # under the bound: only tu_2 mismatches
    assert _rules(_feed(dangling)) == {"sj.tool-args-reassembly": 1}


def test_a_call_left_open_past_an_unreadable_line_is_not_judged() -> None:
    # its tool_use may be in the unreadable line: that line's own finding fails the stream
    objs: list[dict[str, Any] | None] = [_init(), _fragment(1, "tu_1", '{"a":'), None, _result(3)]
    assert "sj.tool-args-reassembly" not in _rules(_feed(objs))
    objs = [_init(), None, _fragment(2, "tu_1", '{"a":'), _result(3)]  # unreadable before: judged
    assert "sj.tool-args-reassembly" in _rules(_feed(objs))


def test_forgotten_tool_use_ids_stop_the_end_of_run_judgement(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StreamRules, "MAX_TOOL_USE_BYTES", 2 * (StreamRules.ENTRY_OVERHEAD + 4))
    objs = _calls(*((f"tu_{i}", [], {}) for i in range(3)))  # tu_2 is not remembered
    objs.insert(-1, _fragment(0, "tu_2", '{"late":1}'))  # after its forgotten tool_use: cannot be told
    _renumber(objs)
    report = _feed(objs)
    assert _rules(report) == {"checker.limit": 1}
    assert "sj.tool-args-reassembly" in report.violations[0].message


def test_result_last_says_when_the_last_line_was_unreadable() -> None:
    # the result line itself unreadable (too long, not JSON...): "no result" would be false words
    report = _feed([_init(), _line(1, "system", subtype="state"), None])
    (finding,) = [v for v in report.violations if v.rule == "sj.result-last"]
    assert finding.line == 3
    assert "unreadable" in finding.message
    assert "ending without one" not in finding.message
    # an unreadable line after a readable result: a line after the result, said to be unreadable
    report = _feed([_init(), _result(1), None])
    (finding,) = [v for v in report.violations if v.rule == "sj.result-last"]
    assert "after the terminal result on line 2" in finding.message
    assert "unreadable" in finding.message
    assert "non-object" not in finding.message
    # a stream that simply stops: the truncated-run words, as before
    report = _feed([_init(), _line(1, "system", subtype="state")])
    (finding,) = [v for v in report.violations if v.rule == "sj.result-last"]
    assert "ending without one" in finding.message


def _actors(count: int) -> list[dict[str, Any]]:
    """A run with ``count`` actors (the top level, then nested ones), each one message of one text block,
    the last one streamed in a text_delta that spells it."""
    objs = [_init(), _line(0, "assistant", agent="primary", message={"role": "assistant", "content": [
        {"type": "tool_use", "id": f"tu_{i}", "name": "Task", "input": {}} for i in range(1, count)]})]
    for i in range(1, count):
        parent = {"parent_tool_use_id": f"tu_{i}"}
        if i == count - 1:
            event = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}}
            objs.append(_line(0, "stream_event", event=event, **parent))
        objs.append(_line(0, "assistant", agent="primary", message={"id": f"msg_{i}", "role": "assistant",
                                                                     "content": [{"type": "text", "text": "hi"}]},
                          **parent))
    objs.append(_line(0, "user", agent="primary", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": f"tu_{i}", "content": "x"} for i in range(1, count)]}))
    objs.append(_result(0))
    _renumber(objs)
    return objs


def test_remembered_actors_bound_is_a_checker_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """sj.delta-reassembly remembers each actor's current message (frames are numbered across): past
    MAX_ACTORS actors it stops with a checker.limit finding, never a guess at a message's place."""
    from contract.wires.stream_json.deltas import DeltaReassembly

    monkeypatch.setattr(DeltaReassembly, "MAX_ACTORS", 4)
    report = _feed(_actors(4))
    assert _rules(report) == {}
    assert "sj.delta-reassembly" in report.exercised
    report = _feed(_actors(5))
    assert _rules(report) == {"checker.limit": 1}
    (limit,) = report.violations
    assert "sj.delta-reassembly" in limit.message
    assert "4 actors" in limit.message
    assert limit.line == 7  # the fifth actor's line (init, the calls, three actors' lines, its delta, then it)
