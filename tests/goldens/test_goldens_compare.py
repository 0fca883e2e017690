"""Comparing an actual transcript with a golden: what differs, where, and additive or not."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from contract.checking.schema import load as load_schema
from contract.goldens import compare as golden_compare
from contract.goldens import rewrite as golden_rewrite
from contract.goldens import store as goldens
from contract.goldens.compare import ADDITIVE, BREAKING, Comparison

Lines = list[dict[str, Any]]


def _golden(wire: str, name: str) -> bytes:
    return goldens.load(wire, name).data()


def _edit(data: bytes, change: Callable[[Lines], None]) -> bytes:
    lines = [json.loads(line) for line in data.splitlines()]
    change(lines)
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _compare(name: str, change: Callable[[Lines], None], wire: str = "stream-json") -> Comparison:
    golden = _golden(wire, name)
    return golden_compare.compare(golden, _edit(golden, change), wire)


def test_a_dropped_result_field_is_breaking_and_named() -> None:
    comparison = _compare("hello", lambda lines: lines[-1].pop("num_turns"))
    (difference,) = comparison.differences
    assert difference.kind == BREAKING
    assert difference.change == "removed"
    assert difference.pointer == "/num_turns"
    assert difference.line == 3
    assert "num_turns" in str(difference)


def test_an_added_optional_field_is_additive() -> None:
    def add(lines: Lines) -> None:
        lines[-1]["total_cost_usd"] = 0.0042
        lines[0]["agent"]["role"] = "primary"  # already there: no difference
        lines[1]["message"]["content"][0]["_meta"] = {"cached": True}

    comparison = _compare("hello", add)
    assert {(d.pointer, d.kind) for d in comparison.differences} == {
        ("/total_cost_usd", ADDITIVE), ("/message/content/0/_meta", ADDITIVE)}
    assert not comparison.breaking


def test_a_member_the_schema_forbids_is_breaking_not_drift() -> None:
    """additionalProperties: false on the result line: a member it does not name fails sj.schema,
    so the diff calls it breaking (it was "additive", and the pytest summary "additive drift")."""
    comparison = _compare("hello", lambda lines: lines[-1].update(cost_estimate=1))
    (difference,) = comparison.differences
    assert difference.kind == BREAKING
    assert "forbidden" in difference.reason
    assert "additionalProperties" in difference.reason
    assert not comparison.additive


def test_a_new_member_inside_a_free_form_payload_is_not_called_forbidden() -> None:
    """Near miss: tool_use.input is free-form (no schema applies below it), so nothing there is forbidden."""
    def add(lines: Lines) -> None:
        for line in lines:
            for block in (line.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    block["input"]["brand_new"] = 1
                    return
        raise AssertionError("no tool_use block in the golden")

    comparison = _compare("tool_calls", add)
    assert comparison.differences
    assert all("forbidden" not in d.reason for d in comparison.differences)


def test_a_changed_type_is_breaking() -> None:
    comparison = _compare("hello", lambda lines: lines[-1].update(num_turns="1"))
    (difference,) = comparison.differences
    assert (difference.kind, difference.change, difference.pointer) == (BREAKING, "type",
                                                                        "/num_turns")
    assert "integer" in difference.reason
    assert "string" in difference.reason


@pytest.mark.parametrize(("before", "after"), [(1, 1.0), (True, 1), (0, False), ([1, True],
                                                                                  [1.0, 1])])
def test_equal_looking_values_of_other_types_differ(before: Any, after: Any) -> None:
    golden = b'{"a":%s}\n' % json.dumps({"x": before}).encode()
    actual = b'{"a":%s}\n' % json.dumps({"x": after}).encode()
    comparison = golden_compare.compare(golden, actual, "stream-json")
    assert comparison.breaking, f"{before!r} vs {after!r} compared equal"
    assert all(d.change == "type" for d in comparison.differences)


def test_one_vs_one_point_zero_on_a_wire_field() -> None:
    comparison = _compare("hello", lambda lines: lines[-1]["usage"].update(cache_creation=0.0))
    (difference,) = comparison.differences
    assert difference.pointer == "/usage/cache_creation"
    assert difference.change == "type"


def test_a_changed_value_is_breaking() -> None:
    comparison = _compare("refused", lambda lines: lines[-1].update(is_error=True))
    assert [(d.pointer, d.change) for d in comparison.breaking] == [("/is_error", "changed")]


def test_a_missing_line_is_reported_once() -> None:
    def drop(lines: Lines) -> None:
        del lines[3]
        for seq, line in enumerate(lines, start=1):
            line["seq"] = seq

    comparison = _compare("tool_calls", drop)
    (difference,) = comparison.differences
    assert (difference.change, difference.golden_line, difference.actual_line) == (
        "missing line", 4, None)


def test_an_extra_line_is_breaking() -> None:
    comparison = _compare("hello", lambda lines: lines.insert(2, dict(lines[1])))
    assert next((d.change, d.actual_line) for d in comparison.breaking) == ("extra line", 3)


def test_an_unparsable_line_is_breaking() -> None:
    golden = _golden("stream-json", "hello")
    actual = golden.replace(b'"seq":2,', b'"seq":2,,')
    comparison = golden_compare.compare(golden, actual, "stream-json")
    assert [d.change for d in comparison.differences] == ["unparsable line"]


def test_subagent_optional_node_field_is_additive_and_required_one_breaking() -> None:
    def change(lines: Lines) -> None:
        run = lines[1]["data"]["runs"][0]
        run["error"] = "transient"
        del run["omittedChildren"]

    comparison = _compare("terminal_states", change, wire="subagent-stdio")
    kinds = {d.pointer: d.kind for d in comparison.differences}
    assert kinds == {"/data/runs/0/error": BREAKING, "/data/runs/0/omittedChildren": BREAKING}


def test_subagent_new_optional_member_is_additive() -> None:
    comparison = _compare("workflow_events",
                          lambda lines: lines[1]["data"]["runs"][0].update(currentTool="Bash"),
                          wire="subagent-stdio")
    (difference,) = comparison.differences
    assert (difference.kind, difference.pointer) == (ADDITIVE, "/data/runs/0/currentTool")


def test_the_comparison_serialises() -> None:
    comparison = _compare("hello", lambda lines: lines[-1].pop("usage"))
    data = json.loads(json.dumps(comparison.to_json()))
    assert data["breaking"] == 1
    assert data["differences"][0]["pointer"] == "/usage"
    assert "breaking" in comparison.summary()


def test_find_reads_a_golden_by_its_transcript_path() -> None:
    golden = goldens.load("subagent-stdio", "unavailable")
    assert goldens.find(golden.path) == golden
    assert golden.reproduce.exit_status == 0
    assert golden.provenance.authored


def test_a_missing_golden_or_bad_meta_is_an_error(tmp_path: Any) -> None:
    with pytest.raises(FileNotFoundError):
        goldens.load("stream-json", "no_such_scenario")
    wire = tmp_path / "stream-json"
    wire.mkdir()
    (wire / "x.jsonl").write_bytes(b"")
    (wire / "x.meta.json").write_text('{"description": "x"}')
    with pytest.raises(ValueError, match="reproduce"):
        goldens.find(wire / "x.jsonl")


def _move(lines: Lines, source: int, target: int) -> None:
    lines.insert(target, lines.pop(source))


def test_where_a_command_falls_among_events_is_not_a_difference() -> None:
    # workflow_events: 1 command, 2 response, 3-5 events, 6 command, 7 response
    comparison = _compare("workflow_events", lambda lines: _move(lines, 5, 2),
                          wire="subagent-stdio")
    assert comparison.equal, comparison.summary()


def test_the_hosts_own_order_is_compared() -> None:
    comparison = _compare("workflow_events", lambda lines: _move(lines, 6, 2),
                          wire="subagent-stdio")
    assert comparison.breaking


def test_command_groups_keep_pipelining() -> None:
    groups = goldens.load("subagent-stdio", "first_poll").command_groups()
    assert [[c.get("id") for c in group] for group in groups] == [["poll-1"], [None, "poll-2"]]


def test_rewrite_records_the_new_transcript_and_its_provenance(tmp_path: Any) -> None:
    source = goldens.load("stream-json", "hello")
    folder = tmp_path / "stream-json"
    folder.mkdir()
    (folder / "hello.jsonl").write_bytes(source.data())
    (folder / "hello.meta.json").write_bytes(source.meta_path.read_bytes())
    golden = goldens.find(folder / "hello.jsonl")
    # an optional member of the result line, read from the golden and the schema in force (an ADR
    # that renames or removes one leaves this test as it is)
    last = json.loads(source.data().splitlines()[-1])
    required = set(load_schema("stream-json")["required"]) | {"type", "subtype", "is_error"}
    dropped = next(name for name in reversed(list(last)) if name not in required)
    new = _edit(source.data(), lambda lines: lines[-1].pop(dropped))
    assert goldens.emitter_version(new, "stream-json") == "0.42.0"
    comparison = golden_rewrite.rewrite(golden, new, "./milk", "0.43.0", "2026-12-01")
    assert [d.pointer for d in comparison.breaking] == [f"/{dropped}"]
    again = goldens.find(folder / "hello.jsonl")
    assert again.data() == new
    assert (again.provenance.emitter, again.provenance.version) == ("./milk", "0.43.0")
    assert again.description == source.description


# -- one line more or less is one difference (issue 47) ---------------------------------------------


def _one_line(data: bytes, how: str, at: int) -> bytes:
    """``data`` with a log line before line ``at`` (``banner``), line ``at`` twice (``extra``) or without
    it (``drop``); seq renumbered as a build numbers what it prints."""
    objs = [json.loads(line) for line in data.splitlines()]
    if how == "extra":
        objs.insert(at, dict(objs[at]))
    elif how == "drop":
        del objs[at]
    if how != "banner":
        for number, obj in enumerate(objs):
            obj["seq"] = number + json.loads(data.splitlines()[0])["seq"]
    lines = [json.dumps(obj) for obj in objs]
    if how == "banner":
        lines.insert(at, "milk: a log line on stdout")
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("how", ["banner", "extra", "drop"])
def test_one_line_more_or_less_anywhere_is_one_difference(how: str) -> None:
    """Every stream-json golden, a line added, printed twice or dropped at every place: exactly one
    difference, never a /seq change on every later line nor ids renumbered after it (a dropped
    line that first named a message id made every later id differ)."""
    for golden in goldens.scenarios("stream-json"):
        data = golden.data()
        for at in range(len(data.splitlines())):
            comparison = golden_compare.compare(data, _one_line(data, how, at), "stream-json")
            assert len(comparison.differences) == 1, (golden.name, at, [str(d) for d in comparison.differences])
            (difference,) = comparison.differences
            assert difference.change == ("missing line" if how == "drop" else "extra line"), (golden.name, at)


def test_a_wrong_reference_is_still_a_difference_after_a_dropped_line() -> None:
    """Near miss: ids are matched along the aligned lines, one to one, so a tool_result that names
    another call than the golden's is still found after a line was dropped before it."""
    data = _golden("stream-json", "tool_calls")
    objs = [json.loads(line) for line in data.splitlines()]
    results = [block for obj in objs for block in ((obj.get("message") or {}).get("content") or [])
               if isinstance(block, dict) and block.get("type") == "tool_result"]
    uses = [block["id"] for obj in objs for block in ((obj.get("message") or {}).get("content") or [])
            if isinstance(block, dict) and block.get("type") == "tool_use"]
    assert len(uses) >= 2
    assert results
    results[-1]["tool_use_id"] = next(u for u in uses if u != results[-1]["tool_use_id"])
    actual = _one_line(("\n".join(json.dumps(o) for o in objs) + "\n").encode(), "banner", 1)
    comparison = golden_compare.compare(data, actual, "stream-json")
    assert sorted(d.change for d in comparison.differences) == ["changed", "extra line"], comparison.summary()
